"""Expert iteration's speed: self-play decisions per second and fit samples per second.

    python benchmarks/exit_speed.py                  # every game and player count (a few minutes)
    python benchmarks/exit_speed.py --quick          # a smoke run
    python benchmarks/exit_speed.py --out benchmarks/exit_speed.md

For each table, ``sly-scout exit``'s own self-play (``agents/training/exit.py``,
``play_shard``: the expert in every seat, root noise, visit-proportional early moves) plays
``--games`` games at ``--iterations`` a move, once with the plain search (generation 0's
expert) and once with a network inside it (the shipped network's prior and a value network
of ``--hidden`` layers, random weights: the cost does not depend on them). Then the fit
(``exit.fit``, ``--epochs``) runs on the decisions the guided games recorded. Reported: the
median over ``--repeats`` of decisions recorded per second of self-play and of decisions
fitted per second (samples times epochs over the fit's seconds).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.ismcts_speed import network_with_value  # noqa: E402
from sly_scout_env.agents.training.exit import ExitConfig, fit, play_shard  # noqa: E402
from sly_scout_env.games import all_games  # noqa: E402


def measure(game: str, players: int, args, tmp: str) -> dict:
    hidden = list(args.hidden)
    net = network_with_value(game, players, hidden)
    path = os.path.join(tmp, f"{game}{players}.npz")
    net.save(path)
    cfg = ExitConfig(game, players, iterations=args.iterations, games=args.games, hidden=hidden, epochs=args.epochs,
                     out=tmp)
    plain, guided, fits = [], [], []
    data = None
    for r in range(args.repeats):
        for where, net_path in ((plain, None), (guided, path)):
            t = time.perf_counter()
            shard = play_shard(cfg, net_path, 0, r, args.games)
            where.append(len(shard["value"]) / (time.perf_counter() - t))
            if net_path is not None:
                data = shard
        out = fit(cfg, data, None, os.path.join(tmp, "fit.npz"), 0, log=lambda m: None)
        fits.append(out["samples"] * args.epochs / max(out["seconds"], 1e-9))
    return {"plain": statistics.median(plain), "guided": statistics.median(guided), "fit": statistics.median(fits),
            "decisions": len(data["value"])}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="2 games, 20 iterations, 1 repeat")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--games", type=int, default=8, help="self-play games per timed pass (default 8)")
    p.add_argument("--iterations", type=int, default=200, help="search iterations a move (default 200)")
    p.add_argument("--hidden", type=lambda t: [int(x) for x in t.split(",")], default=[128, 128])
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--games-only", default=None, help="comma-separated games (default all)")
    p.add_argument("--out", default=None, help="also write the markdown table to this file")
    args = p.parse_args(argv)
    if args.quick:
        args.repeats, args.games, args.iterations, args.epochs = 1, 2, 20, 1
    lines = [
        f"Measured {time.strftime('%Y-%m-%d')} on {platform.processor() or platform.machine()} "
        f"({os.cpu_count()} cores; load {os.getloadavg()[0]:.1f} at the start): {args.games} self-play games a pass "
        f"at {args.iterations} iterations a move, a fit of {args.epochs} epochs on the guided pass's decisions "
        f"(networks {','.join(map(str, args.hidden))}), median of {args.repeats} pass(es).",
        "",
        "| game | players | self-play decisions/s, plain search | self-play decisions/s, prior and value | "
        "fit samples/s |",
        "|---|---:|---:|---:|---:|",
    ]
    games = None if args.games_only is None else args.games_only.split(",")
    with tempfile.TemporaryDirectory() as tmp:
        for spec in all_games():
            if games is not None and spec.name not in games:
                continue
            for players in spec.player_counts:
                m = measure(spec.name, players, args, tmp)
                lines.append(f"| {spec.name} | {players} | {m['plain']:,.0f} | {m['guided']:,.0f} | {m['fit']:,.0f} |")
                print(lines[-1], flush=True)
    text = "\n".join(lines) + "\n"
    if args.out:
        Path(args.out).write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
