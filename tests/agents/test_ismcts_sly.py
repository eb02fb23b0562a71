"""ISMCTS on Sly: determinization, the view-built root, no peeking, legal play, parameters."""

import numpy as np
import pytest

from sly_scout_env import sly_v0
from sly_scout_env.agents import make
from sly_scout_env.agents.bots.ismcts import ISMCTS, reward_vector
from sly_scout_env.agents.bots.views import player_view
from sly_scout_env.sly import codec as C
from sly_scout_env.sly import rules as R
from sly_scout_env.sly.determinize import determinize, row_from_view
from sly_scout_env.sly.search import SearchAdapter, edge_keys

from ..games import random_position


def _positions():
    """Running positions with hidden cards, from random play at every player count."""
    out = []
    for p in (2, 3, 4):
        for seed in range(12):
            env = random_position("sly", p, seed, 4 + seed % 9)
            if not env.state_dict()["game_over"]:
                out.append(env)
    return out


def _cards_where(d, seat):
    """Per seat: the set of (place, card) of a state dict, places 'hand', ('space', s), piles."""
    where = {}
    for p, hand in enumerate(d["hands"]):
        for c in hand:
            where[(p, c)] = "hand"
    for s, sp in enumerate(d["spaces"]):
        if sp is not None:
            where[(sp["owner"], sp["card"])] = ("space", s, sp["safe"])
    for g, pile in enumerate(d["gobbled"]):
        for x in pile:
            where[(x["owner"], x["card"])] = ("gobbled", g)
    for c, pile in enumerate(d["captured"]):
        for o in pile:
            where[(o, 0)] = ("captured", c)
    return where


def test_determinize_is_consistent_and_hides_only_hidden_cards():
    for env in _positions():
        row0 = env.unwrapped._state.copy()
        d0 = env.state_dict()
        num_p = d0["num_players"]
        for seat in range(num_p):
            view0 = player_view(d0, seat)
            for k in range(5):
                row = row0.copy()
                word = np.array([1000 * seat + k], dtype=np.int64)
                determinize(row, seat, word, 0)
                # Loading validates card conservation: each player's 7 cards exactly once.
                d = C.state_to_dict(row, None)
                C.dict_to_state(d, row0)
                where = _cards_where(d, seat)
                assert len(where) == 7 * num_p
                # Everything the seat may know is unchanged (own cards, public cards, piles,
                # hand sizes, known_in_hand, owners of face-down cards).
                assert player_view(d, seat) == view0
                assert d["known_in_hand"] == d0["known_in_hand"]
                for o in range(num_p):
                    assert set(d0["known_in_hand"][o]) <= set(d["hands"][o])
                assert row[R.RNG] == row0[R.RNG]  # the game's own generator is left alone


def test_determinize_varies_hidden_cards_uniformly():
    """An opponent with one face-down card and 7 unknown cards: each card 1/7 of the time."""
    env = sly_v0.raw_env(num_players=2)
    env.reset(seed=0)
    env.step(env.encode_action({"type": "lay", "card": 3, "space": 2}))  # seat 0 lays Hen 3
    row0 = env.unwrapped._state.copy()
    counts = np.zeros(7, dtype=int)
    word = np.array([42], dtype=np.int64)
    n = 7000
    for _ in range(n):
        row = row0.copy()
        determinize(row, 1, word, 0)  # seat 1 cannot see seat 0's card on space 2
        counts[row[R.SPACE_CARD + 2]] += 1
    assert (counts > 0).all()
    # Each count ~ Binomial(7000, 1/7): mean 1000, sd ~29; 6 sd bounds cannot flake.
    assert np.all(np.abs(counts - n / 7) < 6 * np.sqrt(n / 7 * 6 / 7)), counts
    # The observer's own cards never move.
    row = row0.copy()
    determinize(row, 0, word, 0)
    assert np.array_equal(row, row0)


def test_determinize_respects_known_in_hand():
    d = {
        "game": "sly", "num_players": 2, "hen_houses": 1, "reveal_scope": "house", "first_player": 0,
        "current_player": 0, "game_over": False,
        "hands": [[0, 1, 2, 3, 4, 5], [1, 2, 4, 6]], "known_in_hand": [[], [2, 6]],
        "spaces": [{"owner": 1, "card": 0, "safe": False}, {"owner": 1, "card": 3, "safe": False},
                   {"owner": 1, "card": 5, "safe": True}, {"owner": 0, "card": 6, "safe": False}],
        "gobbled": [[], []], "captured": [[], []],
    }
    env = sly_v0.raw_env(num_players=2)
    env.reset(seed=0)
    env.from_state_dict(d)
    row0 = env.unwrapped._state.copy()
    seen = set()
    word = np.array([7], dtype=np.int64)
    for _ in range(300):
        row = row0.copy()
        determinize(row, 0, word, 0)
        s = C.state_to_dict(row, None)
        assert {2, 6} <= set(s["hands"][1])  # known in hand: stays in hand
        assert s["spaces"][2] == d["spaces"][2] and s["spaces"][3] == d["spaces"][3]
        seen.add((s["spaces"][0]["card"], s["spaces"][1]["card"]))
    # Free cards of seat 1: Fox, 1, 3, 4 over two face-down spaces: 12 ordered pairs.
    assert seen == {(a, b) for a in (0, 1, 3, 4) for b in (0, 1, 3, 4) if a != b}


def test_row_from_view_is_consistent_with_the_view():
    for env in _positions():
        d = env.state_dict()
        for seat in range(d["num_players"]):
            view = player_view(d, seat)
            row = row_from_view(view)
            rebuilt = C.state_to_dict(row, None)
            assert player_view(rebuilt, seat) == view


def _twin_states():
    """Two running positions that seat 0 cannot tell apart, differing in seat 1's hidden cards."""
    d = {
        "game": "sly", "num_players": 3, "hen_houses": 2, "reveal_scope": "house", "first_player": 0,
        "current_player": 0, "game_over": False,
        "hands": [[0, 2, 3, 5], [1, 2, 3, 6], [0, 1, 2, 3, 4]],
        "known_in_hand": [[], [], []],
        "spaces": [{"owner": 1, "card": 0, "safe": False}, {"owner": 2, "card": 5, "safe": False},
                   {"owner": 0, "card": 1, "safe": False}, {"owner": 1, "card": 5, "safe": False},
                   None, {"owner": 2, "card": 6, "safe": True}, {"owner": 0, "card": 4, "safe": False},
                   {"owner": 1, "card": 4, "safe": False}],
        "gobbled": [[{"owner": 0, "card": 6}], [], []], "captured": [[], [], []],
    }
    e = {**d, "hands": [[0, 2, 3, 5], [0, 2, 4, 5], [0, 1, 2, 4, 5]],
         "spaces": [{"owner": 1, "card": 6, "safe": False}, {"owner": 2, "card": 3, "safe": False},
                    {"owner": 0, "card": 1, "safe": False}, {"owner": 1, "card": 1, "safe": False},
                    None, {"owner": 2, "card": 6, "safe": True}, {"owner": 0, "card": 4, "safe": False},
                    {"owner": 1, "card": 3, "safe": False}]}
    envs = []
    for x in (d, e):
        env = sly_v0.raw_env(num_players=3)
        env.reset(seed=0)
        env.from_state_dict(x)
        envs.append(env)
    return envs


@pytest.mark.parametrize("params", [
    dict(iterations=150),
    dict(iterations=150, rollout="random", value="win", opponents="tree"),
    dict(iterations=100, opponents="policy", top_k=4),
])
def test_ismcts_does_not_peek(params):
    a, b = _twin_states()
    da, db = a.state_dict(), b.state_dict()
    assert da["hands"][1] != db["hands"][1] and da["spaces"][0] != db["spaces"][0]
    assert player_view(da, 0) == player_view(db, 0)
    oa, ob = a.observe("player_0"), b.observe("player_0")
    assert np.array_equal(oa["observation"], ob["observation"])
    choices = []
    for env in (a, b):
        bot = make("ismcts", game="sly", **params)
        bot.reset(2024, game="sly", num_players=3, seat=0, options={})
        o = env.observe("player_0")
        info = {"seat": 0, "game": "sly", "num_players": 3, "view": player_view(env.state_dict(), 0)}
        choices.append((bot.act(o["observation"], o["action_mask"], info), bot.search.last_root))
    (ca, root_a), (cb, root_b) = choices
    assert ca == cb
    # Not just the move: the whole root statistics agree.
    assert {k: v.visits for k, v in root_a.children.items()} == {k: v.visits for k, v in root_b.children.items()}
    # And the search is not degenerate: a different seed explores differently.
    bot = make("ismcts", game="sly", **params)
    bot.reset(7, game="sly", num_players=3, seat=0, options={})
    o = a.observe("player_0")
    bot.act(o["observation"], o["action_mask"], {"view": player_view(da, 0)})
    assert {k: v.visits for k, v in bot.search.last_root.children.items()} != \
        {k: v.visits for k, v in root_a.children.items()}


def test_edge_keys_hide_opponent_lays_only():
    a, _ = _twin_states()
    row = a.unwrapped._state.copy()
    legal = np.zeros(67, dtype=np.int64)
    keys = np.zeros(67, dtype=np.int64)
    n = edge_keys(row, 0, legal, keys)  # seat 0 to act: its own moves are keyed by id
    assert np.array_equal(keys[:n], legal[:n])
    n = edge_keys(row, 1, legal, keys)  # seen by seat 1: seat 0's Lays keyed by space only
    for a_, k in zip(legal[:n], keys[:n]):
        if a_ < 7 * 8:
            assert k == -1 - (a_ % 8)
        else:
            assert k == a_


@pytest.mark.parametrize("num_players", [2, 3])
def test_ismcts_plays_legal_full_games(num_players):
    env = sly_v0.raw_env(num_players=num_players)
    env.reset(seed=num_players)
    bots = [make("ismcts", game="sly", iterations=30) if s == 0 else make("greedy", game="sly")
            for s in range(num_players)]
    for seat, bot in enumerate(bots):
        bot.reset(seat, game="sly", num_players=num_players, seat=seat, options={})
    while not env.terminations[env.agent_selection]:
        agent = env.agent_selection
        seat = env.agent_name_mapping[agent]
        o = env.observe(agent)
        a = bots[seat].act(o["observation"], o["action_mask"], {"view": player_view(env.state_dict(), seat)})
        assert o["action_mask"][a] == 1
        env.step(a)


def test_time_budget_and_parameter_errors():
    a, _ = _twin_states()
    bot = make("ismcts", game="sly", iterations=None, time_limit=0.05)
    bot.reset(0, game="sly", num_players=3, seat=0, options={})
    o = a.observe("player_0")
    act = bot.act(o["observation"], o["action_mask"], {"view": player_view(a.state_dict(), 0)})
    assert o["action_mask"][act] == 1 and bot.search.last_iterations >= 1
    for bad, match in ((dict(rollout="smart"), "rollout"), (dict(value="elo"), "value"),
                       (dict(iterations=0), "iterations"), (dict(iterations=None), "time_limit"),
                       (dict(c=-1), "c="), (dict(opponents="oracle"), "opponents"),
                       (dict(top_k=0), "top_k")):
        with pytest.raises(ValueError, match=match):
            make("ismcts", game="sly", **bad)
    with pytest.raises(ValueError, match="view"):
        bot.act(o["observation"], o["action_mask"], {})


def test_reward_vector():
    assert np.allclose(reward_vector([3, 7, 7], "win", 5.0), [0, 0.5, 0.5])
    sc = reward_vector([10, 0], "score", 5.0)
    assert np.allclose(sc, [0.5 + 0.5 * np.tanh(2), 0.5 - 0.5 * np.tanh(2)])
    assert np.allclose(reward_vector([10, 0], "mixed", 5.0), 0.5 * (np.array([1.0, 0.0]) + sc))


def test_adapter_returns_and_terminal():
    ad = SearchAdapter(num_players=2, options={})
    env = sly_v0.raw_env(num_players=2)
    env.reset(seed=1)
    row = env.unwrapped._state.copy()
    assert not ad.is_terminal(row) and ad.current_player(row) == 0
    ad.seed_row(row, 5)
    ad.rollout(row, ad.policy_id("random"))
    assert ad.is_terminal(row)
    pts = np.zeros(2, dtype=np.int64)
    R.scores(row, pts)
    assert list(ad.returns(row)) == list(pts)


def test_search_statistics_add_up():
    """Every iteration passes through exactly one root edge; the chosen edge is the most visited."""
    a, _ = _twin_states()
    ad = SearchAdapter(num_players=3, options={})
    search = ISMCTS(ad, iterations=120)
    row = ad.root(None, None, {"view": player_view(a.state_dict(), 0)})
    action = search.search(row, 0, np.random.default_rng(1))
    root = search.last_root
    assert root.visits == 120 == sum(ch.visits for ch in root.children.values())
    assert action == max(root.children, key=lambda k: root.children[k].visits)
    assert a.legal_action_mask()[action] == 1
    for ch in root.children.values():  # rewards are win shares / squashed margins in [0, 1]
        assert np.all(ch.value >= 0) and np.all(ch.value <= ch.visits + 1e-9)
