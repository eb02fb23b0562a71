"""The fast single-agent SB3 VecEnv against a replay through the raw PettingZoo env."""

import subprocess
import sys

import numba
import numpy as np
import pytest

from sly_scout_env import scout_v0, sly_v0
from sly_scout_env import sb3_vec
from sly_scout_env.scout import batch as scout_batch
from sly_scout_env.scout import policies as scout_policies
from sly_scout_env.scout import rules as scout_rules
from sly_scout_env._rng import stream_words
from sly_scout_env.sly import batch as sly_batch
from sly_scout_env.sly import policies as sly_policies

pytest.importorskip("stable_baselines3")
SingleAgentVecEnv = sb3_vec.SingleAgentVecEnv


class Replay:
    """One row replayed on the raw AEC env: same deal words, opponents by the compiled ``choose``."""

    def __init__(self, game, word, learner_seat, opponents, reward, options, max_steps=None):
        self.game = game
        module = scout_v0 if game == "scout" else sly_v0
        self.env = module.raw_env(reward=reward, max_steps=max_steps, **options)
        self.P = self.env.num_players
        self.pol = scout_policies if game == "scout" else sly_policies
        self.batch = scout_batch if game == "scout" else sly_batch
        self.ids = [self.pol.policy_id(o) for o in opponents]
        self.seat_mode = learner_seat
        self.episode = 0
        self.obs_buf = np.zeros(self.env.observation_size, dtype=np.float32)
        self.scratch = np.zeros(self.pol.CHOOSE_SCRATCH, dtype=np.int64)
        self.start(word)

    def start(self, word):
        self.env._k_reset(int(word))
        self.env._start_episode()
        # The compiled policies draw from a generator seeded by the deal word (as simulate does).
        self.prng = np.array([self.pol.policy_seed(self.env._state, np.int64(word))], dtype=np.int64)
        self.learner = self.seat_mode if isinstance(self.seat_mode, int) else self.episode % self.P
        self.episode += 1
        others = [s for s in range(self.P) if s != self.learner]
        self.seat_policy = {s: self.ids[k] for k, s in enumerate(others)}
        self.play_opponents()  # rewards before the learner's first move are not paid (as SingleAgentEnv)
        self.returns = 0.0

    @property
    def agent(self):
        return self.env.possible_agents[self.learner]

    def over(self):
        return self.env.terminations[self.agent] or self.env.truncations[self.agent]

    def play_opponents(self):
        total = 0.0
        while not self.over() and self.env.agent_selection != self.agent:
            seat = self.env.agent_name_mapping[self.env.agent_selection]
            state = self.env._state
            a = self.pol.choose(self.seat_policy[seat], state, self.scratch, self.obs_buf, self.prng)
            self.env.step(int(a))
            total += self.env.rewards[self.agent]
        return total

    def learner_step(self, action):
        self.env.step(int(action))
        r = self.env.rewards[self.agent] + self.play_opponents()
        self.returns += r
        return r

    def restart(self):
        # What autoreset does: the next deal word comes from the row's own generator.
        self.start(self.batch._new_word(self.env._state))


CASES = [
    ("scout", dict(num_players=2), "greedy", "rotate", "score", None),
    ("scout", dict(num_players=3, rounds=1), ["random", "greedy"], 1, "win", None),
    ("scout", dict(num_players=4), "greedy", "rotate", "score", 25),  # truncation mid-game, rounds scored
    ("sly", dict(num_players=2), "greedy", "rotate", "score", None),
    ("sly", dict(num_players=3), ["greedy", "random"], "rotate", "win", None),
    ("sly", dict(num_players=2), "random", 0, "win", 12),
]


@pytest.mark.parametrize("game,options,opponents,seat,reward,max_steps", CASES)
def test_every_row_equals_a_replay_through_the_raw_env(game, options, opponents, seat, reward, max_steps):
    n, seed = 4, 7
    venv = SingleAgentVecEnv(game, n, opponents=opponents, learner_seat=seat, reward=reward, max_steps=max_steps,
                             seed=seed, **options)
    obs = venv.reset()
    P = venv.num_players
    opp_list = [opponents] * (P - 1) if isinstance(opponents, str) else opponents
    replays = [Replay(game, w, seat, opp_list, reward, options, max_steps) for w in stream_words(seed, 0, n)]
    rng = np.random.default_rng(1)
    finished, truncated, seats_seen = 0, 0, set()
    steps = 120 if game == "sly" else 200
    for _ in range(steps):
        masks = venv.action_masks()
        assert masks.dtype == np.bool_ and masks.shape == (n, venv.action_space.n)
        np.testing.assert_array_equal(np.stack(venv.env_method("action_masks")), masks)
        for i, rp in enumerate(replays):
            assert venv.learner_seats[i] == rp.learner
            assert rp.env.agent_selection == rp.agent  # the learner is to act in the replay too
            np.testing.assert_array_equal(obs[i], rp.env.observe(rp.agent)["observation"])
            np.testing.assert_array_equal(masks[i], rp.env.legal_action_mask().astype(bool))
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rewards, dones, infos = venv.step(actions)
        assert obs.dtype == np.float32 and rewards.dtype == np.float32
        for i, rp in enumerate(replays):
            r = rp.learner_step(actions[i])
            assert rewards[i] == pytest.approx(r, abs=1e-6)
            assert dones[i] == rp.over()
            if dones[i]:
                finished += 1
                seats_seen.add(rp.learner)
                info = infos[i]
                assert info["TimeLimit.truncated"] == rp.env.truncations[rp.agent]
                truncated += info["TimeLimit.truncated"]
                np.testing.assert_array_equal(info["terminal_observation"], rp.env.observe(rp.agent)["observation"])
                assert info["learner_seat"] == rp.learner
                rp.env._k_final_scores(rp.env._scratch)
                np.testing.assert_array_equal(info["scores"], rp.env._scratch)
                if reward == "score":
                    # The learner is paid its points in full, opponents' moves included.
                    assert rp.returns == pytest.approx(float(rp.env._scratch[rp.learner]))
                elif info["TimeLimit.truncated"]:
                    assert rp.returns == 0.0  # win rewards only for a finished game
                else:
                    assert rp.returns == pytest.approx(rp.env.win_rewards()[rp.learner])
                rp.restart()
            else:
                assert "terminal_observation" not in infos[i]
    assert finished >= 4  # autoreset exercised
    assert (truncated > 0) == (max_steps is not None)
    if seat == "rotate":
        assert seats_seen == set(range(P))  # the learner sat everywhere
    else:
        assert seats_seen == {seat}


def test_score_rewards_add_up_to_the_learners_final_total():
    """Independent of the replay: summed rewards equal the final score in infos, per seat."""
    n = 64
    for game in ("scout", "sly"):
        venv = SingleAgentVecEnv(game, n, opponents="greedy", learner_seat="rotate", num_players=2, seed=3)
        venv.reset()
        rng = np.random.default_rng(0)
        ret = np.zeros(n)
        checked = 0
        for _ in range(150):
            m = venv.action_masks()
            a = np.argmax(rng.random(m.shape) * m, axis=1)
            _, r, d, infos = venv.step(a)
            ret += r
            for i in np.flatnonzero(d):
                assert ret[i] == infos[i]["scores"][infos[i]["learner_seat"]]
                ret[i] = 0.0
                checked += 1
        assert checked > 20


def _trajectory(game, n, rows, steps, threads):
    before = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        venv = SingleAgentVecEnv(game, n, opponents="greedy", learner_seat="rotate", num_players=2, seed=11)
        obs = venv.reset()
        out = []
        for k in range(steps):
            m = venv.action_masks()
            # Row i's action depends only on (i, k): the highest legal id if (i + k) is odd, else the lowest.
            a = np.array([np.flatnonzero(m[i])[-1 if (i + k) % 2 else 0] for i in range(n)])
            obs, r, d, _ = venv.step(a)
            out.append((obs[:rows].copy(), r[:rows].copy(), d[:rows].copy()))
        return out
    finally:
        numba.set_num_threads(before)


@pytest.mark.parametrize("game", ("scout", "sly"))
def test_rows_do_not_depend_on_num_envs_or_threads(game):
    small = _trajectory(game, 3, 3, 60, 1)
    large = _trajectory(game, 300, 3, 60, min(2, numba.config.NUMBA_NUM_THREADS))  # the prange path
    for (o1, r1, d1), (o2, r2, d2) in zip(small, large):
        np.testing.assert_array_equal(o1, o2)
        np.testing.assert_array_equal(r1, r2)
        np.testing.assert_array_equal(d1, d2)
    assert any(d.any() for _, _, d in small)


def test_seed_method_and_reset_seed_the_rows():
    def states(venv):
        venv.reset()
        return venv._engine.states.copy()  # the deals (Sly's first observations can coincide)

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
    with pytest.raises(ValueError, match="'autoreset' is not supported"):
        SingleAgentVecEnv("sly", 2, autoreset=False)
    with pytest.raises(RuntimeError, match="env 0: a game ended before the learner's first move"):
        SingleAgentVecEnv("sly", 2, learner_seat=1, max_steps=1, num_players=2, seed=0).reset()


def test_import_needs_no_sb3_and_missing_sb3_names_the_train_extra(monkeypatch):
    code = ("import sys, sly_scout_env, sly_scout_env.sb3_vec; "
            "assert 'stable_baselines3' not in sys.modules and 'torch' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)
    monkeypatch.setattr(sb3_vec, "_CLASS", None)
    monkeypatch.setitem(sys.modules, "stable_baselines3.common.vec_env.base_vec_env", None)
    with pytest.raises(ImportError, match=r"train"):
        sb3_vec.SingleAgentVecEnv


def test_train_fast_refuses_self_play_and_non_compiled_opponents():
    from agents.train_ppo import TrainConfig

    with pytest.raises(ValueError, match="self-play snapshots are not compiled"):
        TrainConfig("sly", players=2, fast=True, opponents=["greedy"], self_play=0.5).check()
    with pytest.raises(ValueError, match="one compiled policy"):
        TrainConfig("sly", players=2, fast=True, opponents=["random", "greedy"], self_play=0.0).check()
    with pytest.raises(ValueError, match="one compiled policy"):
        TrainConfig("scout", players=2, fast=True, opponents=["ismcts"], self_play=0.0).check()
    with pytest.raises(ValueError, match="vec_env='subproc'"):
        TrainConfig("sly", players=2, fast=True, opponents=["greedy"], self_play=0.0, vec_env="subproc").check()


def test_train_fast_runs_on_the_batched_env(tmp_path):
    import csv

    from agents.train_ppo import TrainConfig, train

    cfg = TrainConfig("sly", players=2, timesteps=512, out=str(tmp_path), fast=True, opponents=["greedy"],
                      self_play=0.0, n_envs=32, n_steps=16, batch_size=128, n_epochs=1, eval_every=10_000,
                      eval_games=4, eval_opponents=["random"], net_arch=[16])
    result = train(cfg, log=lambda *a: None)
    with open(tmp_path / "progress.csv", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert int(rows[-1]["timesteps"]) >= 512 and int(rows[-1]["episodes"]) > 0
    assert (tmp_path / "final.zip").exists() and result["eval"][0]["games"] == 4


def test_reset_keeps_the_torch_thread_count():
    """Numba's OpenMP pool start must not change torch's thread count under a trainer."""
    code = ("import torch; torch.set_num_threads(1); from sly_scout_env.sb3_vec import SingleAgentVecEnv; "
            "v = SingleAgentVecEnv('sly', 300, num_players=2, seed=0); v.reset(); v.step(v.action_masks().argmax(1)); "
            "assert torch.get_num_threads() == 1, torch.get_num_threads()")
    subprocess.run([sys.executable, "-c", code], check=True)
