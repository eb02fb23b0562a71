"""Both games in OpenSpiel: load them, run OpenSpiel's checks, search with OpenSpiel's ISMCTS.

    python benchmarks/openspiel_example.py            # about a minute
    python benchmarks/openspiel_example.py --small    # seconds (also SLY_SCOUT_SMALL=1; the test suite runs it)

The walk-through of docs/openspiel.md as one script: every step prints what it found.
Needs the ``openspiel`` extra (``pip install -e '.[openspiel]'``).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pyspiel  # noqa: E402
from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402

import sly_scout_env.openspiel  # noqa: E402, F401  (registers python_scout and python_sly)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--small", action="store_true", default=os.environ.get("SLY_SCOUT_SMALL") == "1")
    args = p.parse_args(argv)
    sims, simulations, games = (1, 10, 2) if args.small else (20, 100, 10)
    print("small mode" if args.small else "full mode")

    # 1. Load: the registered names, and a game with parameters.
    names = [n for n in pyspiel.registered_names() if n in ("python_scout", "python_sly")]
    print("registered:", ", ".join(names))
    game = pyspiel.load_game("python_scout(players=4)")
    print(game)
    print(f"  actions {game.num_distinct_actions()}, chance outcomes {game.max_chance_outcomes()}, "
          f"max game length {game.max_game_length()}, utilities [{game.min_utility()}, {game.max_utility()}], "
          f"observation tensor {game.observation_tensor_shape()}")

    # 2. A state: the first deal is 4 chance nodes (the digits of a seed), then the players move.
    state = game.new_initial_state()
    for digit in sly_scout_env.openspiel.seed_digits(2024):
        state.apply_action(digit)
    print(f"  after the deal (env seed 2024): player {state.current_player()} to move, "
          f"{len(state.legal_actions())} legal actions, e.g. {state.action_to_string(state.legal_actions()[0])!r}")
    print("  " + state.observation_string(0).replace("\n", "\n  "))

    # 3. OpenSpiel's own checks, on both games.
    for text in ("python_scout(players=4)", "python_sly(players=3)"):
        pyspiel.random_sim_test(pyspiel.load_game(text), num_sims=sims, serialize=True, verbose=False)
        print(f"random_sim_test {text}: {sims} games OK")

    # 4. OpenSpiel's ISMCTS (our resampler draws its worlds) against random bots in Sly.
    game = pyspiel.load_game("python_sly(players=3)")
    rng = np.random.RandomState(0)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rng), 3.0, simulations, random_state=rng)
    totals = np.zeros(3)
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.current_player() == 0:
                action = bot.step(state)
            else:
                action = rng.choice(state.legal_actions())
            state.apply_action(int(action))
        totals += state.returns()
    print(f"ISMCTS ({simulations} simulations) at seat 0 against two random bots, {games} Sly games: "
          f"mean scores {np.round(totals / games, 2).tolist()}")
    print("OPENSPIEL EXAMPLE OK")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
