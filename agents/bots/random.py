"""The ``random`` bot: a uniformly random legal move."""

from __future__ import annotations

import numpy as np

from sly_scout_env.agents.bots.base import Agent, legal_actions


class RandomAgent(Agent):
    """Plays a uniformly random legal move, from its own generator seeded in ``reset``."""

    name = "random"
    needs_view = False  # never reads info["view"]; the runner skips building it

    def act(self, observation: np.ndarray, action_mask: np.ndarray, info: dict) -> int:
        legal = legal_actions(action_mask)
        return int(legal[self.rng.integers(legal.size)])
