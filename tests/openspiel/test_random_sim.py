"""OpenSpiel's own checks: ``pyspiel.random_sim_test`` on every game, count and non-default option.

random_sim_test plays random games (chance outcomes by their probabilities) and checks at every
state: legal actions sorted and empty for the others, unique action strings, the legal-action
masks (chance ones too, of length max_chance_outcomes), clones, serialization round trips
(``serialize=True``), the observation and information-state calls of every seat, returns within
[min_utility, max_utility], game length within max_game_length. Few games per case (a Scout
game at 5 players is ~650 moves): each case takes a few seconds at most.
"""

import pytest

from .helpers import COUNTS, OS, non_default_options, pyspiel

SIMS = 2


@pytest.mark.parametrize("game,players", COUNTS)
def test_random_sim_test_at_every_count(game, players):
    pyspiel.random_sim_test(OS.load(game, players), num_sims=SIMS, serialize=True, verbose=False)


@pytest.mark.parametrize("game,players,options", non_default_options(),
                         ids=[f"{g}-{n}-{o}" for g, n, o in non_default_options()])
def test_random_sim_test_with_non_default_options(game, players, options):
    pyspiel.random_sim_test(OS.load(game, players, **options), num_sims=SIMS, serialize=True, verbose=False)


def test_random_sim_test_with_a_move_cap_ends_games_at_it():
    game = OS.load("scout", 4, max_steps=25)
    assert game.max_game_length() == 25
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)
