"""The ``greedy`` bot for Sly: the compiled public-knowledge heuristic.

The bot calls :func:`sly_scout_env.sly.heuristic.greedy_act` on the observation and
action mask the env gives it, so it plays exactly like the in-kernel policy
``greedy`` of ``sly_scout_env.sly.policies`` (used by simulations and ISMCTS
rollouts). How it plays is documented in ``sly_scout_env/sly/heuristic.py``.
It reads nothing but its own observation and mask (``needs_view = False``).
"""

from __future__ import annotations

import numpy as np

from .base import Agent, legal_actions


class GreedySlyAgent(Agent):
    """Public-knowledge Sly heuristic (see ``sly_scout_env.sly.heuristic``)."""

    plays = ("sly",)

    name = "greedy"
    needs_view = False

    def __init__(self) -> None:
        super().__init__()
        from sly_scout_env.sly.heuristic import WORK_SIZE

        self._rng_word = np.zeros(1, dtype=np.int64)
        self._work = np.zeros(WORK_SIZE, dtype=np.int64)  # the heuristic's scratch, reused every move
        self._hen_houses = None
        self._reveal_all = 0

    def reset(self, seed, *, game, num_players, seat, options) -> None:
        super().reset(seed, game=game, num_players=num_players, seat=seat, options=options)
        from sly_scout_env.sly import rules as R

        opts = R.parse_options(num_players=num_players, **{k: v for k, v in self.options.items()
                                                           if k in ("hen_houses", "reveal_scope", "first_player")})
        self._hen_houses = opts["hen_houses"]
        self._reveal_all = 1 if opts["reveal_scope"] == "all" else 0
        self._rng_word[0] = self.rng.integers(-(2**63), 2**63 - 1, dtype=np.int64)

    def act(self, observation, action_mask, info) -> int:
        from sly_scout_env.sly.heuristic import greedy_act

        if self._hen_houses is None:
            raise ValueError("GreedySlyAgent.act called before reset(); call reset(seed, game='sly', ...) first")
        legal = legal_actions(action_mask).astype(np.int64)
        obs = np.asarray(observation, dtype=np.float32)
        return int(greedy_act(obs, legal, legal.size, self.num_players, self._hen_houses, self._reveal_all,
                              self._rng_word, 0, self._work))
