"""Compare two checkouts' speed: in-kernel simulate (1 thread) and the vector env at batch
4096, the two run alternately in fresh processes, medians of 5 (the machines are shared).

    git worktree add /tmp/old <commit>
    python benchmarks/compare_trees.py /tmp/old .
"""
import json, os, statistics, subprocess, sys
CODE = r'''
import json, sys, time, numpy as np
from sly_scout_env.simulation import simulate
from sly_scout_env.vector import ScoutVectorEnv, SlyVectorEnv
out = {}
for game, p, n in (("scout", 4, 40000), ("sly", 3, 200000)):
    simulate(game, 1000, players=p, seed=0, threads=1)
    r = simulate(game, n, players=p, seed=1, threads=1)
    out[f"sim {game} {p}p units/s (1 thread)"] = n / r["seconds"]
for cls, p in ((ScoutVectorEnv, 4), (SlyVectorEnv, 3)):
    env = cls(4096, num_players=p, copy=False)
    obs, _ = env.reset(seed=0)
    rng = np.random.default_rng(0)
    def pick(m):
        u = rng.random(m.shape) * m
        return u.argmax(axis=1)
    env.step(pick(obs["action_mask"]))
    t = 0.0
    for _ in range(100):
        a = pick(obs["action_mask"])
        t0 = time.perf_counter(); obs, *_ = env.step(a); t += time.perf_counter() - t0
    out[f"vector {cls.__name__} {p}p agent-steps/s (batch 4096)"] = 100 * 4096 / t
print(json.dumps(out))
'''
if len(sys.argv) != 3:
    sys.exit("usage: python benchmarks/compare_trees.py OLD_TREE NEW_TREE")
OLD, NEW = (os.path.abspath(p) for p in sys.argv[1:])
trees = {"old": OLD, "new": NEW}
res = {k: [] for k in trees}
for rep in range(5):
    for name, tree in trees.items():
        o = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, cwd=tree,
                           env=dict(os.environ, PYTHONPATH=tree))
        if o.returncode:
            print(o.stderr[-2000:]); sys.exit(1)
        res[name].append(json.loads(o.stdout.strip().splitlines()[-1]))
keys = list(res["new"][0])
print(f"| measure | old ({OLD}) | new ({NEW}) | new/old |")
print("|---|---:|---:|---:|")
for k in keys:
    a = statistics.median(r[k] for r in res["old"]); b = statistics.median(r[k] for r in res["new"])
    print(f"| {k} | {a:,.0f} | {b:,.0f} | {b/a:.2f} |")
