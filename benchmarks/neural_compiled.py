"""Speed of the compiled ``neural`` policy (sly_scout_env.netpolicy) in simulate and in the
fast learner, against the compiled greedy bot at the same seats.

    python benchmarks/neural_compiled.py              # markdown tables (a few minutes)
    python benchmarks/neural_compiled.py --quick      # small sizes
    taskset -c 1 python benchmarks/neural_compiled.py --threads 1

Tables:
- simulate: units/s (Scout hands, Sly games) with one ``neural`` seat and the others
  greedy, and with every seat greedy; the compiled network's cost per move is
  ``(1/rate_neural - 1/rate_greedy) / (neural moves per unit)`` (the extra time of the
  network over greedy's move at that seat, its prior included);
- learner: ``SingleLearnerBatch.step`` learner steps/s (256 rows, the learner's random
  legal actions drawn outside the timed region) with ``neural`` and with ``greedy``
  opponents at every other seat.

Shared, noisy machines: every number is the median of ``--repeats`` runs after a
discarded warm-up run; nothing here is asserted in tests.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numba
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sly_scout_env.learner import SingleLearnerBatch  # noqa: E402
from sly_scout_env.simulation import simulate  # noqa: E402

TABLES = (("scout", 2), ("scout", 4), ("scout", 5), ("sly", 2), ("sly", 3))
UNITS = {"scout": (4_000, 400), "sly": (6_000, 1_000)}  # per timed run: full, --quick (about 2-4 s each)


def _median_rate(fn, repeats):
    fn()  # warm-up (compilation, caches)
    return statistics.median(fn() for _ in range(repeats))


def simulate_row(game, players, n, threads, repeats):
    neural = ["neural"] + ["greedy"] * (players - 1)
    greedy = ["greedy"] * players
    runs = {}
    for name, pols in (("neural", neural), ("greedy", greedy)):
        last = {}

        def run(pols=pols, last=last):
            r = simulate(game, n, players=players, policies=pols, seed=1, threads=threads)
            last["r"] = r
            return n / r["seconds"]

        runs[name] = (_median_rate(run, repeats), last["r"])
    rate_n, r = runs["neural"]
    rate_g, _ = runs["greedy"]
    # The neural seat's moves: steps of seat 0 are about a 1/players share of each unit's steps.
    moves = float(np.mean(r["steps"])) / players
    per_move = (1.0 / rate_n - 1.0 / rate_g) / moves
    return rate_n, rate_g, per_move * 1e6


def learner_rate(game, players, opponents, steps, repeats, n_envs=256):
    batch = SingleLearnerBatch(game, n_envs, opponents=opponents, learner_seat="rotate", num_players=players, seed=0)
    batch.reset()
    rng = np.random.default_rng(0)

    def run():
        total = 0.0
        for _ in range(steps):
            a = np.argmax(batch.masks * rng.random(batch.masks.shape), axis=1)  # a random legal action per row
            t0 = time.perf_counter()
            batch.step(a)
            total += time.perf_counter() - t0
        return steps * n_envs / total

    return _median_rate(run, repeats)


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--threads", type=int, default=1, help="Numba threads for simulate (default 1)")
    args = p.parse_args(argv)
    numba.set_num_threads(args.threads)
    k = 1 if args.quick else 0
    print(f"simulate, {args.threads} thread(s); median of {args.repeats} runs\n")
    print("| game | players | units/s, neural at seat 0 | units/s, all greedy | compiled neural move (µs, over greedy's) |")
    print("|---|---:|---:|---:|---:|")
    for game, players in TABLES:
        rn, rg, us = simulate_row(game, players, UNITS[game][k], args.threads, args.repeats)
        print(f"| {game} | {players} | {rn:,.0f} | {rg:,.0f} | {us:.1f} |", flush=True)
    print(f"\nlearner (SingleLearnerBatch, 256 rows, {numba.get_num_threads()} thread(s)); learner steps/s\n")
    print("| game | players | neural opponents | greedy opponents |")
    print("|---|---:|---:|---:|")
    steps = 20 if args.quick else 100
    for game, players in TABLES:
        rn = learner_rate(game, players, "neural", steps, args.repeats)
        rg = learner_rate(game, players, "greedy", steps, args.repeats)
        print(f"| {game} | {players} | {rn:,.0f} | {rg:,.0f} |", flush=True)


if __name__ == "__main__":
    main()
