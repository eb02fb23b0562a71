"""Where a distillation run's time goes: ``sly-scout distill``'s stages, phase by phase.

    python benchmarks/distill_profile.py                       # Scout 2p and 4p, markdown table
    python benchmarks/distill_profile.py --recipes scout:4 --seconds 60 --repeats 3
    taskset -c 1 python benchmarks/distill_profile.py          # pinned to one core

The recipe is the shipped Scout networks' (docs/training.md, "Distilling ISMCTS"): the
teacher ``ismcts`` at its default budget in one or two seats, ``greedy`` elsewhere.

**Collection** (the bulk of a run): :func:`sly_scout_env.agents.training.distill.collect` runs in this process
for ``--seconds``, ``--repeats`` times after a short warm-up, and the phases are timed
around the real calls (the module's ``make_from_spec``, ``get_game`` and ``player_view``
are wrapped for the duration; nothing of the recipe is reimplemented):

- **teacher search**: the teacher bot's ``act`` (ISMCTS: determinizations, tree, compiled
  rollouts);
- **greedy seats**: the greedy bots' ``act``;
- **env & views**: ``env.step``, ``env.observe`` and building each mover's redacted view
  (``player_view(state_dict)``, which ISMCTS needs);
- **other**: the rest (recording the visits, saving the data file every 10 games, resets).

The rate is teacher decisions recorded per second of one process (``--workers`` processes
collect in parallel). **Fit**: on the decisions collected, the feature rows
(:func:`sly_scout_env.agents.training.distill_fit.feature_rows`) and one epoch of
:func:`sly_scout_env.agents.training.distill_fit.fit`, as decisions per second. Medians over
the repeats, the split of the median repeat.
Shared, noisy machines: never asserted in tests (``tests/agents/test_distill_profile.py``
checks the accounting on a tiny run).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import sly_scout_env.agents.training.distill as D  # noqa: E402
from sly_scout_env.agents.ui.arg_types import positive_int  # noqa: E402

RECIPES = (("scout", 2), ("scout", 4))
PHASES = ("teacher search", "greedy seats", "env & views")
TABLE_TITLE = "Training (sly-scout distill, the shipped Scout recipe)"


@dataclass
class Split:
    decisions: int
    seconds: float
    phases: dict

    @property
    def rate(self) -> float:
        return self.decisions / self.seconds if self.seconds > 0 else 0.0

    def share(self) -> dict:
        out = {k: v / self.seconds for k, v in self.phases.items()}
        out["other"] = max(0.0, 1.0 - sum(out.values()))
        return out


@contextmanager
def timed_collect(teacher: str, clock: dict):
    """While active, ``sly_scout_env.agents.training.distill.collect`` builds bots and envs whose calls add their
    wall time to ``clock`` (phase -> seconds)."""
    real_make, real_game, real_view = D.make_from_spec, D.get_game, D.player_view

    def add(phase, fn):
        def wrapped(*args, **kwargs):
            t0 = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                clock[phase] += time.perf_counter() - t0
        return wrapped

    def make(spec, game=None):
        bot = real_make(spec, game=game)
        bot.act = add("teacher search" if spec == teacher else "greedy seats", bot.act)
        return bot

    class Game:
        def __init__(self, spec):
            self.spec = spec

        def raw_env(self, **kwargs):
            env = self.spec.raw_env(**kwargs)
            env.step = add("env & views", env.step)
            env.observe = add("env & views", env.observe)
            return env

    D.make_from_spec = make
    D.get_game = lambda name: Game(real_game(name))
    D.player_view = add("env & views", real_view)
    try:
        yield
    finally:
        D.make_from_spec, D.get_game, D.player_view = real_make, real_game, real_view


def profile_collect(game: str, players: int, seconds: float, teacher: str = "ismcts", seed: int = 0) -> tuple:
    """One timed collection: (Split, path of the data file)."""
    clock = dict.fromkeys(PHASES, 0.0)
    out = os.path.join(tempfile.mkdtemp(prefix="distill_profile_"), "data.npz")
    with timed_collect(teacher, clock):
        t0 = time.perf_counter()
        stats = D.collect(game, players, seconds=seconds, seed=seed, out=out, teacher=teacher)
        total = time.perf_counter() - t0
    return Split(stats["decisions"], total, clock), out


def profile_fit(game: str, players: int, path: str, hidden=(64, 64)) -> tuple[float, float]:
    """(feature rows: decisions/s, one fit epoch: decisions/s) on the data file ``path``."""
    from sly_scout_env.agents.training.distill_fit import feature_rows, fit

    data = D.load_data([path])
    n = len(data["obs"])
    small = D.take(data, min(n, 64))  # warm-up: torch's first calls in a process are slow
    fit(feature_rows(small, game, players), small, hidden=list(hidden), epochs=1, val_frac=0.0, log=lambda s: None)
    t0 = time.perf_counter()
    rows = feature_rows(data, game, players)
    t1 = time.perf_counter()
    fit(rows, data, hidden=list(hidden), epochs=1, val_frac=0.0, log=lambda s: None)
    t2 = time.perf_counter()
    return n / (t1 - t0), n / (t2 - t1)


@dataclass
class Profile:
    game: str
    players: int
    splits: list
    features_rate: float
    fit_rate: float

    @property
    def median(self) -> Split:
        rates = sorted(self.splits, key=lambda s: s.rate)
        return rates[len(rates) // 2]


def profile_recipe(game: str, players: int, seconds: float, repeats: int, teacher: str = "ismcts",
                   progress=None) -> Profile:
    if progress:
        progress(f"distill profile {game} {players}p: warm-up, then {repeats} x {seconds:g} s of collection")
    profile_collect(game, players, min(5.0, seconds), teacher, seed=999)  # compile and warm the kernels
    splits, paths = [], []
    for r in range(repeats):
        split, path = profile_collect(game, players, seconds, teacher, seed=r)
        splits.append(split)
        paths.append(path)
    features_rate, fit_rate = profile_fit(game, players, paths[-1])
    return Profile(game, players, splits, features_rate, fit_rate)


def table_lines(profiles: list) -> list[str]:
    head = ("| recipe | teacher decisions/s (one process) | teacher search % | greedy seats % | env & views % "
            "| other % | feature rows, decisions/s | fit, decisions/s per epoch |")
    lines = [head, "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for p in profiles:
        m = p.median
        sh = m.share()
        lines.append(f"| {p.game} {p.players}p | {m.rate:,.1f} | {100 * sh['teacher search']:.0f} | "
                     f"{100 * sh['greedy seats']:.0f} | {100 * sh['env & views']:.0f} | {100 * sh['other']:.0f} | "
                     f"{p.features_rate:,.0f} | {p.fit_rate:,.0f} |")
    return lines


def describe(profiles: list, seconds: float, repeats: int) -> list[str]:
    return [f"{TABLE_TITLE}: where a run's time goes (`python benchmarks/distill_profile.py`; median of {repeats} "
            f"collection(s) of {seconds:g} s in one process after a warm-up, the split of the median one; the fit "
            "on the last one's decisions). The collection is the bulk of a run (35 of 38 minutes for the shipped "
            "4-player network), and within it the teacher's search.", "", *table_lines(profiles)]


def parse_recipe(text: str) -> tuple[str, int]:
    game, _, players = text.partition(":")
    if not players.isdigit():
        raise argparse.ArgumentTypeError(f"recipe {text!r}: give GAME:PLAYERS, e.g. scout:2")
    return game, int(players)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--recipes", type=lambda t: [parse_recipe(x) for x in t.split(",")], default=list(RECIPES),
                    help="GAME:PLAYERS,... (default scout:2,scout:4)")
    ap.add_argument("--seconds", type=float, default=30.0, help="collection time per repeat (default 30)")
    ap.add_argument("--repeats", type=positive_int, default=3, help="(default 3)")
    ap.add_argument("--teacher", default="ismcts", help="teacher bot spec (default ismcts)")
    a = ap.parse_args(argv)
    profiles = [profile_recipe(g, n, a.seconds, a.repeats, a.teacher, progress=lambda m: print(m, flush=True))
                for g, n in a.recipes]
    print("\n".join(describe(profiles, a.seconds, a.repeats)))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
