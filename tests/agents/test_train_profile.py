"""The training benchmark's split (benchmarks/train_profile.py): its logic, on tiny runs.

Speeds are never asserted; what is checked is that the phases are timed around the right
calls (call counts), are not counted twice (they add up to at most the wall time) and
cover it, and that the table and its bottleneck sentence follow from the numbers.
"""

import time

import pytest

from sly_scout_env.agents.bots.neural import shipped_for

from ..conftest import INSTALL_TRAIN, require

pytestmark = pytest.mark.train
require("sb3_contrib", INSTALL_TRAIN)
require("torch", INSTALL_TRAIN)

from benchmarks.train_profile import (  # noqa: E402
    COLUMNS,
    PPO_RECIPES,
    PhaseClock,
    Profile,
    Split,
    bottleneck,
    instrument,
    profile_recipe,
    recipe_command,
    recipe_config,
    table_lines,
)


def test_phase_clock_times_only_the_wrapped_calls_and_only_when_asked():
    class Thing:
        def slow(self, x):
            time.sleep(0.02)
            return x + 1

        def fails(self):
            time.sleep(0.01)
            raise KeyError("boom")

    gate = [True]
    thing, other = Thing(), Thing()
    clock = PhaseClock()
    clock.wrap(thing, "slow", "env", when=lambda: gate[0])
    clock.wrap(thing, "fails", "update")
    assert thing.slow(1) == 2 and other.slow(1) == 2  # other instances are not timed
    assert 0.02 <= clock.seconds["env"] < 0.5 and clock.calls["env"] == 1
    gate[0] = False
    thing.slow(1)
    assert clock.calls["env"] == 1  # not counted while the gate is closed
    with pytest.raises(KeyError):
        thing.fails()
    assert clock.calls["update"] == 1 and clock.seconds["update"] >= 0.01  # a raising call still counts
    clock.reset()
    assert set(clock.seconds.values()) == {0.0} and set(clock.calls.values()) == {0}


def test_split_shares_add_up():
    s = Split(1000, 2.0, {"env": 0.8, "engine": 0.3, "inference": 0.4, "update": 0.6})
    assert s.rate == 500
    share = {c: s.share(c) for c in COLUMNS}
    assert share["env"] == pytest.approx(0.4) and share["other"] == pytest.approx(0.1)
    assert share["engine"] + share["prior & wrappers"] == pytest.approx(share["env"])
    assert share["env"] + share["inference"] + share["update"] + share["other"] == pytest.approx(1.0)


def _profile(*phase_sets, prior="greedy"):
    return Profile("scout", 2, "sly-scout train ...", 100, 1,
                   [Split(100, total, dict(zip(("env", "engine", "inference", "update"), parts)))
                    for total, *parts in phase_sets], prior)


def test_median_repeat_table_and_bottleneck_sentence():
    p = _profile((1.0, 0.2, 0.1, 0.2, 0.5), (2.0, 1.5, 0.3, 0.2, 0.2), (4.0, 0.5, 0.5, 1.0, 2.0))
    assert p.median.seconds == 2.0 and p.rate == 50  # rates 100, 50, 25: the middle one
    row = table_lines([p])[2]
    assert row == "| scout 2p | 50 | 75 | 15 | 60 | 10 | 10 | 5 |"
    text = bottleneck(p)
    assert "env stepping (75%" in text and "60% in the prior bot's (greedy) moves and the env wrappers" in text
    no_prior = _profile((2.0, 1.5, 0.3, 0.2, 0.2), prior=None)
    assert "60% in the env wrappers)" in bottleneck(no_prior)
    update_bound = _profile((1.0, 0.1, 0.05, 0.2, 0.6))
    assert "the bottleneck is the PPO update (60%" in bottleneck(update_bound)
    engine_bound = _profile((1.0, 0.5, 0.45, 0.2, 0.2))
    assert "env stepping (50% of the time, 45% in the game engine" in bottleneck(engine_bound)
    tied = _profile((1.0, 0.35, 0.34, 0.24, 0.36))
    assert bottleneck(tied) == ("scout 2p: no single bottleneck: the PPO update (36% of the time) and env stepping "
                                "(35% of the time, 34% in the game engine with its opponents) weigh about the same.")


def test_recipes_come_from_the_shipped_checkpoints():
    assert recipe_command("sly", 2) == shipped_for("sly", 2).meta["trained"]["command"].split(" (", 1)[0]
    # Scout 2p's network is PPO fine-tuned from a distilled one: its command, without the note.
    command = shipped_for("scout", 2).meta["trained"]["command"]
    assert recipe_command("scout", 2) == command.split(" (", 1)[0] != command
    cfg = recipe_config(recipe_command("scout", 2))
    assert (cfg.game, cfg.players, cfg.fast, cfg.policy, cfg.prior) == ("scout", 2, True, "scorer", None)
    assert cfg.init_from.endswith("checkpoints/experts/scout_2p.npz")
    assert cfg.opponents == [f"neural:path={cfg.init_from}"]
    assert (cfg.n_envs, cfg.n_steps, cfg.batch_size, cfg.net_arch) == (256, 32, 1024, [128, 128])
    # So is the 4p one, at its own count.
    cfg = recipe_config(recipe_command("scout", 4))
    assert cfg.players == 4 and cfg.init_from.endswith("checkpoints/experts/scout_4p.npz")
    # The 5p network is distilled: a count without a recorded PPO recipe is refused by name,
    # and the recorded one is used where there is one.
    assert shipped_for("scout", 5).meta["trained"]["command"].startswith("sly-scout distill scout")
    with pytest.raises(ValueError, match="not trained by 'sly-scout train'.*PPO recipes: scout:2"):
        recipe_command("scout", 5)
    cfg = recipe_config(PPO_RECIPES[("scout", 2)])
    assert (cfg.game, cfg.players, cfg.fast, cfg.prior, cfg.prior_weight) == ("scout", 2, True, "greedy", 3.0)
    with pytest.raises(ValueError, match="not a 'sly-scout train' command"):
        recipe_config("sly-scout arena sly --players 2")


@pytest.mark.parametrize("game, command, overrides", [
    ("scout", None, {"n_envs": 8, "n_steps": 8, "batch_size": 32}),  # fast path, the scorer, neural opponents
    ("scout", PPO_RECIPES[("scout", 2)], {"n_envs": 8, "n_steps": 8, "batch_size": 32}),  # fast path, prior hints
    ("sly", None, {"n_envs": 2, "n_steps": 16, "batch_size": 16}),  # slow path, a snapshot in the pool
])
def test_tiny_profile_times_every_phase_around_the_real_calls(game, command, overrides):
    rollouts, repeats = 2, 3
    p = profile_recipe(game, 2, rollouts=rollouts, repeats=repeats, overrides=overrides, command=command)
    rollout = overrides["n_envs"] * overrides["n_steps"]
    assert p.rollout == rollout and len(p.repeats) == repeats and "changed: n_envs=" in p.command
    for s in p.repeats:
        assert s.decisions == rollouts * rollout
        # One env step and one forward pass per learner step of every env; one value pass
        # after each rollout; one update per rollout; masks asked before every step.
        assert s.calls["update"] == rollouts
        assert s.calls["inference"] == rollouts * (overrides["n_steps"] + 1)
        assert s.calls["env"] >= 2 * rollouts * overrides["n_steps"]
        for phase in ("env", "engine", "inference", "update"):
            assert s.phases[phase] > 0, phase
        assert s.phases["engine"] <= s.phases["env"]
        timed = s.phases["env"] + s.phases["inference"] + s.phases["update"]
        assert timed <= s.seconds  # nothing counted twice
        assert timed >= 0.5 * s.seconds  # and the timers see where the time goes
    assert p.median in p.repeats


def test_inference_is_not_counted_outside_rollouts():
    import numpy as np

    from sly_scout_env.agents.training.ppo import build_model

    cfg = recipe_config(recipe_command("sly", 2))
    cfg.n_envs, cfg.n_steps, cfg.batch_size = 2, 8, 16
    model, venv = build_model(cfg)
    clock = instrument(model)
    obs = venv.reset()
    model.predict(obs, action_masks=np.stack(venv.env_method("action_masks")))
    model.policy.predict_values(model.policy.obs_to_tensor(obs)[0])
    assert clock.calls["inference"] == 0 and clock.calls["env"] == 2  # reset and the masks
    model.learn(cfg.n_envs * cfg.n_steps)
    assert clock.calls["inference"] == cfg.n_steps + 1 and clock.calls["update"] == 1
    venv.close()


def test_make_bench_gets_the_training_table():
    from benchmarks.run import training_table

    assert training_table(["sly"], repeats=1, rollouts=0) == []  # --train-rollouts 0: no table
    lines = training_table(["sly"], repeats=1, rollouts=1)
    rows = [line for line in lines if line.startswith("| sly 2p |")]
    assert lines[0].startswith("Training (MaskablePPO, documented recipe)") and len(rows) == 1
    assert not any(line.startswith("| scout") for line in lines)  # only the games asked for
    env, engine, wrappers, inference, update, other = (int(x) for x in rows[0].strip("|").split("|")[2:])
    assert abs(env + inference + update + other - 100) <= 2 and abs(engine + wrappers - env) <= 1
    assert any("sly 2p:" in line and "bottleneck" in line for line in lines)
