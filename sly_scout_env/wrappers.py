"""Single-agent Gymnasium view of a multi-player game, for Stable-Baselines3 and friends.

:class:`SingleAgentEnv` lets one learner hold one seat of a Scout or Sly table while
the other seats are played by given opponents inside :meth:`SingleAgentEnv.step`::

    from sly_scout_env.wrappers import SingleAgentEnv
    from sly_scout_env.agents import make

    env = SingleAgentEnv("scout", num_players=2, opponents=[make("random")], learner_seat="rotate")
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(env.action_masks().nonzero()[0][0])

- Observation: the learner's float32 observation vector (the ``"observation"`` part of
  the PettingZoo observation); action: ``Discrete(n)`` of the game.
- ``action_masks()`` returns the learner's legal-action mask as booleans, as
  sb3-contrib's ``MaskablePPO`` expects; ``info["action_mask"]`` holds the same.
- Reward: the learner's own reward in full, including points scored while the
  opponents moved (with ``reward="score"``: Scout pays round points as each round is
  scored, Sly the final points at the end; ``reward="win"``: +1 shared by the winners,
  -1 shared by the others; ``reward="margin"``: as ``"score"``, minus the mean of the
  others' points).
- ``learner_seat``: a seat number, ``"rotate"`` (seat ``k mod n`` in the k-th episode),
  or ``"random"`` (drawn from the reset seed).
- Opponents: one per other seat, or one for all of them (then each other seat plays a
  deep copy of it, so that a bot that remembers its seat, like ISMCTS, plays its own
  seat: one object reset for several seats would keep only the last). Each is an
  object with ``act(observation, action_mask, info) -> int`` and optionally
  ``reset(seed, *, game, num_players, seat, options)`` (the protocol of
  ``sly_scout_env.agents.bots.base.Agent``; any registered bot, or a frozen copy of a policy for
  self-play), or a plain callable ``f(observation, action_mask, info) -> int``.
  ``info`` holds ``"seat"``, ``"game"``, ``"num_players"`` and ``"view"``, the acting
  seat's state as far as that seat may know it (skipped for opponents whose
  ``needs_view`` attribute is False: building it costs a ``state_dict()`` per move).
- An illegal learner action: with ``on_illegal="terminate"`` (default, the PettingZoo
  convention) the episode ends and the learner receives ``illegal_reward``; with
  ``"raise"`` a ``ValueError`` names the action and the legal ones.

Gymnasium's ``check_env`` and SB3's ``check_env`` pass; the env pickles, so it works
under ``DummyVecEnv`` and ``SubprocVecEnv``.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from .checks import check_choice, check_option_names
from .games import GAMES, get_game


class SingleAgentEnv(gymnasium.Env):
    """One learner seat against fixed opponents; see the module docstring."""

    metadata = {"render_modes": ["human", "ansi"], "render_fps": 1}

    def __init__(
        self,
        game: str,
        opponents: Sequence[Any] | Any,
        learner_seat: int | str = 0,
        render_mode: str | None = None,
        on_illegal: str = "terminate",
        illegal_reward: float = -1.0,
        **options,
    ):
        self.game = check_choice("game", game, GAMES)
        spec = get_game(self.game)
        check_option_names("SingleAgentEnv", options, ("num_players",) + spec.option_names + ("reward", "max_steps"))
        self.on_illegal = check_choice("on_illegal", on_illegal, ("terminate", "raise"))
        self.illegal_reward = float(illegal_reward)
        self.options = dict(options)
        self.render_mode = render_mode
        self.aec = spec.raw_env(render_mode=render_mode, **options)
        self.num_players = self.aec.num_players
        if isinstance(learner_seat, str):
            check_choice("learner_seat", learner_seat, ("rotate", "random"))
        elif isinstance(learner_seat, bool) or not isinstance(learner_seat, (int, np.integer)) or not (
            0 <= learner_seat < self.num_players
        ):
            raise ValueError(
                f"learner_seat={learner_seat!r} is not allowed; allowed values: 0..{self.num_players - 1}, "
                f"'rotate', 'random'"
            )
        self.learner_seat_mode = learner_seat
        if not isinstance(opponents, (list, tuple)):
            opponents = [opponents]
        if len(opponents) == 0:
            raise ValueError("opponents is empty; give one opponent per other seat, or one to play all of them")
        if len(opponents) not in (1, self.num_players - 1):
            raise ValueError(
                f"{len(opponents)} opponents given; give 1 (plays every other seat) or "
                f"{self.num_players - 1} (one per other seat)"
            )
        for o in opponents:
            if not (callable(o) or hasattr(o, "act")):
                raise ValueError(f"opponent {o!r} has no act() method and is not callable")
        if len(opponents) == 1:
            try:
                opponents = [opponents[0]] + [copy.deepcopy(opponents[0]) for _ in range(self.num_players - 2)]
            except Exception as exc:
                raise ValueError(f"opponent {opponents[0]!r} cannot be copied for each of the "
                                 f"{self.num_players - 1} other seats ({exc}); "
                                 "give one opponent per other seat") from None
        self.opponents = list(opponents)
        self.observation_space = spaces.Box(low=-1e4, high=1e4, shape=(self.aec.observation_size,), dtype=np.float32)
        self.action_space = spaces.Discrete(self.aec.num_actions)
        self._episode = -1
        self.learner_seat = 0
        self._seat_to_opponent: dict[int, Any] = {}

    # -- helpers ---------------------------------------------------------------------
    def _learner_agent(self) -> str:
        return self.aec.possible_agents[self.learner_seat]

    def _done(self) -> bool:
        agent = self._learner_agent()
        return bool(self.aec.terminations[agent] or self.aec.truncations[agent])

    def _opponent_act(self, seat: int) -> int:
        agent = self.aec.agent_selection
        obs = self.aec.observe(agent)
        opponent = self._seat_to_opponent[seat]
        info = {"seat": seat, "game": self.game, "num_players": self.num_players}
        # The view costs a state_dict() per move; bots that play from the observation say so.
        if getattr(opponent, "needs_view", True):
            info["view"] = self.aec.player_view(seat)
        act = opponent.act if hasattr(opponent, "act") else opponent
        return act(obs["observation"], obs["action_mask"], info)

    def _play_opponents(self) -> float:
        """Let opponents move until the learner is to act or the game is over; return the learner's reward."""
        learner = self._learner_agent()
        total = 0.0
        while not self._done() and self.aec.agent_selection != learner:
            seat = self.aec.agent_name_mapping[self.aec.agent_selection]
            self.aec.step(self._opponent_act(seat))
            total += self.aec.rewards[learner]
        return total

    def _obs(self) -> np.ndarray:
        return self.aec.observe(self._learner_agent())["observation"]

    def _info(self) -> dict:
        return {"action_mask": self.action_masks().astype(np.int8), "learner_seat": self.learner_seat}

    # -- Gymnasium API -----------------------------------------------------------------
    def action_masks(self) -> np.ndarray:
        """The learner's legal actions as a bool array (all False once the game is over)."""
        if self._done() or self.aec.agent_selection != self._learner_agent():
            return np.zeros(self.aec.num_actions, dtype=bool)
        return self.aec.legal_action_mask().astype(bool)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if options:
            raise ValueError(f"reset(options=...) is not used; pass game options to the constructor (got {options!r})")
        self._episode += 1
        if self.learner_seat_mode == "rotate":
            self.learner_seat = self._episode % self.num_players
        elif self.learner_seat_mode == "random":
            self.learner_seat = int(self.np_random.integers(self.num_players))
        else:
            self.learner_seat = int(self.learner_seat_mode)
        others = [s for s in range(self.num_players) if s != self.learner_seat]
        self._seat_to_opponent = dict(zip(others, self.opponents))
        game_seed = None if seed is None else int(seed)
        if game_seed is None:
            game_seed = int(self.np_random.integers(2**31))
        self.aec.reset(seed=game_seed)
        for s in others:
            opponent = self._seat_to_opponent[s]
            if hasattr(opponent, "reset"):
                opponent.reset(
                    game_seed + 1 + s,
                    game=self.game,
                    num_players=self.num_players,
                    seat=s,
                    options=copy.deepcopy(self.options),
                )
        self._play_opponents()
        return self._obs(), self._info()

    def step(self, action):
        if self._done():
            raise RuntimeError("the episode is over; call reset()")
        learner = self._learner_agent()
        try:
            action = self.aec.check_action(action)
        except ValueError:
            if self.on_illegal == "raise":
                raise
            self.aec.terminations = {a: True for a in self.aec.agents}
            return self._obs(), self.illegal_reward, True, False, {**self._info(), "illegal_action": True}
        self.aec.step(action)
        reward = self.aec.rewards[learner]
        reward += self._play_opponents()
        terminated = bool(self.aec.terminations[learner])
        truncated = bool(self.aec.truncations[learner]) and not terminated
        return self._obs(), float(reward), terminated, truncated, self._info()

    def render(self):
        return self.aec.render()

    def close(self):
        self.aec.close()


def make_single_agent_env(game: str, opponents: Sequence[Any] | Any, **kwargs) -> Callable[[], SingleAgentEnv]:
    """A picklable factory for vectorised SB3 envs: ``SubprocVecEnv([make_single_agent_env(...)] * 4)``."""
    return _Factory(game, opponents, kwargs)


class _Factory:
    def __init__(self, game, opponents, kwargs):
        self.game, self.opponents, self.kwargs = game, opponents, kwargs

    def __call__(self) -> SingleAgentEnv:
        return SingleAgentEnv(self.game, copy.deepcopy(self.opponents), **self.kwargs)
