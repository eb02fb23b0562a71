"""Speed benchmark: medians of repeated runs, written as a markdown table.

    python benchmarks/run.py                 # full run (a few minutes), writes benchmarks/results.md
    python benchmarks/run.py --quick         # a fast smoke run with small sizes

Measured per game and player count:
- in-kernel: uniform-random hands (Scout) or games (Sly) played inside compiled code,
  one thread: hands/s and steps/s;
- raw AEC env and wrapped ``env()``: steps/s of the standard PettingZoo agent loop
  (``last()`` then ``step()``), the policy a random pick from ``np.flatnonzero(mask)``.

The machines are shared and noisy: each figure is the median of ``--repeats`` runs,
and the first (compiling) run is discarded.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sly_scout_env import scout_v0, sly_v0  # noqa: E402
from sly_scout_env.scout.simulate import simulate as simulate_scout  # noqa: E402
from sly_scout_env.sly.simulate import simulate as simulate_sly  # noqa: E402

GAMES = {
    "scout": {"module": scout_v0, "simulate": simulate_scout, "players": (2, 3, 4, 5), "unit": "hands"},
    "sly": {"module": sly_v0, "simulate": simulate_sly, "players": (2, 3, 4), "unit": "games"},
}


def median_rate(fn, repeats: int) -> tuple[float, float]:
    """Run ``fn() -> (count_a, count_b, seconds)`` once to warm up, then ``repeats`` times.

    Returns the median rates ``count_a / s`` and ``count_b / s``.
    """
    fn()
    rates_a, rates_b = [], []
    for _ in range(repeats):
        a, b, seconds = fn()
        rates_a.append(a / seconds)
        rates_b.append(b / seconds)
    return statistics.median(rates_a), statistics.median(rates_b)


def in_kernel(game: str, players: int, n: int):
    simulate = GAMES[game]["simulate"]

    def run():
        result = simulate(players, n, seed=int(time.time_ns() % 2**31))
        return n, int(np.asarray(result["steps"]).sum()), float(result["seconds"])

    return run


def aec_loop(env, steps: int, seed: int = 0):
    """The standard agent loop; returns (moves, moves, seconds). Dead-agent steps are not counted."""
    rng = np.random.default_rng(seed)

    def run():
        env.reset(seed=seed)
        moves = 0
        t0 = time.perf_counter()
        while moves < steps:
            for agent in env.agent_iter():
                obs, reward, termination, truncation, info = env.last()
                if termination or truncation:
                    env.step(None)
                    continue
                legal = np.flatnonzero(obs["action_mask"])
                env.step(int(legal[rng.integers(len(legal))]))
                moves += 1
                if moves >= steps:
                    break
            else:
                env.reset()
        return moves, moves, time.perf_counter() - t0

    return run


def machine_header() -> str:
    import numba
    import pettingzoo

    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return (
        f"Machine: {cpu}, {os.cpu_count()} cores; Python {platform.python_version()}, "
        f"numpy {np.__version__}, numba {numba.__version__}, pettingzoo {pettingzoo.__version__}."
    )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=5, help="timed runs per figure (median reported)")
    parser.add_argument("--quick", action="store_true", help="small sizes, 1 repeat: a smoke run")
    parser.add_argument("--games", default="scout,sly", help="comma-separated: scout,sly")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results.md"), help="markdown output file")
    args = parser.parse_args(argv)
    repeats = 1 if args.quick else args.repeats
    kernel_n = {"scout": 2_000, "sly": 5_000} if args.quick else {"scout": 50_000, "sly": 200_000}
    env_steps = 2_000 if args.quick else 50_000

    lines = [
        "| game | players | in-kernel units/s | in-kernel steps/s | raw AEC steps/s | wrapped AEC steps/s |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for game in args.games.split(","):
        spec = GAMES[game]
        for players in spec["players"]:
            units, ksteps = median_rate(in_kernel(game, players, kernel_n[game]), repeats)
            raw, _ = median_rate(aec_loop(spec["module"].raw_env(num_players=players), env_steps), repeats)
            wrapped, _ = median_rate(aec_loop(spec["module"].env(num_players=players), env_steps), repeats)
            row = (
                f"| {game} | {players} | {units:,.0f} {spec['unit']}/s | {ksteps:,.0f} | {raw:,.0f} | {wrapped:,.0f} |"
            )
            lines.append(row)
            print(row, flush=True)
    text = "\n".join(
        [
            "# Benchmark results",
            "",
            machine_header(),
            f"Medians of {repeats} runs after a warm-up run; one thread; uniform-random legal moves. "
            f"In-kernel: {kernel_n} per run; AEC: {env_steps} moves per run.",
            "",
            *lines,
            "",
        ]
    )
    Path(args.out).write_text(text)
    print(f"\nwritten to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
