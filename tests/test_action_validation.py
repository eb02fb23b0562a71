"""Every env answers a bad action id the same way: a float, a bool, a negative or an
out-of-range id is a ValueError naming the action and the legal range, and the game
is left exactly as it was (the next legal action still plays the same game)."""

import numpy as np
import pytest

from sly_scout_env.games import GAMES
from sly_scout_env.testing import check_action_validation
from sly_scout_env.vector import vector_env


def _expected(num_actions):
    return rf"actions are ints in \[0, {num_actions}\)"


@pytest.mark.parametrize("game", GAMES)
def test_aec_env(game):
    # Illegal ids, -1, out-of-range ids, floats, bools (numpy's too), None, str and arrays, at
    # several positions of every player count: named, and nothing changes.
    check_action_validation(game)


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("bad", [1.0, 2.5, True, -1, "out_of_range"])
def test_vector_env(game, bad):
    vec = vector_env(game, 3)
    obs, _ = vec.reset(seed=3)
    legal = np.array([np.flatnonzero(m)[0] for m in obs["action_mask"]])
    actions = legal.astype(object)
    actions[1] = vec.num_actions if bad == "out_of_range" else bad
    if isinstance(bad, float) or bad is True:  # a whole array of that type, as a user would pass it
        actions = np.full(3, bad)
    with pytest.raises(ValueError, match=_expected(vec.num_actions)):
        vec.step(np.asarray(actions.tolist()))
    # Nothing moved: the legal actions step the same games as a fresh env would.
    twin = vector_env(game, 3)
    twin.reset(seed=3)
    a = vec.step(legal)
    b = twin.step(legal)
    np.testing.assert_array_equal(a[0]["observation"], b[0]["observation"])


@pytest.mark.train
@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("bad", [1.0, 2.5, True, -1, "out_of_range"])
def test_sb3_vec_env(game, bad):
    from sly_scout_env.sb3_vec import SingleAgentVecEnv

    venv = SingleAgentVecEnv(game, 3, opponents="random", seed=3)
    venv.reset()
    legal = np.array([np.flatnonzero(m)[0] for m in venv.action_masks()])
    if bad == "out_of_range":
        actions = legal.copy()
        actions[1] = venv.action_space.n
    else:
        actions = np.full(3, bad)
    with pytest.raises(ValueError, match=_expected(venv.action_space.n)):
        venv.step(actions)
    twin = SingleAgentVecEnv(game, 3, opponents="random", seed=3)
    twin.reset()
    np.testing.assert_array_equal(venv.step(legal)[0], twin.step(legal)[0])
