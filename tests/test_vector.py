"""The vector envs against the PettingZoo AEC raw env, move for move, plus API and bad input."""

import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.vector import AutoresetMode

from sly_scout_env import scout_v0, sly_v0
from sly_scout_env.vector import ScoutVectorEnv, SlyVectorEnv

CASES = [
    (SlyVectorEnv, sly_v0, dict(num_players=2)),
    (SlyVectorEnv, sly_v0, dict(num_players=3, reveal_scope="all", first_player="random")),
    (SlyVectorEnv, sly_v0, dict(num_players=4)),
    (ScoutVectorEnv, scout_v0, dict(num_players=2)),
    (ScoutVectorEnv, scout_v0, dict(num_players=3, rounds=1)),
    (ScoutVectorEnv, scout_v0, dict(num_players=5, rounds=1)),
]


def _restart_like_autoreset(env, batch):
    """What autoreset does to a finished row: a new game from a word of the row's own generator."""
    word = batch._new_word(env._state)
    env._k_reset(int(word))
    env._start_episode()


def _batch_of(vec):
    return vec._b


@pytest.mark.parametrize("reward", ("score", "win", "margin"))
@pytest.mark.parametrize("cls,module,options", CASES)
def test_vector_env_equals_aec_env_move_for_move_with_autoreset(cls, module, options, reward):
    n = 5
    seeds = [3, 14, 15, 92, 65]
    vec = cls(n, reward=reward, **options)
    obs, infos = vec.reset(seed=seeds)
    envs = [module.raw_env(reward=reward, **options) for _ in range(n)]
    for e, s in zip(envs, seeds):
        e.reset(seed=s)
    rng = np.random.default_rng(0)
    finished = 0
    steps = 150 if cls is SlyVectorEnv else 400
    for _ in range(steps):
        for i, e in enumerate(envs):
            seat = e.agent_name_mapping[e.agent_selection]
            assert infos["seat"][i] == seat
            view = e.observe(e.agent_selection)
            np.testing.assert_array_equal(obs["observation"][i], view["observation"])
            np.testing.assert_array_equal(obs["action_mask"][i], view["action_mask"])
            np.testing.assert_array_equal(vec.state_row(i), e._state)
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in obs["action_mask"]])
        obs, rewards, terms, truncs, infos = vec.step(actions)
        assert not truncs.any()
        for i, e in enumerate(envs):
            e.step(int(actions[i]))
            np.testing.assert_allclose(rewards[i], [e.rewards[a] for a in e.possible_agents], rtol=1e-6)
            over = e.terminations[e.agent_selection]
            assert terms[i] == over and infos["_final_obs"][i] == over
            if over:
                finished += 1
                for p, a in enumerate(e.possible_agents):
                    np.testing.assert_array_equal(infos["final_obs"][i, p], e.observe(a)["observation"])
                e._k_final_scores(e._scratch)
                np.testing.assert_array_equal(infos["final_info"]["scores"][i], e._scratch)
                assert infos["final_info"]["_scores"][i]
                _restart_like_autoreset(e, _batch_of(vec))
    assert finished >= 3  # autoreset was exercised


@pytest.mark.parametrize("cls", (SlyVectorEnv, ScoutVectorEnv))
def test_spaces_metadata_and_dtypes(cls):
    vec = cls(7)
    assert vec.num_envs == 7
    assert vec.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    assert vec.single_action_space == spaces.Discrete(vec.num_actions)
    assert vec.action_space.shape == (7,)
    assert vec.single_observation_space["observation"].shape == (vec.observation_size,)
    assert vec.observation_space["observation"].shape == (7, vec.observation_size)
    assert vec.observation_space["action_mask"].shape == (7, vec.num_actions)
    obs, infos = vec.reset(seed=0)
    assert obs["observation"].dtype == np.float32 and obs["action_mask"].dtype == np.int8
    assert vec.observation_space.contains(obs)
    assert infos["seat"].shape == (7,)
    actions = np.array([np.flatnonzero(m)[0] for m in obs["action_mask"]])
    obs, rewards, terms, truncs, infos = vec.step(actions)
    assert rewards.shape == (7, vec.num_players) and rewards.dtype == np.float32
    assert terms.shape == truncs.shape == (7,) and terms.dtype == np.bool_
    assert infos["final_obs"].shape == (7, vec.num_players, vec.observation_size)


@pytest.mark.parametrize("cls", (SlyVectorEnv, ScoutVectorEnv))
def test_game_i_does_not_depend_on_num_envs_or_copy(cls):
    small = cls(3, copy=True)
    big = cls(40, copy=False)
    o1, _ = small.reset(seed=9)
    o2, _ = big.reset(seed=9)
    for _ in range(30):
        np.testing.assert_array_equal(o1["observation"], o2["observation"][:3])
        a1 = np.array([np.flatnonzero(m)[-1] for m in o1["action_mask"]])
        a2 = np.array([np.flatnonzero(m)[-1] for m in o2["action_mask"]])
        o1, *_ = small.step(a1)
        o2, *_ = big.step(a2)
    np.testing.assert_array_equal(small._states, big._states[:3])


def test_max_steps_truncates_and_restarts():
    vec = SlyVectorEnv(4, max_steps=3)
    obs, _ = vec.reset(seed=1)
    for _ in range(3):
        actions = np.array([np.flatnonzero(m)[0] for m in obs["action_mask"]])
        obs, rewards, terms, truncs, infos = vec.step(actions)
    assert truncs.all() and not terms.any() and infos["_final_obs"].all()
    assert (vec._ep_steps == 0).all()  # every game restarted
    assert (obs["observation"][:, :7] == 1).all()  # a fresh Sly game: every card in hand


def test_no_autoreset_finished_games_wait_for_minus_one_and_reset_mask():
    vec = SlyVectorEnv(3, num_players=2, autoreset=False)
    obs, _ = vec.reset(seed=2)
    rng = np.random.default_rng(1)
    done = np.zeros(3, dtype=bool)
    while not done.all():
        actions = np.array([rng.choice(np.flatnonzero(m)) if not d else -1 for m, d in zip(obs["action_mask"], done)])
        before = obs["observation"].copy()
        obs, rewards, terms, truncs, infos = vec.step(actions)
        for i in np.flatnonzero(done):  # a finished game left alone: nothing changes
            np.testing.assert_array_equal(obs["observation"][i], before[i])
            assert terms[i] and not rewards[i].any() and not infos["_final_obs"][i]
        newly = terms & ~done
        if newly.any():
            i = int(np.flatnonzero(newly)[0])
            assert not obs["action_mask"][i].any()
            bad = np.where(done, -1, actions)
            bad[i] = 0
            with pytest.raises(ValueError, match=f"env {i}: action 0 for a finished game"):
                vec.step(bad)
        done |= terms
    obs, _ = vec.reset(seed=[5, 6, 7], options={"reset_mask": np.array([True, False, False])})
    assert obs["action_mask"][0].any() and not obs["action_mask"][1:].any()


def _snapshot(vec) -> dict:
    """Copies of everything a step writes: the state rows, observations, masks, seats, step counts, points."""
    return {"states": vec._states.copy(), "observations": vec._obs.copy(), "masks": vec.legal_action_mask(),
            "seats": vec.seats, "episode steps": vec._ep_steps.copy(), "points": vec._points.copy()}


@pytest.mark.parametrize("cls", (SlyVectorEnv, ScoutVectorEnv))
def test_bad_actions_and_arguments_are_refused(cls):
    vec = cls(4)
    with pytest.raises(RuntimeError, match="reset"):
        vec.step(np.zeros(4, dtype=np.int64))
    obs, _ = vec.reset(seed=0)
    good = np.array([np.flatnonzero(m)[0] for m in obs["action_mask"]])
    before = _snapshot(vec)
    with pytest.raises(ValueError, match=r"shape \(4,\).*got shape \(3,\)"):
        vec.step(good[:3])
    with pytest.raises(ValueError, match="shape"):
        vec.step(good[None, :])
    with pytest.raises(ValueError, match=r"env 0: action .* is not an int; actions are ints in \[0, "):
        vec.step(good.astype(np.float64))
    with pytest.raises(ValueError, match=r"env 0: action .*False.* is not an int"):
        vec.step(np.zeros(4, dtype=bool))
    bad = good.copy()
    bad[2] = vec.num_actions
    with pytest.raises(ValueError, match=f"env 2: action {vec.num_actions} is out of range"):
        vec.step(bad)
    bad[2] = -1
    with pytest.raises(ValueError, match="env 2: action -1"):
        vec.step(bad)
    illegal = good.copy()
    illegal[1] = int(np.flatnonzero(obs["action_mask"][1] == 0)[0])
    with pytest.raises(ValueError, match=f"env 1: action {illegal[1]} is illegal"):
        vec.step(illegal)
    # Nothing was applied by the refused steps: every row, observation, mask, seat and step
    # count is as reset left it, and the good actions then play as in a fresh twin.
    after = _snapshot(vec)
    for name in before:
        np.testing.assert_array_equal(after[name], before[name], err_msg=name)
    twin = cls(4)
    twin.reset(seed=0)
    stepped, twin_stepped = vec.step(good), twin.step(good)
    np.testing.assert_array_equal(vec._states, twin._states)
    for k in ("observation", "action_mask"):
        np.testing.assert_array_equal(stepped[0][k], twin_stepped[0][k])
    np.testing.assert_array_equal(stepped[1], twin_stepped[1])  # rewards
    with pytest.raises(ValueError, match="num_envs=0"):
        cls(0)
    with pytest.raises(ValueError, match="reward='x'"):
        cls(2, reward="x")
    with pytest.raises(ValueError, match="bogus"):
        cls(2, bogus=1)
    with pytest.raises(ValueError, match="num_players=9"):
        cls(2, num_players=9)
    with pytest.raises(ValueError, match="entries"):
        vec.reset(seed=[1, 2])
    with pytest.raises(ValueError, match="reset_mask"):
        vec.reset(options={"reset_mask": np.ones(3, dtype=bool)})


@pytest.mark.train
def test_torch_tensors_share_the_buffers_without_copies():
    import torch

    vec = ScoutVectorEnv(8, copy=False)
    obs, _ = vec.reset(seed=0)
    x = torch.from_numpy(obs["observation"])
    mask = torch.from_numpy(obs["action_mask"])
    logits = torch.zeros(8, vec.num_actions)
    logits[mask == 0] = -torch.inf
    actions = torch.distributions.Categorical(logits=logits).sample()
    obs2, *_ = vec.step(actions.numpy())
    assert obs2["observation"] is obs["observation"]
    assert torch.equal(x, torch.from_numpy(vec._obs))  # the tensor follows the step
    assert x.data_ptr() == vec._obs.ctypes.data
