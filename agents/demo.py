"""The main job (``make run`` = ``sly-scout demo``): a one-minute tour of the project.

For each game it prints one speed line (random hands or games played inside compiled
code on every core) and a short arena of random vs greedy vs ISMCTS (seat rotation,
duplicate deals, win shares and mean scores with 95% intervals over deals, ratings,
head-to-head; see docs/arena.md).

The arena here is short, to finish in about a minute; the strength claims in the
README come from longer runs (the commands are listed there).
"""

from __future__ import annotations

import argparse
import sys
import time

DEMO = {
    # game: (players, speed units, arena games, the ISMCTS spec for a quick tour)
    "scout": (4, 200_000, 72, "ismcts"),
    "sly": (3, 1_000_000, 60, "ismcts"),
}
UNITS = {"scout": "hands", "sly": "games"}


def speed_line(game: str, players: int, n: int, seed: int = 0) -> str:
    """One line: ``n`` uniform-random hands/games in compiled code on every core."""
    from sly_scout_env.simulation import simulate

    simulate(game, 1_000, players=players, seed=seed)  # compile (or load from cache) first
    result = simulate(game, n, players=players, seed=seed)
    seconds = float(result["seconds"])
    steps = int(result["steps"].sum())
    unit = UNITS[game]
    return (
        f"{game}: {n:,} random {players}-player {unit} in {seconds:.2f} s on every core: "
        f"{n / seconds:,.0f} {unit}/s, {steps / seconds:,.0f} steps/s"
    )


def run_demo(seed: int = 0, quick: bool = False, progress: bool = True, out=None) -> None:
    from .arena import run_arena

    out = out or sys.stdout
    t0 = time.perf_counter()
    for game, (players, n, games, ismcts) in DEMO.items():
        if quick:
            n, games, ismcts = n // 20, games // 4, "ismcts:iterations=20"
        print(f"== {game} ==", file=out, flush=True)
        print(speed_line(game, players, n, seed), file=out, flush=True)
        result = run_arena(game, players, ["random", "greedy", ismcts], games=games, seed=seed, progress=progress)
        print(result.table(), file=out, flush=True)
        print(file=out)
    print(
        f"(done in {time.perf_counter() - t0:.0f} s; longer arenas: see README 'Bots and strength')",
        file=out,
        flush=True,
    )


def add_demo_parser(sub) -> None:
    p = sub.add_parser(
        "demo",
        help="the main job: one speed line and a short random/greedy/ismcts arena per game (~1 minute)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    p.add_argument("--quick", action="store_true", help="a few seconds: smaller sizes")
    p.add_argument("--no-progress", dest="progress", action="store_false", help="no progress bars")


def run_demo_args(args) -> None:
    if args.seed < 0:
        raise SystemExit(f"sly-scout demo: --seed {args.seed} is not allowed; give a whole number >= 0")
    run_demo(seed=args.seed, quick=args.quick, progress=args.progress)
