"""Lockstep with the env: the same moves through the OpenSpiel state and the PettingZoo raw env,
seeded the same way (:func:`sly_scout_env.openspiel.lockstep`), give the same player to move,
legal actions, observations of every seat, rows and returns. Hundreds of random games per
count here; thousands per count in the slow test (1000 at Scout with 4-5 players) and in
``benchmarks/openspiel_speed.py --lockstep N``.
"""

import numpy as np
import pytest

from .helpers import COUNTS, lockstep, non_default_options

# Random games per count (Scout at 4-5 players plays ~400-650 moves a game: fewer of them).
GAMES = {2: 300, 3: 300, 4: 100, 5: 60}


@pytest.mark.parametrize("game,players", COUNTS)
def test_lockstep_with_the_env_on_random_games(game, players):
    rng = np.random.default_rng(players)
    games = GAMES[players] if game != "sly" else 300
    for seed in range(games):
        lockstep(game, players, seed, rng, check_observations=seed < games // 3 or players < 4)


@pytest.mark.parametrize("game,players,options", non_default_options(),
                         ids=[f"{g}-{n}-{o}" for g, n, o in non_default_options()])
def test_lockstep_with_non_default_options(game, players, options):
    rng = np.random.default_rng(7)
    for seed in range(20):
        lockstep(game, players, 1000 + seed, rng, options)


@pytest.mark.slow
@pytest.mark.parametrize("game,players", COUNTS)
def test_lockstep_on_thousands_of_games(game, players):
    rng = np.random.default_rng(100 + players)
    for seed in range(1000 if game == "scout" and players >= 4 else 3000):
        lockstep(game, players, 10_000 + seed, rng, check_observations=seed % 10 == 0)
