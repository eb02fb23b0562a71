"""Scout's search parts: the adapter through which the generic ISMCTS bot searches Scout.

* ``root``: the row rebuilt from ``info["view"]`` (the redacted state dict) by
  :func:`sly_scout_env.scout.determinize.row_from_view`: hidden cards are placed
  canonically from the view alone, so the search never sees a card the seat cannot know.
* ``determinize``: :func:`sly_scout_env.scout.determinize.determinize`: the opponents'
  unknown hand cards and the 2-player set-aside half are re-dealt uniformly, order and
  orientation, around the public cards (active set, collected piles, scouted ``known``
  cards) and the public hand sizes; with ``belief=b`` (a whole number, 0 by default)
  :func:`~sly_scout_env.scout.determinize.determinize_believing` leans towards deals in
  which each scouted card sits next to a card it meets (an equal or neighbouring number),
  as a player who scouts usually places it.
* ``edge_keys``: every move is keyed by its action id (Shows and Scouts are public: the
  places, and the cards once played), except an opponent's round-start flip decision,
  which is private: both of its choices share the key ``-1``, so the observer's tree
  does not branch on it. Which of the two the opponent takes inside an iteration is
  ``best_action``: the opponent's own heuristic choice from its observation of the
  determinization (it turns to its better side), as ``sly_scout_env.agents.bots.ismcts`` does for hidden
  details with ``opponents="hybrid"``.
* Move pruning (``prune=True``): Scouts are tried only at places where the card meets
  an equal or neighbouring number, or at the ends of the hand (see ``_worth_trying``).
  Measured at 4 players (24 games against greedy): head-to-head 0.30 without pruning,
  0.51 with it (both with the older defaults c=0.7, value="mixed").
* ``prior``: the heuristic's value of each of the observer's moves (from its own
  observation), for the progressive widening ``top_k`` (on by default for Scout).
* ``rollout``: compiled play with ``policies.choose`` (random, greedy or neural: the
  shipped network, ``sly_scout_env.netpolicy``).

Horizon (what a rollout plays to)
---------------------------------
A full game is several rounds of about 15-40 moves each. By default (``horizon="round"``)
the search plays to the **end of the current round**: ``root`` sets the row's round count
to the current round + 1, so the engine scores this round and declares the game over.
Why not the whole game: later rounds are re-dealt from fresh shuffles, so playing them
adds rollout noise (and time) without information the current decision can use.

Value: ``returns`` gives, per seat, **this round's points + w * the totals before it**,
with ``w = 1 / (1 + rounds still to play after this one)``: in the last round (``w = 1``)
that is exactly the final game score; in earlier rounds the running totals count less,
since the later rounds can still overturn them. Why not the plain totals: a seat that
leads (or trails) by 20 points after two rounds saw every move of the third round score
a win share of 1 (or 0) and a saturated margin, so the search had nothing to choose
on (head-to-head against greedy at 4 players rose from 0.51 to 0.59 with the weighting).
``horizon="game"`` plays to the real end instead (later deals drawn at random) and
returns the final totals.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sly_scout_env.ismcts import AdapterBase
from sly_scout_env.kernels import net_feature_rows, net_logits, net_scores_actions
from sly_scout_env.netpolicy import NO_NETS
from sly_scout_env.scout import policies as SP
from sly_scout_env.scout import rules as R
from sly_scout_env.scout.determinize import MAX_HIDDEN, determinize_believing, row_from_view
from sly_scout_env.scout.features import action_features
from sly_scout_env.scout.heuristic import NEG, WORK_SIZE, action_values, make_work
from sly_scout_env.scout.observation import encode_observation, observation_size

ROLLOUT_STEP_CAP = 5_000  # a Scout round ends within a few hundred moves; a guard, not a limit in practice
HORIZONS = ("round", "game")

_POLICY_SALT = np.int64(0x2545F4914F6CDD1D)  # decorrelates the rollout policy's generator from the deal's


@njit(cache=True)
def _worth_trying(state, a):
    """Move pruning: a Scout (or Scout & Show) is tried only where its card meets a neighbour.

    Kept: every flip and Show; a Scout whose inserted number is equal or next to the number
    of a neighbouring card (it can extend a set or run), or that goes to either end of the
    hand (a lone card placed where it breaks nothing). The other places split the hand for
    nothing; dropping them cuts the branching from about 4 * (hand + 1) Scouts to a few.
    """
    H = state[R.O_MAX_HAND]
    scout_base = 2 + R.MAX_SHOW * H
    if a < scout_base:
        return True
    r = a - scout_base
    if r >= 4 * H:
        r -= 4 * H
    ef = r // H
    p = r % H
    al = state[R.O_ACTIVE_LEN]
    code = state[R.O_ACTIVE] if (ef >> 1) == 0 else state[R.O_ACTIVE + al - 1]
    v = (code & 15) if (ef & 1) else (code >> 4)
    cur = state[R.CURRENT_PLAYER]
    L = state[R.O_HAND_LEN + cur]
    if p == 0 or p == L:
        return True
    h = R.O_HANDS + cur * R.HAND_CAP
    return abs((state[h + p - 1] >> 4) - v) <= 1 or abs((state[h + p] >> 4) - v) <= 1


@njit(cache=True)
def edge_keys(state, observer, scratch, legal, keys, prune):
    """Legal actions (pruned if ``prune``) into ``legal``, the observer's key of each into ``keys``; returns n."""
    n = R.legal_actions(state, scratch)
    if n < 0:
        return n
    hidden_flip = state[R.PHASE] == R.PHASE_FLIP and state[R.CURRENT_PLAYER] != observer
    m = 0
    for i in range(n):
        a = scratch[i]
        if prune and not _worth_trying(state, a):
            continue
        legal[m] = a
        keys[m] = -1 if hidden_flip else a
        m += 1
    return m


@njit(cache=True)
def prior(state, observer, legal, n, obs, work, values, out):
    """The heuristic's value of each of the observer's moves ``legal[:n]`` into ``out`` (points).

    From the observer's own observation only; moves the heuristic does not consider get -1e9.
    """
    encode_observation(state, observer, obs)
    action_values(obs, legal, n, state[R.NUM_PLAYERS], work, values)
    for i in range(n):
        out[i] = -1e9 if values[i] == NEG else values[i] / 100.0


@njit(cache=True)
def guide_inputs(state, rounds, obs, scratch, legal):
    """The mover's observation into ``obs`` and its legal actions into ``legal``; returns their count.

    The observation shows the real game length ``rounds`` (the env's), not the row's, which
    the round horizon cuts short: the network must read what it was trained on.
    """
    cut = state[R.O_ROUNDS]
    state[R.O_ROUNDS] = rounds
    encode_observation(state, state[R.CURRENT_PLAYER], obs)
    state[R.O_ROUNDS] = cut
    n = R.legal_actions(state, scratch)
    for i in range(n):
        legal[i] = scratch[i]
    return n


@njit(cache=True)
def rollout(state, policy, scratch, obs, prng, nets, step_cap):
    """Play ``state`` to game over (or ``step_cap`` moves) with compiled ``policy``; returns 0, or -1 on error."""
    k = 0
    while state[R.PHASE] != R.PHASE_GAME_OVER and k < step_cap:
        a = SP.choose(policy, state, scratch, obs, prng, nets)
        if a < 0 or R.apply_action(state, a, scratch) != 0:
            return -1
        k += 1
    return 0


# -- the compiled search's parts (sly_scout_env.ismcts: the signatures, one search kernel) --------
# iw, the integer workspace: the legal-move scratch of SP.choose, the determinizer's pool and
# kept deal, the heuristic's work and the prior's values
IW_SCRATCH = 0
IW_POOL = SP.CHOOSE_SCRATCH
IW_KEPT = IW_POOL + MAX_HIDDEN
IW_WORK = IW_KEPT + MAX_HIDDEN
IW_VALUES = IW_WORK + WORK_SIZE
IW_SIZE = IW_VALUES + R.MAX_ACTIONS
# prm, the adapter's parameters
P_PRUNE = 0  # 1: move pruning (_worth_trying)
P_HORIZON = 1  # index into HORIZONS
P_ROUNDS = 2  # the real game length (the row's is cut to the horizon)
P_BELIEF = 3  # the weight of a deal that explains a Scout (determinize_believing; 0: uniform deals)
P_SIZE = 4


@njit(cache=True)
def k_mover(row):
    return -1 if row[R.PHASE] == R.PHASE_GAME_OVER else row[R.CURRENT_PLAYER]


@njit(cache=True)
def k_determinize(row, observer, rng, iw, prm):
    determinize_believing(row, observer, rng, 0, iw[IW_POOL:IW_KEPT], iw[IW_KEPT:IW_WORK], prm[P_BELIEF])
    return 0


@njit(cache=True)
def k_seed(row, word, prng):
    row[R.RNG] = word  # deals of later rounds (horizon "game")
    prng[0] = word ^ _POLICY_SALT  # the rollout policy's own generator
    return 0


@njit(cache=True)
def k_edge_keys(row, observer, iw, legal, keys, prm):
    return edge_keys(row, observer, iw[:IW_POOL], legal, keys, prm[P_PRUNE] != 0)


@njit(cache=True)
def k_apply(row, action, iw):
    return R.apply_action(row, action, iw[:IW_POOL])


@njit(cache=True)
def k_prior(row, observer, legal, n, rng, out, iw, fw, obs):
    prior(row, observer, legal, n, obs, iw[IW_WORK:IW_VALUES], iw[IW_VALUES:], out)
    return 0


@njit(cache=True)
def k_best_action(row, actions, m, rng, iw, fw, obs, nets, prng):
    """An opponent's private round-start flip: the mover's heuristic choice from its own observation."""
    a = SP.choose(SP.GREEDY, row, iw[:IW_POOL], obs, rng, nets)
    for i in range(m):
        if actions[i] == a:
            return a
    return actions[0]


@njit(cache=True)
def k_policy_action(row, policy, iw, obs, prng, nets):
    return SP.choose(policy, row, iw[:IW_POOL], obs, prng, nets)


@njit(cache=True)
def k_rollout(row, policy, iw, obs, prng, nets):
    return rollout(row, policy, iw[:IW_POOL], obs, prng, nets, ROLLOUT_STEP_CAP)


@njit(cache=True)
def k_returns(row, out, iw, prm):
    """Per seat: this round's points + ``weight`` * the totals before it (see Horizon)."""
    n = row[R.NUM_PLAYERS]
    later = prm[P_ROUNDS] - 1 - (row[R.O_ROUND] - 1)  # rounds still to play after the one just scored
    for s in range(n):
        total = float(row[R.O_SCORES + s])
        if prm[P_HORIZON] == 1:
            out[s] = total
        else:
            this_round = float(row[R.O_LAST_ROUND_SCORES + s])
            out[s] = this_round + (total - this_round) / (1 + later)
    return 0


@njit(cache=True)
def k_observe(row, seat, obs, prm):
    """``seat``'s observation into ``obs`` as the env gives it (the real game length, see guide_inputs)."""
    cut = row[R.O_ROUNDS]
    row[R.O_ROUNDS] = prm[P_ROUNDS]
    d = observation_size(row[R.NUM_PLAYERS])
    encode_observation(row, seat, obs[:d])
    row[R.O_ROUNDS] = cut
    return d


@njit(cache=True)
def k_logits(row, seat, legal, n, iw, obs, nets, k, out, prm):
    """Network ``k``'s logits of the mover's moves ``legal[:n]`` from its observation (either kind)."""
    d = k_observe(row, seat, obs, prm)
    if net_scores_actions(nets, k):  # an action scorer: the feature row of each move first
        rows = net_feature_rows(nets, k, obs, n)
        action_features(obs[:d], legal, n, row[R.NUM_PLAYERS], iw[R.S_SETB : R.SCRATCH_SIZE],
                        iw[R.SCRATCH_SIZE : R.SCRATCH_SIZE + n], rows)
    net_logits(nets, k, obs, legal, n, out)
    return 0


# In the order of sly_scout_env.ismcts.KERNEL_NAMES.
KERNELS = (k_mover, k_determinize, k_seed, k_edge_keys, k_apply, k_prior, k_best_action, k_policy_action, k_rollout,
           k_returns, k_observe, k_logits)


class SearchAdapter(AdapterBase):
    """Scout for the generic ISMCTS (``sly_scout_env.agents.bots.ismcts``; the protocol is in its docstring).

    Parameters of its own (``ismcts:horizon=game``): ``horizon`` (``"round"`` default, or
    ``"game"``), ``prune`` (default True) and ``belief`` (a whole number, default 0: uniform
    deals); see the module docstring.
    """

    GAME = "scout"
    # The adapter's own bot parameters and their defaults (the ismcts bot passes them on).
    PARAMS = {"horizon": "round", "prune": True, "belief": 0}
    # Scout's defaults of the generic search parameters. ``value="score"``: with the round
    # horizon, the win share of the running totals is flat for every move once one seat leads
    # clearly, while the squashed margin keeps telling moves apart (measured at 4 players, 24
    # games against greedy: head-to-head 0.62 with "mixed", 0.77 with "score"). ``top_k=3``:
    # progressive widening at the bot's own nodes to the ``3 + visits**0.25`` moves the
    # heuristic (``prior``) values most (same games: 0.81, and at 50 iterations 0.46 win rate
    # against greedy's 0.04, where without widening 50 iterations lose to greedy). With a
    # guide, no widening (the network's prior ranks the moves instead; with the widening too
    # the guided bot lost more) and ``guide_c=0.1`` (docs/experiments/guided-search.md).
    BOT_DEFAULTS = {"value": "score", "top_k": 3, "guided_top_k": None, "guide_c": 0.1}

    def __init__(self, num_players: int, options: dict, horizon: str = "round", prune: bool = True,
                 belief: int = 0) -> None:

        opts = R.parse_options(num_players=num_players, **{k: v for k, v in (options or {}).items()
                                                         if k in ("rounds", "ii_after_empty_set", "score_held_chips")})
        if horizon not in HORIZONS:
            raise ValueError(f"horizon={horizon!r} is not allowed; allowed values: {', '.join(HORIZONS)}")
        self.num_players = opts["num_players"]
        self.options = opts
        self.num_actions = int(R.num_actions(self.num_players))
        self.horizon = horizon
        self.rounds = opts["rounds"]  # the real game length (the row's is cut to the horizon)
        self.prune = bool(prune)
        if isinstance(belief, bool) or not isinstance(belief, int) or belief < 0:
            raise ValueError(f"belief={belief!r} is not allowed; give a whole number >= 0 (a deal that explains "
                             "a Scout counts 1 + belief times; 0: uniform deals)")
        self.belief = belief
        self._scratch = np.zeros(SP.CHOOSE_SCRATCH, dtype=np.int64)  # SP.choose's (a neural scorer's too)
        self.observation_size = int(observation_size(self.num_players))
        self._obs = np.zeros(self.observation_size, dtype=np.float32)
        self._prng = np.zeros(1, dtype=np.int64)
        self._pool = np.zeros(MAX_HIDDEN, dtype=np.int64)
        self._kept = np.zeros(MAX_HIDDEN, dtype=np.int64)
        self._work = make_work()
        self._values = np.zeros(self.num_actions, dtype=np.int64)
        self._nets = NO_NETS  # the rollout network, set by policy_id("neural")

    def workspace(self):
        """(iw, fw, prm): the compiled search's workspaces and this adapter's parameters (``KERNELS``)."""
        prm = np.zeros(P_SIZE, dtype=np.int64)
        prm[P_PRUNE] = int(self.prune)
        prm[P_HORIZON] = HORIZONS.index(self.horizon)
        prm[P_ROUNDS] = self.rounds
        prm[P_BELIEF] = self.belief
        return np.zeros(IW_SIZE, dtype=np.int64), np.zeros(1, dtype=np.float64), prm

    def root(self, observation, action_mask, info) -> np.ndarray:
        row = row_from_view(info["view"])
        if self.horizon == "round" and row[R.PHASE] != R.PHASE_GAME_OVER:
            row[R.O_ROUNDS] = row[R.O_ROUND] + 1  # the engine ends the game when this round is scored
        return row

    def determinize(self, row, seat, rng_word) -> None:
        determinize_believing(row, seat, rng_word, 0, self._pool, self._kept, self.belief)

    def seed_row(self, row, word: int) -> None:
        row[R.RNG] = word  # deals of later rounds (horizon "game")
        self._prng[0] = np.int64(word) ^ _POLICY_SALT  # the rollout policy's own generator

    def current_player(self, row) -> int:
        return int(row[R.CURRENT_PLAYER])

    def is_terminal(self, row) -> bool:
        return bool(row[R.PHASE] == R.PHASE_GAME_OVER)

    def edge_keys(self, row, observer, legal_out, keys_out) -> int:
        n = int(edge_keys(row, observer, self._scratch, legal_out, keys_out, self.prune))
        if n < 0:
            raise RuntimeError("scout engine error while listing legal moves (a hand over MAX_HAND)")
        return n

    def apply(self, row, action) -> None:
        if R.apply_action(row, action, self._scratch) != 0:
            raise RuntimeError(f"scout engine error applying action {action}")

    def prior(self, row, observer, legal, n, rng_word, out) -> None:
        """Heuristic value of the observer's moves (for ``top_k`` progressive widening)."""
        prior(row, observer, legal, n, self._obs, self._work, self._values, out)

    def guide_inputs(self, row, obs_out, legal_out) -> int:
        """The mover's observation (as the env gives it) and its unpruned legal actions (for ``guide``)."""
        n = int(guide_inputs(row, self.rounds, obs_out, self._scratch, legal_out))
        if n < 0:
            raise RuntimeError("scout engine error while listing legal moves (a hand over MAX_HAND)")
        return n

    def best_action(self, row, actions, rng_word) -> int:
        """Among moves the observer cannot tell apart (an opponent's private round-start flip),
        the one the mover's heuristic picks from its own observation of this determinization."""
        a = int(SP.choose(SP.GREEDY, row, self._scratch, self._obs, rng_word, self._nets))
        return a if a in actions else int(actions[0])

    def policy_action(self, row, policy_id) -> int:
        """The compiled policy's move for the player to move, from its own observation."""
        a = int(SP.choose(policy_id, row, self._scratch, self._obs, self._prng, self._nets))
        if a < 0:
            raise RuntimeError("scout policy returned no legal move")
        return a

    def rollout(self, row, policy_id) -> None:
        if rollout(row, policy_id, self._scratch, self._obs, self._prng, self._nets, ROLLOUT_STEP_CAP) != 0:
            raise RuntimeError("scout rollout failed: a compiled policy returned no legal move")

    def horizon_of(self, row) -> int:
        """Which stretch of play the search values in a game row (``horizon="round"``: the round;
        ``"game"``: 0). Self-play scores its decisions with :meth:`returns` when it changes."""
        return int(row[R.O_ROUND]) if self.horizon == "round" else 0

    def returns(self, row):
        """Per seat: this round's points + ``weight`` * the totals before it (see Horizon).

        Also on a game row just after a round was scored (the next round dealt): the same fields."""
        n = self.num_players
        totals = row[R.O_SCORES : R.O_SCORES + n].astype(np.float64)
        if self.horizon == "game":
            return totals
        this_round = row[R.O_LAST_ROUND_SCORES : R.O_LAST_ROUND_SCORES + n].astype(np.float64)
        played = int(row[R.O_ROUND]) - 1  # the round just scored (the row is over: its round count moved on)
        later = self.rounds - 1 - played  # rounds still to play after it
        return this_round + (totals - this_round) / (1 + later)
