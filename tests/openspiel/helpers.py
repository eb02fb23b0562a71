"""Shared by the OpenSpiel tests: the cases, random play, and the lockstep with the env."""

from __future__ import annotations

from sly_scout_env.games import all_games

from ..conftest import require

INSTALL_OPENSPIEL = "pip install -e '.[openspiel]' (open_spiel)"
pyspiel = require("pyspiel", INSTALL_OPENSPIEL)

from sly_scout_env import openspiel as OS  # noqa: E402  (imports pyspiel)

# Every game and player count of the registry.
COUNTS = [(spec.name, n) for spec in all_games() for n in spec.player_counts]


def non_default_options() -> list[tuple[str, int, dict]]:
    """One case per non-default value of every rule option (an open int option: 1 and 3), at the
    smallest and the default player count: read off the registry, so a new option is covered."""
    cases = []
    for spec in all_games():
        for option in spec.options:
            values = (1, 3) if option.choices is None else [v for v in option.choices if v != option.default]
            for value in values:
                for n in sorted({min(spec.player_counts), spec.default_players}):
                    cases.append((spec.name, n, {option.name: value}))
    return cases


def random_playout(state, rng, max_moves=None):
    """Play ``state`` (in place) to the end with uniform moves and chance outcomes; returns the moves made."""
    moves = 0
    while not state.is_terminal() and (max_moves is None or moves < max_moves):
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[int(rng.integers(len(outcomes)))][0])
        else:
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])
            moves += 1
    return moves


lockstep = OS.lockstep  # the lockstep with the env lives in the module (benchmarks use it too)
