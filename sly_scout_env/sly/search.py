"""Sly's search parts: the adapter through which the generic ISMCTS bot searches Sly.

* ``root``: the row rebuilt from ``info["view"]`` (the redacted state dict) by
  :func:`sly_scout_env.sly.determinize.row_from_view`: opponents' hidden cards are
  placed canonically from the view alone.
* ``determinize``: :func:`sly_scout_env.sly.determinize.determinize`: each opponent's
  cards that are neither public nor known in hand are dealt uniformly over that
  opponent's face-down spaces and unknown hand places.
* ``edge_keys``: the observer's own moves and every Expose/Reveal are keyed by their
  action id; an opponent's Lay by its space only (``-1 - space``), since which card
  went face down is hidden.
* ``prior``: the greedy heuristic's action values (``heuristic.greedy_values``) from
  the observer's own observation, to rank the observer's moves (progressive widening).
* ``rollout``: compiled play to the end with ``policies.choose`` (random, greedy or neural:
  the shipped network, ``sly_scout_env.netpolicy``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sly_scout_env.ismcts import AdapterBase
from sly_scout_env.kernels import net_logits
from sly_scout_env.netpolicy import NO_NETS
from sly_scout_env.sly import policies as SP
from sly_scout_env.sly import rules as R
from sly_scout_env.sly.determinize import determinize, row_from_view
from sly_scout_env.sly.heuristic import greedy_values
from sly_scout_env.sly.observation import encode_observation, observation_size

ROLLOUT_STEP_CAP = 2_000  # Fox-only Reveals could loop for ever in principle


@njit(cache=True)
def edge_keys(state, observer, legal, keys):
    """Legal actions into ``legal`` and the observer's key of each into ``keys``; returns n."""
    n = R.legal_actions(state, legal)
    n_sp = state[R.NUM_SPACES]
    hidden = state[R.CURRENT_PLAYER] != observer
    for i in range(n):
        a = legal[i]
        if hidden and a < 7 * n_sp:
            keys[i] = -1 - (a % n_sp)  # an opponent's Lay: only the space is public
        else:
            keys[i] = a
    return n


@njit(cache=True)
def prior(state, observer, legal, n, rng, value, obs, row, work, pts, u):
    """The heuristic's value of each of the observer's moves ``legal[:n]`` into ``value``.

    Computed from the observer's own observation of ``state`` only (what it would see
    there), so it is no peek even in a determinized row.
    """
    encode_observation(state, observer, obs)
    greedy_values(obs, legal, n, state[R.NUM_PLAYERS], state[R.HEN_HOUSES], state[R.REVEAL_ALL], rng, 0,
                  value, row, work, pts, u)


@njit(cache=True)
def guide_inputs(state, obs, legal):
    """The mover's observation into ``obs`` and its legal actions into ``legal``; returns their count."""
    encode_observation(state, state[R.CURRENT_PLAYER], obs)
    return R.legal_actions(state, legal)


@njit(cache=True)
def rollout(state, policy, scratch, obs, prng, nets, step_cap):
    """Play ``state`` to the end (or ``step_cap`` more steps) with compiled ``policy``; returns 0, or -1 on error."""
    cap = state[R.STEPS] + step_cap
    while state[R.PHASE] != R.PHASE_GAME_OVER and state[R.STEPS] < cap:
        a = SP.choose(policy, state, scratch, obs, prng, nets)
        if a < 0 or R.apply_action(state, a, scratch) != 0:
            return -1
    return 0


# -- the compiled search's parts (sly_scout_env.ismcts: the signatures, one search kernel) --------
# iw, the integer workspace: the legal ids and greedy's workspace (SP.choose), the prior's
# row copy and work row, points per seat, final scores
IW_LEGAL = 0
IW_ROW = SP.CHOOSE_SCRATCH
IW_WORK = IW_ROW + R.ROW_SIZE
IW_PTS = IW_WORK + R.ROW_SIZE
IW_SCORES = IW_PTS + R.MAX_PLAYERS
IW_SIZE = IW_SCORES + R.MAX_PLAYERS
# fw, the float workspace: the prior's utilities per seat, then one value per action
FW_U = 0
FW_VALUES = R.MAX_PLAYERS
FW_SIZE = FW_VALUES + R.MAX_ACTIONS


@njit(cache=True)
def k_mover(row):
    return -1 if row[R.PHASE] == R.PHASE_GAME_OVER else row[R.CURRENT_PLAYER]


@njit(cache=True)
def k_determinize(row, observer, rng, iw, prm):
    determinize(row, observer, rng, 0)
    return 0


@njit(cache=True)
def k_seed(row, word, prng):
    row[R.RNG] = word
    prng[0] = SP.policy_seed(row, word)  # the rollout policy's own generator
    return 0


@njit(cache=True)
def k_edge_keys(row, observer, iw, legal, keys, prm):
    return edge_keys(row, observer, legal, keys)


@njit(cache=True)
def k_apply(row, action, iw):
    return R.apply_action(row, action, iw[:IW_ROW])


@njit(cache=True)
def k_prior(row, observer, legal, n, rng, out, iw, fw, obs):
    prior(row, observer, legal, n, rng, out, obs, iw[IW_ROW:IW_WORK], iw[IW_WORK:IW_PTS], iw[IW_PTS:IW_SCORES],
          fw[FW_U:FW_VALUES])
    return 0


@njit(cache=True)
def k_best_action(row, actions, m, rng, iw, fw, obs, nets, prng):
    """An opponent's hidden Lay: the card its heuristic lays there, judged from its own observation."""
    values = fw[FW_VALUES:]
    prior(row, row[R.CURRENT_PLAYER], actions, m, rng, values, obs, iw[IW_ROW:IW_WORK], iw[IW_WORK:IW_PTS],
          iw[IW_PTS:IW_SCORES], fw[FW_U:FW_VALUES])
    best = 0
    for i in range(1, m):
        if values[i] > values[best]:
            best = i
    return actions[best]


@njit(cache=True)
def k_policy_action(row, policy, iw, obs, prng, nets):
    return SP.choose(policy, row, iw[:IW_ROW], obs, prng, nets)


@njit(cache=True)
def k_rollout(row, policy, iw, obs, prng, nets):
    return rollout(row, policy, iw[:IW_ROW], obs, prng, nets, ROLLOUT_STEP_CAP)


@njit(cache=True)
def k_returns(row, out, iw, prm):
    scores = iw[IW_SCORES:IW_SIZE]
    R.scores(row, scores)
    for s in range(row[R.NUM_PLAYERS]):
        out[s] = float(scores[s])
    return 0


@njit(cache=True)
def k_observe(row, seat, obs, prm):
    """``seat``'s observation into ``obs`` (as the env gives it); returns its size."""
    d = observation_size(row[R.NUM_PLAYERS], row[R.HEN_HOUSES])
    encode_observation(row, seat, obs[:d])
    return d


@njit(cache=True)
def k_logits(row, seat, legal, n, iw, obs, nets, k, out, prm):
    """Network ``k``'s logits of the mover's moves ``legal[:n]`` from its observation (Sly's read it)."""
    k_observe(row, seat, obs, prm)
    net_logits(nets, k, obs, legal, n, out)
    return 0


# In the order of sly_scout_env.ismcts.KERNEL_NAMES.
KERNELS = (k_mover, k_determinize, k_seed, k_edge_keys, k_apply, k_prior, k_best_action, k_policy_action, k_rollout,
           k_returns, k_observe, k_logits)


class SearchAdapter(AdapterBase):
    """Sly for the generic ISMCTS (``sly_scout_env.agents.bots.ismcts``; the protocol is in its docstring)."""

    GAME = "sly"
    # No parameters of its own; the generic search parameters keep their defaults.
    PARAMS: dict = {}
    BOT_DEFAULTS: dict = {}

    def __init__(self, num_players: int, options: dict) -> None:
        opts = R.parse_options(num_players=num_players, **{k: v for k, v in (options or {}).items()
                                                           if k in ("hen_houses", "reveal_scope", "first_player")})
        self.num_players = opts["num_players"]
        self.options = opts
        self.num_actions = R.num_actions(opts["hen_houses"])
        self._template = R.new_state(**opts)
        self._scores = np.zeros(self.num_players, dtype=np.int64)
        # Scratch of the move prior (allocated once per adapter).
        self.observation_size = int(observation_size(opts["num_players"], opts["hen_houses"]))
        self._obs = np.zeros(self.observation_size, dtype=np.float32)
        self._row = np.zeros(R.ROW_SIZE, dtype=np.int64)
        self._work = np.zeros(R.ROW_SIZE, dtype=np.int64)
        self._pts = np.zeros(R.MAX_PLAYERS, dtype=np.int64)
        self._u = np.zeros(R.MAX_PLAYERS, dtype=np.float64)
        self._legal = np.zeros(SP.CHOOSE_SCRATCH, dtype=np.int64)  # legal ids, then greedy's workspace
        self._prng = np.zeros(1, dtype=np.int64)  # the compiled policies' own generator
        self._values = np.zeros(self.num_actions, dtype=np.float64)
        self._nets = NO_NETS  # the rollout network, set by policy_id("neural")

    def workspace(self):
        """(iw, fw, prm): the compiled search's workspaces and this adapter's parameters (``KERNELS``)."""
        return np.zeros(IW_SIZE, dtype=np.int64), np.zeros(FW_SIZE, dtype=np.float64), np.zeros(1, dtype=np.int64)

    def root(self, observation, action_mask, info) -> np.ndarray:
        return row_from_view(info["view"], self._template)

    def determinize(self, row, seat, rng_word) -> None:
        determinize(row, seat, rng_word, 0)

    def seed_row(self, row, word: int) -> None:
        row[R.RNG] = word
        self._prng[0] = SP.policy_seed(row, np.int64(word))  # the rollout policy's own generator

    def current_player(self, row) -> int:
        return int(row[R.CURRENT_PLAYER])

    def is_terminal(self, row) -> bool:
        return bool(row[R.PHASE] == R.PHASE_GAME_OVER)

    def edge_keys(self, row, observer, legal_out, keys_out) -> int:
        return int(edge_keys(row, observer, legal_out, keys_out))

    def apply(self, row, action) -> None:
        R.apply_action(row, action, self._legal)

    def rollout(self, row, policy_id) -> None:
        if rollout(row, policy_id, self._legal, self._obs, self._prng, self._nets, ROLLOUT_STEP_CAP) != 0:
            raise RuntimeError("sly rollout failed: a compiled policy returned no legal move")

    def prior(self, row, observer, legal, n, rng_word, out) -> None:
        prior(row, observer, legal, n, rng_word, out, self._obs, self._row, self._work, self._pts, self._u)

    def guide_inputs(self, row, obs_out, legal_out) -> int:
        """The mover's observation (as the env gives it) and its legal actions (for ``guide``)."""
        return int(guide_inputs(row, obs_out, legal_out))

    def best_action(self, row, actions, rng_word) -> int:
        n = len(actions)
        self._legal[:n] = actions
        prior(row, int(row[R.CURRENT_PLAYER]), self._legal, n, rng_word, self._values, self._obs, self._row, self._work,
              self._pts, self._u)
        return int(actions[int(np.argmax(self._values[:n]))])

    def policy_action(self, row, policy_id) -> int:
        a = int(SP.choose(policy_id, row, self._legal, self._obs, self._prng, self._nets))
        if a < 0:
            raise RuntimeError("sly policy returned no legal move")
        return a

    def horizon_of(self, row) -> int:
        """The search values the whole game: one stretch of play (see the Scout adapter's)."""
        return 0

    def returns(self, row):
        R.scores(row, self._scores)
        return self._scores

