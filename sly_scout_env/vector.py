"""Vectorised self-play envs: ``num_envs`` games stepped at once inside compiled code.

    from sly_scout_env.vector import ScoutVectorEnv, SlyVectorEnv
    envs = SlyVectorEnv(1024, num_players=3)          # autoreset=True, reward="score"
    obs, infos = envs.reset(seed=0)

Every game in the batch acts for whichever seat is to move; one policy plays all
seats (self-play). One ``step(actions)`` applies one action per game.

Returned arrays (``N = num_envs``, ``P`` players, ``D`` observation size, ``A`` actions)
----------------------------------------------------------------------------------------
``obs``            dict, like the AEC env's observation of the agent to act:
  ``obs["observation"]``  (N, D) float32: the observation of the seat to act
  ``obs["action_mask"]``  (N, A) int8: its legal actions (all zeros for a finished game
                          that was not reset)
``rewards``        (N, P) float32: what each seat is paid for this step, exactly as the
                   AEC env pays it (``reward="score"``: points, ``"win"``: zero-sum
                   +-1 shares at the end of the game, ``"margin"``: points minus the
                   mean of the others' points)
``terminations``   (N,) bool: the game ended with this step
``truncations``    (N,) bool: ``max_steps`` actions were taken without an end
``infos``          dict of arrays (always the same keys):
  ``"seat"``          (N,) int64: the seat to act now (whose view ``obs`` is)
  ``"final_obs"``     (N, P, D) float32: every seat's observation of the finished game
  ``"_final_obs"``    (N,) bool: rows of ``final_obs`` that are valid (a game ended here)
  ``"final_info"``    ``{"scores": (N, P) float32, "_scores": (N,) bool}``: the points
                      of each finished game

Gymnasium conventions followed: ``num_envs``, ``single_observation_space`` (the AEC
env's ``Dict(observation, action_mask)``), ``single_action_space`` (``Discrete(A)``),
batched ``observation_space`` / ``action_space`` (``MultiDiscrete``),
``metadata["autoreset_mode"] = AutoresetMode.SAME_STEP``: when a game ends, ``step``
returns the rewards and termination of the finishing step together with the first
observation of the next game, and the final observation in ``infos["final_obs"]``.
``reset(seed=None, options=None)`` returns ``(obs, infos)``; ``step`` returns
``(obs, rewards, terminations, truncations, infos)``.

Where a turn-based multi-agent env must differ from Gymnasium's single-agent vector API
-----------------------------------------------------------------------------------
- ``rewards`` has a column per seat: one action can pay several seats (every seat is
  paid when a Sly game or a Scout round is scored), and the mover is often not paid at
  all. To train one policy on every seat, credit ``rewards[i, s]`` to seat ``s``'s last
  decision in game ``i`` (``infos["seat"]`` tells who moved).
- ``final_obs`` holds every seat's view of the last state (an ``(N, P, D)`` float32
  array with a ``_final_obs`` row mask rather than an object array), because every
  seat, not only the mover, sees its game end.
- The observation is for the seat to act; with ``infos["seat"]`` it is what a
  PettingZoo ``last()`` would give that agent.
- ``autoreset=False`` is allowed: a finished game then stays over (``terminations``
  stays True, the mask is zeros); pass action ``-1`` for it until you call
  ``reset(options={"reset_mask": rows})`` (stepping it with another action raises).

Seeds: ``reset(seed=s)`` with an int seeds game ``i`` with
``_rng.stream_words(s, i, 1)`` (game ``i`` is the same game whatever ``num_envs``);
a sequence of ``N`` ints seeds game ``i`` exactly as the AEC env's ``reset(seed=seed[i])``.
With ``autoreset``, a finished game restarts with a seed word drawn from its own
generator, so the games of a row depend only on its first seed (not on the batch size,
the row or ``numba.set_num_threads``).

State rows: the games live in one 2-D array, narrow (``int16``) where the game's values
fit, which keeps large batches in cache (``docs/architecture.md``, "The vector env's rows";
a batch is widened to ``int64`` by itself before a score could outgrow ``int16``).
``state_row(i)`` gives game ``i`` as the engine's ``int64`` row, the one a single-game
env holds; ``row_dtype`` says which kind the batch uses.

Buffers: with ``copy=False`` the returned arrays are the env's own buffers, rewritten in
place by the next ``step``: no copies at all (the fastest; wrap them once with
``torch.from_numpy`` and the tensors follow every step). ``copy=True`` (the default, as
in Gymnasium) returns fresh arrays each step.

Example: a numpy-only random policy loop::

    import numpy as np
    from sly_scout_env.vector import SlyVectorEnv

    envs = SlyVectorEnv(256, num_players=3, copy=False)
    obs, infos = envs.reset(seed=0)
    rng = np.random.default_rng(0)
    returns = np.zeros((256, 3))
    for _ in range(1000):
        mask = obs["action_mask"]
        # one uniform legal action per row: the argmax of random keys over legal ids
        actions = np.argmax(rng.random(mask.shape) * mask, axis=1)
        obs, rewards, terms, truncs, infos = envs.step(actions)
        returns += rewards

Example: torch tensors without copies (torch is not a dependency of this package)::

    import torch
    from sly_scout_env.vector import ScoutVectorEnv

    envs = ScoutVectorEnv(1024, num_players=4, copy=False)
    obs, infos = envs.reset(seed=0)
    x = torch.from_numpy(obs["observation"])         # shares memory: no copy, ever
    mask = torch.from_numpy(obs["action_mask"]).bool()  # (a small copy: int8 -> bool)
    for _ in range(100):
        logits = torch.zeros(x.shape[0], envs.num_actions)  # your network(x) here
        logits[~torch.from_numpy(obs["action_mask"]).bool()] = -torch.inf
        actions = torch.distributions.Categorical(logits=logits).sample()
        obs, rewards, terms, truncs, infos = envs.step(actions.numpy())
        # x now holds the new observations (same buffer)
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from ._aec import REWARD_MODES, legal_actions_text
from ._rng import seed_word, stream_words
from .checks import check_action_id, check_choice, check_int, check_option_names
from .games import get_game
from .kernels import REWARD_CODES, widen_rows

__all__ = ["CardGameVectorEnv", "ScoutVectorEnv", "SlyVectorEnv", "vector_env"]


class CardGameVectorEnv(VectorEnv):
    """The vector env over a game's batched kernels (``<game>.batch``); see the module docstring."""

    def __init__(self, game: str, num_envs: int, num_players: int | None = None, autoreset: bool = True,
                 reward: str = "score", max_steps: int | None = None, copy: bool = True, render_mode=None,
                 **options):
        spec = get_game(game)
        caller = type(self).__name__
        check_option_names(caller, options, ("num_envs", "num_players") + spec.option_names
                           + ("autoreset", "reward", "max_steps", "copy", "render_mode"))
        if render_mode is not None:
            raise ValueError(f"render_mode={render_mode!r} is not allowed for {caller}; allowed values: None "
                             f"(render one game with {spec.env_module_name.rsplit('.', 1)[1]}.env(render_mode=...))")
        num_envs = check_int("num_envs", num_envs)
        self.autoreset = check_choice("autoreset", autoreset, (True, False))
        self.reward_mode = check_choice("reward", reward, REWARD_MODES)
        self.max_steps = check_int("max_steps", max_steps, allow_none=True)
        self.copy = check_choice("copy", copy, (True, False))
        self.game = spec.name
        self._b = spec.module("batch")
        n = num_envs
        if num_players is None:
            num_players = spec.default_players
        self._states, self._scratch, self._opts, info = self._b.new_batch(n, num_players=num_players, narrow=True,
                                                                          **options)
        self._rules = spec.module("rules")
        self.num_envs = n
        self.num_players = info["num_players"]
        self.num_actions = info["num_actions"]
        self.observation_size = info["observation_size"]
        self.options = info["options"]
        self.metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "name": f"{self.game}_vector_v0"}
        self.render_mode = None
        self.single_observation_space = spaces.Dict(
            {
                "observation": spaces.Box(low=-1e4, high=1e4, shape=(self.observation_size,), dtype=np.float32),
                "action_mask": spaces.Box(low=0, high=1, shape=(self.num_actions,), dtype=np.int8),
            }
        )
        self.single_action_space = spaces.Discrete(self.num_actions)
        self.observation_space = batch_space(self.single_observation_space, n)
        self.action_space = batch_space(self.single_action_space, n)
        P, D, A = self.num_players, self.observation_size, self.num_actions
        self._obs = np.zeros((n, D), dtype=np.float32)
        self._masks = np.zeros((n, A), dtype=np.int8)
        self._seats = np.zeros(n, dtype=np.int64)
        self._rewards = np.zeros((n, P), dtype=np.float32)
        self._terms = np.zeros(n, dtype=np.bool_)
        self._truncs = np.zeros(n, dtype=np.bool_)
        self._final_obs = np.zeros((n, P, D), dtype=np.float32)
        self._final_scores = np.zeros((n, P), dtype=np.float32)
        self._has_final = np.zeros(n, dtype=np.bool_)
        self._errors = np.zeros(n, dtype=np.int64)
        self._ep_steps = np.zeros(n, dtype=np.int64)
        self._points = np.zeros((n, P), dtype=np.float64)
        self._rows = np.arange(n)
        self._has_reset = False

    # -- API ----------------------------------------------------------------------------
    def reset(self, seed=None, options: dict | None = None):
        """Deal new games; returns ``(obs, infos)``.

        ``seed``: None (OS entropy), an int (game ``i`` gets the ``i``-th word of its
        stream) or a sequence of ``num_envs`` ints (game ``i`` as ``raw_env.reset(seed[i])``).
        ``options={"reset_mask": bool array (num_envs,)}`` resets only those games.
        """
        n = self.num_envs
        which = np.ones(n, dtype=np.bool_)
        if options:
            unknown = set(options) - {"reset_mask"}
            if unknown:
                raise ValueError(f"unknown reset option(s) {sorted(unknown)}; allowed: 'reset_mask'")
            which = np.asarray(options["reset_mask"])
            if which.shape != (n,) or which.dtype != np.bool_:
                raise ValueError(f"reset_mask must be a bool array of shape ({n},), "
                                 f"got {which.dtype} {which.shape}")
            if not self._has_reset and not which.all():
                raise ValueError("the first reset() must reset every game (reset_mask all True)")
        if seed is None or isinstance(seed, (int, np.integer)) and not isinstance(seed, (bool, np.bool_)):
            words = stream_words(None if seed is None else int(seed), 0, n)
        elif isinstance(seed, (list, tuple, np.ndarray)):
            if len(seed) != n:
                raise ValueError(f"seed has {len(seed)} entries; give one per game ({n}), an int or None")
            words = np.array([seed_word(s if not isinstance(s, np.integer) else int(s)) for s in seed],
                             dtype=np.int64)
        else:
            raise TypeError(f"seed must be None, an int or a sequence of {n} ints, got {seed!r}")
        self._b.reset_rows(self._states, self._scratch, self._opts, words, which, self._ep_steps, self._points,
                           self._obs, self._masks, self._seats)
        self._terms[which] = False
        self._truncs[which] = False
        self._has_final[:] = False
        self._rewards[:] = 0.0
        self._has_reset = True
        return self._obs_out(), self._infos_out()

    def step(self, actions):
        """Apply one action per game; returns ``(obs, rewards, terminations, truncations, infos)``."""
        if not self._has_reset:
            raise RuntimeError("call reset() before step()")
        a = self._check_actions(actions)
        near = self._b.step_rows(self._states, self._scratch, self._opts, a, self.autoreset,
                                 REWARD_CODES[self.reward_mode], self.max_steps or 0, self._ep_steps,
                                 self._points, self._obs, self._masks, self._seats, self._rewards, self._terms,
                                 self._truncs, self._final_obs, self._final_scores, self._has_final, self._errors)
        if near:
            # A score or chip count of a narrow row passed kernels.NARROW_LIMIT: int64 rows
            # from here on (the same games; one step cannot reach 2**31 from the limit).
            self._states = widen_rows(self._states, self._rules.RNG)
        if self._errors.any():
            i = int(np.flatnonzero(self._errors)[0])
            raise RuntimeError(f"env {i}: the engine refused action {int(a[i])} (error code "
                               f"{int(self._errors[i])}); impossible under the rules")
        c = self.copy
        return (self._obs_out(), self._rewards.copy() if c else self._rewards,
                self._terms.copy() if c else self._terms, self._truncs.copy() if c else self._truncs,
                self._infos_out())

    def close(self, **kwargs):
        pass

    # -- helpers --------------------------------------------------------------------------
    @property
    def bytes_per_game(self) -> int:
        """Memory of one game's state: its row plus its share of its tile's kernel scratch."""
        return int(self._states[0].nbytes + -(-self._scratch.nbytes // self.num_envs))

    @property
    def row_dtype(self) -> np.dtype:
        """The type of the batch's state rows: int16 (narrow) or int64 (docs/architecture.md)."""
        return self._states.dtype

    def state_row(self, i: int) -> np.ndarray:
        """Game ``i``'s state as the engine's int64 row (a copy; what ``raw_env`` holds for it).

        Load it into a single-game env with the game's codec, or read it with its ``rules``.
        """
        i = check_int("i", i, 0, self.num_envs - 1)
        return widen_rows(self._states[i:i + 1], self._rules.RNG)[0]

    @property
    def seats(self) -> np.ndarray:
        """The seat to act in each game (a copy)."""
        return self._seats.copy()

    def legal_action_mask(self) -> np.ndarray:
        """The current masks (a copy)."""
        return self._masks.copy()

    def _check_actions(self, actions) -> np.ndarray:
        n = self.num_envs
        a = np.asarray(actions)
        if a.shape != (n,):
            raise ValueError(f"actions must have shape ({n},) (one action per game), got shape {a.shape}")
        if a.dtype == np.bool_ or not np.issubdtype(a.dtype, np.integer):
            check_action_id(a.flat[0], self.num_actions, "env 0: ")  # raises: not an int
        a = a.astype(np.int64, copy=False)
        over = self._terms | self._truncs
        skip = a == -1
        if not self.autoreset and (over.any() or skip.any()):
            bad = over & ~skip
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                raise ValueError(f"env {i}: action {int(a[i])} for a finished game; with autoreset=False pass -1 "
                                 "for finished games and call reset(options={'reset_mask': ...}) to restart them")
            skip_live = skip & ~over
            if skip_live.any():
                i = int(np.flatnonzero(skip_live)[0])
                raise ValueError(f"env {i}: action -1 for a running game; -1 is only for finished games")
            live = ~skip
        else:
            live = None
        out = (a < 0) | (a >= self.num_actions)
        if live is not None:
            out &= live
        if out.any():
            i = int(np.flatnonzero(out)[0])
            check_action_id(int(a[i]), self.num_actions, f"env {i}: ")  # raises: out of range
        legal = self._masks[self._rows, np.where(skip, 0, a)] != 0
        if live is not None:
            legal |= ~live
        if not legal.all():
            i = int(np.flatnonzero(~legal)[0])
            shown = legal_actions_text(self._masks[i])
            raise ValueError(f"env {i}: action {int(a[i])} is illegal for seat {int(self._seats[i])} now; "
                             f"legal actions: {shown}")
        return a

    def _obs_out(self) -> dict:
        if self.copy:
            return {"observation": self._obs.copy(), "action_mask": self._masks.copy()}
        return {"observation": self._obs, "action_mask": self._masks}

    def _infos_out(self) -> dict:
        c = self.copy
        return {
            "seat": self._seats.copy() if c else self._seats,
            "final_obs": self._final_obs.copy() if c else self._final_obs,
            "_final_obs": self._has_final.copy() if c else self._has_final,
            "final_info": {
                "scores": self._final_scores.copy() if c else self._final_scores,
                "_scores": self._has_final.copy() if c else self._has_final,
            },
        }


class SlyVectorEnv(CardGameVectorEnv):
    """``num_envs`` Sly games (options as ``sly_v0.env``: num_players=3, hen_houses, reveal_scope,
    first_player; plus autoreset, reward, max_steps, copy). See the module docstring."""

    def __init__(self, num_envs: int, **kwargs):
        super().__init__("sly", num_envs, **kwargs)


class ScoutVectorEnv(CardGameVectorEnv):
    """``num_envs`` Scout games (options as ``scout_v0.env``: num_players=4, rounds,
    ii_after_empty_set, score_held_chips; plus autoreset, reward, max_steps, copy)."""

    def __init__(self, num_envs: int, **kwargs):
        super().__init__("scout", num_envs, **kwargs)


def vector_env(game: str, num_envs: int, **kwargs) -> CardGameVectorEnv:
    """The vector env of any registered game: ``vector_env("sly", 1024, num_players=3)``."""
    return CardGameVectorEnv(game, num_envs, **kwargs)
