"""Speed benchmark suite: one markdown table for both games and every player count.

    python benchmarks/run.py                 # full run (several minutes), writes benchmarks/results.md
    python benchmarks/run.py --readme        # ... and puts the table into README.md (what `make bench` does)
    python benchmarks/run.py --quick         # a fast smoke run with small sizes

Columns, per game and player count (``unit`` = a Scout hand, one round from a fresh deal
to its scoring, or a whole Sly game; uniform-random legal moves throughout):
- in-kernel units/s and steps/s with 1 thread and with all threads
  (``sly_scout_env.simulation.simulate``: whole games inside compiled code);
- vector env agent-steps/s at batch 1, 64, 1024, 4096 and 8192: time spent in
  ``VectorEnv.step`` (observations and masks included, ``copy=False``, all threads);
  the random policy that picks the actions runs outside the timed region;
- raw and wrapped AEC env steps/s: the standard PettingZoo agent loop (``last()`` then
  ``step()``), the policy a random pick from ``np.flatnonzero(mask)``;
- bytes per game state (the int64 row, plus Scout's per-game scratch row);
- the 1M-unit simulation (all threads, one run in a fresh subprocess): units/min and
  peak memory: ``tracemalloc``'s peak of the arrays allocated by the run (numpy reports
  its allocations to it), and the whole process's peak RSS (``ru_maxrss``: Python, numpy,
  Numba and LLVM included, dominated by them);
- first-call latency: ``import`` + ``env()`` + ``reset`` + first ``step`` in a fresh
  subprocess, with a cold Numba cache (``NUMBA_CACHE_DIR`` an empty temporary directory)
  and then warm (the same directory again);
- training (a separate table, ``benchmarks/train_profile.py``): MaskablePPO on the
  documented recipes (the commands of the shipped Scout 2p and Sly 2p checkpoints),
  learner decisions/s and the share of env stepping, policy inference, the update and
  the rest, with a sentence naming the bottleneck (needs the ``train`` extra);
- distillation (``benchmarks/distill_profile.py``): the recipe of the shipped Scout
  networks, teacher decisions/s of one collector and the share of the teacher's search,
  the greedy seats, the env and views and the rest, then the fit's decisions/s.

The machines are shared and noisy: every rate is the median of ``--repeats`` runs after
a discarded warm-up run.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numba  # noqa: E402
from numba import njit  # noqa: E402

from sly_scout_env.games import GAMES, get_game  # noqa: E402
from sly_scout_env.simulation import simulate  # noqa: E402
from sly_scout_env.vector import vector_env as make_vector_env  # noqa: E402

# In-kernel units per timed run (full size, --quick): a Scout hand costs about 5x a Sly game.
KERNEL_N = {"scout": (40_000, 2_000), "sly": (200_000, 10_000)}
BATCHES = (1, 64, 1024, 4096, 8192)
README_START = "<!-- BENCHMARK_TABLE start: written by `make bench` -->"
README_END = "<!-- BENCHMARK_TABLE end -->"


def median_rates(fn, repeats: int) -> tuple[float, float]:
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


# -- in-kernel -------------------------------------------------------------------------------
def in_kernel(game: str, players: int, n: int, threads: int):
    counter = [0]

    def run():
        counter[0] += 1
        r = simulate(game, n, players=players, seed=counter[0], threads=threads)
        return n, int(r["steps"].sum()), float(r["seconds"])

    return run


# -- vector env ------------------------------------------------------------------------------
@njit(cache=True)
def _pick(masks, keys, out):
    """A uniform legal action per row (``keys`` random ints): the policy of the vector benchmark."""
    for i in range(masks.shape[0]):
        m = masks[i]
        count = 0
        for j in range(m.shape[0]):
            count += m[j]
        k = keys[i] % count
        for j in range(m.shape[0]):
            if m[j]:
                if k == 0:
                    out[i] = j
                    break
                k -= 1


def vector_env(game: str, players: int, batch: int, agent_steps: int):
    env = make_vector_env(game, batch, num_players=players, copy=False)
    rng = np.random.default_rng(0)
    actions = np.zeros(batch, dtype=np.int64)
    steps = min(20_000, max(50, agent_steps // batch))  # batch 1: 20,000 steps are plenty

    def run():
        obs, _ = env.reset(seed=int(rng.integers(2**31)))
        spent = 0.0
        for _ in range(steps):
            _pick(obs["action_mask"], rng.integers(0, 2**62, batch), actions)
            t0 = time.perf_counter()
            obs, rewards, terms, truncs, infos = env.step(actions)
            spent += time.perf_counter() - t0
        return steps * batch, steps * batch, spent

    return run


# -- AEC -------------------------------------------------------------------------------------
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


# -- subprocess measurements -----------------------------------------------------------------
_MEMORY_SCRIPT = r"""
import json, resource, sys, tracemalloc
sys.path.insert(0, {root!r})
from sly_scout_env.simulation import simulate
simulate({game!r}, 1000, players={players})  # compile / load the kernels first
tracemalloc.start()
r = simulate({game!r}, {n}, players={players}, seed=0)
current, peak = tracemalloc.get_traced_memory()
maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({{"seconds": r["seconds"], "rss_kib": maxrss, "traced": peak}}))
"""

_LATENCY_SCRIPT = r"""
import time
t0 = time.perf_counter()
import sys
sys.path.insert(0, {root!r})
import numpy as np
import importlib
env = importlib.import_module({env_module!r}).env()
env.reset(seed=0)
obs, *_ = env.last()
env.step(int(np.flatnonzero(obs["action_mask"])[0]))
print(time.perf_counter() - t0)
"""


def big_simulation(game: str, players: int, n: int) -> dict:
    code = _MEMORY_SCRIPT.format(root=str(ROOT), game=game, players=players, n=n)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def first_call_latency(game: str) -> tuple[float, float]:
    """Seconds for import + first step in a fresh process: (cold cache, warm cache)."""
    code = _LATENCY_SCRIPT.format(root=str(ROOT), env_module=get_game(game).env_module_name)
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        times = []
        for _ in range(2):
            out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
            times.append(float(out.stdout.strip().splitlines()[-1]))
    return times[0], times[1]


def state_bytes(game: str, players: int) -> int:
    return make_vector_env(game, 1, num_players=players).bytes_per_game


def training_table(games: list, repeats: int, rollouts: int) -> list[str]:
    """The training table of ``benchmarks/train_profile.py`` for the recipes of ``games``.

    Empty with ``rollouts`` 0; a note when the train extra is missing.
    """
    from benchmarks.train_profile import RECIPES, TABLE_TITLE, describe, profile_recipe

    recipes = [(game, players) for game, players in RECIPES if game in games]
    if rollouts <= 0 or not recipes:
        return []
    if importlib.util.find_spec("sb3_contrib") is None or importlib.util.find_spec("torch") is None:
        return [f"{TABLE_TITLE}: not measured, the `train` extra (torch, sb3-contrib) is not installed.", ""]
    profiles = [profile_recipe(game, players, rollouts, repeats, progress=lambda m: print(m, flush=True))
                for game, players in recipes]
    return [*describe(profiles, repeats), ""]


def distill_table(games: list, repeats: int, seconds: float) -> list[str]:
    """The table of ``benchmarks/distill_profile.py`` for the recipes of ``games`` (empty with
    ``seconds`` 0; a note when torch is missing)."""
    from benchmarks.distill_profile import RECIPES, TABLE_TITLE, describe, profile_recipe

    recipes = [(game, players) for game, players in RECIPES if game in games]
    if seconds <= 0 or not recipes:
        return []
    if importlib.util.find_spec("torch") is None:
        return [f"{TABLE_TITLE}: not measured, the `train` extra (torch) is not installed.", ""]
    profiles = [profile_recipe(game, players, seconds, repeats, progress=lambda m: print(m, flush=True))
                for game, players in recipes]
    return [*describe(profiles, seconds, repeats), ""]


def machine_header(load_at_start: float) -> str:
    import gymnasium
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
        f"Machine: {cpu}, {os.cpu_count()} cores ({numba.config.NUMBA_NUM_THREADS} Numba threads, "
        f"threading layer {numba.threading_layer()}), {platform.system()} {platform.release()}; "
        f"Python {platform.python_version()}, numpy {np.__version__}, numba {numba.__version__}, "
        f"gymnasium {gymnasium.__version__}, pettingzoo {pettingzoo.__version__}. "
        f"Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; 1-minute load average "
        f"{load_at_start:.1f} at the start, {os.getloadavg()[0]:.1f} at the end (other jobs share the cores)."
    )


def _fmt(x: float) -> str:
    return f"{x:,.0f}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per figure (median reported)")
    parser.add_argument("--quick", action="store_true", help="small sizes, 1 repeat: a smoke run")
    parser.add_argument("--games", default=",".join(GAMES), help=f"comma-separated, from: {','.join(GAMES)}")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results.md"), help="markdown output file")
    parser.add_argument("--readme", action="store_true", help="also write the table into README.md")
    parser.add_argument("--train-rollouts", type=int, default=4,
                        help="rollouts per timed run of the training table (default 4, --quick 1; 0: no table)")
    parser.add_argument("--distill-seconds", type=float, default=30.0,
                        help="collection seconds per timed run of the distillation table (default 30, --quick 3; "
                             "0: no table)")
    args = parser.parse_args(argv)
    quick = args.quick
    load_at_start = os.getloadavg()[0]
    repeats = 1 if quick else args.repeats
    kernel_n = {g: sizes[1 if quick else 0] for g, sizes in KERNEL_N.items()}
    big_n = 20_000 if quick else 1_000_000
    vec_steps = 5_000 if quick else 200_000
    env_steps = 1_000 if quick else 20_000
    all_threads = numba.config.NUMBA_NUM_THREADS
    batches = BATCHES

    head = (
        "| game | players | in-kernel units/s, 1 thread | units/s, all threads | steps/s, 1 thread "
        "| steps/s, all threads | "
        + " | ".join(f"vector agent-steps/s, batch {b}" for b in batches)
        + " | raw AEC steps/s | wrapped AEC steps/s | bytes/state | 1M units: units/min | 1M units: peak memory (run's arrays; whole process) |"
    )
    lines = [head, "|" + "---|" * 2 + "---:|" * (head.count("|") - 3)]
    results = {}
    for game in args.games.split(","):
        spec = get_game(game)
        for players in spec.player_counts:
            u1, s1 = median_rates(in_kernel(game, players, kernel_n[game], 1), repeats)
            ua, sa = median_rates(in_kernel(game, players, kernel_n[game], all_threads), repeats)
            vec = [median_rates(vector_env(game, players, b, vec_steps), repeats)[0] for b in batches]
            raw, _ = median_rates(aec_loop(spec.raw_env(num_players=players), env_steps), repeats)
            wrapped, _ = median_rates(aec_loop(spec.env(num_players=players), env_steps), repeats)
            big = big_simulation(game, players, big_n)
            per_min = big_n / big["seconds"] * 60
            mem = f"{big['traced'] / 2**20:,.0f} MiB arrays; {big['rss_kib'] / 1024:,.0f} MiB process"
            results[(game, players)] = {"units_all": ua, "vec": dict(zip(batches, vec)), "per_min": per_min}
            row = (
                f"| {game} | {players} | {_fmt(u1)} | {_fmt(ua)} | {_fmt(s1)} | {_fmt(sa)} | "
                + " | ".join(_fmt(v) for v in vec)
                + f" | {_fmt(raw)} | {_fmt(wrapped)} | {state_bytes(game, players):,} | {_fmt(per_min)} | {mem} |"
            )
            lines.append(row)
            print(row, flush=True)

    latency = {game: first_call_latency(game) for game in args.games.split(",")}
    lat_lines = [
        "| game | import + first step, cold Numba cache (s) | warm cache (s) |",
        "|---|---:|---:|",
    ] + [f"| {g} | {c:.2f} | {w:.2f} |" for g, (c, w) in latency.items()]

    train_lines = training_table(args.games.split(","), repeats, min(1, args.train_rollouts) if quick
                                 else args.train_rollouts)
    train_lines += distill_table(args.games.split(","), repeats, min(3.0, args.distill_seconds) if quick
                                 else args.distill_seconds)

    def target(ok: bool) -> str:
        return "met" if ok else "NOT met"

    checks = []
    if ("scout", 4) in results:
        r = results[("scout", 4)]
        checks.append(f"- >= 1,000,000 four-player Scout hands/min in-kernel, all threads: "
                      f"{_fmt(r['units_all'] * 60)}/min (median), {_fmt(r['per_min'])}/min over the "
                      f"{big_n:,}-hand run: {target(min(r['units_all'] * 60, r['per_min']) >= 1e6)}")
    if ("sly", 3) in results:
        r = results[("sly", 3)]
        checks.append(f"- >= 3,000,000 three-player Sly games/min in-kernel, all threads: "
                      f"{_fmt(r['units_all'] * 60)}/min (median), {_fmt(r['per_min'])}/min over the "
                      f"{big_n:,}-game run: {target(min(r['units_all'] * 60, r['per_min']) >= 3e6)}")
    for key in (("scout", 4), ("sly", 3)):
        if key in results:
            v = results[key]["vec"][4096]
            checks.append(f"- vector env >= 500,000 agent-steps/s at batch 4096 ({key[0]}, {key[1]} players): "
                          f"{_fmt(v)}: {target(v >= 5e5)}")
    for g, (c, w) in latency.items():
        checks.append(f"- import + first step <= 2 s with a warm cache ({g}): {w:.2f} s: {target(w <= 2.0)}")

    body = [
        machine_header(load_at_start),
        "",
        f"Medians of {repeats} run(s) after a warm-up run; uniform-random legal moves; units = Scout hands "
        f"(one round, fresh deal to scoring) or Sly games. Sizes per run: in-kernel {kernel_n}; vector env "
        f"{vec_steps:,} agent-steps (50 to 20,000 steps); AEC {env_steps:,} moves; the big simulation "
        f"{big_n:,} units in a fresh process. Command: `make bench` (`python benchmarks/run.py"
        f"{' --quick' if quick else ''}`).",
        "",
        *lines,
        "",
        *lat_lines,
        "",
        *train_lines,
        "Targets (2-core machine shared with other jobs while measuring):",
        "",
        *checks,
    ]
    text = "\n".join(["# Benchmark results", "", *body, ""])
    Path(args.out).write_text(text)
    print("\n".join(["", *lat_lines, "", *train_lines, *checks]))
    print(f"\nwritten to {args.out}")
    if args.readme:
        readme = ROOT / "README.md"
        content = readme.read_text()
        block = "\n".join([README_START, *body, README_END])
        if README_START in content and README_END in content:
            a = content.index(README_START)
            b = content.index(README_END) + len(README_END)
            content = content[:a] + block + content[b:]
        elif "BENCHMARK_TABLE" in content:
            content = content.replace("BENCHMARK_TABLE", block, 1)
        else:
            raise SystemExit("README.md has no benchmark placeholder (BENCHMARK_TABLE) or markers")
        readme.write_text(content)
        print("README.md updated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
