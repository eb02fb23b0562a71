"""max_game_length and the utility bounds, derived in each game's ``bounds`` role, hold on random games.

Random play is far from the worst case (the bounds are sound, not tight), so the tests check
the bounds are never crossed and that the cap is far from what random games need.
"""

import numpy as np
import pytest

from sly_scout_env.games import get_game

from .helpers import COUNTS, OS, non_default_options, random_playout


def _games(game, players, options, count, seed):
    g = OS.load(game, players, **options)
    rng = np.random.default_rng(seed)
    for _ in range(count):
        state = g.new_initial_state()
        moves = random_playout(state, rng)
        yield g, state, moves


@pytest.mark.parametrize("game,players", COUNTS)
def test_random_games_stay_inside_the_length_and_utility_bounds(game, players):
    count = 200 if game == "sly" or players < 4 else 40
    longest = 0
    for g, state, moves in _games(game, players, {}, count, seed=players):
        assert moves <= g.max_game_length()
        returns = state.returns()
        assert all(g.min_utility() <= r <= g.max_utility() for r in returns), returns
        longest = max(longest, moves)
    # Random games end by the rules, far below the cap (at most ~1100 moves measured at Scout 5 players).
    assert longest < OS.DEFAULT_MAX_STEPS / 4


@pytest.mark.parametrize("game,players,options", non_default_options(),
                         ids=[f"{g}-{n}-{o}" for g, n, o in non_default_options()])
def test_non_default_options_stay_inside_the_bounds(game, players, options):
    for g, state, moves in _games(game, players, options, 15, seed=3):
        assert moves <= g.max_game_length()
        assert all(g.min_utility() <= r <= g.max_utility() for r in state.returns())


def test_a_bounded_game_never_reaches_its_derived_length():
    # Scout with 2 players: 36 moves a round at most (bounds.py); random games near 35 for 2 rounds.
    g = OS.load("scout", 2, rounds=3)
    assert g.max_game_length() == get_game("scout").module("bounds").max_moves(g.options) == 108
    assert max(m for _, _, m in _games("scout", 2, {"rounds": 3}, 300, seed=5)) <= 108


def test_a_capped_game_ends_terminal_with_the_points_paid_so_far():
    R = get_game("scout").module("rules")
    cut = 0
    for _, state, moves in _games("scout", 4, {"max_steps": 60}, 10, seed=2):
        assert moves <= 60 and state.is_terminal()
        row = state.row
        # The finished rounds' totals, as the env pays them under max_steps (reward="score").
        assert state.returns() == [float(x) for x in row[R.O_SCORES : R.O_SCORES + 4]]
        cut += row[R.PHASE] != R.PHASE_GAME_OVER
    assert cut == 10  # a 4-player game is ~400 moves: every one was cut
    sly = OS.load("sly", 3, max_steps=3)
    state = sly.new_initial_state()
    random_playout(state, np.random.default_rng(0))
    assert state.is_terminal() and state.returns() == [0.0, 0.0, 0.0]  # Sly pays at the end only
