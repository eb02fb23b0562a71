"""The single-agent Gymnasium view: checkers, rewards in full, seats, masks, vector envs."""

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gym_check_env

from sly_scout_env.agents.bots.ismcts import ISMCTSAgent
from sly_scout_env.wrappers import SingleAgentEnv, make_single_agent_env


class FirstLegal:
    """A deterministic opponent: the lowest legal action id. Records what it was shown."""

    def __init__(self):
        self.views = []
        self.resets = []

    def reset(self, seed, *, game, num_players, seat, options):
        self.resets.append((game, num_players, seat))

    def act(self, observation, action_mask, info):
        self.views.append(info["view"])
        return int(np.flatnonzero(action_mask)[0])


def _play_episode(env, seed, policy_rng):
    obs, info = env.reset(seed=seed)
    total = 0.0
    while True:
        mask = env.action_masks()
        assert mask.dtype == bool and mask.any()
        assert np.array_equal(mask, info["action_mask"].astype(bool))
        legal = np.flatnonzero(mask)
        obs, reward, terminated, truncated, info = env.step(int(policy_rng.choice(legal)))
        assert env.observation_space.contains(obs)
        total += reward
        if terminated or truncated:
            return total, terminated


GAME_SETUPS = [("scout", 2), ("scout", 4), ("sly", 2), ("sly", 3)]


@pytest.mark.parametrize("game,players", GAME_SETUPS)
def test_gymnasium_env_checker_passes(game, players):
    env = SingleAgentEnv(game, opponents=FirstLegal(), num_players=players)
    gym_check_env(env, skip_render_check=True)


@pytest.mark.train
@pytest.mark.parametrize("game,players", GAME_SETUPS)
def test_sb3_check_env_passes(game, players):
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    env = SingleAgentEnv(game, opponents=FirstLegal(), num_players=players)
    sb3_check_env(env, warn=True)


@pytest.mark.parametrize("game,players", GAME_SETUPS)
@pytest.mark.parametrize("seat", [0, 1])
def test_learner_receives_its_points_in_full(game, players, seat):
    """With reward="score" the learner's rewards add up to its final game total,
    whoever's move scored them (Scout rounds are often scored on an opponent's move)."""
    env = SingleAgentEnv(game, opponents=FirstLegal(), num_players=players, learner_seat=seat)
    rng = np.random.default_rng(seat)
    for episode_seed in range(6):
        total, terminated = _play_episode(env, episode_seed, rng)
        assert terminated
        final = env.aec.state_dict()["scores"][seat]
        assert total == pytest.approx(final)


def test_win_reward_is_zero_sum_for_the_learner():
    env = SingleAgentEnv("scout", opponents=FirstLegal(), num_players=2, reward="win", rounds=1)
    rng = np.random.default_rng(1)
    seen = set()
    for s in range(20):
        total, _ = _play_episode(env, s, rng)
        scores = env.aec.state_dict()["scores"]
        mine, theirs = scores[0], scores[1]
        expected = 1.0 if mine > theirs else (-1.0 if mine < theirs else 0.0)
        assert total == expected
        seen.add(total)
    assert len(seen) >= 2


def test_rotating_seat_and_opponents_seated_elsewhere():
    opp = FirstLegal()
    env = SingleAgentEnv("sly", opponents=opp, num_players=3, learner_seat="rotate")
    seats = []
    for s in range(6):
        env.reset(seed=s)
        seats.append(env.learner_seat)
        assert env.aec.agent_selection == env.aec.possible_agents[env.learner_seat]
    assert seats == [0, 1, 2, 0, 1, 2]
    # The one opponent given is copied for each of the two other seats, in seat order.
    assert env.opponents[0] is opp and env.opponents[1] is not opp
    for episode, learner in enumerate(seats):
        others = [s for s in range(3) if s != learner]
        assert [o.resets[episode][2] for o in env.opponents] == others


class SeatCheckingISMCTS(ISMCTSAgent):
    """ISMCTS that records, at every move, the seat it searches for and the seat it plays."""

    log = []  # class-level: shared by the copies the env makes

    def act(self, observation, action_mask, info):
        SeatCheckingISMCTS.log.append((self.seat, info["seat"]))
        return super().act(observation, action_mask, info)


def test_one_bot_object_for_several_seats_plays_each_seat_as_itself():
    SeatCheckingISMCTS.log = []
    env = SingleAgentEnv("sly", num_players=3, opponents=[SeatCheckingISMCTS("sly", iterations=5)],
                         learner_seat="rotate")
    for seed in range(3):
        _play_episode(env, seed, np.random.default_rng(seed))
    log = SeatCheckingISMCTS.log
    assert {played for _, played in log} == {0, 1, 2}
    assert all(searched == played for searched, played in log), log


def test_game_and_opponents_are_required_and_option_errors_name_the_class():
    with pytest.raises(TypeError):
        SingleAgentEnv()
    with pytest.raises(TypeError):
        SingleAgentEnv("sly")
    with pytest.raises(ValueError,
                       match=r"unknown option 'round' for SingleAgentEnv; allowed options: num_players, rounds"):
        SingleAgentEnv("scout", opponents=FirstLegal(), round=1)


def test_opponents_are_shown_only_what_their_seat_may_know():
    opp = FirstLegal()
    env = SingleAgentEnv("sly", opponents=opp, num_players=2, learner_seat=0)
    _play_episode(env, 3, np.random.default_rng(0))
    assert opp.views, "the opponent was never asked to move"
    for view in opp.views:
        assert "rng" not in view
        learner_hand = view["hands"][0]
        assert not (isinstance(learner_hand, list) and learner_hand and isinstance(learner_hand[0], int)), view


def test_illegal_action_terminates_with_penalty_or_raises():
    env = SingleAgentEnv("scout", opponents=FirstLegal(), num_players=3)
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    obs, reward, terminated, truncated, info = env.step(illegal)
    assert terminated and reward == -1.0 and info["illegal_action"]
    strict = SingleAgentEnv("scout", opponents=FirstLegal(), num_players=3, on_illegal="raise")
    strict.reset(seed=0)
    before = strict.aec.state_dict()
    with pytest.raises(ValueError, match=str(illegal)):
        strict.step(illegal)
    assert strict.aec.state_dict() == before


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"game": "chess"}, "chess"),
        ({"learner_seat": 5}, "learner_seat"),
        ({"opponents": []}, "opponents"),
        ({"opponents": [object()]}, "act"),
        ({"on_illegal": "ignore"}, "ignore"),
    ],
)
def test_bad_arguments_are_named(kwargs, match):
    base = {"game": "scout", "opponents": FirstLegal(), "num_players": 2}
    base.update(kwargs)
    with pytest.raises(ValueError, match=match):
        SingleAgentEnv(**base)


def test_same_seed_same_episode():
    a = SingleAgentEnv("scout", opponents=FirstLegal(), num_players=3)
    b = SingleAgentEnv("scout", opponents=FirstLegal(), num_players=3)
    ta = _play_episode(a, 11, np.random.default_rng(5))
    tb = _play_episode(b, 11, np.random.default_rng(5))
    assert ta == tb
    assert a.aec.state_dict() == b.aec.state_dict()


@pytest.mark.train
@pytest.mark.parametrize("vec", ["dummy", "subproc"])
def test_works_under_sb3_vector_envs(vec):
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    factory = make_single_agent_env("sly", FirstLegal(), num_players=2)
    cls = DummyVecEnv if vec == "dummy" else SubprocVecEnv
    venv = cls([factory, factory])
    try:
        obs = venv.reset()
        assert obs.shape == (2, factory().observation_space.shape[0])
        masks = np.stack(venv.env_method("action_masks"))
        for _ in range(30):
            actions = np.array([np.flatnonzero(m)[0] for m in masks])
            obs, rewards, dones, infos = venv.step(actions)
            masks = np.stack(venv.env_method("action_masks"))
            for i, done in enumerate(dones):
                if done:
                    assert "terminal_observation" in infos[i]
        assert obs.dtype == np.float32
    finally:
        venv.close()


def test_opponents_get_seat_and_game_and_a_view_only_when_they_need_it():
    class Blind(FirstLegal):
        needs_view = False

        def act(self, observation, action_mask, info):
            self.views.append(info)
            return int(np.flatnonzero(action_mask)[0])

    blind, seeing = Blind(), FirstLegal()
    for opp in (blind, seeing):
        env = SingleAgentEnv("sly", opponents=opp, num_players=2, learner_seat=0)
        _play_episode(env, 0, np.random.default_rng(0))
    assert blind.views and all("view" not in info and info["seat"] == 1 and info["game"] == "sly"
                               for info in blind.views)
    assert seeing.views and all("hands" in view for view in seeing.views)
