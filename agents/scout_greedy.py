"""The ``greedy`` bot for Scout: the compiled hand-management heuristic.

The bot calls :func:`sly_scout_env.scout.heuristic.greedy_act` on the observation and
action mask the env gives it, so it plays exactly like the in-kernel policy
``greedy`` of ``sly_scout_env.scout.policies`` (used by simulations and ISMCTS
rollouts). How it plays is documented in ``sly_scout_env/scout/heuristic.py``.
It reads nothing but its own observation and mask (``needs_view = False``).
"""

from __future__ import annotations

import numpy as np

from .base import Agent, legal_actions


class GreedyScoutAgent(Agent):
    """Scout hand-management heuristic (see ``sly_scout_env.scout.heuristic``)."""

    plays = ("scout",)

    name = "greedy"
    needs_view = False

    def __init__(self) -> None:
        super().__init__()
        from sly_scout_env.scout.heuristic import make_work

        self._rng_word = np.zeros(1, dtype=np.int64)
        self._work = make_work()

    def reset(self, seed, *, game, num_players, seat, options) -> None:
        super().reset(seed, game=game, num_players=num_players, seat=seat, options=options)
        self._rng_word[0] = self.rng.integers(-(2**63), 2**63 - 1, dtype=np.int64)

    def act(self, observation, action_mask, info) -> int:
        from sly_scout_env.scout.heuristic import greedy_act

        if self.num_players is None:
            raise ValueError("GreedyScoutAgent.act called before reset(); call reset(seed, game='scout', ...) first")
        legal = legal_actions(action_mask).astype(np.int64)
        obs = np.asarray(observation, dtype=np.float32)
        return int(greedy_act(obs, legal, legal.size, self.num_players, self._rng_word, self._work))

