"""Sly env API tests: PettingZoo's own checks, action codec, bad input, state dicts, simulate."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

from sly_scout_env import sly_v0
from sly_scout_env.simulation import simulate
from sly_scout_env.testing import check_action_validation, check_pettingzoo, check_state_dict

PLAYERS = (2, 3, 4)


def random_position(seed: int, num_players: int = 3, moves: int | None = None, **options):
    """A raw env after a random number of uniform-random legal moves from ``seed``."""
    env = sly_v0.raw_env(num_players=num_players, **options)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 40)) if moves is None else moves
    for _ in range(n):
        if env.terminations[env.agent_selection]:
            break
        env.step(int(rng.choice(np.flatnonzero(env.legal_action_mask()))))
    return env


def running_position(seed: int, num_players: int = 3, **options):
    """A random position whose game is still running (retries a few seeds)."""
    for s in range(seed, seed + 50):
        env = random_position(s, num_players, **options)
        if not env.terminations[env.agent_selection]:
            return env
    raise AssertionError("no running position found")


# -- PettingZoo's own tests (api_test on env() and raw_env(), seed_test, render_test) --------
@pytest.mark.parametrize("num_players", PLAYERS)
def test_pettingzoo(num_players):
    check_pettingzoo("sly", num_players)


def test_render_hides_opponents_face_down_cards():
    env = sly_v0.raw_env(num_players=2, render_mode="ansi")
    env.reset(seed=0)
    env.step(env.encode_action({"type": "lay", "card": 0, "space": 2}))  # player 0 lays the Fox
    # Seen by player 1 (to act): the owner only, never the card.
    text = env.render()
    line = [ln for ln in text.splitlines() if ln.strip().startswith("[2]")][0]
    assert "player_0" in line and "Fox" not in line
    # Seen by its owner: the card is shown.
    line0 = [ln for ln in env.render_text(0).splitlines() if ln.strip().startswith("[2]")][0]
    assert "Fox" in line0


# -- action codec ------------------------------------------------------------------------
@pytest.mark.parametrize("hen_houses,n", [(1, 34), (2, 67)])
def test_decode_encode_round_trip(hen_houses, n):
    env = sly_v0.raw_env(num_players=3, hen_houses=hen_houses)
    assert env.action_space("player_0").n == n
    s = 4 * hen_houses
    seen = set()
    for a in range(n):
        m = env.decode_action(a)
        assert env.encode_action(m) == a
        assert isinstance(env.action_to_str(a), str)
        key = json.dumps(m, sort_keys=True)
        assert key not in seen
        seen.add(key)
        # the layout of the contract, computed independently
        if a < 7 * s:
            assert m == {"type": "lay", "card": a // s, "space": a % s}
        elif a < 8 * s:
            assert m == {"type": "expose", "space": a - 7 * s}
        elif a < 8 * s + hen_houses:
            assert m == {"type": "reveal", "house": a - 8 * s}
        else:
            assert m == {"type": "reveal", "house": None}


@pytest.mark.parametrize("bad", [-1, 67, 1000, 1.0, "3", None, True])
def test_decode_out_of_range(bad):
    env = sly_v0.raw_env(num_players=3)
    with pytest.raises(ValueError, match="action"):
        env.decode_action(bad)


@pytest.mark.parametrize(
    "bad,word",
    [
        ({"type": "lay", "card": 7, "space": 0}, "card"),
        ({"type": "lay", "card": 1, "space": 8}, "space"),
        ({"type": "lay", "card": 1}, "keys"),
        ({"type": "expose", "space": -1}, "space"),
        ({"type": "reveal", "house": 2}, "house"),
        ({"type": "pass"}, "type"),
        ("lay", "dict"),
    ],
)
def test_encode_bad_dict(bad, word):
    env = sly_v0.raw_env(num_players=3)
    with pytest.raises(ValueError, match=word):
        env.encode_action(bad)


# -- options -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "kwargs,name",
    [
        ({"num_players": 5}, "num_players=5"),
        ({"num_players": 1}, "num_players=1"),
        ({"num_players": True}, "num_players=True"),
        ({"hen_houses": 3}, "hen_houses=3"),
        ({"hen_houses": 0}, "hen_houses=0"),
        ({"reveal_scope": "table"}, "reveal_scope='table'"),
        ({"first_player": 1}, "first_player=1"),
        ({"first_player": "last"}, "first_player='last'"),
        ({"reward": "points"}, "reward='points'"),
        ({"max_steps": 0}, "max_steps=0"),
        ({"houses": 2}, "houses"),
    ],
)
def test_bad_options(kwargs, name):
    with pytest.raises(ValueError, match=name.replace("(", r"\(")):
        sly_v0.raw_env(**kwargs)


def test_default_hen_houses():
    assert sly_v0.raw_env(num_players=2).action_space("player_0").n == 34
    assert sly_v0.raw_env(num_players=3).action_space("player_0").n == 67
    assert sly_v0.raw_env(num_players=4).action_space("player_0").n == 67
    assert sly_v0.raw_env(num_players=2, hen_houses=2).action_space("player_0").n == 67


def test_first_player_random_follows_seed():
    starts = set()
    for seed in range(40):
        a = sly_v0.raw_env(num_players=4, first_player="random")
        b = sly_v0.raw_env(num_players=4, first_player="random")
        a.reset(seed=seed)
        b.reset(seed=seed)
        assert a.agent_selection == b.agent_selection
        starts.add(a.agent_selection)
    assert len(starts) > 1
    fixed = sly_v0.raw_env(num_players=4)
    fixed.reset(seed=3)
    assert fixed.agent_selection == "player_0"


# -- illegal actions ---------------------------------------------------------------------
@pytest.mark.parametrize("num_players", PLAYERS)
def test_raw_env_rejects_bad_and_illegal_actions_state_unchanged(num_players):
    # Illegal ids ("illegal"), -1, 67, 10**12, floats, bools, None, str, arrays: named, nothing changes.
    check_action_validation("sly", num_players)


def test_wrapped_env_illegal_move_terminates_with_penalty():
    env = sly_v0.env(num_players=3)
    env.reset(seed=0)
    mover = env.agent_selection
    mask = env.observe(mover)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])  # an Expose on an empty table
    env.step(illegal)
    assert all(env.terminations.values())
    assert env.rewards[mover] == -1
    assert all(env.rewards[a] == 0 for a in env.agents if a != mover)


# -- state dicts -------------------------------------------------------------------------
@pytest.mark.parametrize("num_players", PLAYERS)
def test_state_dict_round_trip(num_players):
    # Along random games, on every option set (reveal_scope="all", hen_houses, first_player
    # too): load, same position, same play to the end.
    check_state_dict("sly", num_players)


def test_state_dict_optional_fields():
    env = running_position(11)
    d = env.state_dict()
    for k in ("version", "rng", "end_reason", "scores"):
        d.pop(k)
    other = sly_v0.raw_env(num_players=3)
    other.from_state_dict(d)
    full = env.state_dict()
    got = other.state_dict()
    full.pop("rng")
    got.pop("rng")
    assert got == full


def _mutations(d):
    """(field name, mutated dict) pairs, each one a malformed state dict."""
    out = []

    def mut(field, fn):
        m = copy.deepcopy(d)
        fn(m)
        out.append((field, m))

    mut("hands", lambda m: m["hands"][0].append(m["hands"][0][0]))  # a card twice
    mut("hands", lambda m: m["hands"][1].pop())  # a card lost
    mut("hands", lambda m: m["hands"].pop())  # wrong length
    mut("hands", lambda m: m["hands"][0].append(9))  # card out of range
    mut("spaces", lambda m: m["spaces"].append(None))  # one space too many
    mut("spaces", lambda m: m["spaces"].__setitem__(0, {"owner": 0, "card": 0, "safe": True, "x": 1}))
    mut("current_player", lambda m: m.__setitem__("current_player", 3))
    mut("current_player", lambda m: m.__setitem__("current_player", "0"))
    mut("game_over", lambda m: m.__setitem__("game_over", 0))
    mut("known_in_hand",
        lambda m: m["known_in_hand"].__setitem__(0, [c for c in range(7) if c not in m["hands"][0]][:1]))
    mut("scores", lambda m: m["scores"].__setitem__(0, m["scores"][0] + 1))
    mut("reveal_scope", lambda m: m.__setitem__("reveal_scope", "some"))
    mut("first_player", lambda m: m.__setitem__("first_player", 2))
    mut("hen_houses", lambda m: m.__setitem__("hen_houses", 1))
    mut("gobbled", lambda m: m.__setitem__("gobbled", [[], []]))
    mut("captured", lambda m: m["captured"].__setitem__(0, [5]))
    mut("end_reason", lambda m: m.__setitem__("end_reason", "hand"))
    mut("version", lambda m: m.__setitem__("version", 7))
    mut("rng", lambda m: m.__setitem__("rng", "abc"))
    mut("hands", lambda m: m.pop("hands"))
    mut("colour", lambda m: m.__setitem__("colour", "red"))
    return out


def test_malformed_state_dicts_name_the_field():
    env = sly_v0.raw_env(num_players=3)
    env.reset(seed=0)
    # Player 0 lays a Hen 2 (so the own-hand known_in_hand test has a card outside the hand).
    env.step(env.encode_action({"type": "lay", "card": 2, "space": 0}))
    good = env.state_dict()
    target = sly_v0.raw_env(num_players=3)
    target.reset(seed=1)
    before = target.state_dict()
    for field, bad in _mutations(good):
        with pytest.raises(ValueError, match=field):
            target.from_state_dict(bad)
        assert target.state_dict() == before, field


def test_state_dict_semantic_checks():
    env = sly_v0.raw_env(num_players=2)
    env.reset(seed=0)
    d = env.state_dict()
    # A Safe Fox cannot exist.
    m = copy.deepcopy(d)
    m["hands"][0].remove(0)
    m["spaces"][0] = {"owner": 0, "card": 0, "safe": True}
    m.pop("scores")
    with pytest.raises(ValueError, match="spaces"):
        env.from_state_dict(m)
    # A gobbled Fox cannot exist (only Hens are gobbled).
    m = copy.deepcopy(d)
    m["hands"][1].remove(0)
    m["gobbled"][0].append({"owner": 1, "card": 0})
    m.pop("scores")
    with pytest.raises(ValueError, match="gobbled"):
        env.from_state_dict(m)
    # A running game with every space Safe must be over.
    m = copy.deepcopy(d)
    for s in range(4):
        m["hands"][s % 2].remove(s + 1)
        m["spaces"][s] = {"owner": s % 2, "card": s + 1, "safe": True}
    m.pop("scores")
    with pytest.raises(ValueError, match="game_over"):
        env.from_state_dict(m)
    m["game_over"] = True
    env.from_state_dict(m)
    assert env.state_dict()["end_reason"] == "all_safe"
    # Safe Hens on spaces 0..3 (values 1..4) of players 0,1,0,1.
    assert env.state_dict()["scores"] == [1 + 3, 2 + 4]


# -- observation -------------------------------------------------------------------------
def test_observation_hides_private_cards():
    env = sly_v0.raw_env(num_players=3)
    env.reset(seed=0)
    env.step(env.encode_action({"type": "lay", "card": 0, "space": 1}))  # player 0: Fox face down
    env.step(env.encode_action({"type": "lay", "card": 6, "space": 1 + 1}))  # player 1: Hen 6
    sf = 4 + 3 + 7
    for seat in range(3):
        obs = env.observe(f"player_{seat}")["observation"]
        space1 = obs[7 + sf: 7 + 2 * sf]
        assert space1[1] == 1  # face down
        rel_owner = (0 - seat) % 3
        assert space1[4 + rel_owner] == 1
        # only player 0 sees which card it is
        assert space1[4 + 3:].sum() == (1 if seat == 0 else 0)
    # own hand of player 0 lost the Fox
    assert env.observe("player_0")["observation"][0] == 0
    assert env.observe("player_0")["observation"][1:7].sum() == 6


# -- simulate ----------------------------------------------------------------------------
def test_simulated_totals_are_possible():
    """Every simulated game ends with a possible total: a game's points come only from spaces,
    gobbled Hens and captured Foxes, so each player's score is within those bounds."""
    r = simulate("sly", 500, players=3, seed=1, reveal_scope="all")
    # max: all 8 spaces' values (2*(1+2+3+4)=20) + the two opponents' Hens gobbled (2*21)
    # + both opponents' Foxes captured (2*3) = 68; min: all own Hens gobbled, -21.
    assert r["scores"].max() <= 68 and r["scores"].min() >= -21
    assert (r["steps"] > 0).all()


@pytest.mark.parametrize("num_players", PLAYERS)
def test_observation_player_and_opponent_slices_match_state_dict(num_players):
    s_count = 4 * (1 if num_players == 2 else 2)
    sf = 4 + num_players + 7
    players = 7 + s_count * sf
    opp = players + 4 * num_players
    for seed in range(30):
        env = random_position(seed, num_players, moves=int(np.random.default_rng(seed).integers(0, 80)))
        d = env.state_dict()
        on_table_down = {(sp["owner"], sp["card"]) for sp in d["spaces"]
                         if sp is not None and not sp["safe"] and not d["game_over"]}
        for seat in range(num_players):
            obs = env.observe(f"player_{seat}")["observation"]
            assert obs.shape == (env.observation_size,)
            for rel in range(num_players):
                p = (seat + rel) % num_players
                block = obs[players + 4 * rel: players + 4 * rel + 4]
                assert block[0] == len(d["hands"][p])
                assert block[1] == len(d["captured"][p])
                assert block[2] == len(d["gobbled"][p])
                assert block[3] == d["scores"][p]
                if rel:
                    ob = obs[opp + 14 * (rel - 1): opp + 14 * rel]
                    for c in range(7):
                        unseen = c in d["hands"][p] or (p, c) in on_table_down
                        assert ob[c] == unseen
                        assert ob[7 + c] == (c in d["known_in_hand"][p])


def test_loading_a_running_game_whose_player_to_act_holds_one_card_is_refused():
    """The end check runs at the start of a turn, so such a position cannot exist."""
    env = sly_v0.raw_env(num_players=2)
    env.reset(seed=0)
    d = env.state_dict()
    # Seat 0 keeps only its Fox; its Hens 4-6 were gobbled by seat 1, Hens 1-3 lie face down.
    d["hands"][0] = [0]
    d["spaces"] = [{"owner": 0, "card": c, "safe": False} for c in (1, 2, 3)] + [None]
    d["gobbled"][1] = [{"owner": 0, "card": c} for c in (4, 5, 6)]
    d.pop("scores", None)
    before = env.state_dict()
    with pytest.raises(ValueError, match="game_over"):
        env.from_state_dict(d)
    assert env.state_dict() == before
    d["current_player"] = 1  # seat 1 to act with 7 cards: a legal running position
    env.from_state_dict(d)
    assert env.state_dict()["current_player"] == 1
