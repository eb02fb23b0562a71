"""The single-learner batched engine (sly_scout_env.learner), without Stable-Baselines3:
every row replayed through the raw PettingZoo env, rewards adding up, rows independent of
the batch size and thread count, and an import with SB3 and torch absent."""

import subprocess
import sys

import numba
import numpy as np
import pytest

from sly_scout_env._rng import stream_words
from sly_scout_env.games import GAMES, get_game
from sly_scout_env.learner import SingleLearnerBatch
from sly_scout_env.netpolicy import compiled_policies, obs_size

from .nets import random_scorer


class Replay:
    """One row replayed on the raw AEC env: same deal words, opponents by the compiled ``choose``."""

    def __init__(self, game, word, learner_seat, opponents, reward, options, max_steps=None):
        self.game = game
        spec = get_game(game)
        self.env = spec.raw_env(reward=reward, max_steps=max_steps, **options)
        self.P = self.env.num_players
        self.pol = spec.module("policies")
        self.batch = spec.module("batch")
        self.ids, self.nets = compiled_policies(game, opponents, self.P, options)
        self.seat_mode = learner_seat
        self.episode = 0
        self.obs_buf = np.zeros(obs_size(self.env.observation_size, self.nets), dtype=np.float32)
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
            a = self.pol.choose(self.seat_policy[seat], state, self.scratch, self.obs_buf, self.prng, self.nets)
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
    # The trained networks (sly_scout_env.netpolicy), the shipped one for each table:
    ("sly", dict(num_players=2), "neural", "rotate", "score", None),
    ("sly", dict(num_players=3), ["neural", "greedy"], "rotate", "win", None),
    ("scout", dict(num_players=4, rounds=1), "neural", "rotate", "score", None),  # a prior (greedy) network
    # reward="margin": points minus the mean of the others' points.
    ("scout", dict(num_players=4), "greedy", "rotate", "margin", None),
    ("sly", dict(num_players=3), ["greedy", "random"], "rotate", "margin", None),
    # An action scorer (netfile's inputs "action_features"; SCORER: tests/nets.py's, saved by the fixture).
    ("scout", dict(num_players=3, rounds=1), ["SCORER", "greedy"], "rotate", "win", None),
]


@pytest.fixture(scope="module")
def scorer_path(tmp_path_factory):
    return random_scorer(3, seed=1).save(str(tmp_path_factory.mktemp("scorer") / "scout3.npz"))


@pytest.mark.parametrize("game,options,opponents,seat,reward,max_steps", CASES)
def test_every_row_equals_a_replay_through_the_raw_env(game, options, opponents, seat, reward, max_steps,
                                                      scorer_path):
    if isinstance(opponents, list):
        opponents = [f"neural:path={scorer_path}" if o == "SCORER" else o for o in opponents]
    n, seed = 4, 7
    eng = SingleLearnerBatch(game, n, opponents=opponents, learner_seat=seat, reward=reward, max_steps=max_steps,
                             seed=seed, **options)
    obs = eng.reset()
    P = eng.num_players
    opp_list = [opponents] * (P - 1) if isinstance(opponents, str) else opponents
    replays = [Replay(game, w, seat, opp_list, reward, options, max_steps) for w in stream_words(seed, 0, n)]
    rng = np.random.default_rng(1)
    finished, truncated, seats_seen = 0, 0, set()
    steps = 120 if game == "sly" else 200
    for _ in range(steps):
        masks = eng.masks.astype(bool)
        for i, rp in enumerate(replays):
            assert eng.learner_seats()[i] == rp.learner
            assert rp.env.agent_selection == rp.agent  # the learner is to act in the replay too
            np.testing.assert_array_equal(obs[i], rp.env.observe(rp.agent)["observation"])
            np.testing.assert_array_equal(masks[i], rp.env.legal_action_mask().astype(bool))
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        eng.step(eng.check_actions(actions))
        obs, rewards, dones = eng.obs, eng.rewards, eng.dones
        assert obs.dtype == np.float32 and rewards.dtype == np.float32
        for i, rp in enumerate(replays):
            r = rp.learner_step(actions[i])
            assert rewards[i] == pytest.approx(r, abs=1e-6)
            assert dones[i] == rp.over()
            if dones[i]:
                finished += 1
                seats_seen.add(rp.learner)
                assert eng.truncs[i] == rp.env.truncations[rp.agent]
                truncated += bool(eng.truncs[i])
                np.testing.assert_array_equal(eng.term_obs[i], rp.env.observe(rp.agent)["observation"])
                assert eng.ended_learner_seat(i) == rp.learner
                rp.env._k_final_scores(rp.env._scratch)
                np.testing.assert_array_equal(eng.final_scores[i], rp.env._scratch)
                if reward == "score":
                    # The learner is paid its points in full, opponents' moves included.
                    assert rp.returns == pytest.approx(float(rp.env._scratch[rp.learner]))
                elif reward == "margin":
                    final = rp.env._scratch
                    margin = final[rp.learner] - (final.sum() - final[rp.learner]) / (P - 1)
                    assert rp.returns == pytest.approx(float(margin), abs=1e-5)
                elif eng.truncs[i]:
                    assert rp.returns == 0.0  # win rewards only for a finished game
                else:
                    assert rp.returns == pytest.approx(rp.env.win_rewards()[rp.learner])
                rp.restart()
    assert finished >= 4  # autoreset exercised
    assert (truncated > 0) == (max_steps is not None)
    if seat == "rotate":
        assert seats_seen == set(range(P))  # the learner sat everywhere
    else:
        assert seats_seen == {seat}


@pytest.mark.parametrize("game", GAMES)
def test_score_rewards_add_up_to_the_learners_final_total(game):
    """Independent of the replay: summed rewards equal the final score, per seat."""
    n = 64
    eng = SingleLearnerBatch(game, n, opponents="greedy", learner_seat="rotate", num_players=2, seed=3)
    eng.reset()
    rng = np.random.default_rng(0)
    ret = np.zeros(n)
    checked = 0
    for _ in range(150):
        m = eng.masks.astype(bool)
        eng.step(eng.check_actions(np.argmax(rng.random(m.shape) * m, axis=1)))
        ret += eng.rewards
        for i in np.flatnonzero(eng.dones):
            assert ret[i] == eng.final_scores[i][eng.ended_learner_seat(i)]
            ret[i] = 0.0
            checked += 1
    assert checked > 20


def _trajectory(game, n, rows, steps, threads, opponents="greedy"):
    before = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        eng = SingleLearnerBatch(game, n, opponents=opponents, learner_seat="rotate", num_players=2, seed=11)
        eng.reset()
        out = []
        for k in range(steps):
            m = eng.masks
            # Row i's action depends only on (i, k): the highest legal id if (i + k) is odd, else the lowest.
            a = np.array([np.flatnonzero(m[i])[-1 if (i + k) % 2 else 0] for i in range(n)])
            eng.step(eng.check_actions(a))
            out.append((eng.obs[:rows].copy(), eng.rewards[:rows].copy(), eng.dones[:rows].copy()))
        return out
    finally:
        numba.set_num_threads(before)


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("opponents", ["greedy", "neural"])  # neural: the shipped 2-player network, shared by rows
def test_rows_do_not_depend_on_num_envs_or_threads(game, opponents):
    small = _trajectory(game, 3, 3, 60, 1, opponents)
    large = _trajectory(game, 300, 3, 60, min(2, numba.config.NUMBA_NUM_THREADS), opponents)  # the prange path
    for (o1, r1, d1), (o2, r2, d2) in zip(small, large):
        np.testing.assert_array_equal(o1, o2)
        np.testing.assert_array_equal(r1, r2)
        np.testing.assert_array_equal(d1, d2)
    assert any(d.any() for _, _, d in small)


def test_the_engine_needs_neither_sb3_nor_torch():
    code = ("import sys\n"
            "sys.modules['stable_baselines3'] = None\n"  # None in sys.modules makes the import fail
            "sys.modules['torch'] = None\n"
            "import numpy as np\n"
            "from sly_scout_env.learner import SingleLearnerBatch\n"
            "e = SingleLearnerBatch('sly', 4, opponents='random', num_players=2, seed=0)\n"
            "e.reset()\n"
            "for _ in range(30):\n"
            "    e.step(e.check_actions(e.masks.argmax(axis=1)))\n"
            "print('ok')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]


def test_option_errors_name_the_class_called():
    with pytest.raises(ValueError,
                       match=r"unknown option 'autoreset' for SingleLearnerBatch; allowed options: num_players"):
        SingleLearnerBatch("sly", 2, autoreset=False)
