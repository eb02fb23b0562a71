"""The vector env's rate at large batches: agent-steps/s at several batch sizes, per game and
player count, in interleaved rounds (every configuration once per round), medians.

    python benchmarks/vector_scaling.py                       # this tree
    PYTHONPATH=/tmp/old python benchmarks/vector_scaling.py   # another checkout (git worktree)
    python benchmarks/vector_scaling.py --wide                # also with int64 rows (no narrow rows)

Timed as ``benchmarks/run.py`` times the vector env: ``VectorEnv.step`` with observations
and masks (``copy=False``, all threads), the random legal picks outside the timed region.
Interleaving matters on the shared machines: a neighbour's load then hits every
configuration alike. ``--wide`` widens a batch's rows to int64 after ``reset`` (the same
games), which shows what the narrow rows bring (docs/architecture.md, "The vector env's rows").
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from sly_scout_env.games import all_games
from sly_scout_env.vector import vector_env


def _pick(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.argmax(rng.random(masks.shape, dtype=np.float32) * masks, axis=1)


def _timed_steps(env, obs, rng, steps: int):
    spent = 0.0
    for _ in range(steps):
        actions = _pick(obs["action_mask"], rng)
        t0 = time.perf_counter()
        obs, *_ = env.step(actions)
        spent += time.perf_counter() - t0
    return obs, spent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--batches", default="1024,4096,8192", help="batch sizes, comma-separated (the first is the base)")
    ap.add_argument("--rounds", type=int, default=5, help="interleaved rounds (default 5)")
    ap.add_argument("--agent-steps", type=int, default=200_000, help="timed agent-steps per configuration and round")
    ap.add_argument("--wide", action="store_true", help="also measure every batch with int64 rows")
    ap.add_argument("--games", default=None, help="games to measure, comma-separated (default: every game)")
    args = ap.parse_args()
    batches = [int(b) for b in args.batches.split(",")]
    if args.rounds < 1 or args.agent_steps < 1 or not batches or min(batches) < 1:
        ap.error("--rounds, --agent-steps and every batch size must be >= 1")
    configs = []
    wanted = None if args.games is None else set(args.games.split(","))
    for spec in all_games():
        if wanted is not None and spec.name not in wanted:
            continue
        for players in spec.player_counts:
            for wide in (False, True) if args.wide else (False,):
                for b in batches:
                    env = vector_env(spec.name, b, num_players=players, copy=False)
                    obs, _ = env.reset(seed=0)
                    if wide:
                        from sly_scout_env.kernels import widen_rows

                        env._states = widen_rows(env._states, spec.module("rules").RNG)
                    configs.append({"game": spec.name, "players": players, "wide": wide, "batch": b, "env": env,
                                    "obs": obs, "rng": np.random.default_rng(b), "rates": []})
    for c in configs:  # warm-up: compile, first touches
        c["obs"], _ = _timed_steps(c["env"], c["obs"], c["rng"], 3)
    for _ in range(args.rounds):
        for c in configs:
            steps = max(20, args.agent_steps // c["batch"])
            c["obs"], spent = _timed_steps(c["env"], c["obs"], c["rng"], steps)
            c["rates"].append(steps * c["batch"] / spent)
    head = ["game", "players", "rows", *(f"batch {b}" for b in batches), *(f"{b} / {batches[0]}" for b in batches[1:])]
    print("| " + " | ".join(head) + " |")
    print("|---|---:|---|" + "---:|" * (len(head) - 3))
    rows: dict = {}
    for c in configs:
        rows.setdefault((c["game"], c["players"], c["wide"]), {})[c["batch"]] = statistics.median(c["rates"])
        rows[(c["game"], c["players"], c["wide"])]["dtype"] = str(c["env"]._states.dtype)
    for (game, players, _wide), r in rows.items():
        cells = [game, str(players), r["dtype"], *(f"{r[b]:,.0f}" for b in batches),
                 *(f"{r[b] / r[batches[0]]:.2f}" for b in batches[1:])]
        print("| " + " | ".join(cells) + " |")
    print(f"\nagent-steps/s, medians of {args.rounds} interleaved rounds of {args.agent_steps:,} agent-steps each")


if __name__ == "__main__":
    main()
