"""Speed benchmark suite: one markdown table for both games and every player count.

    python benchmarks/run.py                 # full run (several minutes), writes benchmarks/results.md
    python benchmarks/run.py --readme        # ... and a small table into README.md (what `make bench` does)
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
- batch 4096 / 1024 and 8192 / 1024: how the vector env keeps its rate at large batches
  (target: at least :data:`SCALE_TARGET` for every game and player count);
- bytes per game state in the vector env: its row (int32 where the game's values fit,
  see docs/architecture.md) plus its share of its tile's kernel scratch, at batch 1024;
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
a discarded warm-up run. An in-kernel run's units are calibrated per row and thread count
so that it takes about ``Sizes.kernel_seconds`` (like timeit's autorange: short runs grow
tenfold until one takes a tenth of that, then the size is scaled from its rate).

README.md gets a small table (``--readme``: in-kernel units/s with all threads, the vector
env at batch 1024 and 8192, raw AEC steps/s, bytes/state); benchmarks/results.md keeps
everything.
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
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numba  # noqa: E402
from numba import njit  # noqa: E402

from sly_scout_env.games import GAMES, all_games, get_game  # noqa: E402
from sly_scout_env.simulation import simulate  # noqa: E402
from sly_scout_env.vector import vector_env as make_vector_env  # noqa: E402

BATCHES = (1, 64, 1024, 4096, 8192)
README_BATCH = 1024  # the vector env's batch in the README's small table


@dataclass(frozen=True)
class Sizes:
    """How much each timed run does."""

    kernel_seconds: float  # an in-kernel run's target length (its units are calibrated, see autorange)
    big_n: int  # units of the big simulation in a fresh process
    vec_steps: int  # vector env agent-steps per run
    env_steps: int  # AEC moves per run


FULL = Sizes(kernel_seconds=1.0, big_n=1_000_000, vec_steps=200_000, env_steps=20_000)
QUICK = Sizes(kernel_seconds=0.05, big_n=20_000, vec_steps=5_000, env_steps=1_000)

# The project's speed targets, stated for these rows: in-kernel units/min with all threads
# (game, players, units/min), and the vector env's agent-steps/s at a batch (batch, rate) for
# the same rows.
# (game, players, units per minute): each game's speed target, from the registry.
KERNEL_TARGETS = tuple((s.name, *s.speed_target) for s in all_games() if s.speed_target)
VECTOR_TARGET = (4096, 500_000)
SCALE_TARGET = 0.9  # the vector env at batch 4096 and 8192 keeps this share of its batch-1024 rate
SCALE_BATCHES = (4096, 8192)
_PLAYERS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}
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


def autorange(seconds_for, target: float, start: int = 100) -> int:
    """The units of a run that takes about ``target`` seconds, as timeit's autorange does it.

    ``seconds_for(n)`` times a run of ``n`` units; ``n`` grows tenfold from ``start`` until a
    run takes at least a tenth of ``target``, then is scaled to ``target`` by that run's rate.
    """
    n = start
    while True:
        seconds = seconds_for(n)
        if seconds >= target / 10:
            return max(1, round(n * target / seconds))
        n *= 10


def kernel_rates(game: str, players: int, threads: int, target: float, repeats: int) -> tuple[float, float, int]:
    """Median in-kernel (units/s, steps/s) over runs of about ``target`` seconds, and their units per run."""
    def seconds_for(n):
        return float(simulate(game, n, players=players, seed=0, threads=threads)["seconds"])

    n = autorange(seconds_for, target)
    units, steps = median_rates(in_kernel(game, players, n, threads), repeats)
    return units, steps, n


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
            for _agent in env.agent_iter():
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
    return make_vector_env(game, README_BATCH, num_players=players).bytes_per_game


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


def cpu_name() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return cpu


def machine_header(load_at_start: float) -> str:
    import gymnasium
    import pettingzoo

    return (
        f"Machine: {cpu_name()}, {os.cpu_count()} cores ({numba.config.NUMBA_NUM_THREADS} Numba threads, "
        f"threading layer {numba.threading_layer()}), {platform.system()} {platform.release()}; "
        f"Python {platform.python_version()}, numpy {np.__version__}, numba {numba.__version__}, "
        f"gymnasium {gymnasium.__version__}, pettingzoo {pettingzoo.__version__}. "
        f"Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; 1-minute load average "
        f"{load_at_start:.1f} at the start, {os.getloadavg()[0]:.1f} at the end (other jobs share the cores)."
    )


def _fmt(x: float) -> str:
    return f"{x:,.0f}"


# -- one row per game and player count --------------------------------------------------------
@dataclass
class Row:
    """The figures of one game and player count."""

    game: str
    players: int
    units_1: float  # in-kernel units/s, 1 thread
    units_all: float  # ... all threads
    steps_1: float
    steps_all: float
    kernel_n: tuple  # units per timed run: 1 thread, all threads (calibrated)
    vec: dict  # batch -> vector env agent-steps/s
    raw: float  # raw AEC steps/s
    wrapped: float
    bytes: int
    per_min: float  # units/min over the big simulation
    memory: str


def measure_row(game: str, players: int, sizes: Sizes, repeats: int) -> Row:
    spec = get_game(game)
    all_threads = numba.config.NUMBA_NUM_THREADS
    u1, s1, n1 = kernel_rates(game, players, 1, sizes.kernel_seconds, repeats)
    ua, sa, na = kernel_rates(game, players, all_threads, sizes.kernel_seconds, repeats)
    vec = [median_rates(vector_env(game, players, b, sizes.vec_steps), repeats)[0] for b in BATCHES]
    raw, _ = median_rates(aec_loop(spec.raw_env(num_players=players), sizes.env_steps), repeats)
    wrapped, _ = median_rates(aec_loop(spec.env(num_players=players), sizes.env_steps), repeats)
    big = big_simulation(game, players, sizes.big_n)
    return Row(game, players, u1, ua, s1, sa, (n1, na), dict(zip(BATCHES, vec)), raw, wrapped,
               state_bytes(game, players), sizes.big_n / big["seconds"] * 60,
               f"{big['traced'] / 2**20:,.0f} MiB arrays; {big['rss_kib'] / 1024:,.0f} MiB process")


def _table(head: list[str], rows: list[list[str]]) -> list[str]:
    """A markdown table: the first two columns (game, players) left-aligned, the figures right."""
    return ["| " + " | ".join(head) + " |", "|" + "---|" * 2 + "---:|" * (len(head) - 2),
            *("| " + " | ".join(cells) + " |" for cells in rows)]


FULL_HEAD = [
    "game", "players", "in-kernel units/s, 1 thread", "units/s, all threads", "steps/s, 1 thread",
    "steps/s, all threads", *(f"vector agent-steps/s, batch {b}" for b in BATCHES),
    *(f"{b} / {README_BATCH}" for b in SCALE_BATCHES), "raw AEC steps/s",
    "wrapped AEC steps/s", "bytes/state", "1M units: units/min", "1M units: peak memory (run's arrays; whole process)",
]
README_HEAD = ["game", "players", "in-kernel units/s, all threads", f"vector agent-steps/s, batch {README_BATCH}",
               f"batch {SCALE_BATCHES[-1]}", "raw AEC steps/s", "bytes/state"]


def scale(r: Row, batch: int) -> float:
    """The vector env's rate at ``batch`` over its rate at batch README_BATCH."""
    return r.vec[batch] / r.vec[README_BATCH]


def full_cells(r: Row) -> list[str]:
    return [r.game, str(r.players), _fmt(r.units_1), _fmt(r.units_all), _fmt(r.steps_1), _fmt(r.steps_all),
            *(_fmt(r.vec[b]) for b in BATCHES), *(f"{scale(r, b):.2f}" for b in SCALE_BATCHES), _fmt(r.raw),
            _fmt(r.wrapped), f"{r.bytes:,}", _fmt(r.per_min),
            r.memory]


def readme_cells(r: Row) -> list[str]:
    big = SCALE_BATCHES[-1]
    return [r.game, str(r.players), _fmt(r.units_all), _fmt(r.vec[README_BATCH]),
            f"{_fmt(r.vec[big])} ({scale(r, big):.2f}x)", _fmt(r.raw), f"{r.bytes:,}"]


def latency_lines(latency: dict) -> list[str]:
    return [
        "| game | import + first step, cold Numba cache (s) | warm cache (s) |",
        "|---|---:|---:|",
    ] + [f"| {g} | {c:.2f} | {w:.2f} |" for g, (c, w) in latency.items()]


def _met(ok: bool) -> str:
    return "met" if ok else "NOT met"


def target_checks(rows: list[Row], latency: dict, big_n: int) -> list[str]:
    """One line per target of :data:`KERNEL_TARGETS`, :data:`VECTOR_TARGET`, :data:`SCALE_TARGET` and the warm
    first step whose row was measured."""
    found = {(r.game, r.players): r for r in rows}
    kernel = [(found[(g, p)], per_min) for g, p, per_min in KERNEL_TARGETS if (g, p) in found]
    checks = []
    for r, per_min in kernel:
        unit = get_game(r.game).unit
        checks.append(f"- >= {per_min:,} {_PLAYERS[r.players]}-player {get_game(r.game).title} {unit}s/min in-kernel, "
                      f"all threads: {_fmt(r.units_all * 60)}/min (median), {_fmt(r.per_min)}/min over the "
                      f"{big_n:,}-{unit} run: {_met(min(r.units_all * 60, r.per_min) >= per_min)}")
    batch, rate = VECTOR_TARGET
    for r, _ in kernel:
        v = r.vec[batch]
        checks.append(f"- vector env >= {rate:,} agent-steps/s at batch {batch} ({r.game}, {r.players} players): "
                      f"{_fmt(v)}: {_met(v >= rate)}")
    for r in rows:
        if all(b in r.vec for b in (README_BATCH, *SCALE_BATCHES)):
            shares = [scale(r, b) for b in SCALE_BATCHES]
            checks.append(f"- vector env at batch {' and '.join(map(str, SCALE_BATCHES))} >= {SCALE_TARGET:.0%} of its "
                          f"batch-{README_BATCH} rate ({r.game}, {r.players} players): "
                          f"{', '.join(f'{s:.2f}' for s in shares)}: {_met(min(shares) >= SCALE_TARGET)}")
    for g, (_cold, w) in latency.items():
        checks.append(f"- import + first step <= 2 s with a warm cache ({g}): {w:.2f} s: {_met(w <= 2.0)}")
    return checks


def units_sentence(games: list[str]) -> str:
    """What a unit is, from the registry."""
    return "units = " + " or ".join(f"{get_game(g).title} {get_game(g).unit}s ({get_game(g).unit_doc})" for g in games)


# -- the two documents ------------------------------------------------------------------------
def results_body(rows, latency, extra_lines, checks, sizes: Sizes, repeats, quick, load_at_start) -> list[str]:
    """benchmarks/results.md: every table, the sizes and the targets."""
    kernel_n = [n for r in rows for n in r.kernel_n]
    return [
        machine_header(load_at_start),
        "",
        f"Medians of {repeats} run(s) after a warm-up run; uniform-random legal moves; "
        f"{units_sentence(list(dict.fromkeys(r.game for r in rows)))}. Sizes per run: in-kernel about "
        f"{sizes.kernel_seconds:g} s (the units of each row's runs calibrated from short runs, as timeit's "
        f"autorange: {min(kernel_n, default=0):,} to {max(kernel_n, default=0):,} units); vector env "
        f"{sizes.vec_steps:,} agent-steps (50 to 20,000 steps); AEC {sizes.env_steps:,} moves; the big simulation "
        f"{sizes.big_n:,} units in a fresh process. Command: `make bench` (`python benchmarks/run.py"
        f"{' --quick' if quick else ''}`).",
        "",
        *_table(FULL_HEAD, [full_cells(r) for r in rows]),
        "",
        *latency_lines(latency),
        "",
        *extra_lines,
        "Targets (2-core machine shared with other jobs while measuring):",
        "",
        *checks,
    ]


def readme_body(rows, repeats, quick) -> list[str]:
    """The README's small table, pointing to benchmarks/results.md for the rest."""
    return [
        f"Measured {time.strftime('%Y-%m-%d', time.gmtime())} on {cpu_name()} ({os.cpu_count()} cores, shared "
        f"with other jobs; `python benchmarks/run.py{' --quick' if quick else ''}`): medians of {repeats} run(s) "
        f"after a warm-up run, uniform-random legal moves, "
        f"{units_sentence(list(dict.fromkeys(r.game for r in rows)))}. The full table (1 thread, steps/s, every "
        f"batch size, wrapped AEC, memory, first-call latency, training) and the targets: "
        f"[benchmarks/results.md](benchmarks/results.md).",
        "",
        *_table(README_HEAD, [readme_cells(r) for r in rows]),
    ]


def update_readme(body: list[str], readme: Path = ROOT / "README.md") -> None:
    """Put ``body`` between the README's markers (or in place of its BENCHMARK_TABLE placeholder)."""
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


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per figure (median reported)")
    parser.add_argument("--quick", action="store_true", help="small sizes, 1 repeat: a smoke run")
    parser.add_argument("--games", default=",".join(GAMES), help=f"comma-separated, from: {','.join(GAMES)}")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results.md"), help="markdown output file")
    parser.add_argument("--readme", action="store_true", help="also write the small table into README.md")
    parser.add_argument("--train-rollouts", type=int, default=4,
                        help="rollouts per timed run of the training table (default 4, --quick 1; 0: no table)")
    parser.add_argument("--distill-seconds", type=float, default=30.0,
                        help="collection seconds per timed run of the distillation table (default 30, --quick 3; "
                             "0: no table)")
    return parser.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    quick = args.quick
    load_at_start = os.getloadavg()[0]
    repeats = 1 if quick else args.repeats
    sizes = QUICK if quick else FULL
    games = args.games.split(",")

    rows = []
    for game in games:
        for players in get_game(game).player_counts:
            rows.append(measure_row(game, players, sizes, repeats))
            print(_table(FULL_HEAD, [full_cells(rows[-1])])[-1], flush=True)

    latency = {game: first_call_latency(game) for game in games}
    extra = training_table(games, repeats, min(1, args.train_rollouts) if quick else args.train_rollouts)
    extra += distill_table(games, repeats, min(3.0, args.distill_seconds) if quick else args.distill_seconds)
    checks = target_checks(rows, latency, sizes.big_n)

    body = results_body(rows, latency, extra, checks, sizes, repeats, quick, load_at_start)
    Path(args.out).write_text("\n".join(["# Benchmark results", "", *body, ""]))
    print("\n".join(["", *latency_lines(latency), "", *extra, *checks]))
    print(f"\nwritten to {args.out}")
    if args.readme:
        update_readme(readme_body(rows, repeats, quick))
        print("README.md updated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
