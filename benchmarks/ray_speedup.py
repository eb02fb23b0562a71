"""Speed-up of ``simulate`` and ``arena`` on Ray against the local path.

    python benchmarks/ray_speedup.py            # the speed-up table of docs/ray.md (a few minutes)
    python benchmarks/ray_speedup.py --quick    # small sizes, one repeat

Modes, each timed as the median of ``--repeats`` runs after a discarded warm-up run (the
warm-up also starts Ray's workers and loads the Numba cache in them):

- local path: ``simulate(threads=1)`` / ``simulate(threads=all)``; ``run_arena(workers=1)``
  / ``run_arena(workers=2)`` (processes);
- Ray with 1 and 2 local workers: a fresh ``ray.init(num_cpus=K)`` per K, ``ray=True``
  (one task per chunk of games or per batch of deals, one CPU and one Numba thread each).

Every Ray result is checked to equal the local one. Wall times include everything the
user waits for (Ray's dispatch and result transfer, not Ray's start-up).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from sly_scout_env.agents.evaluation.arena import run_arena  # noqa: E402
from sly_scout_env.simulation import simulate  # noqa: E402


def _median_time(fn, repeats: int):
    fn()  # warm-up
    times, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    repeats = 1 if args.quick else args.repeats
    n_sim = 200_000 if args.quick else 2_000_000
    chunk = 50_000 if args.quick else 125_000
    n_arena = 1200 if args.quick else 12_000
    sim = lambda **kw: simulate("sly", n_sim, players=3, seed=0, chunk_size=chunk, **kw)  # noqa: E731
    arena = lambda **kw: run_arena("sly", 3, ["random", "greedy"], games=n_arena, seed=0, progress=False,  # noqa: E731
                                   **kw)

    rows = []
    t_sim1, ref_sim = _median_time(lambda: sim(threads=1), repeats)
    t_sim2, _ = _median_time(lambda: sim(), repeats)
    t_ar1, ref_ar = _median_time(lambda: arena(workers=1), repeats)
    t_ar2, _ = _median_time(lambda: arena(workers=2), repeats)
    rows += [("local, 1 thread / 1 process", t_sim1, t_ar1), ("local, 2 threads / 2 processes", t_sim2, t_ar2)]

    import ray

    for k in (1, 2):
        ray.init(num_cpus=k, include_dashboard=False, log_to_driver=False)
        t_s, out_s = _median_time(lambda: sim(ray=True), repeats)
        t_a, out_a = _median_time(lambda: arena(ray=True), repeats)
        ray.shutdown()
        assert all(np.array_equal(out_s[key], ref_sim[key]) for key in ("scores", "steps", "end_reason"))
        assert out_a.records == ref_ar.records
        rows.append((f"Ray, {k} local worker(s)", t_s, t_a))

    load = os.getloadavg()[0]
    print(f"Sly 3 players: simulate {n_sim:,} games (chunks of {chunk:,}); arena random vs greedy "
          f"{n_arena} games. Medians of {repeats} run(s) after a warm-up; load average {load:.1f}; "
          f"{os.cpu_count()} cores.\n")
    print("| mode | simulate s | games/s | speed-up | arena s | games/s | speed-up |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, ts, ta in rows:
        print(f"| {name} | {ts:.2f} | {n_sim / ts:,.0f} | {t_sim1 / ts:.2f}x | {ta:.2f} | {n_arena / ta:,.0f} | "
              f"{t_ar1 / ta:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
