"""The ``sly-scout`` command line.

    sly-scout simulate scout --players 4 --hands 100000 --seed 0
    sly-scout simulate sly --players 3 --games 100000 --seed 0
    sly-scout arena scout --players 4 --agents random,greedy,ismcts --games 2000
    sly-scout play scout --players 3 --opponents greedy,ismcts
    sly-scout train sly --players 2 --timesteps 400000
    sly-scout demo            # the main job of `make run`

``simulate`` plays uniform-random legal moves entirely inside compiled code and prints
the speed and the mean score of each seat.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from .cli_types import non_negative_int, positive_int
from .ray_tasks import add_ray_option

GAMES = ("scout", "sly")


def _add_simulate(sub) -> None:
    sim = sub.add_parser(
        "simulate",
        help="play hands/games with compiled policies and report speed, mean scores and win shares",
        description="Play hands/games with compiled policies (default uniform random) inside compiled code, "
        "in parallel; print speed, end reasons, mean scores and win shares.",
    )
    games = sim.add_subparsers(dest="game", metavar="GAME", required=True)

    scout = games.add_parser("scout", help="Scout: one hand = one round from a fresh deal to its scoring")
    scout.add_argument("--players", type=int, default=4, choices=(2, 3, 4, 5), help="player count (default 4)")
    scout.add_argument("--hands", type=positive_int, default=100_000, help="hands to play (default 100000)")
    scout.add_argument(
        "--no-ii-after-empty-set",
        dest="ii_after_empty_set",
        action="store_false",
        help="round end (ii) does not apply when the active set was scouted empty",
    )
    scout.add_argument(
        "--no-score-held-chips",
        dest="score_held_chips",
        action="store_false",
        help="2 players: chips still held at the end of a round score nothing",
    )

    sly = games.add_parser("sly", help="Sly: one game from the first Lay to the end")
    sly.add_argument("--players", type=int, default=3, choices=(2, 3, 4), help="player count (default 3)")
    sly.add_argument("--games", dest="hands", metavar="GAMES", type=positive_int, default=100_000, help="games to play (default 100000)")
    sly.add_argument("--hen-houses", type=int, choices=(1, 2), default=None, help="default: 1 for 2 players, else 2")
    sly.add_argument("--reveal-scope", choices=("house", "all"), default="house", help="default: house")
    sly.add_argument("--first-player", choices=("0", "random"), default="0", help="default: 0")

    for p in (scout, sly):
        p.add_argument("--seed", type=non_negative_int, default=0, help="seed (default 0)")
        p.add_argument("--out", metavar="PATH.npz", default=None, help="also save the per-hand arrays to a .npz file")
        p.add_argument("--no-progress", dest="progress", action="store_false", help="no progress bar")
        p.add_argument("--threads", type=positive_int, default=None, help="Numba threads (default: all cores)")
        p.add_argument(
            "--policies",
            default=None,
            metavar="NAME,NAME,...",
            help="one compiled policy per seat, comma-separated (default: random for every seat)",
        )
        add_ray_option(p, "the chunks of games")


def _game_options(args) -> dict:
    if args.game == "scout":
        return {"ii_after_empty_set": args.ii_after_empty_set, "score_held_chips": args.score_held_chips}
    return {
        "hen_houses": args.hen_houses,
        "reveal_scope": args.reveal_scope,
        "first_player": 0 if args.first_player == "0" else "random",
    }


def run_simulate(args, out=None) -> dict:
    import numba

    out = sys.stdout if out is None else out  # looked up per call (tests capture sys.stdout)
    from .simulation import simulate

    unit = "hands" if args.game == "scout" else "games"
    options = _game_options(args)
    t0 = time.perf_counter()
    bar = None
    if args.progress:
        from tqdm import tqdm

        bar = tqdm(total=args.hands, unit=unit[:-1], file=sys.stderr, dynamic_ncols=True, leave=False)
        done = [0]

        def progress(n_done: int) -> None:
            bar.update(n_done - done[0])
            done[0] = n_done

    else:
        progress = None
    try:
        result = simulate(args.game, args.hands, players=args.players, policies=args.policies, seed=args.seed,
                          threads=args.threads, progress=progress, ray=args.ray, **options)
    finally:
        if bar is not None:
            bar.close()
    wall = time.perf_counter() - t0
    seconds = float(result["seconds"])
    steps = np.asarray(result["steps"])
    scores = np.asarray(result["scores"])
    total_steps = int(steps.sum())
    opts = ", ".join(f"{k}={v!r}" for k, v in options.items())
    threads = args.threads or numba.config.NUMBA_NUM_THREADS
    policies = args.policies or ",".join(["random"] * args.players)
    print(f"{args.game}: {args.players} players, {args.hands} {unit}, seed {args.seed} ({opts})", file=out)
    print(f"  policies       {policies}; {threads} thread(s)", file=out)
    print(f"  {unit}/s        {args.hands / seconds:14,.0f}", file=out)
    print(f"  steps/s        {total_steps / seconds:14,.0f}", file=out)
    print(f"  steps per {unit[:-1]:<5}{steps.mean():10.2f}", file=out)
    print(f"  time           {seconds:14.2f} s in kernels ({wall:.2f} s wall, incl. compilation)", file=out)
    reasons = np.asarray(result["end_reason"])
    if args.game == "scout":
        names = {1: "(i) hand emptied", 2: "(ii) back to owner / stuck", 0: "step cap"}
    else:
        names = {1: "a hand with <= 1 card", 2: "all spaces Safe", 0: "step cap"}
    ends = ", ".join(f"{names[k]} {np.mean(reasons == k):.1%}" for k in (1, 2, 0) if np.any(reasons == k))
    print(f"  ends           {ends}", file=out)
    print("  mean score per seat: " + "  ".join(f"seat {i}: {m:+.3f}" for i, m in enumerate(scores.mean(axis=0))), file=out)
    wins = np.asarray(result["winners"]).mean(axis=0)
    print("  win share per seat:  " + "  ".join(f"seat {i}: {m:.3f}" for i, m in enumerate(wins)), file=out)
    if args.ray:
        from .ray_tasks import last_run

        print(f"  ray            {last_run()['tasks']} task(s) on {len(last_run()['nodes'])} node(s)", file=out)
    if args.out:
        np.savez_compressed(args.out, **{k: np.asarray(v) for k, v in result.items()})
        print(f"  arrays saved to {args.out}", file=out)
    return result


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="sly-scout", description="Scout and Sly environments: tools.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    _add_simulate(sub)
    # Bots, the arena and play are the top layer (agents/); imported here, not in the envs.
    from agents.cli import add_arena_parser, add_play_parser
    from agents.demo import add_demo_parser
    from agents.train_ppo import add_train_parser

    add_arena_parser(sub)
    add_play_parser(sub)
    add_train_parser(sub)
    add_demo_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "simulate":
        try:
            run_simulate(args)
        except ValueError as e:  # bad --policies / --threads: a usage error, not a traceback
            print(f"sly-scout simulate: error: {e}", file=sys.stderr)
            return 2
    elif args.command == "arena":
        from agents.cli import run_arena

        run_arena(args)
    elif args.command == "play":
        from agents.cli import run_play

        result = run_play(args)
        return 0 if result["status"] in ("finished", "saved") else 1
    elif args.command == "train":
        from agents.train_ppo import run_train

        run_train(args)
    elif args.command == "demo":
        from agents.demo import run_demo_args

        run_demo_args(args)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
