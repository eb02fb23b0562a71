"""Search speed: ISMCTS iterations per second, the Python search against the compiled one.

    python benchmarks/ismcts_speed.py                 # every game and player count (a few minutes)
    python benchmarks/ismcts_speed.py --quick         # a smoke run
    python benchmarks/ismcts_speed.py --out benchmarks/ismcts_speed.md

For each table, positions come from games of random moves (the same positions for both
engines); each engine searches each position with the bot's defaults for the game
(``value``, ``top_k``) and the rollout policy of the row. Reported: microseconds per
iteration and iterations per second, the median over ``--repeats`` timed passes over all
positions (a warm-up pass first: compilation is not counted), and the speed-up. The two
engines run the same algorithm (``sly_scout_env.ismcts``'s docstring); they draw from
different random streams, so their trees differ move by move, not in strength.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from sly_scout_env.agents.bots.ismcts import DEFAULTS, ISMCTS, search_role  # noqa: E402
from sly_scout_env.games import all_games, get_game  # noqa: E402
from sly_scout_env.ismcts import CompiledSearch  # noqa: E402
from sly_scout_env.views import player_view  # noqa: E402


def positions(game: str, players: int, count: int, seed: int = 0):
    """``count`` (root row, observer) pairs from games of random moves, each built from the seat's view."""
    role = search_role(game)
    ad = role.SearchAdapter(players, {})
    env = get_game(game).raw_env(num_players=players)
    rng = np.random.default_rng(seed)
    out = []
    g = 0
    while len(out) < count:
        env.reset(seed=seed + g)
        g += 1
        while not env.terminations[env.agent_selection] and len(out) < count:
            seat = env.agent_name_mapping[env.agent_selection]
            o = env.observe(env.agent_selection)
            if int(o["action_mask"].sum()) > 1:
                out.append((ad.root(o["observation"], o["action_mask"],
                                    {"view": player_view(env.state_dict(), seat)}), seat))
            env.step(int(rng.choice(np.flatnonzero(o["action_mask"]))))
    return out


def engine(kind: str, game: str, players: int, iterations: int, rollout: str):
    role = search_role(game)
    ad = role.SearchAdapter(players, {})
    d = {**DEFAULTS, **ad.BOT_DEFAULTS}
    params = dict(iterations=iterations, rollout=rollout, value=d["value"], top_k=d["top_k"])
    if kind == "compiled":
        return CompiledSearch(ad, role.KERNELS, **params)
    return ISMCTS(ad, **params)


def seconds_per_iteration(search, roots, repeats: int) -> float:
    rng = np.random.default_rng(1)

    def one_pass():
        t = time.perf_counter()
        for row, seat in roots:
            search.search(row, seat, rng)
        return (time.perf_counter() - t) / (len(roots) * search.iterations)

    one_pass()  # warm-up: compilation, caches
    return statistics.median(one_pass() for _ in range(repeats))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="few positions and iterations, 1 repeat")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--positions", type=int, default=40, help="positions per table (default 40)")
    p.add_argument("--iterations", type=int, default=300, help="iterations per search (the bot's default 300)")
    p.add_argument("--rollouts", default="random,greedy", help="rollout policies to time (default random,greedy)")
    p.add_argument("--out", default=None, help="also write the markdown table to this file")
    args = p.parse_args(argv)
    repeats = 1 if args.quick else args.repeats
    count = 4 if args.quick else args.positions
    iterations = 30 if args.quick else args.iterations
    lines = [
        f"Measured {time.strftime('%Y-%m-%d')} on {platform.processor() or platform.machine()} "
        f"({os.cpu_count()} cores; load {os.getloadavg()[0]:.1f} at the start): {count} positions per table "
        f"from random games, {iterations} iterations a search, median of {repeats} pass(es) after a warm-up.",
        "",
        "| game | players | rollout | Python µs/iteration | compiled µs/iteration | compiled iterations/s | speed-up |",
        "|---|---:|---|---:|---:|---:|---:|",
    ]
    for spec in all_games():
        for players in spec.player_counts:
            roots = positions(spec.name, players, count)
            for rollout in args.rollouts.split(","):
                py = seconds_per_iteration(engine("python", spec.name, players, iterations, rollout), roots, repeats)
                cc = seconds_per_iteration(engine("compiled", spec.name, players, iterations, rollout), roots, repeats)
                lines.append(f"| {spec.name} | {players} | {rollout} | {py * 1e6:,.1f} | {cc * 1e6:,.1f} | "
                             f"{1 / cc:,.0f} | {py / cc:.2f}x |")
                print(lines[-1], flush=True)
    text = "\n".join(lines) + "\n"
    if args.out:
        Path(args.out).write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
