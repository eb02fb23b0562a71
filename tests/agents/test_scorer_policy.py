"""Scoring each legal move in SB3: ``SingleAgentVecEnv(action_features=True)``, ``ActionScorerPolicy``,
its export to a ``neural`` checkpoint and ``sly-scout train --policy scorer``.

Everything runs on a few hundred steps (Scout, 2 players unless said): what is checked is the
plumbing (the rows, the masking, the saved and exported weights), not playing strength.
"""

import argparse
import json
import os

import numpy as np
import pytest

from ..conftest import INSTALL_TRAIN, require

pytestmark = [pytest.mark.train, pytest.mark.slow]
require("sb3_contrib", INSTALL_TRAIN)
torch = require("torch", INSTALL_TRAIN)

from sb3_contrib import MaskablePPO  # noqa: E402

from sly_scout_env import netfile  # noqa: E402
from sly_scout_env.agents import make  # noqa: E402
from sly_scout_env.agents.training import scorer_policy  # noqa: E402
from sly_scout_env.agents.training.ppo import (  # noqa: E402
    TrainConfig,
    _build_venv,
    load_model,
    read_resume,
    train,
)
from sly_scout_env.agents.training.scorer_policy import ActionScorerPolicy, export_scorer  # noqa: E402
from sly_scout_env.agents.ui.cli import add_train_parser, config_from_args  # noqa: E402
from sly_scout_env.games import all_games, get_game  # noqa: E402
from sly_scout_env.sb3_vec import SingleAgentVecEnv, feature_games  # noqa: E402

# The games with a features role and those without, from the registry.
WITH = feature_games()
WITHOUT = [g.name for g in all_games() if g.name not in WITH]
GAME = WITH[0]
FEAT = get_game(GAME).optional_module("features")


def _shipped(players: int) -> str:
    return str(get_game(GAME).checkpoint_file(f"{GAME}_{players}p.npz"))


def _venv(n=2, players=2, seed=0, **kw):
    return SingleAgentVecEnv(GAME, n, opponents="greedy", learner_seat="rotate", reward="win", seed=seed,
                             num_players=players, action_features=True, **kw)


def _positions(venv, steps, seed=1):
    """``steps`` learner steps of random legal play: the (Dict observation, masks) before each step."""
    rng = np.random.default_rng(seed)
    obs = venv.reset()
    out = []
    for _ in range(steps):
        masks = venv.action_masks()
        out.append((obs, masks))
        obs, _, _, _ = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
    return out


def _probs(policy, obs, masks) -> np.ndarray:
    with torch.no_grad():
        t, _ = policy.obs_to_tensor(obs)
        return policy.get_distribution(t, masks).distribution.probs.numpy().astype(np.float64)


def _softmax(z):
    z = np.asarray(z, dtype=np.float64)
    p = np.exp(z - z[np.isfinite(z)].max())
    return p / p.sum()


# -- the env --------------------------------------------------------------------------------------
@pytest.mark.parametrize("players", [2, 4])
def test_rows_of_legal_actions_are_the_features_and_illegal_rows_zero(players):
    venv = _venv(3, players, seed=5)
    plain = SingleAgentVecEnv(GAME, 3, opponents="greedy", learner_seat="rotate", reward="win", seed=5,
                              num_players=players)
    A, F, D = venv.action_space.n, FEAT.FEATURE_SIZE, plain.observation_space.shape[0]
    assert venv.observation_space["observation"].shape == (D,)
    assert venv.observation_space["action_features"].shape == (A, F)
    assert venv.feature_names == tuple(FEAT.FEATURE_NAMES)
    rng = np.random.default_rng(0)
    obs, flat = venv.reset(), plain.reset()
    done_seen = 0
    for _ in range(60):
        masks = venv.action_masks()
        assert set(obs) == {"observation", "action_features"}
        assert obs["observation"].dtype == np.float32 and obs["action_features"].dtype == np.float32
        assert obs["observation"].shape == (3, D) and obs["action_features"].shape == (3, A, F)
        np.testing.assert_array_equal(obs["observation"], flat)  # the flat observation as without the option
        np.testing.assert_array_equal(masks, plain.action_masks())  # action_masks() unchanged
        for i in range(3):
            legal = np.flatnonzero(masks[i])
            np.testing.assert_array_equal(obs["action_features"][i, legal],
                                          FEAT.features_of(obs["observation"][i], legal, players))
            assert not obs["action_features"][i, ~masks[i]].any()
            assert np.abs(obs["action_features"][i, legal]).sum(axis=1).min() > 0  # the rows are really written
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, _, dones, infos = venv.step(actions)
        flat, _, plain_dones, plain_infos = plain.step(actions)
        np.testing.assert_array_equal(dones, plain_dones)
        for i in np.flatnonzero(dones):
            term = infos[i]["terminal_observation"]
            np.testing.assert_array_equal(term["observation"], plain_infos[i]["terminal_observation"])
            assert term["action_features"].shape == (A, F) and not term["action_features"].any()
            done_seen += 1
    assert done_seen > 0


def test_bad_options_are_refused(tmp_path):
    for game in WITHOUT:
        with pytest.raises(ValueError, match=f"{game} has none; games with them: {', '.join(WITH)}"):
            SingleAgentVecEnv(game, 2, action_features=True)
        with pytest.raises(ValueError, match=f"policy='scorer'.*{game} has none"):
            TrainConfig(game, players=2, fast=True, self_play=0, opponents=["greedy"], policy="scorer").check()
    with pytest.raises(ValueError, match="action_features='yes' is not allowed"):
        SingleAgentVecEnv(GAME, 2, action_features="yes")
    # The policy reads the Dict observations only.
    plain = SingleAgentVecEnv(GAME, 2, num_players=2)
    with pytest.raises(ValueError, match="ActionScorerPolicy reads Dict observations"):
        MaskablePPO(ActionScorerPolicy, plain, device="cpu")
    # init_from: another kind of network, another table, other hidden sizes or activation, another feature set.
    venv = _venv()
    observation_net = next(str(f) for g in all_games() for f in g.checkpoint_files()
                           if not netfile.load(str(f)).scores_actions)
    for kwargs, match in [
        ({"init_from": observation_net}, "reads the observation"),
        ({"init_from": _shipped(4)}, "with 4 players"),
        ({"init_from": _shipped(2), "scorer_arch": [64, 64]}, r"hidden layers are \[128, 128\]"),
        ({"init_from": _shipped(2), "scorer_activation": "Tanh"}, "activation is ReLU"),
        ({"init_from": _shipped(2), "feature_names": [f"x{k}" for k in range(FEAT.FEATURE_SIZE)]}, "feature names"),
        ({"init_from": str(tmp_path / "missing.npz")}, "missing.npz"),
        ({"feature_names": ["a"]}, "feature_names has 1 names"),
        ({"scorer_activation": "Sigmoid"}, "not one of ReLU, Tanh"),
    ]:
        with pytest.raises(ValueError, match=match):
            MaskablePPO(ActionScorerPolicy, venv, device="cpu", policy_kwargs=kwargs)
    # TrainConfig / sly-scout train: the combinations that make no sense.
    base = dict(game=GAME, players=2, fast=True, self_play=0, opponents=["greedy"])
    for kwargs, match in [
        (dict(base, policy="scorer", fast=False, self_play=0.5, opponents=["random"]), "needs|give fast=True"),
        (dict(base, policy="scorer", prior="greedy"), "does not combine with prior"),
        (dict(base, policy="scorer", warm_start="greedy"), "does not combine with warm_start"),
        (dict(base, init_from=_shipped(2)), "needs policy='scorer'"),
        (dict(base, policy="scorer", init_from=_shipped(4)), "with 4 players"),
        (dict(base, policy="scorer", init_from=observation_net), "reads the observation|is for"),
        (dict(base, policy="transformer"), "policy='transformer' is not allowed"),
    ]:
        with pytest.raises(ValueError, match=match):
            TrainConfig(**kwargs).check()
    parser = argparse.ArgumentParser()
    add_train_parser(parser.add_subparsers(dest="command"))
    with pytest.raises(SystemExit):
        parser.parse_args(["train", GAME, "--policy", "bogus"])


def test_default_config_is_unchanged_and_the_flags_reach_the_config():
    parser = argparse.ArgumentParser()
    add_train_parser(parser.add_subparsers(dest="command"))
    default = config_from_args(parser.parse_args(["train", GAME, "--players", "2"]))
    assert default.policy is None and default.init_from is None and not default.scorer
    # A default fast run builds what it built before: the flat Box observation and SB3's MlpPolicy.
    venv, policy, kwargs = _build_venv(TrainConfig(GAME, players=2, fast=True, self_play=0, opponents=["greedy"],
                                                   n_envs=2).check())
    assert policy == "MlpPolicy" and kwargs == {"net_arch": [64, 64]}
    assert venv.observation_space.shape == (venv.venv.engine.observation_size,)
    args = parser.parse_args(["train", GAME, "--players", "2", "--fast", "--self-play", "0", "--opponents", "greedy",
                              "--policy", "scorer", "--init-from", _shipped(2)])
    cfg = config_from_args(args).check()
    assert cfg.policy == "scorer" and cfg.init_from == _shipped(2)
    small = TrainConfig(**dict(vars(cfg), n_envs=2))
    venv, policy, kwargs = _build_venv(small)
    assert policy is ActionScorerPolicy and small.scorer
    assert kwargs["init_from"] == _shipped(2) and kwargs["scorer_arch"] is None
    assert kwargs["feature_names"] == list(FEAT.FEATURE_NAMES)


# -- the policy -----------------------------------------------------------------------------------
def test_illegal_actions_are_masked_and_only_legal_rows_are_scored():
    venv = _venv(3, seed=2)
    model = MaskablePPO(ActionScorerPolicy, venv, device="cpu", seed=0)
    policy = model.policy
    torch.manual_seed(0)
    for m in policy.scorer_linears():  # weights of a trained size, so that the logits differ by action
        torch.nn.init.normal_(m.weight, std=0.5)
    for obs, masks in _positions(venv, 10):
        t, _ = policy.obs_to_tensor(obs)
        with torch.no_grad():
            dist = policy.get_distribution(t, masks).distribution
            full = policy.mlp_extractor.logits(policy.extract_features(t))  # every row, no mask
        probs, logits = dist.probs.numpy(), dist.logits.numpy()
        assert (probs[~masks] == 0).all() and (logits[~masks] < -1e7).all()
        assert np.allclose(probs.sum(axis=1), 1.0)
        np.testing.assert_allclose(probs[masks], np.concatenate([_softmax(full[i].numpy()[masks[i]]) for i in
                                                                 range(3)]), rtol=1e-5, atol=1e-7)
        for _ in range(5):
            actions, _ = model.predict(obs, action_masks=masks, deterministic=False)
            assert masks[np.arange(3), actions].all()
        values, log_prob, _ = policy.evaluate_actions(t, torch.as_tensor(actions), torch.as_tensor(masks))
        np.testing.assert_allclose(log_prob.detach().numpy(), np.log(probs[np.arange(3), actions]), atol=1e-5)
        assert values.shape == (3, 1)


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    torch.set_num_threads(1)
    out = tmp_path_factory.mktemp("scorer")
    venv = _venv(2, seed=3)
    model = MaskablePPO(ActionScorerPolicy, venv, device="cpu", seed=0, n_steps=64, batch_size=64, n_epochs=2,
                        policy_kwargs={"scorer_arch": [32, 32]})
    before = [w.copy() for w, _ in model.policy.scorer_arrays()[0]]
    model.learn(256)
    path = str(out / "model.zip")
    model.save(path)
    return model, venv, path, before, out


def test_a_tiny_maskable_ppo_run_learns_and_round_trips_through_save_and_load(tiny_run):
    model, venv, path, before, _ = tiny_run
    assert model.num_timesteps == 256
    after = [w for w, _ in model.policy.scorer_arrays()[0]]
    assert any(not np.array_equal(a, b) for a, b in zip(before, after, strict=True))  # the updates reached the scorer
    loaded = MaskablePPO.load(path, env=venv, device="cpu")
    assert isinstance(loaded.policy, ActionScorerPolicy) and loaded.policy.scorer_arch == [32, 32]
    for obs, masks in _positions(venv, 8, seed=4):
        np.testing.assert_array_equal(_probs(loaded.policy, obs, masks), _probs(model.policy, obs, masks))
        t, _ = model.policy.obs_to_tensor(obs)
        with torch.no_grad():
            v1, v2 = model.policy.predict_values(t).numpy(), loaded.policy.predict_values(t).numpy()
        np.testing.assert_array_equal(v1, v2)
        a1, _ = model.predict(obs, action_masks=masks, deterministic=True)
        a2, _ = loaded.predict(obs, action_masks=masks, deterministic=True)
        np.testing.assert_array_equal(a1, a2)
    loaded.learn(128, reset_num_timesteps=False)  # and it trains on
    assert loaded.num_timesteps == 256 + 128


@pytest.mark.parametrize("players", [2, 3])
def test_init_from_a_shipped_checkpoint_gives_its_probabilities(players):
    venv = _venv(2, players, seed=7)
    model = MaskablePPO(ActionScorerPolicy, venv, device="cpu", seed=0,
                        policy_kwargs={"init_from": _shipped(players), "feature_names": list(FEAT.FEATURE_NAMES)})
    fresh = MaskablePPO(ActionScorerPolicy, venv, device="cpu", seed=0)
    bot = make("neural", path=_shipped(players))
    bot.reset(0, game=GAME, num_players=players, seat=0, options={})
    hidden = [w.shape[0] for w, _ in netfile.load(_shipped(players)).layers]
    assert model.policy.scorer_arch == hidden and model.policy.scorer_activation == "ReLU"
    worst, fresh_gap = 0.0, 0.0
    for obs, masks in _positions(venv, 12, seed=players):
        ours, untrained = _probs(model.policy, obs, masks), _probs(fresh.policy, obs, masks)
        for i in range(2):
            theirs = _softmax(bot.logits(obs["observation"][i], masks[i]))
            worst = max(worst, np.abs(ours[i] - theirs).max())
            fresh_gap = max(fresh_gap, np.abs(untrained[i] - theirs).max())
            if masks[i].sum() > 1:
                assert ours[i].argmax() == theirs.argmax() or np.isclose(ours[i].max(), theirs.max(), atol=1e-5)
    assert worst < 1e-5, worst
    assert fresh_gap > 0.05  # without init_from the policy is another one (the comparison can fail)


# -- export and training --------------------------------------------------------------------------
def test_the_export_loads_as_the_neural_bot_and_plays_legal_moves(tiny_run, capsys):
    from sly_scout_env.agents.evaluation.arena import run_arena
    from sly_scout_env.agents.training.export_neural import export_model

    model, venv, path, _, out = tiny_run
    npz = str(out / "scorer.npz")
    policy = export_scorer(model, npz, game=GAME, players=2, trained={"note": "test"})
    loaded = netfile.load(npz)
    assert loaded.scores_actions and loaded.meta["hidden"] == [32, 32] and loaded.meta["trained"]["note"] == "test"
    assert loaded.meta["features"] == list(FEAT.FEATURE_NAMES) and policy.num_actions == venv.action_space.n
    bot = make("neural", path=npz)
    bot.reset(0, game=GAME, num_players=2, seat=0, options={})
    for obs, masks in _positions(venv, 8, seed=9):
        ours = _probs(model.policy, obs, masks)
        for i in range(2):
            np.testing.assert_allclose(_softmax(bot.logits(obs["observation"][i], masks[i])), ours[i], atol=1e-5)
            assert masks[i, bot.act(obs["observation"][i], masks[i], {})]
    res = run_arena(GAME, 2, [f"neural:path={npz}", "random"], games=4, seed=0, workers=1, progress=False)
    assert res.games == 4
    # The module's command line exports a saved zip too; an MlpPolicy is refused (and vice versa).
    assert scorer_policy.main([path, str(out / "cli.npz"), "--game", GAME, "--players", "2"]) == 0
    assert "action scorer" in capsys.readouterr().out and netfile.load(str(out / "cli.npz")).scores_actions
    mlp = MaskablePPO("MlpPolicy", SingleAgentVecEnv(GAME, 2, num_players=2), device="cpu")
    with pytest.raises(ValueError, match="exports an ActionScorerPolicy"):
        export_scorer(mlp, str(out / "x.npz"), game=GAME, players=2)
    with pytest.raises(ValueError, match="players"):
        export_scorer(model, str(out / "x.npz"), game=GAME, players=4)
    with pytest.raises(ValueError):
        export_model(model, str(out / "y.npz"), game=GAME, players=2)


def test_sly_scout_train_policy_scorer_runs_and_exports(tmp_path):
    out = str(tmp_path / "run")
    cfg = TrainConfig(GAME, players=2, fast=True, self_play=0, opponents=["greedy"], policy="scorer",
                      init_from=_shipped(2), timesteps=128, n_envs=2, n_steps=64, batch_size=64, n_epochs=1,
                      eval_every=10_000, eval_games=4, eval_opponents=["random"], out=out)
    result = train(cfg, log=lambda *a: None)
    assert result["eval"] and result["eval"][0]["games"] == 4
    with open(os.path.join(out, "config.json"), encoding="utf-8") as f:
        saved = json.load(f)
    assert saved["policy"] == "scorer" and saved["init_from"] == _shipped(2)
    with open(os.path.join(out, "eval.csv"), encoding="utf-8") as f:
        checkpoints = [line.rsplit(",", 1)[1].strip() for line in f.readlines()[1:]]
    assert checkpoints and all(c.endswith(".npz") for c in checkpoints)  # evaluated as the neural bot
    final = netfile.load(os.path.join(out, "final.npz"))
    assert final.scores_actions and final.meta["hidden"] == [128, 128]
    assert final.meta["trained"]["timesteps"] == 128 and final.meta["trained"]["init_from"] == _shipped(2)
    again = train(cfg, log=lambda *a: None)  # the resume checkpoint knows the run finished
    assert again["already_finished"]
    # What a killed run resumes from: the scorer on fresh Dict envs, ready to train on.
    model, venv = load_model(cfg, read_resume(cfg))
    assert isinstance(model.policy, ActionScorerPolicy) and model.policy.scorer_arch == [128, 128]
    assert set(venv.observation_space.spaces) == {"observation", "action_features"}
    model.learn(128, reset_num_timesteps=False)
    assert model.num_timesteps == 256
