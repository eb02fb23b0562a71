"""OpenSpiel-state random playouts per second against the raw env, and OpenSpiel's checks at scale.

    python benchmarks/openspiel_speed.py                        # playouts: a markdown table
    python benchmarks/openspiel_speed.py --games 50 --repeats 5 --tables scout:4,sly:3
    python benchmarks/openspiel_speed.py --lockstep 2000        # + the lockstep on 2000 games per count
    python benchmarks/openspiel_speed.py --evaluate 2000        # + evaluate_bots, 2000 random games per count

Playouts: uniformly random games from the start, the same move choice on both sides (a
legal move drawn uniformly from the player's legal actions; chance outcomes uniformly).
The OpenSpiel side runs through pyspiel (``state.legal_actions()``, ``state.apply_action()``,
chance outcomes included: every deal is 4 chance nodes); the env side through the raw
PettingZoo env (``legal_action_mask()``, ``step()``, ``env.reset(seed)``). Per table: the
median over ``--repeats`` timed runs of ``--games`` games each (after one untimed warm-up
game), in games and moves (player moves) per second. Shared, noisy machines: medians, never
asserted in tests.

``--lockstep N``: :func:`sly_scout_env.openspiel.lockstep` on N random games per count (legal
actions, every seat's observation, rows and returns against the env). ``--evaluate N``:
OpenSpiel's ``evaluate_bots`` with uniform random bots, N games per count (returns checked
against the game's utility bounds). Both print the time they took.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pyspiel  # noqa: E402

from sly_scout_env import openspiel as OS  # noqa: E402
from sly_scout_env.games import all_games, get_game  # noqa: E402

ALL_TABLES = ",".join(f"{s.name}:{n}" for s in all_games() for n in s.player_counts)


def openspiel_playouts(game, games: int, rng) -> int:
    """Random games through the OpenSpiel state; returns the player moves made."""
    moves = 0
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(int(rng.integers(OS.SEED_BASE)))
            else:
                legal = state.legal_actions()
                state.apply_action(legal[int(rng.integers(len(legal)))])
                moves += 1
    return moves


def env_playouts(env, games: int, rng, first_seed: int) -> int:
    """Random games through the raw env; returns the moves made."""
    moves = 0
    for g in range(games):
        env.reset(seed=first_seed + g)
        while not env.terminations[env.agent_selection]:
            legal = np.flatnonzero(env.legal_action_mask())
            env.step(int(legal[int(rng.integers(len(legal)))]))
            moves += 1
    return moves


def measure(name: str, players: int, games: int, repeats: int) -> dict:
    game = OS.load(name, players)
    env = get_game(name).raw_env(num_players=players)
    rng = np.random.default_rng(0)
    openspiel_playouts(game, 1, rng)  # warm-up: compiled kernels, caches
    env_playouts(env, 1, rng, 0)
    rates = {"openspiel": [], "env": []}
    for r in range(repeats):
        t = time.perf_counter()
        m = openspiel_playouts(game, games, rng)
        rates["openspiel"].append((games / (time.perf_counter() - t), m / (time.perf_counter() - t)))
        t = time.perf_counter()
        m = env_playouts(env, games, rng, 1 + r * games)
        rates["env"].append((games / (time.perf_counter() - t), m / (time.perf_counter() - t)))
    return {side: (statistics.median(g for g, _ in v), statistics.median(m for _, m in v)) for side, v in rates.items()}


def lockstep_check(name: str, players: int, games: int) -> float:
    rng = np.random.default_rng(players)
    t = time.perf_counter()
    for seed in range(games):
        OS.lockstep(name, players, seed, rng, check_observations=True)
    return time.perf_counter() - t


def evaluate_check(name: str, players: int, games: int) -> float:
    from open_spiel.python.algorithms.evaluate_bots import evaluate_bots

    game = OS.load(name, players)
    bots = [pyspiel.make_uniform_random_bot(p, 10 + p) for p in range(players)]
    rs = np.random.RandomState(players)
    t = time.perf_counter()
    for _ in range(games):
        returns = evaluate_bots(game.new_initial_state(), bots, rs)
        if not all(game.min_utility() <= x <= game.max_utility() for x in returns):
            raise AssertionError(f"{name} {players}p: returns {returns} outside the utility bounds")
    return time.perf_counter() - t


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=20, help="games per timed run (default 20)")
    p.add_argument("--repeats", type=int, default=3, help="timed runs per table; the median is shown (default 3)")
    p.add_argument("--tables", default=ALL_TABLES, help=f"game:players,... (default {ALL_TABLES})")
    p.add_argument("--lockstep", type=int, default=0, metavar="N", help="also check the lockstep on N games per count")
    p.add_argument("--evaluate", type=int, default=0, metavar="N", help="also run evaluate_bots on N games per count")
    args = p.parse_args(argv)
    tables = [(t.split(":")[0], int(t.split(":")[1])) for t in args.tables.split(",")]
    print(f"random playouts from the start; median of {args.repeats} runs of {args.games} games each")
    print("| game | players | OpenSpiel games/s | env games/s | OpenSpiel moves/s | env moves/s | env / OpenSpiel |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, players in tables:
        r = measure(name, players, args.games, args.repeats)
        (og, om), (eg, em) = r["openspiel"], r["env"]
        print(f"| {name} | {players} | {og:,.1f} | {eg:,.1f} | {om:,.0f} | {em:,.0f} | {em / om:.2f}x |")
    if args.lockstep:
        print(f"\nlockstep with the env, {args.lockstep} random games per count:")
        for name, players in tables:
            print(f"  {name} {players}p: ok in {lockstep_check(name, players, args.lockstep):.1f} s")
    if args.evaluate:
        print(f"\nevaluate_bots, uniform random bots, {args.evaluate} games per count:")
        for name, players in tables:
            print(f"  {name} {players}p: ok in {evaluate_check(name, players, args.evaluate):.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
