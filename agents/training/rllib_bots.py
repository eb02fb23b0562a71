"""The suite's bots as fixed RLlib modules: opponents of an RLlib run (``sly-scout train --backend rllib``).

    from sly_scout_env.agents.training.rllib_bots import bot_module_spec
    spec = bot_module_spec("random", "sly", 2)

:class:`BotRLModule` seats one of the suite's bots (``random``, a ``ppo:path=...``
checkpoint, any bot that reads only its observation and mask) as a fixed policy through
the policy mapping. This module imports Ray at import time (the ``ray`` extra).
"""

from __future__ import annotations

import numpy as np
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.rl_module import RLModule, RLModuleSpec


class BotRLModule(RLModule):
    """A fixed (never trained) module that plays one of the suite's bots.

    ``model_config``: ``bot`` (a bot spec, e.g. ``"random"`` or ``"ppo:path=run/final.zip"``),
    ``game``, ``players``, ``options``, ``seed``. The bot must read only the
    observation and the action mask (``needs_view = False``): a module sees no more.
    List its module id outside ``policies_to_train``.
    """

    def setup(self):
        from sly_scout_env.agents.bots.registry import make_from_spec

        cfg = self.model_config
        self.bot = make_from_spec(cfg["bot"], game=cfg["game"])
        if getattr(self.bot, "needs_view", True):
            raise ValueError(f"bot {cfg['bot']!r} reads the game state beyond its observation (needs_view); "
                             "only bots that read the observation and the mask can be RLlib modules "
                             "(e.g. random, ppo:path=...)")
        self.bot.reset(int(cfg.get("seed", 0)), game=cfg["game"], num_players=int(cfg["players"]), seat=0,
                       options=dict(cfg.get("options") or {}))

    def _forward(self, batch, **kwargs):
        obs = batch[Columns.OBS]
        x = np.asarray(obs["observations"])
        mask = np.asarray(obs["action_mask"])
        acts = [self.bot.act(x[i], mask[i].astype(np.int8), {}) for i in range(len(x))]
        return {Columns.ACTIONS: np.asarray(acts, dtype=np.int64)}

    def _forward_train(self, *args, **kwargs):
        raise RuntimeError("a BotRLModule is fixed, never trained: leave it out of policies_to_train")


def bot_module_spec(bot: str, game: str, players: int, options: dict | None = None, seed: int = 0) -> RLModuleSpec:
    """The spec of a :class:`BotRLModule` playing ``bot``."""
    return RLModuleSpec(module_class=BotRLModule,
                        model_config={"bot": bot, "game": game, "players": players, "options": dict(options or {}),
                                      "seed": seed})
