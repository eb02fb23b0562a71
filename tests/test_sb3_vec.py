"""The SB3 VecEnv over the single-learner engine: SB3's API (masks, infos, seeding,
checks, MaskablePPO), outputs equal to the engine's (tests/test_learner.py replays the
engine through the raw env), bad input."""

import subprocess
import sys

import numpy as np
import pytest

from .conftest import INSTALL_TRAIN, require

pytestmark = pytest.mark.train
require("stable_baselines3", INSTALL_TRAIN)

from sly_scout_env._rng import stream_words  # noqa: E402
from sly_scout_env.learner import SingleLearnerBatch  # noqa: E402
from sly_scout_env.sb3_vec import SingleAgentVecEnv  # noqa: E402


@pytest.mark.parametrize("game,options", [("scout", dict(num_players=3)), ("sly", dict(num_players=2))])
def test_outputs_are_the_engines_in_sb3s_form(game, options):
    n = 8
    venv = SingleAgentVecEnv(game, n, opponents="greedy", learner_seat="rotate", seed=5, **options)
    eng = SingleLearnerBatch(game, n, opponents="greedy", learner_seat="rotate", seed=5, **options)
    obs = venv.reset()
    np.testing.assert_array_equal(obs, eng.reset())
    rng = np.random.default_rng(2)
    ended = 0
    for _ in range(150):
        masks = venv.action_masks()
        np.testing.assert_array_equal(masks, eng.masks.astype(bool))
        np.testing.assert_array_equal(np.stack(venv.env_method("action_masks")), masks)
        np.testing.assert_array_equal(venv.learner_seats, eng.learner_seats())
        a = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rewards, dones, infos = venv.step(a)
        eng.step(eng.check_actions(a))
        np.testing.assert_array_equal(obs, eng.obs)
        np.testing.assert_array_equal(rewards, eng.rewards)
        np.testing.assert_array_equal(dones, eng.dones)
        for i in range(n):
            if dones[i]:
                ended += 1
                np.testing.assert_array_equal(infos[i]["terminal_observation"], eng.term_obs[i])
                np.testing.assert_array_equal(infos[i]["scores"], eng.final_scores[i])
                assert infos[i]["learner_seat"] == eng.ended_learner_seat(i)
                assert infos[i]["TimeLimit.truncated"] == bool(eng.truncs[i])
            else:
                assert infos[i] == {}
    assert ended >= n


def test_seed_method_and_reset_seed_the_rows():
    def states(venv):
        venv.reset()
        return venv.engine.states.copy()  # the deals (Sly's first observations can coincide)

    a = SingleAgentVecEnv("scout", 5, num_players=2, seed=1)
    b = SingleAgentVecEnv("scout", 5, num_players=2)
    assert b.seed(1) == [int(w) for w in stream_words(1, 0, 5)]
    np.testing.assert_array_equal(states(a), states(b))
    first = states(a)  # a second reset continues deterministically: new deals
    c = SingleAgentVecEnv("scout", 5, num_players=2, seed=1)
    states(c)
    np.testing.assert_array_equal(first, states(c))
    assert not np.array_equal(first, states(SingleAgentVecEnv("scout", 5, num_players=2, seed=1)))


def test_sb3_contrib_sees_the_masks_and_maskable_ppo_trains():
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
    from stable_baselines3.common.vec_env import VecMonitor

    venv = SingleAgentVecEnv("sly", 16, opponents="greedy", learner_seat="rotate", num_players=2, reward="win",
                             seed=0)
    assert is_masking_supported(venv)
    venv.reset()
    np.testing.assert_array_equal(get_action_masks(venv), venv.action_masks())
    mon = VecMonitor(venv)
    model = MaskablePPO("MlpPolicy", mon, n_steps=16, batch_size=64, n_epochs=1, seed=0, device="cpu",
                        policy_kwargs={"net_arch": [16]})
    model.learn(total_timesteps=512)
    assert model.num_timesteps >= 512
    obs = mon.reset()
    actions, _ = model.predict(obs, action_masks=get_action_masks(mon), deterministic=True)
    assert get_action_masks(mon)[np.arange(16), actions].all()


def test_bad_input_is_refused():
    venv = SingleAgentVecEnv("scout", 3, opponents="random", num_players=2, seed=0)
    with pytest.raises(RuntimeError, match="reset"):
        venv.step(np.zeros(3, dtype=np.int64))
    venv.reset()
    masks = venv.action_masks()
    legal = np.array([np.flatnonzero(m)[0] for m in masks])
    with pytest.raises(ValueError, match=r"shape \(3,\)"):
        venv.step(legal[:2])
    with pytest.raises(ValueError, match="env 1: action 9999 is out of range"):
        venv.step(np.array([legal[0], 9999, legal[2]]))
    illegal = int(np.flatnonzero(~masks[2])[0])
    with pytest.raises(ValueError, match=f"env 2: action {illegal} is illegal for the learner"):
        venv.step(np.array([legal[0], legal[1], illegal]))
    with pytest.raises(ValueError, match="env 0: action 'a' is not an int"):
        venv.step(np.array(["a", "b", "c"]))
    with pytest.raises(AttributeError, match="cannot set"):
        venv.set_attr("opponents", ["greedy"])
    with pytest.raises(AttributeError, match="action_masks"):
        venv.env_method("render")
    # A refused step changes nothing: the legal actions still step.
    venv.step(legal)
    with pytest.raises(ValueError, match="not a compiled scout policy"):
        SingleAgentVecEnv("scout", 2, opponents="ismcts", num_players=2)
    with pytest.raises(ValueError, match="give 1 .* or 2"):
        SingleAgentVecEnv("sly", 2, opponents=["greedy"] * 3, num_players=3)
    with pytest.raises(ValueError, match="learner_seat=2"):
        SingleAgentVecEnv("sly", 2, learner_seat=2, num_players=2)
    with pytest.raises(ValueError, match="learner_seat='random'"):
        SingleAgentVecEnv("sly", 2, learner_seat="random", num_players=2)
    with pytest.raises(ValueError, match="game='chess'"):
        SingleAgentVecEnv("chess", 2)
    with pytest.raises(ValueError, match="num_envs=0"):
        SingleAgentVecEnv("sly", 0)
    with pytest.raises(ValueError, match="reward='points'"):
        SingleAgentVecEnv("sly", 2, reward="points")
    with pytest.raises(ValueError, match="max_steps=0"):
        SingleAgentVecEnv("sly", 2, max_steps=0)
    with pytest.raises(ValueError, match="unknown option 'autoreset' for SingleAgentVecEnv"):
        SingleAgentVecEnv("sly", 2, autoreset=False)
    with pytest.raises(RuntimeError, match="env 0: a game ended before the learner's first move"):
        SingleAgentVecEnv("sly", 2, learner_seat=1, max_steps=1, num_players=2, seed=0).reset()


def test_missing_sb3_names_the_train_extra():
    code = ("import sys; sys.modules['stable_baselines3'] = None\n"
            "import sly_scout_env\n"
            "assert 'torch' not in sys.modules\n"
            "try:\n"
            "    import sly_scout_env.sb3_vec\n"
            "except ImportError as exc:\n"
            "    print(exc)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "pip install 'sly-scout-env[train]'" in out


def test_train_fast_refuses_self_play_and_non_compiled_opponents():
    from sly_scout_env.agents.training.ppo import TrainConfig

    with pytest.raises(ValueError, match="self-play snapshots are not compiled"):
        TrainConfig("sly", players=2, fast=True, opponents=["greedy"], self_play=0.5).check()
    # Two names at 2 players: neither one for every seat nor one per other seat.
    with pytest.raises(ValueError, match=r"or 1 of them \(one per other seat.*\['random', 'greedy'\]"):
        TrainConfig("sly", players=2, fast=True, opponents=["random", "greedy"], self_play=0.0).check()
    with pytest.raises(ValueError, match=r"or 3 of them .*got \['greedy', 'random'\]"):
        TrainConfig("sly", players=4, fast=True, opponents=["greedy", "random"], self_play=0.0).check()
    with pytest.raises(ValueError, match="one compiled policy for every opponent seat.*'ismcts'"):
        TrainConfig("scout", players=2, fast=True, opponents=["ismcts"], self_play=0.0).check()
    with pytest.raises(ValueError, match="'ismcts'"):
        TrainConfig("scout", players=3, fast=True, opponents=["greedy", "ismcts"], self_play=0.0).check()
    with pytest.raises(ValueError, match="vec_env='subproc'"):
        TrainConfig("sly", players=2, fast=True, opponents=["greedy"], self_play=0.0, vec_env="subproc").check()


def test_train_fast_runs_on_the_batched_env(tmp_path):
    import csv

    from sly_scout_env.agents.training.ppo import TrainConfig, train

    cfg = TrainConfig("sly", players=2, timesteps=512, out=str(tmp_path), fast=True, opponents=["greedy"],
                      self_play=0.0, n_envs=32, n_steps=16, batch_size=128, n_epochs=1, eval_every=10_000,
                      eval_games=4, eval_opponents=["random"], net_arch=[16])
    result = train(cfg, log=lambda *a: None)
    with open(tmp_path / "progress.csv", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert int(rows[-1]["timesteps"]) >= 512 and int(rows[-1]["episodes"]) > 0
    assert (tmp_path / "final.zip").exists() and result["eval"][0]["games"] == 4


def test_train_fast_gives_each_other_seat_its_own_policy():
    from sly_scout_env.agents.training.ppo import TrainConfig, _build_venv

    def seats(opponents, players):
        cfg = TrainConfig("sly", players=players, fast=True, opponents=opponents, self_play=0.0, n_envs=4).check()
        return _build_venv(cfg)[0]._engine.opponents

    assert seats(["greedy", "random", "greedy"], 4) == ("greedy", "random", "greedy")
    assert seats(["random", "random", "random"], 4) == ("random",) * 3
    assert seats(["greedy"], 3) == ("greedy", "greedy")


def test_reset_keeps_the_torch_thread_count():
    """Numba's OpenMP pool start must not change torch's thread count under a trainer."""
    code = ("import torch; torch.set_num_threads(1); from sly_scout_env.sb3_vec import SingleAgentVecEnv; "
            "v = SingleAgentVecEnv('sly', 300, num_players=2, seed=0); v.reset(); v.step(v.action_masks().argmax(1)); "
            "assert torch.get_num_threads() == 1, torch.get_num_threads()")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_sampled_neural_opponents_are_seeded_and_differ_from_the_argmax():
    """``opponents="neural:temperature=1"`` (train --fast --opponents): the same seed plays the
    same games; the argmax opponent plays other ones."""
    def run(opponents):
        venv = SingleAgentVecEnv("sly", 8, opponents=opponents, num_players=2, seed=3)
        obs = [venv.reset().copy()]
        for _ in range(30):
            o, _, _, _ = venv.step(venv.action_masks().argmax(1))
            obs.append(o.copy())
        return np.stack(obs)

    sampled = run("neural:temperature=1")
    assert np.array_equal(sampled, run("neural:temperature=1"))
    assert not np.array_equal(sampled, run("neural"))
    with pytest.raises(ValueError, match="temperature='-1' is not allowed"):
        SingleAgentVecEnv("sly", 2, opponents="neural:temperature=-1", num_players=2)
