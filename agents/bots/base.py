"""The protocol every bot follows, so the arena, ``sly-scout play`` and training scripts
can drive any bot the same way.

A bot is any object with:

``name: str``
    A short label (the registry name, possibly with parameters).
``reset(seed, *, game, num_players, seat, options) -> None``
    Called once before each game. ``seed`` (an int, or None for OS entropy) seeds the
    bot's own random generator, so a game is reproducible from the arena's seed.
    ``game`` is ``"scout"`` or ``"sly"``, ``seat`` the bot's seat (0-based) and
    ``options`` the game options the env was built with (e.g. ``{"rounds": 1}``).
``act(observation, action_mask, info) -> int``
    Return a legal action id (``action_mask[a] == 1``). ``observation`` and
    ``action_mask`` are the env's ``observe(agent)`` arrays for the acting seat.
    ``info["view"]`` is the acting seat's redacted state dict
    (:func:`sly_scout_env.agents.bots.views.player_view`): the full state minus everything that seat
    cannot know, so a bot cannot peek at hidden cards by construction. ``info`` also
    holds ``"seat"``, ``"game"`` and ``"num_players"``.

Optional attribute ``needs_view`` (default True): a bot that never reads
``info["view"]`` sets it False and the runner skips building the view (building it
costs a ``state_dict()`` per move, which dominates the time of fast bots).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Protocol, runtime_checkable

import numpy as np

# Shared with the core's checkpoint reader (the compiled and numpy neural policies).
from sly_scout_env.netfile import choose_from_logits, legal_actions  # noqa: F401


@runtime_checkable
class AgentProtocol(Protocol):
    """Structural type of a bot (see the module docstring)."""

    name: str

    def reset(self, seed: int | None, *, game: str, num_players: int, seat: int, options: dict) -> None: ...

    def act(self, observation: np.ndarray, action_mask: np.ndarray, info: dict) -> int: ...


class Agent(ABC):
    """Convenience base class: stores the reset arguments and owns a seeded generator.

    Subclasses implement :meth:`act` and may extend :meth:`reset` (call ``super().reset``).
    """

    name: str = "agent"
    needs_view: bool = True
    # The games this class plays (a bot built on one game's kernels names it); None: any.
    plays: tuple[str, ...] | None = None

    def __init__(self) -> None:
        self.rng = np.random.default_rng()
        self.game: str | None = None
        self.num_players: int | None = None
        self.seat: int | None = None
        self.options: dict = {}

    def reset(self, seed: int | None, *, game: str, num_players: int, seat: int, options: dict) -> None:
        if self.plays is not None and game not in self.plays:
            raise ValueError(f"game={game!r} is not allowed for {type(self).__name__}; allowed values: "
                             f"{', '.join(map(repr, self.plays))}")
        self.rng = np.random.default_rng(seed)
        self.game = game
        self.num_players = num_players
        self.seat = seat
        self.options = dict(options or {})

    @abstractmethod
    def act(self, observation: np.ndarray, action_mask: np.ndarray, info: dict) -> int:
        """The action id to play (a legal one: ``action_mask[a] == 1``)."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"
