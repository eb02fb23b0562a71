"""One learner seat per game, every other seat a compiled policy: ``num_envs`` games in
one compiled batch (the engine of ``sly_scout_env.sb3_vec.SingleAgentVecEnv``, usable and
tested without Stable-Baselines3).

    from sly_scout_env.learner import SingleLearnerBatch
    batch = SingleLearnerBatch("sly", 256, opponents="greedy", learner_seat="rotate", num_players=2, seed=0)
    obs = batch.reset()
    batch.step(batch.check_actions(actions))   # batch.rewards, batch.dones, batch.obs, ...

``step`` applies each row's learner action, then the game's ``batch.learner_step_rows``
kernel plays the opponents inside one compiled ``prange`` loop until that row's learner
is to act again or its game ends; a finished game is restarted at once and its
opponents move until the learner's first turn. Semantics, determinism and buffers: see
the docstring of ``sly_scout_env.sb3_vec``.
"""

from __future__ import annotations

import sys

import numpy as np

from . import kernels as K
from ._aec import REWARD_MODES, legal_actions_text
from ._rng import seed_word, stream_words
from .checks import check_action_id, check_choice, check_int, check_option_names
from .games import GAMES, get_game
from .netpolicy import compiled_policies, obs_size

__all__ = ["SingleLearnerBatch", "ERROR_TEXT"]

ERROR_TEXT = {
    K.ERR_ENGINE: "the engine refused the learner's action (impossible under the rules)",
    K.ERR_POLICY: "a compiled opponent policy returned no legal action",
    K.ERR_NO_LEARNER_TURN: "a game ended before the learner's first move",
    K.ERR_STEP_CAP: f"the opponents made {K.STEP_CAP} moves without the learner's turn",
}


class SingleLearnerBatch:
    """``num_envs`` games, one learner seat each, every other seat a compiled policy.

    The engine of :class:`sly_scout_env.sb3_vec.SingleAgentVecEnv`, usable without SB3:
    ``reset()`` deals and returns the learner observations; ``check_actions(a)`` then
    ``step(a)`` apply one learner action per row and fill ``obs``, ``masks``,
    ``rewards``, ``dones``, ``truncs``, ``term_obs`` and ``final_scores`` (see the module
    docstring of ``sb3_vec`` for their meaning).
    """

    def __init__(self, game: str, num_envs: int, opponents="greedy", learner_seat=0, reward: str = "score",
                 max_steps: int | None = None, seed: int | None = None, caller: str = "SingleLearnerBatch",
                 **options):
        self.game = check_choice("game", game, GAMES)
        spec = get_game(self.game)
        check_option_names(caller, options, ("num_players",) + spec.option_names)
        n = check_int("num_envs", num_envs)
        self.reward_mode = check_choice("reward", reward, REWARD_MODES)
        if seed is not None:
            seed_word(seed)  # validates (TypeError / ValueError naming the seed)
        max_steps = check_int("max_steps", max_steps, allow_none=True)
        self.b = spec.module("batch")
        self.pol = spec.module("policies")
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
                             f"({', '.join(names)}, neural:path=FILE) or a list of {P - 1} names (one per other seat)")
        opponents = list(opponents)
        if len(opponents) == 1:
            opponents = opponents * (P - 1)
        if len(opponents) != P - 1:
            raise ValueError(f"{len(opponents)} opponents given; give 1 (plays every other seat) or {P - 1} "
                             f"(one per other seat, in seat order)")
        for o in opponents:
            if not isinstance(o, str) or o.partition(":")[0] not in names:
                raise ValueError(f"opponent {o!r} is not a compiled {self.game} policy; allowed: {', '.join(names)}, "
                                 "neural:path=FILE (other bots: use sly_scout_env.wrappers.SingleAgentEnv)")
        self.opponents = tuple(opponents)
        self.opp_ids, self.nets = compiled_policies(self.game, opponents, P, self.options)
        self.max_steps = max_steps
        self.cfg = np.zeros(K.CFG, dtype=np.int64)
        self.cfg[K.C_FIXED_SEAT] = self.fixed_seat
        self.cfg[K.C_MAX_STEPS] = max_steps or 0
        self.cfg[K.C_REWARD] = K.REWARD_CODES[self.reward_mode]

        self.seat_pol = np.full((n, P), -1, dtype=np.int64)
        self.meta = np.zeros((n, K.META), dtype=np.int64)
        # The opponents' observation scratch (greedy, neural) and the networks' workspace.
        self.pobs = np.zeros((K.tile_count(n), obs_size(D, self.nets)), dtype=np.float32)  # one per tile
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

    def seed(self, seed: int | None = None) -> list[int]:
        """Seed the next ``reset()``: row ``i`` gets ``stream_words(seed, i, 1)`` (None: OS entropy).

        Returns those words; later resets without a new seed continue from ``seed``.
        """
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1, np.uint64)[0] >> np.uint64(1))
        seed_word(seed)  # validates
        self.pending_seed = self.base_seed = int(seed)
        self.resets = 0
        return [int(w) for w in stream_words(int(seed), 0, self.num_envs)]

    def learner_seats(self) -> np.ndarray:
        """The learner's seat in each row's current game (a copy)."""
        return self.meta[:, K.M_LEARNER].copy()

    def ended_learner_seat(self, i: int) -> int:
        """After a step that ended row ``i``'s game: the learner's seat in that game (the row
        has already started the next one, where "rotate" moved the learner on)."""
        if self.fixed_seat >= 0:
            return int(self.meta[i, K.M_LEARNER])
        return int((self.meta[i, K.M_EPISODE] - 2) % self.num_players)

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
        # Numba's OpenMP pool, started by the first parallel kernel, resets the process-wide
        # OpenMP thread count, which torch shares: a trainer's torch.set_num_threads(1) would
        # silently become 2. Restore it (without importing torch ourselves).
        torch = sys.modules.get("torch")
        torch_threads = torch.get_num_threads() if torch is not None else None
        self.b.learner_reset_rows(self.states, self.scratch, self.prng, self.pobs, self.nets, self.seat_pol, self.meta,
                                  self.opp_ids, self.cfg, words, self.points, self.obs, self.masks, self.errors)
        if torch_threads is not None and torch.get_num_threads() != torch_threads:
            torch.set_num_threads(torch_threads)
        self._raise_errors(None)
        self.dones[:] = False
        self.has_reset = True
        return self.obs.copy()

    def check_actions(self, actions) -> np.ndarray:
        """``actions`` as an int64 array if every row's is legal, else ValueError naming the row (nothing changes)."""
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
                             f"{int(self.meta[i, K.M_LEARNER])}) now; legal actions: {shown}")
        return a

    def step(self, a: np.ndarray) -> None:
        """Apply the (checked) learner actions ``a``; see the class docstring."""
        self.b.learner_step_rows(self.states, self.scratch, self.prng, self.pobs, self.nets, self.seat_pol, self.meta,
                                 self.opp_ids, self.cfg, a, self.points, self.tmp, self.obs, self.masks, self.rewards,
                                 self.dones, self.truncs, self.term_obs, self.final_scores, self.errors)
        self._raise_errors(a)

    def _raise_errors(self, a) -> None:
        if self.errors.any():
            i = int(np.flatnonzero(self.errors)[0])
            what = ERROR_TEXT.get(int(self.errors[i]), f"error code {int(self.errors[i])}")
            act = "" if a is None else f" after learner action {int(a[i])}"
            raise RuntimeError(f"env {i}: {what}{act} (opponents {list(self.opponents)}); the batch is left as it "
                               "is: call reset()")
