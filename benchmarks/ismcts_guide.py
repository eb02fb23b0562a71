"""Time and iterations per move of ``ismcts`` with and without the network guide (``guide=neural``).

    python benchmarks/ismcts_guide.py --time-limit 0.05      # prints a markdown table
    python benchmarks/ismcts_guide.py --time-limit 0.05 --tables sly:2,scout:2 --positions 100

Both bots get the same ``time_limit`` per move and no iteration cap (``iterations=None``),
as in the arena comparison of docs/training.md ("Search guided by the network"). What is
timed: ``act()`` on positions of real games (random play from fresh deals, collected
first). The table gives, per bot, the median and 90th percentile of the wall time per
move (the search stops at its first iteration past the deadline, so a move takes a
little more than ``time_limit``) and the median of its iterations per move. Shared,
noisy machines: medians, never asserted in tests.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agents import make  # noqa: E402
from agents.views import player_view  # noqa: E402
from sly_scout_env.games import get_game  # noqa: E402


def positions(game, players, count, seed=0):
    """(observation, mask, info) of positions with at least two legal moves, from random play."""
    rng = np.random.default_rng(seed)
    out = []
    g = 0
    while len(out) < count:
        env = get_game(game).raw_env(num_players=players)
        env.reset(seed=seed * 100_000 + g)
        g += 1
        while not all(env.terminations.values()) and len(out) < count:
            seat = env.agent_name_mapping[env.agent_selection]
            o = env.observe(env.agent_selection)
            if o["action_mask"].sum() >= 2:
                out.append((seat, o["observation"].copy(), o["action_mask"].copy(),
                            {"seat": seat, "view": player_view(env.state_dict(), seat)}))
            env.step(int(rng.choice(np.flatnonzero(o["action_mask"]))))
    return out


def measure(game, players, spec_kw, pos):
    """Per move: wall seconds and search iterations."""
    bot = make("ismcts", game=game, **spec_kw)
    seconds, iterations = [], []
    for k, (seat, obs, mask, info) in enumerate(pos):
        bot.reset(k, game=game, num_players=players, seat=seat, options={})
        t = time.perf_counter()
        bot.act(obs, mask, info)
        seconds.append(time.perf_counter() - t)
        iterations.append(bot.search.last_iterations)
    return seconds, iterations


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--time-limit", type=float, default=0.05)
    p.add_argument("--positions", type=int, default=60)
    p.add_argument("--guide-c", type=float, default=None, help="guide_c of the guided bot (default: its default)")
    p.add_argument("--tables", default="sly:2,sly:3,scout:2", help="game:players,... (shipped checkpoints only)")
    args = p.parse_args(argv)
    guided = {"guide": "neural"} if args.guide_c is None else {"guide": "neural", "guide_c": args.guide_c}
    print(f"time_limit {args.time_limit} s per move, no iteration cap; {args.positions} positions per table")
    print("| game | players | bot | median s per move | 90th pct | median iterations per move |")
    print("|---|---:|---|---:|---:|---:|")
    for table in args.tables.split(","):
        game, players = table.split(":")
        players = int(players)
        pos = positions(game, players, args.positions)
        measure(game, players, dict(guided, iterations=3), pos[:3])  # compile and load outside the timing
        for label, kw in (("ismcts", {}), ("ismcts:guide=neural", guided)):
            s, it = measure(game, players, dict(kw, iterations=None, time_limit=args.time_limit), pos)
            print(f"| {game} | {players} | {label} | {statistics.median(s):.4f} | {np.percentile(s, 90):.4f} | "
                  f"{statistics.median(it):.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
