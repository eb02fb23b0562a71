"""Compare two checkouts' speed: in-kernel simulate (1 thread), the vector env at the
``--batches`` sizes and the raw AEC env, the two trees run alternately in fresh processes,
medians over the runs (the machines are shared).

    git worktree add /tmp/old <commit>
    taskset -c 1 python benchmarks/compare_trees.py /tmp/old . --clock cpu

Pinned to one core (``taskset -c 1``), Numba runs one thread. ``--clock cpu`` times the
process's CPU time instead of the wall clock: with one thread it leaves out the time other
jobs on the same core take, so a loaded machine gives steadier ratios. Only public APIs are
called, so any two commits compare.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

CODE = r'''
import json, sys, time, numpy as np
from sly_scout_env.simulation import simulate
from sly_scout_env.vector import vector_env
from sly_scout_env import scout_v0, sly_v0
clock = time.process_time if sys.argv[1] == "cpu" else time.perf_counter
agent_steps = int(sys.argv[2])
batches = [int(b) for b in sys.argv[3].split(",")]
out = {}
for game, p, n in (("scout", 4, 40000), ("sly", 3, 200000)):
    simulate(game, 1000, players=p, seed=0, threads=1)
    t0 = clock()
    r = simulate(game, n, players=p, seed=1, threads=1)
    # wall: simulate's own timing of the play (as the README table); cpu: the whole call
    out[f"sim {game} {p}p units/s (1 thread)"] = n / (r["seconds"] if sys.argv[1] == "wall" else clock() - t0)
for game, p in (("scout", 2), ("scout", 4), ("scout", 5), ("sly", 3)):
    for b in batches:
        env = vector_env(game, b, num_players=p, copy=False)
        obs, _ = env.reset(seed=0)
        rng = np.random.default_rng(0)
        def pick(m):
            u = rng.random(m.shape) * m
            return u.argmax(axis=1)
        env.step(pick(obs["action_mask"]))
        t = 0.0
        steps = max(20, agent_steps // b)
        for _ in range(steps):
            a = pick(obs["action_mask"])
            t0 = clock(); obs, *_ = env.step(a); t += clock() - t0
        out[f"vector {game} {p}p agent-steps/s (batch {b})"] = steps * b / t
for module, p in ((scout_v0, 4), (sly_v0, 3)):
    env = module.raw_env(num_players=p)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    moves, t = 0, 0.0
    while moves < 20000:
        for agent in env.agent_iter():
            ob, _, term, trunc, _ = env.last()
            t0 = clock()
            if term or trunc:
                env.step(None)
            else:
                legal = np.flatnonzero(ob["action_mask"])
                env.step(int(legal[rng.integers(len(legal))]))
                moves += 1
            t += clock() - t0
        env.reset(seed=moves)
    out[f"raw AEC {module.__name__.split('.')[-1]} {p}p steps/s"] = moves / t
print(json.dumps(out))
'''
ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
ap.add_argument("old", metavar="OLD_TREE", help="checkout measured first in each round (the baseline)")
ap.add_argument("new", metavar="NEW_TREE", help="checkout compared with it")
ap.add_argument("--runs", type=int, default=5, help="fresh processes per tree, alternating (default 5)")
ap.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                help="wall: time.perf_counter; cpu: the process's CPU time (default wall)")
ap.add_argument("--vector-steps", type=int, default=200_000,
                help="timed vector env agent-steps per batch size and run (default 200,000; at least 20 steps)")
ap.add_argument("--batches", default="1,64,1024", help="vector env batch sizes, comma-separated (default 1,64,1024)")
args = ap.parse_args()
if args.runs < 1 or args.vector_steps < 1:
    ap.error("--runs and --vector-steps must be >= 1")
OLD, NEW = os.path.abspath(args.old), os.path.abspath(args.new)
trees = {"old": OLD, "new": NEW}
res = {k: [] for k in trees}
load0 = os.getloadavg()[0]
for _ in range(args.runs):
    for name, tree in trees.items():
        o = subprocess.run([sys.executable, "-c", CODE, args.clock, str(args.vector_steps), args.batches],
                           capture_output=True,
                           text=True, cwd=tree, env=dict(os.environ, PYTHONPATH=tree))
        if o.returncode:
            print(o.stderr[-2000:])
            sys.exit(1)
        res[name].append(json.loads(o.stdout.strip().splitlines()[-1]))
keys = list(res["new"][0])
print(f"| measure | old ({OLD}) | new ({NEW}) | new/old |")
print("|---|---:|---:|---:|")
for k in keys:
    a = statistics.median(r[k] for r in res["old"])
    b = statistics.median(r[k] for r in res["new"])
    print(f"| {k} | {a:,.0f} | {b:,.0f} | {b/a:.2f} |")
print(f"\nmedians of {args.runs} alternating runs per tree, clock {args.clock}, "
      f"{args.vector_steps:,} vector agent-steps per batch size; "
      f"load average {load0:.2f} at the start, {os.getloadavg()[0]:.2f} at the end")
