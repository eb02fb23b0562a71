"""Time and iterations per move of ``ismcts`` with and without the network guide (``guide=neural``).

    python benchmarks/ismcts_guide.py --time-limit 0.05      # prints a markdown table
    python benchmarks/ismcts_guide.py --time-limit 0.05 --tables sly:2,scout:2 --positions 100

Both bots get the same ``time_limit`` per move and no iteration cap (``iterations=None``),
as in the arena comparison of docs/experiments/guided-search.md. What is
timed: ``act()`` on positions where the mover has two moves or more, taken from games
``greedy`` plays against itself (fresh deals; collected before any timing). Per bot the
table gives the median and 90th percentile of the wall time per move (the search stops
at its first iteration past the deadline, so a move takes a little more than
``time_limit``) and the median of its iterations per move. Shared, noisy machines:
medians, never asserted in tests.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sly_scout_env.agents import make  # noqa: E402
from sly_scout_env.agents.bots.views import player_view  # noqa: E402
from sly_scout_env.games import get_game  # noqa: E402


def greedy_positions(game, players, count):
    """``count`` decisions (seat, observation, mask, info with the view) from greedy self-play."""
    found, deal = [], 0
    bots = [make("greedy", game=game) for _ in range(players)]
    while len(found) < count:
        env = get_game(game).raw_env(num_players=players)
        env.reset(seed=deal)
        for s, bot in enumerate(bots):
            bot.reset(deal * 10 + s, game=game, num_players=players, seat=s, options={})
        deal += 1
        while len(found) < count and not all(env.terminations.values()):
            seat = env.agent_name_mapping[env.agent_selection]
            o = env.observe(env.agent_selection)
            info = {"seat": seat, "view": player_view(env.state_dict(), seat)}
            if o["action_mask"].sum() > 1:
                found.append((seat, o["observation"].copy(), o["action_mask"].copy(), info))
            env.step(int(bots[seat].act(o["observation"], o["action_mask"], info)))
    return found


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
        pos = greedy_positions(game, players, args.positions)
        measure(game, players, dict(guided, iterations=3), pos[:3])  # compile and load outside the timing
        for label, kw in (("ismcts", {}), ("ismcts:guide=neural", guided)):
            s, it = measure(game, players, dict(kw, iterations=None, time_limit=args.time_limit), pos)
            print(f"| {game} | {players} | {label} | {np.median(s):.4f} | {np.percentile(s, 90):.4f} | "
                  f"{np.median(it):.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
