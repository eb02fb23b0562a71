"""The ``greedy`` bot: each game's compiled heuristic, found through the game registry.

The bot plays the ``GreedyPlayer`` of the game's ``heuristic`` role
(``sly_scout_env/<game>/heuristic.py``) on the observation and action mask the env gives
it, so it plays exactly like the in-kernel policy ``greedy`` of the game's ``policies``
(used by simulations and ISMCTS rollouts). How each game's heuristic plays is documented
in its ``heuristic.py``. It reads nothing but its own observation and mask
(``needs_view = False``).
"""

from __future__ import annotations

import numpy as np

from sly_scout_env.games import get_game

from .base import Agent, legal_actions


def describe(game: str) -> str:
    """The greedy bot of ``game`` in one line (its heuristic's ``GreedyPlayer.DESCRIPTION``)."""
    return get_game(game).module("heuristic").GreedyPlayer.DESCRIPTION


class GreedyAgent(Agent):
    """The game's compiled heuristic (its ``heuristic.GreedyPlayer``)."""

    name = "greedy"
    needs_view = False

    def __init__(self) -> None:
        super().__init__()
        self._rng_word = np.zeros(1, dtype=np.int64)
        self._player = None

    def reset(self, seed, *, game, num_players, seat, options) -> None:
        super().reset(seed, game=game, num_players=num_players, seat=seat, options=options)
        self._player = get_game(game).module("heuristic").GreedyPlayer(num_players, self.options)
        self._rng_word[0] = self.rng.integers(-(2**63), 2**63 - 1, dtype=np.int64)

    def act(self, observation, action_mask, info) -> int:
        if self._player is None:
            raise ValueError("GreedyAgent.act called before reset(); call reset(seed, game=..., ...) first")
        legal = legal_actions(action_mask).astype(np.int64)
        return self._player(np.asarray(observation, dtype=np.float32), legal, self._rng_word)
