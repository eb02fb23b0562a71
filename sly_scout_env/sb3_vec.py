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
  total; ``reward="win"``: +1 shared by the winners, -1 shared by the others, at the end;
  ``reward="margin"``: as ``"score"``, minus the mean of the others' points, so an
  episode's rewards add up to the learner's final margin over the others' mean).
- ``dones[i]`` is True on the learner step that ended game ``i``; ``infos[i]`` then has
  ``"terminal_observation"`` (the learner's observation of the finished game),
  ``"scores"`` (final points per seat, float32) and ``"learner_seat"``, and the returned
  observation is the learner's first one in the next game.
- ``truncated``: with ``max_steps=T`` a game is cut after T actions (every seat's, as the
  AEC env counts them); the step that cuts it has ``dones[i]`` True and
  ``infos[i]["TimeLimit.truncated"]`` True (False when the game ended by the rules).
- ``learner_seat``: a seat number, or ``"rotate"`` (a row's k-th game puts the learner
  in seat ``k mod P``, counting from the last ``reset()``).
- ``opponents``: a compiled policy name for every other seat, or a list of ``P - 1``
  names given to the other seats in seat order (as ``SingleAgentEnv``): ``random``,
  ``greedy``, ``neural`` (the network shipped for the table) or ``neural:path=FILE``
  (``sly_scout_env.netpolicy``).
- ``action_features=True`` (only for a game whose registry entry has a ``features`` role,
  ``GameSpec.optional_module("features")``; else ValueError naming the games that have
  one): the observation is a ``gymnasium.spaces.Dict``, ``{"observation": (num_envs, D)
  float32 as above, "action_features": (num_envs, A, F) float32}``, where row ``a`` of
  env ``i`` is the game's feature row (``features.action_features``, ``F =
  FEATURE_SIZE``) of action ``a`` for the learner's observation, for every legal ``a``,
  and zeros for the illegal ids. The rows are written by one compiled loop over the envs
  into a preallocated buffer (the returned arrays are copies). ``infos[i]["terminal_observation"]``
  is then the same Dict, with zero rows (a finished game has no legal action). What
  scores these rows: ``sly_scout_env.agents.training.scorer_policy.ActionScorerPolicy``.

Determinism: ``reset()`` after ``seed(s)`` (or the first ``reset()`` with the
constructor's ``seed=s``) deals row ``i`` from ``_rng.stream_words(s, i, 1)``, the
word ``ScoutVectorEnv`` / ``SlyVectorEnv`` use; later games of a row are dealt from words
drawn from the row's own generator. Opponent moves draw from a per-row policy generator
seeded at each deal with the game's ``policies.policy_seed``, as ``simulate`` does
(never from the row's generator, which deals). So a
row's games depend only on its seed and the learner's actions: not on the row index,
``num_envs`` or ``numba.set_num_threads``.

This module needs Stable-Baselines3 (the ``train`` extra); ``import sly_scout_env`` does
not import it. The engine, :class:`sly_scout_env.learner.SingleLearnerBatch`, needs no SB3.
"""


from __future__ import annotations

import numpy as np
from numba import njit

try:
    from gymnasium import spaces
    from stable_baselines3.common.vec_env.base_vec_env import VecEnv
except ImportError as exc:  # pragma: no cover - exercised by a subprocess test
    raise ImportError(
        "sly_scout_env.sb3_vec needs Stable-Baselines3 (and torch): install the train extra, "
        "pip install 'sly-scout-env[train]'"
    ) from exc

from .games import all_games, get_game
from .learner import SingleLearnerBatch

__all__ = ["SingleAgentVecEnv", "feature_games"]


def feature_games() -> list[str]:
    """The games whose registry entry has a ``features`` role (per-action feature rows)."""
    return [g.name for g in all_games() if g.optional_module("features") is not None]


@njit(cache=True)
def _feature_rows(kernel, obs, masks, num_players, work, values, legal, rows, out):
    """Row ``a`` of ``out[i]``: ``kernel``'s features of action ``a`` for ``obs[i]`` when ``masks[i, a]``, else 0.

    ``kernel``: the game's compiled ``features.action_features``; ``work``, ``values``,
    ``legal`` and ``rows`` are its scratch (one env at a time).
    """
    n_env, num_actions = masks.shape
    for i in range(n_env):
        out[i] = 0.0
        n = 0
        for a in range(num_actions):
            if masks[i, a] != 0:
                legal[n] = a
                n += 1
        if n == 0:
            continue
        kernel(obs[i], legal, n, num_players, work, values, rows)
        for k in range(n):
            out[i, legal[k]] = rows[k]


class SingleAgentVecEnv(VecEnv):
    """One learner seat per game, compiled opponents, ``num_envs`` games; see the module docstring.

    ``SingleAgentVecEnv(game, num_envs, opponents="greedy", learner_seat=0, reward="score",
    max_steps=None, seed=None, action_features=False, **options)``; ``options`` are the game
    options (``num_players``, Scout's ``rounds`` ..., Sly's ``hen_houses`` ...);
    ``action_features=True``: Dict observations with every legal action's feature row
    (module docstring).
    """

    def __init__(self, game: str, num_envs: int, opponents="greedy", learner_seat=0, reward: str = "score",
                 max_steps: int | None = None, seed: int | None = None, action_features: bool = False, **options):
        if not isinstance(action_features, (bool, np.bool_)):
            raise ValueError(f"action_features={action_features!r} is not allowed; give True or False")
        features = None
        if action_features:
            features = get_game(game).optional_module("features")
            if features is None:
                have = ", ".join(feature_games()) or "none"
                raise ValueError(f"action_features=True needs per-action features (the registry's 'features' role), "
                                 f"and {game} has none; games with them: {have}")
        self._engine = e = SingleLearnerBatch(game, num_envs, opponents, learner_seat, reward, max_steps, seed,
                                              caller="SingleAgentVecEnv", **options)
        self.game = e.game
        self.num_players = e.num_players
        self.render_mode = None
        self._actions = None
        self.action_features = bool(action_features)
        observation_space = spaces.Box(low=-1e4, high=1e4, shape=(e.observation_size,), dtype=np.float32)
        if features is not None:
            self._features = features
            self.feature_size = F = int(features.FEATURE_SIZE)
            self.feature_names = tuple(features.FEATURE_NAMES)
            A = e.num_actions
            # Preallocated: the rows of every env, and the kernel's scratch (one env at a time).
            self._rows = np.zeros((e.num_envs, A, F), dtype=np.float32)
            self._work = features.make_work()
            self._values = np.zeros(A, dtype=np.int64)
            self._legal = np.zeros(A, dtype=np.int64)
            self._scratch_rows = np.zeros((A, F), dtype=np.float32)
            observation_space = spaces.Dict({
                "observation": observation_space,
                "action_features": spaces.Box(low=-1e4, high=1e4, shape=(A, F), dtype=np.float32),
            })
        super().__init__(e.num_envs, observation_space, spaces.Discrete(e.num_actions))

    def _observation(self, obs: np.ndarray):
        """What SB3 gets: ``obs`` (a copy of the learner observations), or with ``action_features`` the Dict."""
        if not self.action_features:
            return obs
        e = self._engine
        _feature_rows(self._features.action_features, e.obs, e.masks, e.num_players, self._work, self._values,
                      self._legal, self._scratch_rows, self._rows)
        return {"observation": obs, "action_features": self._rows.copy()}

    def _terminal_observation(self, i: int):
        obs = self._engine.term_obs[i].copy()
        if not self.action_features:
            return obs
        return {"observation": obs, "action_features": np.zeros(self._rows.shape[1:], dtype=np.float32)}

    # -- SB3 VecEnv API ----------------------------------------------------------------
    def reset(self):
        obs = self._engine.reset()
        self._reset_seeds()
        self._reset_options()
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return self._observation(obs)

    def seed(self, seed: int | None = None):
        """Seed the next ``reset()``: row ``i`` gets ``stream_words(seed, i, 1)`` (None: OS entropy)."""
        return self._engine.seed(seed)

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
                "terminal_observation": self._terminal_observation(i),
                "TimeLimit.truncated": bool(e.truncs[i]),
                "scores": e.final_scores[i].copy(),
                # The seat of the game that ended (the returned observation is the next game's).
                "learner_seat": e.ended_learner_seat(i),
            }
        return self._observation(e.obs.copy()), e.rewards.copy(), e.dones.copy(), infos

    def close(self) -> None:
        pass

    # -- masks and per-env attributes ------------------------------------------------
    def action_masks(self) -> np.ndarray:
        """The learner's legal actions, ``(num_envs, A)`` bool."""
        return self._engine.masks.astype(bool)

    @property
    def engine(self) -> SingleLearnerBatch:
        """The batched engine (its state rows and buffers)."""
        return self._engine

    @property
    def learner_seats(self) -> np.ndarray:
        """The learner's seat in each row's current game (a copy)."""
        return self._engine.learner_seats()

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
