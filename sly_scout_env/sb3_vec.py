"""A fast single-agent Stable-Baselines3 ``VecEnv`` on the batched engine.

:class:`SingleAgentVecEnv` is :class:`sly_scout_env.wrappers.SingleAgentEnv` for many
games at once, when every opponent is a compiled policy (``"random"`` or ``"greedy"``,
see ``sly_scout_env.<game>.policies``)::

    from sb3_contrib import MaskablePPO
    from sly_scout_env.sb3_vec import SingleAgentVecEnv

    venv = SingleAgentVecEnv("sly", 256, opponents="greedy", learner_seat="rotate", num_players=2, seed=0)
    model = MaskablePPO("MlpPolicy", venv).learn(100_000)

Each of the ``num_envs`` rows holds one game with one learner seat. ``step(actions)``
applies the learner's action in every row, then plays the opponents' moves inside one
compiled ``prange`` kernel until that row's learner is to act again or its game ends;
a finished game is restarted at once (SB3 autoreset) and its opponents move until the
learner's first turn. Nothing but the learner's decisions goes through Python.

Same semantics as ``SingleAgentEnv``:

- Observation: the learner's float32 observation, ``(num_envs, D)``; action space
  ``Discrete(A)`` of the game.
- ``action_masks()`` returns the learner's masks ``(num_envs, A)`` bool (there is always
  a learner to act: finished games are restarted in the same step);
  ``env_method("action_masks")``, what sb3-contrib's ``get_action_masks`` calls, gives
  the same rows.
- Reward: the learner's own reward in full, including points scored while the opponents
  moved (``reward="score"``: Scout pays round points as each round is scored, Sly the
  final points at the end, so an episode's rewards add up to the learner's final game
  total; ``reward="win"``: +1 shared by the winners, -1 shared by the others, at the end).
- ``dones[i]`` is True on the learner step that ended game ``i``; ``infos[i]`` then has
  ``"terminal_observation"`` (the learner's observation of the finished game),
  ``"scores"`` (final points per seat, float32) and ``"learner_seat"``, and the returned
  observation is the learner's first one in the next game.
- ``truncated``: with ``max_steps=T`` a game is cut after T actions (every seat's, as the
  AEC env counts them); the step that cuts it has ``dones[i]`` True and
  ``infos[i]["TimeLimit.truncated"]`` True (False when the game ended by the rules).
- ``learner_seat``: a seat number, or ``"rotate"`` (a row's k-th game puts the learner
  in seat ``k mod P``, counting from the last ``reset()``).
- ``opponents``: a policy name for every other seat, or a list of ``P - 1`` names given
  to the other seats in seat order (as ``SingleAgentEnv``).

Determinism: ``reset()`` after ``seed(s)`` (or the first ``reset()`` with the
constructor's ``seed=s``) deals row ``i`` from ``_rng.stream_words(s, i, 1)``, the
word ``ScoutVectorEnv`` / ``SlyVectorEnv`` use; later games of a row are dealt from words
drawn from the row's own generator. Opponent moves draw from a per-row policy generator
seeded at each deal with the game's ``policies.policy_seed``, as ``simulate`` does
(never from the row's generator, which deals). So a
row's games depend only on its seed and the learner's actions: not on the row index,
``num_envs`` or ``numba.set_num_threads``.

Stable-Baselines3 is imported only when :class:`SingleAgentVecEnv` is first used (it is
built on first access), so ``import sly_scout_env`` and ``import sly_scout_env.sb3_vec``
never need SB3 or torch.
"""

from __future__ import annotations

import os
import sys

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # see scout/batch.py: idle OpenMP workers must not spin

import numpy as np  # noqa: E402
from numba import njit, prange  # noqa: E402

from ._aec import REWARD_MODES, legal_actions_text  # noqa: E402
from .checks import check_action_id, check_choice  # noqa: E402
from ._rng import seed_word  # noqa: E402
from .kernels import win_rewards  # noqa: E402
from .scout import batch as SB  # noqa: E402
from .scout import policies as SP  # noqa: E402
from .scout import rules as SR  # noqa: E402
from .scout.observation import encode_observation as scout_observe  # noqa: E402
from ._rng import stream_words  # noqa: E402
from .simulation import STEP_CAP  # noqa: E402
from .sly import batch as YB  # noqa: E402
from .sly import policies as YP  # noqa: E402
from .sly import rules as YR  # noqa: E402
from .sly.observation import encode_observation as sly_observe  # noqa: E402

__all__ = ["SingleAgentVecEnv", "GAMES"]

GAMES = ("scout", "sly")
SERIAL_BELOW = 256  # batches smaller than this run on one thread: a parallel launch costs more

# Error codes a kernel writes to errors[i] (the Python side raises naming the row).
ERR_NONE = 0
ERR_ENGINE = 1  # the engine refused the learner's (checked) action: impossible under the rules
ERR_POLICY = 2  # a compiled opponent policy returned no legal action
ERR_NO_LEARNER_TURN = 3  # a game ended before the learner's first move
ERR_STEP_CAP = 4  # the opponents made STEP_CAP moves in a row without the learner's turn
_ERROR_TEXT = {
    ERR_ENGINE: "the engine refused the learner's action (impossible under the rules)",
    ERR_POLICY: "a compiled opponent policy returned no legal action",
    ERR_NO_LEARNER_TURN: "a game ended before the learner's first move",
    ERR_STEP_CAP: f"the opponents made {STEP_CAP} moves without the learner's turn",
}

# Per-row bookkeeping columns of ``meta`` (N, META) int64.
M_LEARNER = 0  # the learner's seat in the current game
M_EPISODE = 1  # games started in this row since the last reset() (drives "rotate")
M_STEPS = 2  # actions taken in the current game, every seat's (for max_steps, as the AEC env counts)
META = 3


# Settings of a batch, one int64 array ``cfg`` passed to every kernel.
C_FIXED_SEAT = 0  # the learner's seat, or -1 for "rotate"
C_MAX_STEPS = 1  # truncate a game after this many actions (every seat's), 0 = never
C_WIN = 2  # 1: reward="win", 0: reward="score"
CFG = 3


@njit(cache=True, inline="always")
def _truncated(meta, cfg):
    """``max_steps`` actions were taken in this game, every seat's counted (as the AEC env counts)."""
    return cfg[C_MAX_STEPS] > 0 and meta[M_STEPS] >= cfg[C_MAX_STEPS]


@njit(cache=True, inline="always")
def _seat_players(meta, cfg, opp_ids, seat_pol, num_p):
    """Seat the learner for the game about to start and the opponents' policies around it."""
    learner = cfg[C_FIXED_SEAT] if cfg[C_FIXED_SEAT] >= 0 else meta[M_EPISODE] % num_p
    meta[M_LEARNER] = learner
    meta[M_EPISODE] += 1
    meta[M_STEPS] = 0
    k = 0
    for s in range(num_p):  # the other seats take opp_ids in seat order (as SingleAgentEnv)
        if s == learner:
            seat_pol[s] = -1
        else:
            seat_pol[s] = opp_ids[k]
            k += 1
    return learner


# ----------------------------------------------------------------------------------------
# Scout kernels. ``prng[i, 0]`` is row i's policy generator (see the module docstring).
# ----------------------------------------------------------------------------------------
@njit(cache=True, inline="always")
def _scout_over(state):
    return state[SR.PHASE] == SR.PHASE_GAME_OVER


@njit(cache=True)
def _scout_play_opponents(state, scratch, prng, pobs, seat_pol, meta, cfg):
    """Opponents move until the learner is to act, the game is over or truncated; returns an error code."""
    learner = meta[M_LEARNER]
    k = 0
    while not _scout_over(state) and state[SR.CURRENT_PLAYER] != learner and not _truncated(meta, cfg):
        a = SP.choose(seat_pol[state[SR.CURRENT_PLAYER]], state, scratch, pobs, prng)
        if a < 0 or SR.apply_action(state, a, scratch) != 0:
            return ERR_POLICY
        meta[M_STEPS] += 1
        k += 1
        if k >= STEP_CAP:
            return ERR_STEP_CAP
    return ERR_NONE


@njit(cache=True)
def _scout_start(state, scratch, opts, prng, pobs, seat_pol, meta, opp_ids, cfg, word, points, obs, mask):
    """Deal a game from ``word``, seat the learner and opponents, play up to the learner's turn."""
    SB._reset_one(state, scratch, opts, word)
    prng[0] = SP.policy_seed(state, word)
    learner = _seat_players(meta, cfg, opp_ids, seat_pol, opts[0])
    err = _scout_play_opponents(state, scratch, prng, pobs, seat_pol, meta, cfg)
    if err == ERR_NONE and (_scout_over(state) or _truncated(meta, cfg)):
        err = ERR_NO_LEARNER_TURN
    # Points already paid (none before the learner's first move in practice): the learner's
    # first reward is the difference from here, as SingleAgentEnv discards the reset's rewards.
    SB.points_into(state, points)
    scout_observe(state, learner, obs)
    if SB._mask_one(state, mask, scratch) != 0 and err == ERR_NONE:
        err = ERR_ENGINE
    return err


@njit(cache=True, parallel=True)
def scout_reset_rows(states, scratch, opts, prng, pobs, seat_pol, meta, opp_ids, cfg, words, points, obs, masks,
                     errors):
    for i in prange(states.shape[0]):
        meta[i, M_EPISODE] = 0
        errors[i] = _scout_start(states[i], scratch[i], opts, prng[i], pobs[i], seat_pol[i], meta[i], opp_ids, cfg,
                                 words[i], points[i], obs[i], masks[i])


@njit(cache=True, inline="always")
def _scout_step_row(states, scratch, opts, prng, pobs, seat_pol, meta, opp_ids, cfg, actions, points, tmp, obs, masks,
                    rewards, dones, truncs, term_obs, final_scores, errors, i):
    state = states[i]
    num_p = opts[0]
    learner = meta[i, M_LEARNER]
    err = ERR_NONE
    if SR.apply_action(state, actions[i], scratch[i]) != 0:
        err = ERR_ENGINE
    else:
        meta[i, M_STEPS] += 1
        err = _scout_play_opponents(state, scratch[i], prng[i], pobs[i], seat_pol[i], meta[i], cfg)
    over = _scout_over(state)
    trunc = (not over) and _truncated(meta[i], cfg)
    # The learner's reward for its move and every opponent move after it: the points
    # differences telescope to (points now - points at its last turn).
    t = tmp[i]
    if cfg[C_WIN] == 0:
        SB.points_into(state, t)
        rewards[i] = t[learner] - points[i, learner]
    elif over:
        SB.scores_into(state, t)
        win_rewards(num_p, t)
        rewards[i] = t[learner]
    else:
        rewards[i] = 0.0
    dones[i] = over or trunc
    truncs[i] = trunc
    if (over or trunc) and err == ERR_NONE:
        SB.scores_into(state, t)
        for p in range(num_p):
            final_scores[i, p] = t[p]
        scout_observe(state, learner, term_obs[i])
        err = _scout_start(state, scratch[i], opts, prng[i], pobs[i], seat_pol[i], meta[i], opp_ids, cfg,
                           SB._new_word(state), points[i], obs[i], masks[i])
    elif err == ERR_NONE:
        SB.points_into(state, points[i])
        scout_observe(state, learner, obs[i])
        if SB._mask_one(state, masks[i], scratch[i]) != 0:
            err = ERR_ENGINE
    errors[i] = err


@njit(cache=True, parallel=True)
def scout_step_parallel(states, scratch, opts, prng, pobs, seat_pol, meta, opp_ids, cfg, actions, points, tmp, obs,
                        masks, rewards, dones, truncs, term_obs, final_scores, errors):
    for i in prange(states.shape[0]):
        _scout_step_row(states, scratch, opts, prng, pobs, seat_pol, meta, opp_ids, cfg, actions, points, tmp, obs,
                        masks, rewards, dones, truncs, term_obs, final_scores, errors, i)


@njit(cache=True)
def scout_step_serial(states, scratch, opts, prng, pobs, seat_pol, meta, opp_ids, cfg, actions, points, tmp, obs,
                      masks, rewards, dones, truncs, term_obs, final_scores, errors):
    for i in range(states.shape[0]):
        _scout_step_row(states, scratch, opts, prng, pobs, seat_pol, meta, opp_ids, cfg, actions, points, tmp, obs,
                        masks, rewards, dones, truncs, term_obs, final_scores, errors, i)


# ----------------------------------------------------------------------------------------
# Sly kernels: the same signatures (written out per game, not built by a factory: Numba
# never caches factory closures, see sly_scout_env/sly/batch.py). ``prng[i, 0]`` is row
# i's policy generator, ``scratch[i]`` the scratch of ``choose``; ``opts`` is unused (Sly
# rows hold their options).
# ----------------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _sly_over(state):
    return state[YR.PHASE] == YR.PHASE_GAME_OVER


@njit(cache=True)
def _sly_play_opponents(state, scratch, prng, pobs, seat_pol, meta, cfg):
    """Opponents move until the learner is to act, the game is over or truncated; returns an error code."""
    learner = meta[M_LEARNER]
    k = 0
    while not _sly_over(state) and state[YR.CURRENT_PLAYER] != learner and not _truncated(meta, cfg):
        a = YP.choose(seat_pol[state[YR.CURRENT_PLAYER]], state, scratch, pobs, prng)
        if a < 0 or not YR.is_legal(state, a):
            return ERR_POLICY
        YR.apply_action(state, a, scratch)
        meta[M_STEPS] += 1
        k += 1
        if k >= STEP_CAP:
            return ERR_STEP_CAP
    return ERR_NONE


@njit(cache=True)
def _sly_start(state, scratch, prng, pobs, seat_pol, meta, opp_ids, cfg, word, points, obs, mask):
    """Deal a game from ``word``, seat the learner and opponents, play up to the learner's turn."""
    YR.reset(state, word)
    prng[0] = YP.policy_seed(state, word)
    learner = _seat_players(meta, cfg, opp_ids, seat_pol, state[YR.NUM_PLAYERS])
    err = _sly_play_opponents(state, scratch, prng, pobs, seat_pol, meta, cfg)
    if err == ERR_NONE and (_sly_over(state) or _truncated(meta, cfg)):
        err = ERR_NO_LEARNER_TURN
    YB.points_into(state, points)
    sly_observe(state, learner, obs)
    YB._mask_one(state, mask, scratch)
    return err


@njit(cache=True, parallel=True)
def sly_reset_rows(states, scratch, opts, prng, pobs, seat_pol, meta, opp_ids, cfg, words, points, obs, masks,
                   errors):
    for i in prange(states.shape[0]):
        meta[i, M_EPISODE] = 0
        errors[i] = _sly_start(states[i], scratch[i], prng[i], pobs[i], seat_pol[i], meta[i], opp_ids, cfg,
                               words[i], points[i], obs[i], masks[i])


@njit(cache=True, inline="always")
def _sly_step_row(states, scratch, opts, prng, pobs, seat_pol, meta, opp_ids, cfg, actions, points, tmp, obs, masks,
                  rewards, dones, truncs, term_obs, final_scores, errors, i):
    state = states[i]
    num_p = state[YR.NUM_PLAYERS]
    learner = meta[i, M_LEARNER]
    YR.apply_action(state, actions[i], scratch[i])
    meta[i, M_STEPS] += 1
    err = _sly_play_opponents(state, scratch[i], prng[i], pobs[i], seat_pol[i], meta[i], cfg)
    over = _sly_over(state)
    trunc = (not over) and _truncated(meta[i], cfg)
    t = tmp[i]
    if cfg[C_WIN] == 0:
        YB.points_into(state, t)
        rewards[i] = t[learner] - points[i, learner]
    elif over:
        YB.scores_into(state, t)
        win_rewards(num_p, t)
        rewards[i] = t[learner]
    else:
        rewards[i] = 0.0
    dones[i] = over or trunc
    truncs[i] = trunc
    if (over or trunc) and err == ERR_NONE:
        YB.scores_into(state, t)
        for p in range(num_p):
            final_scores[i, p] = t[p]
        sly_observe(state, learner, term_obs[i])
        err = _sly_start(state, scratch[i], prng[i], pobs[i], seat_pol[i], meta[i], opp_ids, cfg,
                         YB._new_word(state), points[i], obs[i], masks[i])
    elif err == ERR_NONE:
        YB.points_into(state, points[i])
        sly_observe(state, learner, obs[i])
        YB._mask_one(state, masks[i], scratch[i])
    errors[i] = err


@njit(cache=True, parallel=True)
def sly_step_parallel(states, scratch, opts, prng, pobs, seat_pol, meta, opp_ids, cfg, actions, points, tmp, obs,
                      masks, rewards, dones, truncs, term_obs, final_scores, errors):
    for i in prange(states.shape[0]):
        _sly_step_row(states, scratch, opts, prng, pobs, seat_pol, meta, opp_ids, cfg, actions, points, tmp, obs,
                      masks, rewards, dones, truncs, term_obs, final_scores, errors, i)


@njit(cache=True)
def sly_step_serial(states, scratch, opts, prng, pobs, seat_pol, meta, opp_ids, cfg, actions, points, tmp, obs,
                    masks, rewards, dones, truncs, term_obs, final_scores, errors):
    for i in range(states.shape[0]):
        _sly_step_row(states, scratch, opts, prng, pobs, seat_pol, meta, opp_ids, cfg, actions, points, tmp, obs,
                      masks, rewards, dones, truncs, term_obs, final_scores, errors, i)


# ----------------------------------------------------------------------------------------
# The engine (no SB3 needed) and the VecEnv class (built on first use).
# ----------------------------------------------------------------------------------------
class _Engine:
    """The batched state and buffers of ``num_envs`` single-learner games; no SB3 here."""

    def __init__(self, game, num_envs, opponents, learner_seat, reward, max_steps, seed, options):
        self.game = check_choice("game", game, GAMES)
        if isinstance(num_envs, (bool, np.bool_)) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs={num_envs!r} is not allowed; allowed values: an int >= 1")
        self.reward_mode = check_choice("reward", reward, REWARD_MODES)
        if seed is not None:
            seed_word(seed)  # validates (TypeError / ValueError naming the seed)
        if max_steps is not None and (
            isinstance(max_steps, (bool, np.bool_)) or not isinstance(max_steps, (int, np.integer)) or max_steps < 1
        ):
            raise ValueError(f"max_steps={max_steps!r} is not allowed; allowed values: None or an int >= 1")
        for k in ("autoreset", "copy", "render_mode"):
            if k in options:
                raise ValueError(f"option {k!r} is not supported by SingleAgentVecEnv (games always autoreset, "
                                 "nothing renders); pass only game options")
        n = int(num_envs)
        self.b = SB if self.game == "scout" else YB
        self.pol = SP if self.game == "scout" else YP
        self.states, self.scratch, self.opts, info = self.b.new_batch(n, **options)
        self.num_envs = n
        self.num_players = P = info["num_players"]
        self.num_actions = A = info["num_actions"]
        self.observation_size = D = info["observation_size"]
        self.options = info["options"]

        if isinstance(learner_seat, str):
            check_choice("learner_seat", learner_seat, ("rotate",))
            self.fixed_seat = -1
        elif isinstance(learner_seat, (bool, np.bool_)) or not isinstance(learner_seat, (int, np.integer)) or not (
                0 <= learner_seat < P):
            raise ValueError(f"learner_seat={learner_seat!r} is not allowed; allowed values: 0..{P - 1}, 'rotate'")
        else:
            self.fixed_seat = int(learner_seat)
        self.learner_seat_mode = learner_seat
        names = self.pol.POLICY_NAMES
        if isinstance(opponents, str):
            opponents = [opponents] * (P - 1)
        elif not isinstance(opponents, (list, tuple)):
            raise ValueError(f"opponents={opponents!r} is not allowed; give a compiled policy name "
                             f"({', '.join(names)}) or a list of {P - 1} names (one per other seat)")
        opponents = list(opponents)
        if len(opponents) == 1:
            opponents = opponents * (P - 1)
        if len(opponents) != P - 1:
            raise ValueError(f"{len(opponents)} opponents given; give 1 (plays every other seat) or {P - 1} "
                             f"(one per other seat, in seat order)")
        for o in opponents:
            if not isinstance(o, str) or o not in names:
                raise ValueError(f"opponent {o!r} is not a compiled {self.game} policy; allowed: {', '.join(names)} "
                                 "(other bots: use sly_scout_env.wrappers.SingleAgentEnv)")
        self.opponents = tuple(opponents)
        self.opp_ids = np.array([self.pol.policy_id(o) for o in opponents], dtype=np.int64)
        self.max_steps = max_steps
        self.cfg = np.zeros(CFG, dtype=np.int64)
        self.cfg[C_FIXED_SEAT] = self.fixed_seat
        self.cfg[C_MAX_STEPS] = max_steps or 0
        self.cfg[C_WIN] = 1 if self.reward_mode == "win" else 0

        self.seat_pol = np.full((n, P), -1, dtype=np.int64)
        self.meta = np.zeros((n, META), dtype=np.int64)
        self.pobs = np.zeros((n, D), dtype=np.float32)  # the opponents' observation scratch (greedy)
        # Per-row policy generator word of the compiled opponents (both games).
        self.prng = np.zeros((n, 1), dtype=np.int64)
        self.points = np.zeros((n, P), dtype=np.float64)
        self.tmp = np.zeros((n, P), dtype=np.float64)
        self.obs = np.zeros((n, D), dtype=np.float32)
        self.masks = np.zeros((n, A), dtype=np.int8)
        self.rewards = np.zeros(n, dtype=np.float32)
        self.dones = np.zeros(n, dtype=np.bool_)
        self.truncs = np.zeros(n, dtype=np.bool_)
        self.term_obs = np.zeros((n, D), dtype=np.float32)
        self.final_scores = np.zeros((n, P), dtype=np.float32)
        self.errors = np.zeros(n, dtype=np.int64)
        self.rows = np.arange(n)
        self.base_seed = seed
        self.pending_seed = seed  # used by the next reset(); then cleared
        self.resets = 0
        self.has_reset = False

    def reset(self):
        """Deal new games in every row; returns the learner observations (a copy)."""
        n = self.num_envs
        if self.pending_seed is not None:
            words = stream_words(int(self.pending_seed), 0, n)
        elif self.base_seed is not None:
            # A later reset without a new seed continues deterministically from the constructor's seed.
            sub = np.random.SeedSequence([int(self.base_seed), self.resets]).generate_state(1, np.uint64)[0]
            words = stream_words(int(sub >> np.uint64(1)), 0, n)
        else:
            words = stream_words(None, 0, n)
        self.pending_seed = None
        self.resets += 1
        f = scout_reset_rows if self.game == "scout" else sly_reset_rows
        # Numba's OpenMP pool, started by the first parallel kernel, resets the process-wide
        # OpenMP thread count, which torch shares: a trainer's torch.set_num_threads(1) would
        # silently become 2. Restore it (without importing torch ourselves).
        torch = sys.modules.get("torch")
        torch_threads = torch.get_num_threads() if torch is not None else None
        f(self.states, self.scratch, self.opts, self.prng, self.pobs, self.seat_pol, self.meta, self.opp_ids, self.cfg,
          words, self.points, self.obs, self.masks, self.errors)
        if torch_threads is not None and torch.get_num_threads() != torch_threads:
            torch.set_num_threads(torch_threads)
        self._raise_errors(None)
        self.dones[:] = False
        self.has_reset = True
        return self.obs.copy()

    def check_actions(self, actions) -> np.ndarray:
        n = self.num_envs
        a = np.asarray(actions)
        if a.ndim == 2 and a.shape == (n, 1):  # SB3 passes Discrete actions flat, some callers as a column
            a = a[:, 0]
        if a.shape != (n,):
            raise ValueError(f"actions must have shape ({n},) (one action per env), got shape {a.shape}")
        if a.dtype == np.bool_ or not np.issubdtype(a.dtype, np.integer):
            check_action_id(a.flat[0], self.num_actions, "env 0: ")  # raises: not an int
        a = a.astype(np.int64, copy=False)
        out = (a < 0) | (a >= self.num_actions)
        if out.any():
            i = int(np.flatnonzero(out)[0])
            check_action_id(int(a[i]), self.num_actions, f"env {i}: ")  # raises: out of range
        legal = self.masks[self.rows, a] != 0
        if not legal.all():
            i = int(np.flatnonzero(~legal)[0])
            shown = legal_actions_text(self.masks[i])
            raise ValueError(f"env {i}: action {int(a[i])} is illegal for the learner (seat "
                             f"{int(self.meta[i, M_LEARNER])}) now; legal actions: {shown}")
        return a

    def step(self, a: np.ndarray) -> None:
        serial = self.num_envs < SERIAL_BELOW
        if self.game == "scout":
            f = scout_step_serial if serial else scout_step_parallel
        else:
            f = sly_step_serial if serial else sly_step_parallel
        f(self.states, self.scratch, self.opts, self.prng, self.pobs, self.seat_pol, self.meta, self.opp_ids, self.cfg,
          a, self.points, self.tmp, self.obs, self.masks, self.rewards, self.dones, self.truncs, self.term_obs,
          self.final_scores, self.errors)
        self._raise_errors(a)

    def _raise_errors(self, a) -> None:
        if self.errors.any():
            i = int(np.flatnonzero(self.errors)[0])
            what = _ERROR_TEXT.get(int(self.errors[i]), f"error code {int(self.errors[i])}")
            act = "" if a is None else f" after learner action {int(a[i])}"
            raise RuntimeError(f"env {i}: {what}{act} (opponents {list(self.opponents)}); the batch is left as it "
                               "is: call reset()")


_CLASS = None


def _build_class():
    """The SB3 ``VecEnv`` subclass; SB3 is imported here, on first use only."""
    global _CLASS
    if _CLASS is not None:
        return _CLASS
    try:
        from gymnasium import spaces
        from stable_baselines3.common.vec_env.base_vec_env import VecEnv
    except ImportError as exc:
        raise ImportError(
            "sly_scout_env.sb3_vec.SingleAgentVecEnv needs Stable-Baselines3 (and torch): install the train "
            "extra, pip install 'sly-scout-env[train]'"
        ) from exc

    class SingleAgentVecEnv(VecEnv):
        """One learner seat per game, compiled opponents, ``num_envs`` games; see the module docstring.

        ``SingleAgentVecEnv(game, num_envs, opponents="greedy", learner_seat=0, reward="score",
        max_steps=None, seed=None, **options)``; ``options`` are the game options
        (``num_players``, Scout's ``rounds`` ..., Sly's ``hen_houses`` ...).
        """

        def __init__(self, game: str, num_envs: int, opponents="greedy", learner_seat=0, reward: str = "score",
                     max_steps: int | None = None, seed: int | None = None, **options):
            self._engine = e = _Engine(game, num_envs, opponents, learner_seat, reward, max_steps, seed, options)
            self.game = e.game
            self.num_players = e.num_players
            self.render_mode = None
            self._actions = None
            observation_space = spaces.Box(low=-1e4, high=1e4, shape=(e.observation_size,), dtype=np.float32)
            super().__init__(e.num_envs, observation_space, spaces.Discrete(e.num_actions))

        # -- SB3 VecEnv API ----------------------------------------------------------------
        def reset(self):
            obs = self._engine.reset()
            self._reset_seeds()
            self._reset_options()
            self.reset_infos = [{} for _ in range(self.num_envs)]
            return obs

        def seed(self, seed: int | None = None):
            """Seed the next ``reset()``: row ``i`` gets ``stream_words(seed, i, 1)`` (None: OS entropy)."""
            if seed is None:
                seed = int(np.random.SeedSequence().generate_state(1, np.uint64)[0] >> np.uint64(1))
            seed_word(seed)  # validates
            self._engine.pending_seed = int(seed)
            self._engine.base_seed = int(seed)
            self._engine.resets = 0
            return [int(w) for w in stream_words(int(seed), 0, self.num_envs)]

        def step_async(self, actions: np.ndarray) -> None:
            if not self._engine.has_reset:
                raise RuntimeError("call reset() before step()")
            # Checked here, so that a bad action raises at the call that passed it.
            self._actions = self._engine.check_actions(actions)

        def step_wait(self):
            if self._actions is None:
                raise RuntimeError("step_wait() without step_async()")
            e = self._engine
            a, self._actions = self._actions, None
            e.step(a)
            infos = [{} for _ in range(self.num_envs)]
            for i in np.flatnonzero(e.dones):
                infos[i] = {
                    "terminal_observation": e.term_obs[i].copy(),
                    "TimeLimit.truncated": bool(e.truncs[i]),
                    "scores": e.final_scores[i].copy(),
                    # The seat of the game that ended (the returned observation is the next game's).
                    "learner_seat": int(e.meta[i, M_LEARNER]) if e.fixed_seat >= 0 else int(
                        (e.meta[i, M_EPISODE] - 2) % e.num_players),
                }
            return e.obs.copy(), e.rewards.copy(), e.dones.copy(), infos

        def close(self) -> None:
            pass

        # -- masks and per-env attributes ------------------------------------------------
        def action_masks(self) -> np.ndarray:
            """The learner's legal actions, ``(num_envs, A)`` bool."""
            return self._engine.masks.astype(bool)

        @property
        def learner_seats(self) -> np.ndarray:
            """The learner's seat in each row's current game (a copy)."""
            return self._engine.meta[:, M_LEARNER].copy()

        def get_attr(self, attr_name: str, indices=None) -> list:
            value = getattr(self, attr_name)
            return [value for _ in self._get_indices(indices)]

        def set_attr(self, attr_name: str, value, indices=None) -> None:
            raise AttributeError(
                f"SingleAgentVecEnv cannot set {attr_name!r} per env: its games run in one compiled batch "
                "(build a new SingleAgentVecEnv to change opponents or options)"
            )

        def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list:
            idx = list(self._get_indices(indices))
            if method_name == "action_masks":
                masks = self.action_masks()
                return [masks[i] for i in idx]
            raise AttributeError(f"SingleAgentVecEnv has no per-env method {method_name!r}; only 'action_masks'")

        def env_is_wrapped(self, wrapper_class, indices=None) -> list:
            return [False for _ in self._get_indices(indices)]

    SingleAgentVecEnv.__module__ = __name__
    SingleAgentVecEnv.__qualname__ = "SingleAgentVecEnv"
    _CLASS = SingleAgentVecEnv
    return _CLASS


def __getattr__(name):
    # The class is built on first access, so importing this module never imports SB3.
    if name == "SingleAgentVecEnv":
        return _build_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
