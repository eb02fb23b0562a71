"""The app layer: bots, evaluation, training and the user interfaces, in one room each.

Installed as ``sly_scout_env.agents`` (the repository's ``agents/`` folder; the
distribution claims no top-level name of its own). Imports point down: a room may use
the rooms listed above it and the game layer (``sly_scout_env``), never the reverse.

    bots/        every bot (random, greedy, ismcts, neural, ppo) and the registry; each bot
                 is generic, finding a game's parts (heuristic, search adapter, features,
                 checkpoints) through ``sly_scout_env.games``
    evaluation/  the arena (seat rotation, duplicate deals), its statistics and reports
    training/    PPO (SB3), RLlib, warm starts and priors, distillation, checkpoint export
    ui/          the ``sly-scout`` command (one parser, one main), terminal play, the demo,
                 the web table (``ui/web``)

A new bot goes to ``bots/`` (and one line of ``bots/registry.py``), a new training recipe
to ``training/`` (and its sub-command in ``ui/cli.py``), a new page of the web table to
``ui/web/``.

    from sly_scout_env.agents import make, available, run_arena
    bot = make("random")
    result = run_arena("scout", 4, ["random", "random"], games=96, seed=0)
"""

from .bots.base import Agent, AgentProtocol, legal_actions
from .bots.registry import available, describe, make, make_from_spec, parse_spec, register, unregister
from .bots.views import player_view


def __getattr__(name):
    # The arena and play modules import the envs (Numba); load them only when used.
    if name in ("run_arena", "ArenaResult"):
        from sly_scout_env.agents.evaluation import arena

        return getattr(arena, name)
    raise AttributeError(f"module 'agents' has no attribute {name!r}")


__all__ = [
    "Agent",
    "AgentProtocol",
    "legal_actions",
    "available",
    "describe",
    "make",
    "make_from_spec",
    "parse_spec",
    "register",
    "unregister",
    "player_view",
    "run_arena",
    "ArenaResult",
]
