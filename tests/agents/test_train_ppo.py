"""MaskablePPO training, the self-play opponent pool and the ``ppo`` bot.

The learning test trains on Scout with 2 players and one round (about 30 s on one
CPU core): the untrained policy is no better than ``random`` there, so a win rate
whose 95% interval lies above 1/2 shows learning, not a lucky network. Seeds
0, 1, 2, 3 were checked while developing (final win rates 0.805, 0.84, 0.80, 0.78 over
400 games; lower ends 0.76, 0.80, 0.76, 0.74; untrained 0.50, 0.54, 0.48, 0.55); the
test uses seed 0, fixed, one torch thread.
"""

import argparse
import csv
import os
import pickle

import numpy as np
import pytest

from ..conftest import INSTALL_TRAIN, require

pytestmark = [pytest.mark.train, pytest.mark.slow]
require("sb3_contrib", INSTALL_TRAIN)
torch = require("torch", INSTALL_TRAIN)

from sly_scout_env.agents import make  # noqa: E402
from sly_scout_env.agents.bots.ppo import FrozenPolicy, PPOAgent  # noqa: E402
from sly_scout_env.agents.evaluation.arena import run_arena  # noqa: E402
from sly_scout_env.agents.training.ppo import (  # noqa: E402
    EVAL_COLUMNS,
    PROGRESS_COLUMNS,
    PoolOpponent,
    TrainConfig,
    train,
)
from sly_scout_env.agents.ui.cli import add_train_parser, config_from_args  # noqa: E402


def _read_csv(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="module")
def scout_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("ppo_scout2")
    cfg = TrainConfig(
        game="scout", players=2, options={"rounds": 1}, timesteps=30_000, seed=0, out=str(out),
        eval_every=100_000, eval_games=400, eval_opponents=["random"], snapshot_every=5_000,
    )
    result = train(cfg, log=lambda *a: None)
    return cfg, result


def test_short_training_beats_random_with_a_95_interval_above_half(scout_run):
    cfg, result = scout_run
    final = result["eval"][0]
    assert final["opponent"] == "random" and final["games"] == 400
    assert final["win_rate_lo"] > 0.5, final
    # The untrained policy (the step-0 row of eval.csv) was no match: learning did this.
    rows = _read_csv(os.path.join(cfg.out, "eval.csv"))
    assert int(rows[0]["timesteps"]) == 0 and int(rows[-1]["timesteps"]) >= cfg.timesteps
    assert float(rows[0]["win_rate_hi"]) < 0.62
    assert float(rows[0]["win_rate"]) < final["win_rate_lo"]


def test_trained_bot_measured_again_by_the_arena_with_other_seeds(scout_run):
    """The arena, called directly with the ppo bot spec and a fresh seed, agrees."""
    cfg, result = scout_run
    res = run_arena("scout", 2, [f"ppo:path={result['final']}", "random"], games=300, seed=777, workers=1,
                    options={"rounds": 1}, progress=False)
    assert res.stats[0].win_rate_ci95[0] > 0.5


def test_logs_and_checkpoints_are_written(scout_run):
    cfg, result = scout_run
    with open(os.path.join(cfg.out, "progress.csv"), encoding="utf-8") as f:
        assert f.readline().strip().split(",") == PROGRESS_COLUMNS
    progress = _read_csv(os.path.join(cfg.out, "progress.csv"))
    steps = [int(r["timesteps"]) for r in progress]
    assert steps == sorted(steps) and steps[-1] >= cfg.timesteps
    # Snapshots join the pool every 5000 steps, up to pool_size.
    assert int(progress[-1]["pool_size"]) == min(cfg.pool_size, steps[-1] // cfg.snapshot_every)
    assert int(progress[0]["pool_size"]) == 0
    for r in progress:
        if r["mean_reward"]:
            assert -1.0 <= float(r["mean_reward"]) <= 1.0  # reward="win": +-1 at the end of each episode
    with open(os.path.join(cfg.out, "eval.csv"), encoding="utf-8") as f:
        assert f.readline().strip().split(",") == EVAL_COLUMNS
    for r in _read_csv(os.path.join(cfg.out, "eval.csv")):
        assert float(r["win_rate_lo"]) <= float(r["win_rate"]) <= float(r["win_rate_hi"])
        assert os.path.isfile(os.path.join(cfg.out, r["checkpoint"]))
    assert os.path.isfile(os.path.join(cfg.out, "final.zip"))
    assert os.path.isfile(os.path.join(cfg.out, "config.json"))


def test_frozen_policy_matches_the_torch_policy(scout_run):
    from sb3_contrib import MaskablePPO

    cfg, result = scout_run
    model = MaskablePPO.load(result["final"], device="cpu")
    frozen = FrozenPolicy.from_sb3(model)
    assert frozen.meta["game"] == "scout" and frozen.meta["players"] == 2
    rng = np.random.default_rng(0)
    obs = rng.normal(size=(16, frozen.observation_size)).astype(np.float32) * 3
    with torch.no_grad():
        dist = model.policy.get_distribution(torch.as_tensor(obs))
        torch_logits = dist.distribution.logits.numpy()
    ours = frozen.logits(obs)
    # torch normalises logits (log-softmax); compare up to the per-row constant.
    np.testing.assert_allclose(ours - ours.max(1, keepdims=True), torch_logits - torch_logits.max(1, keepdims=True),
                               atol=1e-4)
    for row in obs:
        mask = (rng.random(frozen.num_actions) < 0.1).astype(np.int8)
        mask[rng.integers(frozen.num_actions)] = 1
        expected, _ = model.predict(row, deterministic=True, action_masks=mask.astype(bool))
        assert frozen.act(row, mask) == int(expected)
        assert mask[frozen.act(row, mask, deterministic=False, rng=rng)] == 1


def test_ppo_bot_from_the_registry_checks_game_and_observation_size(scout_run):
    cfg, result = scout_run
    bot = make("ppo", path=result["final"])
    assert bot.name == f"ppo:path={result['final']}" and bot.needs_view is False
    with pytest.raises(ValueError, match="trained on scout"):
        bot.reset(0, game="sly", num_players=2, seat=0, options={})
    bot.reset(0, game="scout", num_players=3, seat=0, options={})
    with pytest.raises(ValueError, match="observation of size 398"):
        bot.act(np.zeros(398, dtype=np.float32), np.ones(254, dtype=np.int8), {})
    with pytest.raises(ValueError, match="needs a checkpoint"):
        PPOAgent()
    with pytest.raises(ValueError, match="no such checkpoint"):
        PPOAgent(path=os.path.join(cfg.out, "missing.zip"))


def test_ppo_bot_in_arena_worker_processes(scout_run):
    """Spawned arena workers rebuild the bot from its spec (and load the checkpoint there)."""
    cfg, result = scout_run
    spec = f"ppo:path={result['final']}"
    one = run_arena("scout", 2, [spec, "random"], games=8, seed=5, workers=1, options={"rounds": 1}, progress=False)
    two = run_arena("scout", 2, [spec, "random"], games=8, seed=5, workers=2, options={"rounds": 1}, progress=False)
    assert [r.scores for r in one.records] == [r.scores for r in two.records]


class _Snap:
    """A stand-in snapshot: FrozenPolicy's interface, always the highest legal action."""

    def logits(self, observation):
        return np.arange(254, dtype=float)

    def act(self, observation, action_mask, deterministic=True, rng=None):
        return int(np.flatnonzero(action_mask)[-1])


def test_pool_opponent_draws_from_the_seed_and_pickles():
    opp = PoolOpponent(["random"], [_Snap()], self_play=0.5)
    kinds = []
    for seed in range(200):
        opp.reset(seed, game="scout", num_players=2, seat=1, options={})
        kinds.append("snap" if isinstance(opp._current, _Snap) else "bot")
    again = []
    for seed in range(200):
        opp.reset(seed, game="scout", num_players=2, seat=1, options={})
        again.append("snap" if isinstance(opp._current, _Snap) else "bot")
    assert kinds == again
    assert 60 < kinds.count("snap") < 140  # about half with self_play=0.5
    clone = pickle.loads(pickle.dumps(opp))
    assert clone._bots == {} and clone._current is None and len(clone.pool) == 1
    only_bots = PoolOpponent(["random"], [_Snap()], self_play=0.0)
    only_snaps = PoolOpponent(["random"], [_Snap()], self_play=1.0)
    for seed in range(20):
        only_bots.reset(seed, game="sly", num_players=2, seat=1, options={})
        only_snaps.reset(seed, game="sly", num_players=2, seat=1, options={})
        assert not isinstance(only_bots._current, _Snap) and isinstance(only_snaps._current, _Snap)
    with pytest.raises(ValueError, match="at least one baseline"):
        PoolOpponent([], [])


def test_training_is_reproducible(tmp_path):
    def run(sub):
        cfg = TrainConfig(game="sly", players=2, timesteps=1024, seed=3, out=str(tmp_path / sub), eval_every=512,
                          snapshot_every=512, eval_games=20, eval_opponents=["random"], n_envs=2)
        train(cfg, log=lambda *a: None)
        return FrozenPolicy.from_sb3(__import__("sb3_contrib").MaskablePPO.load(str(tmp_path / sub / "final.zip")))

    a, b = run("a"), run("b")
    for (wa, ba), (wb, bb) in zip(a.layers + [a.head], b.layers + [b.head]):
        np.testing.assert_array_equal(wa, wb)
        np.testing.assert_array_equal(ba, bb)
    assert _read_csv(str(tmp_path / "a" / "eval.csv")) == _read_csv(str(tmp_path / "b" / "eval.csv"))


def test_command_line_and_config_checks():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command")
    add_train_parser(sub)
    args = parser.parse_args(["train", "scout", "--players", "2", "--timesteps", "5000", "--seed", "4",
                              "--opponents", "random", "--option", "rounds=1", "--eval-every", "1000"])
    cfg = config_from_args(args).check()
    assert (cfg.game, cfg.players, cfg.timesteps, cfg.seed, cfg.options, cfg.eval_every) == (
        "scout", 2, 5000, 4, {"rounds": 1}, 1000)
    with pytest.raises(SystemExit):
        parser.parse_args(["train", "sly", "--players", "2", "--timesteps", "0"])
    with pytest.raises(ValueError, match="players=5 is not allowed for sly"):
        TrainConfig(game="sly", players=5).check()
    with pytest.raises(ValueError, match="unknown bot 'nobody'"):
        TrainConfig(game="sly", players=2, opponents=["nobody"]).check()
    with pytest.raises(ValueError, match="reward='points'"):
        TrainConfig(game="sly", players=2, reward="points").check()
    with pytest.raises(ValueError, match="rounds"):
        TrainConfig(game="scout", players=2, options={"rounds": 0}).check()


def test_play_a_match_against_the_ppo_bot(scout_run, tmp_path):
    import io

    from sly_scout_env.agents.ui.play import play

    cfg, result = scout_run
    out = io.StringIO()
    res = play("scout", 2, [f"ppo:path={result['final']}"], seed=3, seat=0, input_stream=io.StringIO("1\n" * 300),
               output_stream=out, options={"rounds": 1}, save_path=str(tmp_path / "save.json"))
    assert res["status"] == "finished", out.getvalue()[-2000:]
    assert len(res["scores"]) == 2


def test_subproc_envs_receive_the_snapshots_and_train_like_dummy_envs(tmp_path):
    """Snapshots reach worker processes through VecEnv.set_attr: the run equals the one-process run."""
    from sb3_contrib import MaskablePPO

    def run(vec_env):
        cfg = TrainConfig(game="sly", players=2, timesteps=768, seed=5, out=str(tmp_path / vec_env), n_envs=2,
                          n_steps=128, eval_every=10**6, snapshot_every=256, eval_games=8,
                          eval_opponents=["random"], vec_env=vec_env)
        train(cfg, log=lambda *a: None)
        progress = _read_csv(str(tmp_path / vec_env / "progress.csv"))
        return FrozenPolicy.from_sb3(MaskablePPO.load(str(tmp_path / vec_env / "final.zip"))), progress

    (a, pa), (b, pb) = run("dummy"), run("subproc")
    assert [r["pool_size"] for r in pa] == [r["pool_size"] for r in pb] == ["1", "2", "3"]
    assert [r["mean_reward"] for r in pa] == [r["mean_reward"] for r in pb]
    np.testing.assert_array_equal(a.head[0], b.head[0])
