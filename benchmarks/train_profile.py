"""Where a training run's time goes: MaskablePPO on the documented recipes, phase by phase.

    python benchmarks/train_profile.py                        # Scout 2p and Sly 2p, markdown table
    python benchmarks/train_profile.py --recipes scout:2 --rollouts 3 --repeats 5
    taskset -c 1 python benchmarks/train_profile.py           # pinned to one core

A recipe is the command that trained the shipped checkpoint for the game and player count
(``sly_scout_env/<game>/checkpoints/*.npz``, its ``meta["trained"]["command"]``, i.e. docs/strength.md's
"Trained bots" table), or, where that checkpoint was distilled from ISMCTS (Scout), the
game's best PPO recipe (``PPO_RECIPES``), parsed by the ``sly-scout train`` parser itself. The benchmark
builds that run's model, envs and callback with ``sly_scout_env.agents.training.ppo`` (``build_model``,
``make_callback``: the objects ``train`` uses), then times ``model.learn`` for
``--rollouts`` rollouts (``n_envs x n_steps`` learner decisions each, then the update),
``--repeats`` times after one discarded warm-up rollout; the run continues from repeat to
repeat (``reset_num_timesteps=False``), as a long training does.

Phases, timed around the real calls (wrappers installed on the instances; nothing of PPO
is reimplemented):

- **env**: the outer ``VecEnv``'s ``step_wait``, ``reset`` and ``env_method`` (the action
  masks sb3-contrib asks for before every step). Split into **engine**, the same calls
  on the innermost ``VecEnv`` (``SingleAgentVecEnv``'s compiled batch and opponents,
  or ``DummyVecEnv`` over ``SingleAgentEnv`` with Python bots and snapshot opponents), and
  **prior & wrappers**, the rest: ``PriorHintVecEnv`` (the prior bot's move for every
  row, computed in Python) and ``VecMonitor``.
- **inference**: the policy's ``forward`` and ``predict_values`` while
  ``collect_rollouts`` runs (the forward pass that picks each step's actions, and the
  value of the last observation).
- **update**: ``model.train()`` (``n_epochs`` passes of minibatch gradient steps).
- **other**: the rest of ``learn``: numpy-to-torch conversion, the rollout buffer,
  returns and advantages, the run's callback (its CSV log), SB3's bookkeeping.

Not included: the arena evaluations (every ``--eval-every`` steps), the warm start,
start-up. A recipe with self-play (``--self-play``
above 0) starts with one snapshot of the learner in its opponent pool, as the run has
after its first ``--snapshot-every`` steps, so that snapshot opponents are timed.

Each row gives the median learner decisions per second over the repeats and the split
of the repeat whose rate is that median (an odd ``--repeats`` picks one repeat; its
parts add up to its total). Torch runs one thread (``torch_threads``, as ``train``), the
engine's kernels Numba's thread count. Shared, noisy machines: medians, never asserted
in tests (``tests/agents/test_train_profile.py`` checks the split's logic on a tiny run).
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sly_scout_env.agents.bots.neural import shipped_for  # noqa: E402
from sly_scout_env.agents.ui.arg_types import positive_int  # noqa: E402
from sly_scout_env.agents.ui.cli import build_parser, config_from_args  # noqa: E402

# The recipes timed by default (game, players): Scout's documented recipe and Sly 2p's command.
RECIPES = (("scout", 2), ("sly", 2))
PHASES = ("env", "engine", "inference", "update")
TABLE_TITLE = "Training (MaskablePPO, documented recipe)"


# The shipped Scout networks are distilled from ISMCTS (``sly-scout distill``, profiled by
# ``benchmarks/distill_profile.py``), not trained by PPO. Scout's PPO recipe here is the best
# PPO run on Scout (docs/experiments/scout.md, attempt 4, the shipped
# 2-player network before the distillation), so that this table still covers Scout.
PPO_RECIPES = {
    ("scout", 2): "sly-scout train scout --players 2 --fast --opponents greedy --self-play 0 --prior greedy "
                  "--prior-weight 3 --n-envs 256 --n-steps 32 --batch-size 1024 --learning-rate 3e-4 "
                  "--net-arch 128,128 --timesteps 2000000 --eval-every 250000 --eval-games 400 "
                  "--eval-opponents greedy --seed 0 --out runs/scout2p",
}


def recipe_command(game: str, players: int) -> str:
    """The ``sly-scout train`` command of the shipped checkpoint for ``game`` and ``players``, or
    the game's PPO recipe (``PPO_RECIPES``) when that checkpoint was not trained by PPO."""
    command = shipped_for(game, players).meta["trained"]["command"]
    if not command.startswith("sly-scout train "):
        if (game, players) not in PPO_RECIPES:
            raise ValueError(f"the shipped {game} {players}-player checkpoint was not trained by 'sly-scout train' "
                             f"({command!r}) and no PPO recipe is recorded for it; PPO recipes: "
                             f"{', '.join(f'{g}:{n}' for g, n in PPO_RECIPES)}")
        return PPO_RECIPES[(game, players)]
    return command.split(" (", 1)[0]  # drop a trailing note such as "(stopped by hand after ...)"


def recipe_config(command: str):
    """The checked ``TrainConfig`` of a ``sly-scout train ...`` command line."""
    words = shlex.split(command)
    if words[:2] != ["sly-scout", "train"]:
        raise ValueError(f"not a 'sly-scout train' command: {command!r}")
    return config_from_args(build_parser().parse_args(words[1:])).check()


class PhaseClock:
    """Adds up the wall time spent in methods of given objects, per phase name."""

    def __init__(self):
        self.seconds = dict.fromkeys(PHASES, 0.0)
        self.calls = dict.fromkeys(PHASES, 0)

    def reset(self) -> None:
        self.seconds = dict.fromkeys(self.seconds, 0.0)
        self.calls = dict.fromkeys(self.calls, 0)

    def wrap(self, obj, method: str, phase: str, when=None) -> None:
        """Time ``obj.method`` (an instance attribute shadows the class's) into ``phase``.

        ``when``: a function; calls made while it returns False are not timed.
        """
        inner = getattr(obj, method)
        self.seconds.setdefault(phase, 0.0)
        self.calls.setdefault(phase, 0)

        def timed(*args, **kwargs):
            if when is not None and not when():
                return inner(*args, **kwargs)
            t0 = time.perf_counter()
            try:
                return inner(*args, **kwargs)
            finally:
                self.seconds[phase] += time.perf_counter() - t0
                self.calls[phase] += 1

        setattr(obj, method, timed)


def innermost(venv):
    """The ``VecEnv`` under every ``VecEnvWrapper`` (the engine)."""
    while hasattr(venv, "venv"):
        venv = venv.venv
    return venv


def instrument(model) -> PhaseClock:
    """Install the phase timers on ``model``, its policy and its envs; returns the clock."""
    clock = PhaseClock()
    outer = model.get_env()
    for method in ("step_wait", "reset", "env_method"):
        clock.wrap(outer, method, "env")
    # Wrapped after the outer env: when there is no wrapper, both timers see the same calls.
    for method in ("step_wait", "reset", "env_method"):
        clock.wrap(innermost(outer), method, "engine")
    collecting = [False]

    def in_rollout():
        return collecting[0]

    for method in ("forward", "predict_values"):
        clock.wrap(model.policy, method, "inference", when=in_rollout)
    clock.wrap(model, "train", "update")
    collect = model.collect_rollouts

    def flagged_collect(*args, **kwargs):
        collecting[0] = True
        try:
            return collect(*args, **kwargs)
        finally:
            collecting[0] = False

    model.collect_rollouts = flagged_collect
    return clock


@dataclass
class Split:
    """One timed stretch of training: decisions, wall seconds and seconds per phase."""

    decisions: int
    seconds: float
    phases: dict = field(default_factory=dict)
    calls: dict = field(default_factory=dict)  # timed calls per phase

    @property
    def rate(self) -> float:
        return self.decisions / self.seconds

    def share(self, phase: str) -> float:
        """Fraction of the wall time: a phase, ``"prior & wrappers"`` (env minus engine) or ``"other"``."""
        p = self.phases
        if phase == "prior & wrappers":
            return (p["env"] - p["engine"]) / self.seconds
        if phase == "other":
            return 1.0 - (p["env"] + p["inference"] + p["update"]) / self.seconds
        return p[phase] / self.seconds


@dataclass
class Profile:
    """A recipe's repeats; ``median`` is the repeat with the median rate."""

    game: str
    players: int
    command: str
    rollout: int  # learner decisions per rollout (n_envs x n_steps)
    rollouts: int
    repeats: list
    prior: str | None = None  # the recipe's prior bot (--prior), if any

    @property
    def median(self) -> Split:
        ordered = sorted(self.repeats, key=lambda s: s.rate)
        return ordered[(len(ordered) - 1) // 2]

    @property
    def rate(self) -> float:
        return statistics.median(s.rate for s in self.repeats)


def profile_recipe(game: str, players: int, rollouts: int = 4, repeats: int = 5, command: str | None = None,
                   overrides: dict | None = None, progress=None) -> Profile:
    """Time ``rollouts`` rollouts of a recipe ``repeats`` times after a warm-up rollout.

    ``command``: a ``sly-scout train`` command (default: the shipped checkpoint's);
    ``overrides``: ``TrainConfig`` fields to change (tests use small ``n_envs``).
    """
    from sly_scout_env.agents.training.ppo import build_model, make_callback, run_meta

    if rollouts < 1 or repeats < 1:
        raise ValueError(f"rollouts={rollouts} and repeats={repeats} must be at least 1")
    command = command or recipe_command(game, players)
    cfg = recipe_config(command)
    if overrides:
        command += " (changed: " + ", ".join(f"{k}={v}" for k, v in overrides.items()) + ")"
    with tempfile.TemporaryDirectory() as out:
        # Evaluations are not timed: never due within the benchmark's steps.
        cfg = replace(cfg, out=out, eval_every=2**62, **(overrides or {})).check()
        model, venv = build_model(cfg)
        callback = make_callback(cfg, run_meta(cfg), log=lambda *a: None)
        try:
            callback.init_callback(model)
            if not cfg.fast and cfg.self_play > 0:
                callback.add_snapshot()  # the opponent pool of a run past its first snapshot
            clock = instrument(model)
            rollout = cfg.n_envs * cfg.n_steps
            model.learn(total_timesteps=rollout, callback=callback)  # warm-up: first reset, first update
            splits = []
            for r in range(repeats):
                clock.reset()
                start = model.num_timesteps
                t0 = time.perf_counter()
                model.learn(total_timesteps=rollouts * rollout, callback=callback, reset_num_timesteps=False)
                seconds = time.perf_counter() - t0
                splits.append(Split(model.num_timesteps - start, seconds, dict(clock.seconds), dict(clock.calls)))
                if progress:
                    progress(f"{game} {players}p repeat {r + 1}/{repeats}: {splits[-1].rate:,.0f} decisions/s")
        finally:
            callback.close()
            venv.close()
    return Profile(cfg.game, cfg.players, command, rollout, rollouts, splits, cfg.prior)


COLUMNS = ("env", "engine", "prior & wrappers", "inference", "update", "other")


def table_lines(profiles: list) -> list[str]:
    """The markdown table: one row per recipe."""
    lines = [
        "| recipe | learner decisions/s | env % | of which engine % | of which prior & wrappers % "
        "| inference % | update % | other % |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for p in profiles:
        s = p.median
        shares = " | ".join(f"{100 * s.share(c):.0f}" for c in COLUMNS)
        lines.append(f"| {p.game} {p.players}p | {p.rate:,.0f} | {shares} |")
    return lines


def bottleneck(profile: Profile, tie: float = 0.05) -> str:
    """A sentence naming the largest phase of a recipe (two when within ``tie`` of each other)."""
    s = profile.median
    names = {"env": "env stepping", "inference": "policy inference", "update": "the PPO update",
             "other": "SB3's bookkeeping"}

    def said(phase):
        text = f"{names[phase]} ({100 * s.share(phase):.0f}% of the time"
        if phase == "env":
            part = max(("engine", "prior & wrappers"), key=s.share)
            what = "the game engine with its opponents"
            if part == "prior & wrappers":
                what = (f"the prior bot's ({profile.prior}) moves and the env wrappers" if profile.prior
                        else "the env wrappers")
            text += f", {100 * s.share(part):.0f}% in {what}"
        return text + ")"

    first, second = sorted(names, key=s.share, reverse=True)[:2]
    head = f"{profile.game} {profile.players}p: "
    if s.share(first) - s.share(second) < tie:
        return head + f"no single bottleneck: {said(first)} and {said(second)} weigh about the same."
    return head + f"the bottleneck is {said(first)}."


def describe(profiles: list, repeats: int) -> list[str]:
    """The table's heading text, the table, the recipes' commands and the bottleneck sentences."""
    import numba
    import torch

    sizes = ", ".join(f"{p.game} {p.players}p {p.rollouts} x {p.rollout:,}" for p in profiles)
    lines = [
        f"{TABLE_TITLE}: learner decisions per second of `model.learn` and where its time goes "
        f"(`python benchmarks/train_profile.py`; median of {repeats} run(s) after a warm-up rollout, the split "
        f"of the median run; per run {sizes} decisions; torch {torch.__version__}, "
        f"torch threads {torch.get_num_threads()}, Numba threads {numba.config.NUMBA_NUM_THREADS}; "
        f"cores available: {len(os.sched_getaffinity(0))}; arena evaluations not included).",
        "",
        *table_lines(profiles),
        "",
    ]
    lines += [f"- {p.game} {p.players}p: `{p.command}`" for p in profiles]
    lines += ["", " ".join(bottleneck(p) for p in profiles)]
    return lines


def parse_recipe(text: str) -> tuple[str, int]:
    game, sep, players = text.partition(":")
    if not sep or not players.isdigit():
        raise argparse.ArgumentTypeError(f"recipe {text!r}: give GAME:PLAYERS, e.g. scout:2")
    return game, int(players)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--recipes", type=lambda t: [parse_recipe(x) for x in t.split(",")],
                        default=list(RECIPES), help="GAME:PLAYERS,... of shipped checkpoints (default scout:2,sly:2)")
    parser.add_argument("--rollouts", type=positive_int, default=4, help="rollouts per timed run (default 4)")
    parser.add_argument("--repeats", type=positive_int, default=5,
                        help="timed runs per recipe, median reported (default 5)")
    args = parser.parse_args(argv)
    profiles = [profile_recipe(g, n, args.rollouts, args.repeats, progress=lambda m: print(m, flush=True))
                for g, n in args.recipes]
    print("\n".join(["", *describe(profiles, args.repeats)]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
