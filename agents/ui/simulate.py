"""``sly-scout simulate``: the command-line front end of :func:`sly_scout_env.simulation.simulate`.

    sly-scout simulate scout --players 4 --hands 100000 --seed 0
    sly-scout simulate sly --players 3 --games 100000 --seed 0 --option hen_houses=1
    sly-scout simulate sly --players 2 --games 100000 --policies neural,greedy

It plays entirely inside compiled code (uniform-random legal moves, or the compiled
policies of ``--policies``: random, greedy, neural) and prints the speed and the mean
score and win share of each seat.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from sly_scout_env.agents.ui.arg_types import add_option_flag, add_options_argument, non_negative_int, positive_int
from sly_scout_env.games import all_games, get_game
from sly_scout_env.ray_tasks import add_ray_option


def add_simulate_parser(sub) -> None:
    sim = sub.add_parser(
        "simulate",
        help="play hands/games with compiled policies and report speed, mean scores and win shares",
        description="Play hands/games with compiled policies (default uniform random) inside compiled code, "
        "in parallel; print speed, end reasons, mean scores and win shares.",
    )
    games = sim.add_subparsers(dest="game", metavar="GAME", required=True)
    for spec in all_games():
        unit = spec.unit + "s"
        p = games.add_parser(spec.name, help=f"{spec.title}: {spec.unit_doc}",
                             description=f"Simulate {spec.title} {unit} in compiled code.")
        p.add_argument("--players", type=int, default=spec.default_players, choices=spec.player_counts,
                       help=f"player count (default {spec.default_players})")
        p.add_argument(f"--{unit}", dest="units", metavar=unit.upper(), type=positive_int, default=100_000,
                       help=f"{unit} to play (default 100000)")
        for option in spec.options:
            if option.simulate:
                add_option_flag(p, option)
        add_options_argument(p, ", ".join(f"--option {o.name}={o.default}" for o in spec.options if o.simulate))
        p.add_argument("--seed", type=non_negative_int, default=0, help="seed (default 0)")
        p.add_argument("--out", metavar="PATH.npz", default=None,
                       help=f"also save the per-{spec.unit} arrays to a .npz file")
        p.add_argument("--no-progress", dest="progress", action="store_false", help="no progress bar")
        p.add_argument("--threads", type=positive_int, default=None, help="Numba threads (default: all cores)")
        p.add_argument(
            "--policies",
            default=None,
            metavar="NAME,NAME,...",
            help="one compiled policy per seat, comma-separated: random, greedy, neural (the network shipped "
                 "for the game and player count), neural:path=FILE, and either with :temperature=T (each move drawn "
                 "from the softmax of the logits / T) (default: random for every seat)",
        )
        add_ray_option(p, "the chunks of games")


def simulate_options(spec, args) -> dict:
    """The rule options of a parsed ``simulate`` command: the dedicated flags, then ``--option`` pairs."""
    allowed = [o.name for o in spec.options if o.simulate]
    options = {name: getattr(args, name) for name in allowed}
    for key, value in getattr(args, "options", []):
        if key not in allowed:
            barred = [o.name for o in spec.options if not o.simulate]
            why = f" ({key} is an option of the env, not of simulate: {spec.unit_doc})" if key in barred else ""
            raise ValueError(f"--option {key}={value} is not allowed for simulate {spec.name}{why}; "
                             f"allowed options: {', '.join(allowed)}")
        options[key] = value
    return options


def run_simulate(args, out=None) -> dict:
    import numba

    out = sys.stdout if out is None else out  # looked up per call (tests capture sys.stdout)
    from sly_scout_env.simulation import simulate

    spec = get_game(args.game)
    unit = spec.unit + "s"
    options = simulate_options(spec, args)
    t0 = time.perf_counter()
    bar = None
    if args.progress:
        from tqdm import tqdm

        bar = tqdm(total=args.units, unit=unit[:-1], file=sys.stderr, dynamic_ncols=True, leave=False)
        done = [0]

        def progress(n_done: int) -> None:
            bar.update(n_done - done[0])
            done[0] = n_done

    else:
        progress = None
    try:
        result = simulate(args.game, args.units, players=args.players, policies=args.policies, seed=args.seed,
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
    print(f"{args.game}: {args.players} players, {args.units} {unit}, seed {args.seed} ({opts})", file=out)
    print(f"  policies       {policies}; {threads} thread(s)", file=out)
    print(f"  {unit}/s        {args.units / seconds:14,.0f}", file=out)
    print(f"  steps/s        {total_steps / seconds:14,.0f}", file=out)
    print(f"  steps per {unit[:-1]:<5}{steps.mean():10.2f}", file=out)
    print(f"  time           {seconds:14.2f} s in kernels ({wall:.2f} s wall, incl. compilation)", file=out)
    reasons = np.asarray(result["end_reason"])
    names = spec.end_reasons
    codes = list(range(1, len(names))) + [0]  # the step cap last
    ends = ", ".join(f"{names[k]} {np.mean(reasons == k):.1%}" for k in codes if np.any(reasons == k))
    print(f"  ends           {ends}", file=out)
    print("  mean score per seat: " + "  ".join(f"seat {i}: {m:+.3f}" for i, m in enumerate(scores.mean(axis=0))),
          file=out)
    wins = np.asarray(result["winners"]).mean(axis=0)
    print("  win share per seat:  " + "  ".join(f"seat {i}: {m:.3f}" for i, m in enumerate(wins)), file=out)
    if args.ray:
        from sly_scout_env.ray_tasks import last_run

        print(f"  ray            {last_run()['tasks']} task(s) on {len(last_run()['nodes'])} node(s)", file=out)
    if args.out:
        np.savez_compressed(args.out, **{k: np.asarray(v) for k, v in result.items()})
        print(f"  arrays saved to {args.out}", file=out)
    return result
