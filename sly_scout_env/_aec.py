"""The PettingZoo AEC adapter shared by both games.

A game subclasses :class:`CardGameRawEnv` and supplies its kernels (Numba functions on
the flat ``int64`` state row) and its text helpers; this class does the PettingZoo
bookkeeping once for both games: agents, spaces, rewards, terminations, illegal-move
errors, rendering and ``state_dict`` round trips.

Why a shared base: the two games differ only in their rules; every line of PettingZoo
plumbing written twice would be a place for the two envs to drift apart.
"""

from __future__ import annotations

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ._rng import seed_word
from .checks import check_action_id, check_choice, check_int
from .kernels import REWARD_CODES

# "score": points as they are scored; "win": zero-sum +-1 shares at the end; "margin":
# as "score", each seat's points minus the mean of the others' (zero-sum, dense).
REWARD_MODES = tuple(REWARD_CODES)


def legal_actions_text(mask: np.ndarray, most: int = 20) -> str:
    """The legal action ids of ``mask`` for an error message: the first ``most``, then "..."."""
    legal = np.flatnonzero(mask)
    return ", ".join(str(a) for a in legal[:most]) + (" ..." if len(legal) > most else "")


class CardGameRawEnv(AECEnv):
    """Base PettingZoo AEC env over a game's compiled kernels.

    Subclasses set ``metadata["name"]`` and implement the ``_k_*`` hooks and the text
    helpers listed below. ``self._state`` is the game's flat ``int64`` state row.

    Hooks a subclass provides:
      ``_configure(**options)``: validate the game options (raise ``ValueError`` naming
          the bad option and the allowed values), set ``self.num_players``,
          ``self.num_actions``, ``self.observation_size``, ``self.options`` (a dict of
          the game options as given to the constructor) and allocate ``self._state``.
      ``_k_reset(seed_word)``: deal a new game into ``self._state``.
      ``_k_current_player() -> int``: the seat to act.
      ``_k_game_over() -> bool``.
      ``_k_legal_mask(out)``: write the int8 legal-action mask into ``out``.
      ``_k_apply(action)``: apply a legal action (the base has checked legality).
      ``_k_observe(seat, out)``: write ``seat``'s float32 observation into ``out``.
      ``_k_points(out)``: write into float64 ``out`` the points each seat has been paid
          so far under ``reward="score"``; the base pays the per-step differences
          (under ``"margin"``, each seat's difference minus the mean of the others').
      ``_k_final_scores(out)``: write the game totals (used for ``reward="win"``).
      ``decode_action``, ``encode_action``, ``action_to_str``, ``render_text(viewer)``,
      ``_k_state_dict() -> dict`` (the position as plain JSON, from the game's codec),
      ``_load_state_dict(d)`` (validate every field, raising ``ValueError`` naming the
          field, before touching ``self._state``).
    """

    metadata = {"render_modes": ["human", "ansi"], "name": "card_game_v0", "is_parallelizable": False, "render_fps": 1}

    def __init__(self, render_mode: str | None = None, reward: str = "score", max_steps: int | None = None, **options):
        super().__init__()
        if render_mode is not None:
            check_choice("render_mode", render_mode, tuple(self.metadata["render_modes"]))
        self.render_mode = render_mode
        self.reward_mode = check_choice("reward", reward, REWARD_MODES)
        max_steps = check_int("max_steps", max_steps, allow_none=True)
        self.max_steps = max_steps
        self._configure(**options)
        self.possible_agents = [f"player_{i}" for i in range(self.num_players)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(low=-1e4, high=1e4, shape=(self.observation_size,), dtype=np.float32),
                "action_mask": spaces.Box(low=0, high=1, shape=(self.num_actions,), dtype=np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self.num_actions) for a in self.possible_agents}
        self._mask = np.zeros(self.num_actions, dtype=np.int8)
        self._mask_valid = False
        self._points = np.zeros(self.num_players, dtype=np.float64)
        self._scratch = np.zeros(self.num_players, dtype=np.float64)
        self._has_reset = False

    # -- PettingZoo API -------------------------------------------------------------
    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deal a new game. ``options`` is accepted for API compatibility and not used:
        game options go to the constructor (PettingZoo's api_test passes dummy options)."""
        self._k_reset(seed_word(seed))
        self._start_episode()

    def _start_episode(self) -> None:
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._mask_valid = False
        self._k_points(self._points)
        self.num_steps = 0
        self._has_reset = True
        self._skip_agent_selection = None
        self._sync_selection()

    def _sync_selection(self) -> None:
        over = self._k_game_over()
        if over:
            self.terminations = {a: True for a in self.agents}
        self.agent_selection = self.possible_agents[self._k_current_player()]

    def legal_action_mask(self) -> np.ndarray:
        """The int8 mask of legal actions for the agent to act (a fresh copy)."""
        return self._current_mask().copy()

    def _current_mask(self) -> np.ndarray:
        if not self._mask_valid:
            if self._k_game_over():
                self._mask[:] = 0
            else:
                self._k_legal_mask(self._mask)
            self._mask_valid = True
        return self._mask

    def observe(self, agent):
        seat = self.agent_name_mapping[agent]
        obs = np.zeros(self.observation_size, dtype=np.float32)
        self._k_observe(seat, obs)
        if agent == self.agent_selection and not self._k_game_over():
            mask = self._current_mask().copy()
        else:
            mask = np.zeros(self.num_actions, dtype=np.int8)
        return {"observation": obs, "action_mask": mask}

    def check_action(self, action) -> int:
        """Return ``action`` as an int if it is legal now, else raise ValueError (state unchanged)."""
        action = check_action_id(action, self.num_actions)
        mask = self._current_mask()
        if not mask[action]:
            shown = legal_actions_text(mask)
            raise ValueError(
                f"action {action} ({self.action_to_str(action)}) is illegal for {self.agent_selection} now; "
                f"legal actions: {shown}"
            )
        return action

    def step(self, action) -> None:
        if not self._has_reset:
            raise RuntimeError("call reset() before step()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        action = self.check_action(action)
        self._cumulative_rewards[agent] = 0.0
        self._k_apply(action)
        self._mask_valid = False
        self.num_steps += 1
        over = self._k_game_over()
        self._pay_rewards(over)
        if over:
            self.terminations = {a: True for a in self.agents}
        elif self.max_steps is not None and self.num_steps >= self.max_steps:
            self.truncations = {a: True for a in self.agents}
        self.agent_selection = self.possible_agents[self._k_current_player()]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _pay_rewards(self, over: bool) -> None:
        if self.reward_mode != "win":
            self._k_points(self._scratch)
            paid = self._scratch - self._points
            self._points[:] = self._scratch
            if self.reward_mode == "margin":
                others = (paid.sum() - paid) / (self.num_players - 1)
                paid = paid - others
            for i, a in enumerate(self.possible_agents):
                self.rewards[a] = float(paid[i])
        else:
            for a in self.possible_agents:
                self.rewards[a] = 0.0
            if over:
                for a, r in zip(self.possible_agents, self.win_rewards()):
                    self.rewards[a] = r

    def win_rewards(self) -> list[float]:
        """Zero-sum win rewards from the game totals: winners share +1, the others share -1."""
        self._k_final_scores(self._scratch)
        best = self._scratch.max()
        winners = [i for i in range(self.num_players) if self._scratch[i] == best]
        if len(winners) == self.num_players:
            return [0.0] * self.num_players
        losers = self.num_players - len(winners)
        return [1.0 / len(winners) if i in winners else -1.0 / losers for i in range(self.num_players)]

    def render(self):
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        viewer = self.agent_name_mapping.get(self.agent_selection) if self._has_reset else None
        text = self.render_text(viewer) if self._has_reset else "(call reset() first)"
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

    # -- state dicts -----------------------------------------------------------------
    def state_dict(self) -> dict:
        """The full position as plain JSON (format: the env's docstring); after reset() or
        from_state_dict() only: before that there is no position."""
        if not self._has_reset:
            raise RuntimeError("call reset() or from_state_dict() before state_dict()")
        return self._k_state_dict()

    def state_row(self) -> np.ndarray:
        """A copy of the position as the engine's flat ``int64`` row (the search adapters' ``row``;
        expert-iteration self-play reads the horizon outcomes from it)."""
        if not self._has_reset:
            raise RuntimeError("call reset() or from_state_dict() before state_row()")
        return self._state.copy()

    def player_view(self, seat: int) -> dict:
        """The state dict as far as ``seat`` may know it (hidden cards removed); for bots."""
        from .views import player_view

        return player_view(self.state_dict(), seat)

    def from_state_dict(self, d: dict) -> None:
        """Load a position written by :meth:`state_dict` (or by hand) into this env.

        Every field is checked first; a bad dict raises ``ValueError`` naming the field
        and leaves the env as it was. Rewards start from zero at the loaded position.
        """
        if not isinstance(d, dict):
            raise ValueError(f"state dict must be a dict, got {type(d).__name__}")
        if d.get("game") != self.metadata["name"].rsplit("_v", 1)[0]:
            raise ValueError(
                f"state dict field 'game'={d.get('game')!r} does not match this env "
                f"({self.metadata['name'].rsplit('_v', 1)[0]!r})"
            )
        if d.get("num_players") != self.num_players:
            raise ValueError(
                f"state dict field 'num_players'={d.get('num_players')!r} does not match this env "
                f"({self.num_players}); build the env with num_players={d.get('num_players')!r}"
            )
        self._load_state_dict(d)
        self._start_episode()


def make_env_fn(raw_env_cls):
    """The standard wrapped ``env()`` constructor for a raw env class (as PettingZoo classic)."""

    def env(**kwargs):
        e = raw_env_cls(**kwargs)
        e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
        e = wrappers.AssertOutOfBoundsWrapper(e)
        e = wrappers.OrderEnforcingWrapper(e)
        return e

    env.__doc__ = f"The {raw_env_cls.metadata['name']} env with PettingZoo's standard wrappers."
    return env
