"""Speed of the compiled ``neural`` policy (sly_scout_env.netpolicy) in simulate and in the
fast learner, against the compiled greedy bot at the same seats.

    python benchmarks/neural_compiled.py              # markdown tables (a few minutes)
    python benchmarks/neural_compiled.py --quick      # small sizes
    taskset -c 1 python benchmarks/neural_compiled.py --threads 1

Tables:
- per move: ``policies.choose`` of the compiled network (its prior's move included) in a
  compiled loop over positions of random play, against the numpy bot
  (``NeuralAgent.act``) on the same positions;
- simulate: units/s (Scout hands, Sly games) with one ``neural`` seat and the others
  greedy, and with every seat greedy (1 thread by default); each timed run's units are
  calibrated from short runs to take about ``SIM_SECONDS`` (``benchmarks.run.autorange``);
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

from numba import njit  # noqa: E402

from benchmarks.run import autorange  # noqa: E402
from sly_scout_env.agents import make  # noqa: E402
from sly_scout_env.games import get_game  # noqa: E402
from sly_scout_env.learner import SingleLearnerBatch  # noqa: E402
from sly_scout_env.netpolicy import compiled_policies, obs_size  # noqa: E402
from sly_scout_env.simulation import simulate  # noqa: E402

TABLES = (("scout", 2), ("scout", 4), ("scout", 5), ("sly", 2), ("sly", 3))
MOVES = (2_000, 300)  # positions per per-move pass: full, --quick
SIM_SECONDS = (3.0, 0.3)  # a timed simulate run's target length: full, --quick


def _median(fn, repeats):
    fn()  # warm-up (compilation, caches)
    return statistics.median(fn() for _ in range(repeats))


@njit
def _choose_all(choose, pid, rows, scratch, obs, nets):
    total = 0
    rng = np.zeros(1, dtype=np.int64)
    for i in range(rows.shape[0]):
        total += choose(pid, rows[i].copy(), scratch, obs, rng, nets)
    return total


def per_move(game, players, count, repeats):
    """(compiled µs per move, numpy bot µs per move) on ``count`` positions of random play."""
    spec = get_game(game)
    pol = spec.module("policies")
    rng = np.random.default_rng(0)
    rows, views = [], []
    g = 0
    while len(rows) < count:
        env = spec.raw_env(num_players=players)
        env.reset(seed=g)
        g += 1
        while not all(env.terminations.values()) and len(rows) < count:
            o = env.observe(env.agent_selection)
            rows.append(env.unwrapped._state.copy())
            views.append((o["observation"], o["action_mask"]))
            env.step(int(rng.choice(np.flatnonzero(o["action_mask"]))))
    rows = np.array(rows)
    ids, nets = compiled_policies(game, ["neural"], players)
    scratch = np.zeros(pol.CHOOSE_SCRATCH, dtype=np.int64)
    obs = np.zeros(obs_size(views[0][0].shape[0], nets), dtype=np.float32)

    def compiled():
        t0 = time.perf_counter()
        _choose_all(pol.choose, int(ids[0]), rows, scratch, obs, nets)
        return (time.perf_counter() - t0) / count * 1e6

    bot = make("neural")
    bot.reset(0, game=game, num_players=players, seat=0, options={})

    def numpy_bot():
        t0 = time.perf_counter()
        for observation, mask in views:
            bot.act(observation, mask, {})
        return (time.perf_counter() - t0) / count * 1e6

    return _median(compiled, repeats), _median(numpy_bot, repeats)


def simulate_row(game, players, seconds, threads, repeats):
    """Median units/s with a neural seat 0 and with every seat greedy, runs of about ``seconds``."""
    rates = []
    for pols in (["neural"] + ["greedy"] * (players - 1), ["greedy"] * players):
        def seconds_for(n, pols=pols):
            return float(simulate(game, n, players=players, policies=pols, seed=0, threads=threads)["seconds"])

        n = autorange(seconds_for, seconds)

        def run(pols=pols, n=n):
            r = simulate(game, n, players=players, policies=pols, seed=1, threads=threads)
            return n / r["seconds"]

        rates.append(_median(run, repeats))
    return rates


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

    return _median(run, repeats)


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--threads", type=int, default=1, help="Numba threads for simulate (default 1)")
    args = p.parse_args(argv)
    numba.set_num_threads(args.threads)
    k = 1 if args.quick else 0
    print(f"per move, median of {args.repeats} passes over {MOVES[k]} positions of random play\n")
    print("| game | players | compiled `choose` (µs) | numpy bot `NeuralAgent.act` (µs) |")
    print("|---|---:|---:|---:|")
    for game, players in TABLES:
        c, p = per_move(game, players, MOVES[k], args.repeats)
        print(f"| {game} | {players} | {c:.1f} | {p:.1f} |", flush=True)
    print(f"\nsimulate, {args.threads} thread(s); median of {args.repeats} runs of about {SIM_SECONDS[k]:g} s\n")
    print("| game | players | units/s, neural at seat 0, greedy elsewhere | units/s, all greedy |")
    print("|---|---:|---:|---:|")
    for game, players in TABLES:
        rn, rg = simulate_row(game, players, SIM_SECONDS[k], args.threads, args.repeats)
        print(f"| {game} | {players} | {rn:,.0f} | {rg:,.0f} |", flush=True)
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
