"""The main job (``make run`` = ``sly-scout demo``): a one-minute tour of the project.

For each game it prints one speed line (random hands or games played inside compiled
code on every core) and a short arena of random vs greedy vs ISMCTS (seat rotation,
duplicate deals, win shares and mean scores with 95% intervals over deals, ratings,
head-to-head; see docs/arena.md).

The arena here is short, to finish in about a minute; the strength claims in the
docs come from longer runs (docs/strength.md lists their commands).
"""

from __future__ import annotations

import argparse
import sys
import time

# Seconds of random play behind each speed line (the count is sized from a short warm-up
# run, so a game whose units cost more plays fewer of them), and arena games per game.
SPEED_SECONDS = (2.0, 0.2)  # full, --quick
ARENA_GAMES = (60, 15)
ISMCTS = ("ismcts", "ismcts:iterations=20")


def speed_line(game: str, players: int, seconds: float, seed: int = 0) -> str:
    """One line: about ``seconds`` of uniform-random hands/games in compiled code on every core."""
    from sly_scout_env.games import get_game
    from sly_scout_env.simulation import simulate

    warm = simulate(game, 2_000, players=players, seed=seed)  # compiles (or loads from cache) first
    n = max(1_000, int(round(2_000 * seconds / max(float(warm["seconds"]), 1e-6), -3)))
    result = simulate(game, n, players=players, seed=seed)
    seconds = float(result["seconds"])
    steps = int(result["steps"].sum())
    unit = get_game(game).unit + "s"
    return (
        f"{game}: {n:,} random {players}-player {unit} in {seconds:.2f} s on every core: "
        f"{n / seconds:,.0f} {unit}/s, {steps / seconds:,.0f} steps/s"
    )


def run_demo(seed: int = 0, quick: bool = False, progress: bool = True, out=None) -> None:
    from sly_scout_env.agents.evaluation.arena import run_arena
    from sly_scout_env.games import all_games

    out = out or sys.stdout
    t0 = time.perf_counter()
    k = 1 if quick else 0
    for spec in all_games():
        players = spec.default_players
        print(f"== {spec.name} ==", file=out, flush=True)
        print(speed_line(spec.name, players, SPEED_SECONDS[k], seed), file=out, flush=True)
        result = run_arena(spec.name, players, ["random", "greedy", ISMCTS[k]], games=ARENA_GAMES[k], seed=seed,
                           progress=progress)
        print(result.table(), file=out, flush=True)
        print(file=out)
    print(
        f"(done in {time.perf_counter() - t0:.0f} s; longer arenas: docs/strength.md)",
        file=out,
        flush=True,
    )


def add_demo_parser(sub) -> None:
    p = sub.add_parser(
        "demo",
        help="the main job: one speed line and a short random/greedy/ismcts arena per game (about a minute)",
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
