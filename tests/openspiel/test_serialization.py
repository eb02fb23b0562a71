"""Serialization (``pyspiel.serialize_game_and_state``) round-trips every kind of state, and a
state's history replays in the env (``state_dict``)."""

import numpy as np
import pytest

from .helpers import COUNTS, OS, pyspiel, random_playout


def _round_trip(game, state):
    text = pyspiel.serialize_game_and_state(game, state)
    game2, state2 = pyspiel.deserialize_game_and_state(text)
    assert str(game2) == str(game)
    assert str(state2) == str(state)
    assert state2.history() == state.history()
    assert np.array_equal(state2.row, state.row)
    for s in range(game.num_players()):
        assert state2.information_state_string(s) == state.information_state_string(s)
        assert state2.observation_tensor(s) == state.observation_tensor(s)
    return state2


@pytest.mark.parametrize("game,players", COUNTS)
def test_a_deserialized_state_plays_on_as_the_original(game, players):
    g = OS.load(game, players)
    rng = np.random.default_rng(players)
    state = g.new_initial_state()
    _round_trip(g, state)
    for stop in (2, 5, 30, 200):
        random_playout(state, rng, max_moves=stop - state.move_number() if stop > state.move_number() else 0)
        copy = _round_trip(g, state)
        if state.is_terminal():
            assert copy.returns() == state.returns()
            break
        # The same continuation from both: the same states.
        seed = int(rng.integers(1 << 30))
        a, b = state.clone(), copy
        random_playout(a, np.random.default_rng(seed), max_moves=10)
        random_playout(b, np.random.default_rng(seed), max_moves=10)
        assert str(a) == str(b) and a.history() == b.history()


def test_a_state_in_the_middle_of_a_deal_round_trips():
    g = OS.load("scout", 3)
    state = g.new_initial_state()
    state.apply_action(7)
    state.apply_action(9)  # two of the four seed digits of the first deal
    copy = _round_trip(g, state)
    for d in (1, 2):
        state.apply_action(d)
        copy.apply_action(d)
    assert str(copy) == str(state) and not state.is_chance_node()
    # A later deal: play until a round ends (the state turns into a chance node mid-game).
    rng = np.random.default_rng(0)
    while not state.is_chance_node():
        legal = state.legal_actions()
        state.apply_action(legal[int(rng.integers(len(legal)))])
    state.apply_action(3)
    copy = _round_trip(g, state)
    assert copy.is_chance_node() and copy.chance_outcomes() == state.chance_outcomes()


def test_view_built_and_resampled_states_round_trip():
    g = OS.load("sly", 3)
    state = g.new_initial_state()
    random_playout(state, np.random.default_rng(1), max_moves=6)
    from_view = g.state_from_view(state.player_view(1))
    copy = _round_trip(g, from_view)
    assert copy.player_view(1) == state.player_view(1)
    sample = state.resample_from_infostate(2, pyspiel.UniformProbabilitySampler(0.0, 1.0))
    copy = _round_trip(g, sample)
    again = copy.resample_from_infostate(2, pyspiel.UniformProbabilitySampler(0.0, 1.0))
    assert again.information_state_string(2) == state.information_state_string(2)


@pytest.mark.parametrize("game,players", COUNTS)
def test_the_state_dict_is_the_envs_after_replaying_the_history(game, players):
    g = OS.load(game, players)
    state = g.new_initial_state()
    rng = np.random.default_rng(3)
    for stop in (1, 20, 10_000):
        random_playout(state, rng, max_moves=stop)
        d = state.state_dict()  # raises if the env's replay does not reach this row
        assert d["game"] == game and d["num_players"] == players
    assert state.is_terminal()
    with pytest.raises(ValueError, match=r"built from seat 0's view; it has no full state dict"):
        g.state_from_view(state.player_view(0)).state_dict()
