"""Time per move of the ``neural`` bot, for every shipped checkpoint (issue budget: 1 ms).

    python benchmarks/neural_move.py            # prints a markdown table
    python benchmarks/neural_move.py --repeats 7

What is timed: ``NeuralAgent.act(observation, mask, {})`` on positions of real games
(random play from fresh deals, the observations and masks collected first, outside the
timed region). Each repeat times one pass over all positions; the table gives the median
over repeats of the median time per move and of its 99th percentile (single moves on a
loaded machine are sometimes preempted for milliseconds: that is the scheduler, not the bot). Shared,
noisy machines: medians, never asserted in tests.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sly_scout_env.agents import make  # noqa: E402
from sly_scout_env.agents.bots.neural import shipped  # noqa: E402
from sly_scout_env.games import get_game  # noqa: E402


def positions(game, players, count, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    g = 0
    while len(out) < count:
        env = get_game(game).raw_env(num_players=players)
        env.reset(seed=seed * 100_000 + g)
        g += 1
        while not all(env.terminations.values()) and len(out) < count:
            o = env.observe(env.agent_selection)
            out.append((o["observation"].copy(), o["action_mask"].copy()))
            env.step(int(rng.choice(np.flatnonzero(o["action_mask"]))))
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--positions", type=int, default=2000)
    args = p.parse_args(argv)
    print("| checkpoint | game | players | hidden layers | file size | median per move (median of "
          f"{args.repeats}) | 99th percentile |")
    print("|---|---|---:|---|---:|---:|---:|")
    for pol in shipped():
        bot = make("neural")
        bot.reset(0, game=pol.game, num_players=pol.players, seat=0, options={})
        pos = positions(pol.game, pol.players, args.positions)
        means, p99 = [], []
        for r in range(args.repeats + 1):
            times = np.empty(len(pos))
            for i, (o, m) in enumerate(pos):
                t0 = time.perf_counter()
                bot.act(o, m, {})
                times[i] = time.perf_counter() - t0
            if r:  # the first pass warms caches
                means.append(np.median(times))
                p99.append(np.percentile(times, 99))
        print(f"| {os.path.basename(pol.source)} | {pol.game} | {pol.players} | {pol.meta.get('hidden')} | "
              f"{os.path.getsize(pol.source) / 1024:.0f} KiB | {statistics.median(means) * 1e6:.0f} µs | "
              f"{statistics.median(p99) * 1e6:.0f} µs |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
