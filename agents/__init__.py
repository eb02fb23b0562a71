"""Bots for Scout and Sly, the arena (tournaments with seat rotation, duplicate deals,
95% intervals over deals, head-to-head and openskill ratings) and terminal play.

    from agents import make, available, run_arena
    bot = make("random")
    result = run_arena("scout", 4, ["random", "random"], games=96, seed=0)

Terminal play: ``from agents.play import play`` (``agents.play`` is the module).
"""

from .base import Agent, AgentProtocol, legal_actions
from .registry import available, describe, make, make_from_spec, parse_spec, register, unregister
from .views import player_view


def __getattr__(name):
    # The arena and play modules import the envs (Numba); load them only when used.
    if name in ("run_arena", "ArenaResult"):
        from . import arena

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
