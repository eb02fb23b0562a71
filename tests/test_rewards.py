"""The AEC env's reward modes, generic over the registry: ``"margin"`` against ``"score"``
on the same games, literal margins, and the error naming the allowed modes.

(The vector envs and the single-learner batch are checked against the AEC env in
tests/test_vector.py and tests/test_learner.py, every mode included.)"""

import numpy as np
import pytest

from sly_scout_env import kernels as K
from sly_scout_env.games import GAMES, get_game


def test_margins_literal():
    out = np.array([3.0, 0.0, -1.0, 99.0])
    K.margins(3, out)  # only the first num_p entries
    np.testing.assert_allclose(out, [3.5, -1.0, -2.5, 99.0])  # 3 - (0 - 1) / 2, 0 - (3 - 1) / 2, -1 - 3 / 2
    two = np.array([5.0, 2.0], dtype=np.float32)
    K.margins(2, two)
    np.testing.assert_allclose(two, [3.0, -3.0])
    now, before = np.array([4.0, 1.0, 0.0], dtype=np.float32), np.array([1.0, 1.0, 2.0])
    K.margin_change(3, now, before)  # changes 3, 0, -2
    np.testing.assert_allclose(now, [3.0 + 1.0, 0.0 - 0.5, -2.0 - 1.5])


def _play(game, players, reward, seed, **options):
    """Every step's rewards of one uniform-random game (the actions drawn from ``seed``)."""
    env = get_game(game).raw_env(num_players=players, reward=reward, **options)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    steps = []
    while not env.terminations[env.agent_selection]:
        env.step(int(rng.choice(np.flatnonzero(env.legal_action_mask()))))
        steps.append([env.rewards[a] for a in env.possible_agents])
    env._k_final_scores(env._scratch)
    return np.array(steps), env._scratch.copy()


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("players", (2, 3))
def test_margin_pays_each_seat_its_points_minus_the_others_mean(game, players):
    paid_any = 0
    for seed in range(6):
        score, final = _play(game, players, "score", seed, **({"rounds": 1} if game == "scout" else {}))
        margin, final_m = _play(game, players, "margin", seed, **({"rounds": 1} if game == "scout" else {}))
        np.testing.assert_array_equal(final, final_m)  # the reward mode does not change the game
        assert margin.shape == score.shape
        others_mean = (score.sum(axis=1, keepdims=True) - score) / (players - 1)
        np.testing.assert_allclose(margin, score - others_mean, atol=1e-9)
        np.testing.assert_allclose(margin.sum(axis=1), 0.0, atol=1e-9)  # zero-sum at every step
        want = final - (final.sum() - final) / (players - 1)
        np.testing.assert_allclose(margin.sum(axis=0), want, atol=1e-9)  # adds up to the final margin
        paid_any += int(np.abs(margin).sum() > 0)
    assert paid_any >= 5  # the games paid something


@pytest.mark.parametrize("game", GAMES)
def test_unknown_reward_names_the_allowed_modes(game):
    with pytest.raises(ValueError, match="reward='points'.*margin"):
        get_game(game).raw_env(reward="points")
