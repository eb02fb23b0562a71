"""simulation.simulate: determinism (chunks, threads), replay against the AEC envs, bad input."""

import numba
import numpy as np
import pytest

from sly_scout_env import scout_v0, sly_v0
from sly_scout_env._rng import rng_below, stream_words
from sly_scout_env.scout import policies as scout_policies
from sly_scout_env.simulation import simulate
from sly_scout_env.sly import policies as sly_policies
from sly_scout_env.sly import rules as sly_rules

KEYS = ("scores", "winners", "steps", "end_reason")

TWO = min(2, numba.config.NUMBA_NUM_THREADS)  # 2 threads where the machine has them


def _same(a, b):
    for k in KEYS:
        np.testing.assert_array_equal(a[k], b[k], err_msg=k)


@pytest.mark.parametrize("game,players", [("sly", 2), ("sly", 3), ("sly", 4), ("scout", 2), ("scout", 4), ("scout", 5)])
def test_chunks_and_threads_give_identical_arrays(game, players):
    n = 600 if game == "sly" else 300
    calls = []
    one = simulate(game, n, players=players, seed=5, chunk_size=n, threads=1)
    chunked = simulate(game, n, players=players, seed=5, chunk_size=77, threads=numba.config.NUMBA_NUM_THREADS,
                       progress=calls.append)
    _same(one, chunked)
    assert calls == list(range(77, n, 77)) + [n]
    two = simulate(game, n, players=players, seed=5, chunk_size=128, threads=TWO)
    _same(one, two)
    prefix = simulate(game, 50, players=players, seed=5)
    for k in KEYS:
        np.testing.assert_array_equal(prefix[k], one[k][:50])
    other = simulate(game, n, players=players, seed=6)
    assert not np.array_equal(other["scores"], one["scores"])
    assert one["scores"].shape == (n, players) and one["scores"].dtype == np.int32
    assert one["winners"].shape == (n, players) and one["winners"].dtype == np.bool_
    assert one["steps"].shape == (n,) and one["end_reason"].shape == (n,)
    assert set(np.unique(one["end_reason"]).tolist()) <= {1, 2}
    # Winners are the seats with the top score; ties share.
    top = one["scores"].max(axis=1, keepdims=True)
    np.testing.assert_array_equal(one["winners"], one["scores"] == top)
    assert one["winners"].any(axis=1).all()
    assert isinstance(one["seconds"], float) and one["seconds"] > 0


def _replay(e, policies, word):
    """Deal the raw env ``e`` with stream word ``word`` and play uniform moves from the game's policy
    generator seeded as ``simulate`` seeds it: ``(env, steps, rewards paid to each seat)``."""
    e.reset(seed=0)
    e._k_reset(int(word))
    e._start_episode()
    policy = np.array([policies.policy_seed(e._state, word)], dtype=np.int64)
    paid = np.zeros(e.num_players)
    steps = 0
    while not e.terminations[e.agent_selection]:
        legal = np.flatnonzero(e.legal_action_mask())
        e.step(int(legal[rng_below(policy, 0, len(legal))]))
        steps += 1
        paid += [e.rewards[a] for a in e.possible_agents]
    return e, steps, paid


@pytest.mark.parametrize("players", (2, 3, 4))
def test_sly_games_replay_through_the_raw_env(players):
    """Game i of simulate == the raw env dealt with stream word i, moves from the policy generator."""
    sim = simulate("sly", 40, players=players, seed=11)
    words = stream_words(11, 0, 40)
    for i in range(40):
        e, steps, paid = _replay(sly_v0.raw_env(num_players=players), sly_policies, words[i])
        assert steps == sim["steps"][i]
        assert e._state[sly_rules.END_REASON] == sim["end_reason"][i]
        np.testing.assert_array_equal(paid, sim["scores"][i])


@pytest.mark.parametrize("players", (2, 3, 4, 5))
def test_scout_hands_replay_through_the_raw_env(players):
    """Hand i == a one-round raw env dealt with stream word i, moves from the salted policy generator."""
    hands = 8
    sim = simulate("scout", hands, players=players, seed=4)
    words = stream_words(4, 0, hands)
    for i in range(hands):
        e, steps, paid = _replay(scout_v0.raw_env(num_players=players, rounds=1), scout_policies, words[i])
        d = e.state_dict()
        assert steps == sim["steps"][i]
        assert d["round_end_reasons"] == [{1: "i", 2: "ii"}[int(sim["end_reason"][i])]]
        np.testing.assert_array_equal(paid, sim["scores"][i])


def test_step_cap_stops_games_without_winners():
    r = simulate("scout", 30, players=3, seed=1, step_cap=4)  # 3 flips + 1 move: no hand ends
    assert (r["end_reason"] == 0).all() and (r["steps"] == 4).all()
    assert not r["winners"].any()


def test_explicit_random_policies_equal_the_default():
    a = simulate("sly", 200, players=3, seed=2)
    b = simulate("sly", 200, players=3, seed=2, policies=["random"] * 3)
    c = simulate("sly", 200, players=3, seed=2, policies="random,random,random")
    _same(a, b)
    _same(a, c)


def test_options_reach_the_games():
    house = simulate("sly", 300, players=3, seed=3)
    everything = simulate("sly", 300, players=3, seed=3, reveal_scope="all")
    assert not np.array_equal(house["steps"], everything["steps"])


@pytest.mark.parametrize(
    "kwargs,exc,match",
    [
        (dict(game="chess", n=10), ValueError, "game='chess'"),
        (dict(game="sly", n=10, players=5), ValueError, "num_players=5"),
        (dict(game="scout", n=10, players=6), ValueError, "num_players=6"),
        (dict(game="sly", n=-1), ValueError, "n=-1"),
        (dict(game="sly", n=10, chunk_size=0), ValueError, "chunk_size=0"),
        (dict(game="sly", n=10, threads=0), ValueError, "threads=0"),
        (dict(game="sly", n=10, threads=10_000), ValueError, "threads=10000"),
        (dict(game="sly", n=10, policies=["random", "nope", "random"]), ValueError, "'nope'"),
        (dict(game="scout", n=10, policies=["random"] * 3), ValueError, "4 players"),
        (dict(game="sly", n=10, colour=1), ValueError, "colour"),
        (dict(game="scout", n=10, rounds=2), ValueError, "rounds"),
    ],
)
def test_bad_input_is_refused_with_a_clear_message(kwargs, exc, match):
    game = kwargs.pop("game")
    n = kwargs.pop("n")
    with pytest.raises(exc, match=match):
        simulate(game, n, **kwargs)


def test_thread_setting_is_restored():
    before = numba.get_num_threads()
    simulate("sly", 10, threads=1)
    assert numba.get_num_threads() == before


def test_seed_none_draws_one_seed_for_every_chunk():
    a = simulate("sly", 300, seed=None, chunk_size=100)
    again = simulate("sly", 300, seed=a["seed"], chunk_size=300)  # one chunk, the reported seed
    _same(a, again)
    b = simulate("sly", 300, seed=None, chunk_size=100)
    assert b["seed"] != a["seed"]
    with pytest.raises(ValueError, match="seed"):
        simulate("sly", 10, seed=-3)
