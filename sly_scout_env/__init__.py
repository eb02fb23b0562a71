"""sly-scout-env: fast, rulebook-correct PettingZoo environments for Scout and Sly.

    from sly_scout_env import scout_v0, sly_v0
    env = scout_v0.env(num_players=4)

Importing the package also registers both envs in PettingZoo's registry, so that
``pettingzoo.make("aec", "sly_scout_env/scout-v0", num_players=4)`` and
``pettingzoo.make("aec", "sly_scout_env/sly-v0")`` work (PettingZoo >= 1.27). The
envs themselves load lazily: importing the package compiles nothing.
"""

from .games import all_games

__version__ = "0.1.0"

# PettingZoo ids of the registered games: "sly_scout_env/scout-v0" -> "sly_scout_env.scout_v0:env".
ENV_IDS = {f"sly_scout_env/{spec.name}-v0": f"{spec.env_module_name}:env" for spec in all_games()}


def _register_with_pettingzoo() -> None:
    try:
        from pettingzoo import aec_registry, register
    except ImportError:  # no PettingZoo, or one before 1.27 (no registry): the modules still work
        return
    for env_id, entry_point in ENV_IDS.items():
        if env_id not in aec_registry:
            register("aec", env_id, entry_point=entry_point)


_register_with_pettingzoo()
