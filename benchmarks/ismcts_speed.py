"""Search speed: ISMCTS iterations per second, the Python search against the compiled one,
and the compiled search with the network inside it (rollout against value).

    python benchmarks/ismcts_speed.py                 # every game and player count (a few minutes)
    python benchmarks/ismcts_speed.py --quick         # a smoke run
    python benchmarks/ismcts_speed.py --out benchmarks/ismcts_speed.md
    python benchmarks/ismcts_speed.py --tables models  # one of the four tables below

For each table, positions come from games of random moves (the same positions for both
engines); each engine searches each position with the bot's defaults for the game
(``value``, ``top_k``) and the rollout policy of the row. Reported: microseconds per
iteration and iterations per second, the median over ``--repeats`` timed passes over all
positions (a warm-up pass first: compilation is not counted), and the speed-up. The two
engines run the same algorithm (``sly_scout_env.ismcts``'s docstring); they draw from
different random streams, so their trees differ move by move, not in strength.

The second table (``--guided``, on by default) times the compiled search with a network
inside it at the same positions, greedy rollouts: the plain search, the shipped network's
prior (PUCT; Scout's is an action scorer, Sly's reads the observation), a value network that
ends each simulation at its new leaf (an MLP over the observation, ``--value-hidden``; random
weights of the size ``sly-scout exit`` trains: the cost does not depend on the weights), and
both. Microseconds per iteration; the last column is the value cut-off's speed-up over the
plain search's rollouts.

The third table (``--time-limit T``, 0.02 s by default; 0 skips it) is a time-limited move:
the iterations the plain search and the expert (the shipped network's prior inside) get
in ``T``, the search reading its deadline inside the kernel (one call a move, as the bots
do) against the loop it replaced (a kernel call of 8 iterations, the clock read between
calls), and the cost of one kernel call from Python with no iteration: Numba resolving
the game's twelve compiled parts passed in, paid once a move now, once every 8
iterations before.

The fourth table (with the third) is the expert's time-limited move under each model of
the other seats in its tree: ``opponents="hybrid"`` (they branch by PUCT, the network's
prior computed for them), ``"policy"`` (they play ``greedy``) and ``"policy"`` with
``policy_leaf`` (a node first reached through their moves ends the descent): the median
iterations a move at ``T``.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from sly_scout_env.agents.bots.ismcts import DEFAULTS, ISMCTS, search_role  # noqa: E402
from sly_scout_env.games import all_games, get_game  # noqa: E402
from sly_scout_env.ismcts import CompiledSearch  # noqa: E402
from sly_scout_env.views import player_view  # noqa: E402


def positions(game: str, players: int, count: int, seed: int = 0):
    """``count`` (root row, observer) pairs from games of random moves, each built from the seat's view."""
    role = search_role(game)
    ad = role.SearchAdapter(players, {})
    env = get_game(game).raw_env(num_players=players)
    rng = np.random.default_rng(seed)
    out = []
    g = 0
    while len(out) < count:
        env.reset(seed=seed + g)
        g += 1
        while not env.terminations[env.agent_selection] and len(out) < count:
            seat = env.agent_name_mapping[env.agent_selection]
            o = env.observe(env.agent_selection)
            if int(o["action_mask"].sum()) > 1:
                out.append((ad.root(o["observation"], o["action_mask"],
                                    {"view": player_view(env.state_dict(), seat)}), seat))
            env.step(int(rng.choice(np.flatnonzero(o["action_mask"]))))
    return out


def engine(kind: str, game: str, players: int, iterations: int, rollout: str, guide=None, prior=True, value=False):
    role = search_role(game)
    ad = role.SearchAdapter(players, {})
    d = {**DEFAULTS, **ad.BOT_DEFAULTS}
    params = dict(iterations=iterations, rollout=rollout, value=d["value"], top_k=d["top_k"])
    if guide is not None:
        params.update(top_k=None, guide=guide, guide_c=d["guide_c"], guide_prior=prior, guide_value=value)
    if kind == "compiled":
        return CompiledSearch(ad, role.KERNELS, **params)
    return ISMCTS(ad, **params)


def network_with_value(game: str, players: int, hidden: list):
    """The shipped network of the table with a value network of ``hidden`` layers (random weights)."""
    from sly_scout_env.netfile import NeuralPolicy, shipped_for

    net = shipped_for(game, players)
    rng = np.random.default_rng(0)
    sizes = [net.observation_size, *hidden, 1]
    value = [(rng.normal(size=(o, i)).astype(np.float32) * 0.1, np.zeros(o, np.float32))
             for i, o in zip(sizes[:-1], sizes[1:])]
    return NeuralPolicy(net.layers, net.head, net.meta, source=net.source, value_net=(value[:-1], value[-1]))


def seconds_per_iteration(search, roots, repeats: int) -> float:
    rng = np.random.default_rng(1)

    def one_pass():
        t = time.perf_counter()
        for row, seat in roots:
            search.search(row, seat, rng)
        return (time.perf_counter() - t) / (len(roots) * search.iterations)

    one_pass()  # warm-up: compilation, caches
    return statistics.median(one_pass() for _ in range(repeats))


OLD_CHUNK = 8  # iterations per kernel call of the replaced time-limit loop


def chunked(search):
    """``search`` with the replaced time-limit loop: kernel calls of OLD_CHUNK iterations until the deadline."""
    real = search._run

    def run(root, observer, iterations, deadline):
        if deadline <= 0:
            return real(root, observer, iterations, deadline)
        done = 0
        while done == 0 or time.perf_counter() < deadline:
            done += real(root, observer, OLD_CHUNK, 0.0)
        return done

    search._run = run
    return search


def every_table(count: int):
    """(game spec, players, ``count`` positions) for every game and player count."""
    for spec in all_games():
        for players in spec.player_counts:
            yield spec, players, positions(spec.name, players, count)


def median_iterations(search, roots, repeats: int) -> float:
    """The median iterations of ``search``'s time-limited moves over ``repeats`` passes over ``roots``."""
    rng = np.random.default_rng(1)
    counts = []
    for r in range(repeats + 1):  # (the first pass warms up)
        for row, seat in roots:
            search.search(row, seat, rng)
            if r:
                counts.append(search.last_iterations)
    return statistics.median(counts)


def time_limited(game: str, players: int, roots, limit: float, repeats: int) -> list:
    """Median iterations a move at ``limit`` (plain, expert; each in-kernel and chunked) and the
    median microseconds of a zero-iteration kernel call."""
    from sly_scout_env.netfile import shipped_for

    cells = []
    for guide in (None, shipped_for(game, players)):
        for old in (False, True):
            search = engine("compiled", game, players, 300, "greedy", guide)
            search.iterations, search.time_limit = None, limit
            if old:
                chunked(search)
            cells.append(median_iterations(search, roots, repeats))
    search = engine("compiled", game, players, 300, "greedy")
    row, seat = roots[0]
    search.search(row, seat, np.random.default_rng(1))
    calls = []
    for _ in range(200):
        t = time.perf_counter()
        search._run(search._root_row, seat, 0, 0.0)
        calls.append(time.perf_counter() - t)
    return cells + [statistics.median(calls) * 1e6]


TABLES = ("speed", "guided", "time", "models")  # --tables: the four tables of the module docstring
MODELS = (("hybrid", False), ("policy", False), ("policy", True))  # the fourth table's columns


def iterations_by_model(game: str, players: int, roots, limit: float, repeats: int) -> list:
    """Median iterations a move at ``limit`` of the search with the table's expert network inside
    (``checkpoints/experts/``, else its ``neural`` one) under each of :data:`MODELS`."""
    from sly_scout_env.netfile import shipped_expert_for, shipped_for

    role = search_role(game)
    d = {**DEFAULTS, **role.SearchAdapter.BOT_DEFAULTS}
    net = shipped_expert_for(game, players, {}) or shipped_for(game, players)
    cells = []
    for opponents, leaf in MODELS:
        search = CompiledSearch(role.SearchAdapter(players, {}), role.KERNELS, iterations=None, time_limit=limit,
                                value=d["value"], opponents=opponents, policy_leaf=leaf, guide=net,
                                guide_c=d["guide_c"])
        cells.append(median_iterations(search, roots, repeats))
    return cells


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="few positions and iterations, 1 repeat")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--positions", type=int, default=40, help="positions per table (default 40)")
    p.add_argument("--iterations", type=int, default=300, help="iterations per search (the bot's default 300)")
    p.add_argument("--rollouts", default="random,greedy", help="rollout policies to time (default random,greedy)")
    p.add_argument("--guided", action=argparse.BooleanOptionalAction, default=True,
                   help="also time the search with the network inside (default on)")
    p.add_argument("--value-hidden", type=lambda t: [int(x) for x in t.split(",")], default=[128, 128],
                   help="layers of the timed value network (default 128,128)")
    p.add_argument("--time-limit", type=float, default=0.02,
                   help="seconds a move of the time-limited table (default 0.02; 0: skip it)")
    p.add_argument("--tables", default=",".join(TABLES),
                   help=f"the tables to measure, comma-separated (default all: {','.join(TABLES)})")
    p.add_argument("--out", default=None, help="also write the markdown table to this file")
    args = p.parse_args(argv)
    tables = args.tables.split(",")
    for name in tables:
        if name not in TABLES:
            p.error(f"--tables: no table {name!r}; the tables: {', '.join(TABLES)}")
    repeats = 1 if args.quick else args.repeats
    count = 4 if args.quick else args.positions
    iterations = 30 if args.quick else args.iterations
    lines = [
        f"Measured {time.strftime('%Y-%m-%d')} on {platform.processor() or platform.machine()} "
        f"({os.cpu_count()} cores; load {os.getloadavg()[0]:.1f} at the start): {count} positions per table "
        f"from random games, {iterations} iterations a search, median of {repeats} pass(es) after a warm-up.",
    ]
    if "speed" in tables:
        lines += [
            "",
            "| game | players | rollout | Python µs/iteration | compiled µs/iteration | compiled iterations/s | "
            "speed-up |",
            "|---|---:|---|---:|---:|---:|---:|",
        ]
    for spec, players, roots in every_table(count) if "speed" in tables else ():
        for rollout in args.rollouts.split(","):
            py = seconds_per_iteration(engine("python", spec.name, players, iterations, rollout), roots, repeats)
            cc = seconds_per_iteration(engine("compiled", spec.name, players, iterations, rollout), roots, repeats)
            lines.append(f"| {spec.name} | {players} | {rollout} | {py * 1e6:,.1f} | {cc * 1e6:,.1f} | "
                         f"{1 / cc:,.0f} | {py / cc:.2f}x |")
            print(lines[-1], flush=True)
    if args.guided and "guided" in tables:
        lines += [
            "",
            "The compiled search with the network inside it, greedy rollouts, µs per iteration "
            f"(value network {','.join(map(str, args.value_hidden))}):",
            "",
            "| game | players | plain | prior (PUCT) | value cut-off | prior and value | value / plain speed-up |",
            "|---|---:|---:|---:|---:|---:|---:|",
        ]
        for spec, players, roots in every_table(count):
            net = network_with_value(spec.name, players, args.value_hidden)
            cells = []
            for guide, prior, value in ((None, True, False), (net, True, False), (net, False, True),
                                        (net, True, True)):
                search = engine("compiled", spec.name, players, iterations, "greedy", guide, prior, value)
                cells.append(seconds_per_iteration(search, roots, repeats))
            lines.append(f"| {spec.name} | {players} | " + " | ".join(f"{c * 1e6:,.1f}" for c in cells)
                         + f" | {cells[0] / cells[2]:.2f}x |")
            print(lines[-1], flush=True)
    if args.time_limit > 0 and "time" in tables:
        lines += [
            "",
            f"A time-limited move ({args.time_limit * 1e3:g} ms, greedy rollouts): median iterations a move, the "
            f"deadline read inside the kernel (one call a move) against the replaced loop of kernel calls of "
            f"{OLD_CHUNK} iterations; and one kernel call with no iteration:",
            "",
            "| game | players | plain, in-kernel | plain, chunked | expert, in-kernel | expert, chunked | "
            "µs per kernel call |",
            "|---|---:|---:|---:|---:|---:|---:|",
        ]
        for spec, players, roots in every_table(count):
            c = time_limited(spec.name, players, roots, args.time_limit, repeats)
            lines.append(f"| {spec.name} | {players} | {c[0]:,.0f} | {c[1]:,.0f} | {c[2]:,.0f} | {c[3]:,.0f} | "
                         f"{c[4]:,.0f} |")
            print(lines[-1], flush=True)
    if args.time_limit > 0 and "models" in tables:
        lines += [
            "",
            f"The models of the other seats: a time-limited move ({args.time_limit * 1e3:g} ms) of the search "
            "with the table's expert network inside (else its neural one), greedy rollouts, with each model of "
            "the other seats in its tree: median iterations a move:",
            "",
            "| game | players | hybrid | policy | policy, policy_leaf |",
            "|---|---:|---:|---:|---:|",
        ]
        for spec, players, roots in every_table(count):
            c = iterations_by_model(spec.name, players, roots, args.time_limit, repeats)
            lines.append(f"| {spec.name} | {players} | " + " | ".join(f"{x:,.0f}" for x in c) + " |")
            print(lines[-1], flush=True)
    text = "\n".join(lines) + "\n"
    if args.out:
        Path(args.out).write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
