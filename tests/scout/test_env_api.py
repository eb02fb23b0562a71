"""Scout env: PettingZoo API conformance, action codec, bad input, state_dict."""

import json

import numpy as np
import pytest
from pettingzoo.test import api_test

from sly_scout_env import scout_v0
from sly_scout_env.testing import check_action_validation, check_pettingzoo, check_state_dict

PLAYER_COUNTS = (2, 3, 4, 5)
EXPECTED_ACTIONS = {2: 254, 3: 614, 4: 740, 5: 740}  # 2 + 18 * MAX_HAND (14, 34, 41, 41)


def random_steps(e, steps, rng):
    """Play up to ``steps`` uniform-random legal moves on a raw env (stops at game over)."""
    for _ in range(steps):
        if e.terminations[e.agent_selection]:
            break
        e.step(int(rng.choice(np.flatnonzero(e.legal_action_mask()))))


# --- PettingZoo's own tests (api_test, seed_test, render_test: sly_scout_env.testing) ---------
@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_pettingzoo(n):
    check_pettingzoo("scout", n)
    api_test(scout_v0.raw_env(num_players=n, reward="win"), num_cycles=300)


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_render_names_the_game(n):
    e = scout_v0.raw_env(num_players=n, render_mode="ansi")
    e.reset(seed=n)
    assert "Scout" in e.render()


def test_render_shows_own_hand_only():
    e = scout_v0.raw_env(num_players=3, render_mode="ansi")
    e.reset(seed=4)
    d = e.state_dict()
    text = e.render()
    mine = " ".join(f"{u}/{w}" for u, w in d["hands"][d["current_player"]])
    shown = [line for line in text.splitlines() if "(up/down" in line]
    assert len(shown) == 1 and f"player_{d['current_player']} hand" in shown[0]
    assert [tok.split("]")[1] for tok in shown[0].split(": ", 1)[1].split()] == mine.split()


# --- spaces and the action codec ----------------------------------------------------------------
@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_action_space_size(n):
    e = scout_v0.raw_env(num_players=n)
    assert e.action_space("player_0").n == EXPECTED_ACTIONS[n]
    assert e.possible_agents == [f"player_{i}" for i in range(n)]


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_decode_encode_round_trip(n):
    e = scout_v0.raw_env(num_players=n)
    H = (EXPECTED_ACTIONS[n] - 2) // 18
    seen = set()
    for a in range(EXPECTED_ACTIONS[n]):
        d = e.decode_action(a)
        assert e.encode_action(d) == a
        assert isinstance(e.action_to_str(a), str)
        key = json.dumps(d, sort_keys=True)
        assert key not in seen
        seen.add(key)
    # the documented layout, computed independently
    assert e.decode_action(0) == {"type": "flip", "flip": False}
    assert e.decode_action(1) == {"type": "flip", "flip": True}
    assert e.decode_action(2 + 3 * 10 + 2) == {"type": "show", "start": 3, "length": 3}
    scout_base = 2 + 10 * H
    assert e.decode_action(scout_base + (1 * 2 + 1) * H + 5) == {
        "type": "scout", "end": "right", "flip": True, "position": 5,
    }
    assert e.decode_action(scout_base + 4 * H) == {
        "type": "scout_and_show", "end": "left", "flip": False, "position": 0,
    }
    for bad in (-1, EXPECTED_ACTIONS[n], 2.0, "3", True):
        with pytest.raises(ValueError):
            e.decode_action(bad)


@pytest.mark.parametrize(
    "d, key",
    [
        ({"type": "pass"}, "type"),
        ({"type": "flip"}, "flip"),
        ({"type": "flip", "flip": 1}, "flip"),
        ({"type": "show", "start": 0, "length": 11}, "length"),
        ({"type": "show", "start": 41, "length": 1}, "start"),
        ({"type": "show", "start": 0, "length": 1, "extra": 1}, "extra"),
        ({"type": "scout", "end": "middle", "flip": False, "position": 0}, "end"),
        ({"type": "scout", "end": "left", "flip": False, "position": -1}, "position"),
    ],
)
def test_encode_bad_dict(d, key):
    with pytest.raises(ValueError, match=key):
        scout_v0.raw_env(num_players=4).encode_action(d)


# --- options ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "kwargs, word",
    [
        ({"num_players": 6}, "num_players=6"),
        ({"num_players": 1}, "num_players=1"),
        ({"num_players": "4"}, "num_players='4'"),
        ({"rounds": 0}, "rounds=0"),
        ({"rounds": True}, "rounds=True"),
        ({"ii_after_empty_set": 1}, "ii_after_empty_set=1"),
        ({"score_held_chips": "yes"}, "score_held_chips='yes'"),
        ({"reward": "points"}, "reward='points'"),
        ({"render_mode": "rgb_array"}, "render_mode='rgb_array'"),
        ({"colour": "red"}, "colour"),
    ],
)
def test_bad_options(kwargs, word):
    with pytest.raises(ValueError) as info:
        scout_v0.raw_env(**kwargs)
    assert word in str(info.value)


def test_default_rounds():
    for n, rounds in ((2, 2), (3, 3), (4, 4), (5, 5)):
        e = scout_v0.raw_env(num_players=n)
        e.reset(seed=0)
        assert e.state_dict()["rounds"] == rounds


# --- illegal actions --------------------------------------------------------------------------
@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_raw_env_rejects_illegal_actions(n):
    check_action_validation("scout", n)


@pytest.mark.parametrize("n", (2, 4))
def test_wrapped_env_illegal_move_terminates(n):
    e = scout_v0.env(num_players=n)
    e.reset(seed=3)
    mover = e.agent_selection
    mask = e.observe(mover)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    e.step(illegal)
    assert all(e.terminations.values())
    assert e.rewards[mover] == -1
    assert all(r == 0 for a, r in e.rewards.items() if a != mover)


# --- state dicts ------------------------------------------------------------------------------
@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_state_dict_round_trip_mid_game(n):
    # Along random games, on every option set: load, same position, same play after (next deals too).
    check_state_dict("scout", n)


def _base_dict(n=4):
    e = scout_v0.raw_env(num_players=n)
    e.reset(seed=5)
    random_steps(e, 12, np.random.default_rng(5))
    return e.state_dict()


def _bad(field, value):
    def edit(d):
        d[field] = value

    return edit


def _drop(field):
    def edit(d):
        del d[field]

    return edit


def _duplicate_card(d):
    d["collected"][0].append(list(d["hands"][1][0]))


def _card_outside_deck(d):
    d["hands"][0][0] = [9, 10]  # removed from the 4-player deck


@pytest.mark.parametrize(
    "edit, field",
    [
        (_drop("hands"), "hands"),
        (_drop("phase"), "phase"),
        (_bad("phase", "bidding"), "phase"),
        (_bad("current_player", 4), "current_player"),
        (_bad("starting_player", -1), "starting_player"),
        (_bad("round", 7), "round"),
        (_bad("rounds", 0), "rounds"),
        (_bad("ii_after_empty_set", "yes"), "ii_after_empty_set"),
        (_bad("hands", [[]] * 3), "hands"),
        (_bad("active_set", [[3, 4], [7, 1]]), "active_set"),
        (_bad("active_owner", 9), "active_owner"),
        (_bad("scout_chips", [0, 0, -1, 0]), "scout_chips"),
        (_bad("scout_and_show_left", [1, 1, 1, 1]), "scout_and_show_left"),
        (_bad("known", [[], [], [], []]), "known"),
        (_bad("round_scores", [[1, 2, 3, 4]]), "round_scores"),
        (_bad("round_end_reasons", ["iii"]), "round_end_reasons"),
        (_bad("scores", [1, 0, 0, 0]), "scores"),
        (_bad("rng", "seed"), "rng"),
        (_bad("set_aside", [[1, 2]]), "set_aside"),
        (_bad("colour", "red"), "colour"),
        (_duplicate_card, "collected"),
        (_card_outside_deck, "hands"),
    ],
)
def test_malformed_state_dict(edit, field):
    d = _base_dict()
    e = scout_v0.raw_env(num_players=4)
    e.reset(seed=1)
    before = e.state_dict()
    edit(d)
    with pytest.raises(ValueError) as info:
        e.from_state_dict(d)
    if field is not None:
        assert repr(field) in str(info.value)
    assert e.state_dict() == before


def test_state_dict_wrong_player_count_and_game():
    d = _base_dict(3)
    with pytest.raises(ValueError, match="num_players"):
        scout_v0.raw_env(num_players=4).from_state_dict(d)
    d["game"] = "sly"
    with pytest.raises(ValueError, match="game"):
        scout_v0.raw_env(num_players=3).from_state_dict(d)


def test_max_hand_guard():
    """No position can overflow a hand: the loader refuses what the MAX_HAND proof excludes,
    and the kernels refuse (RuntimeError) instead of writing out of bounds should a row
    ever get there by other means."""
    from sly_scout_env.scout import rules as R

    e = scout_v0.raw_env(num_players=2)
    e.reset(seed=0)
    d = e.state_dict()
    cards = [[a, b] for a in range(1, 11) for b in range(a + 1, 11) if (a, b) != (9, 10)]
    d.update(
        phase="play", current_player=0, active_owner=1, active_set=[cards[20]],
        hands=[cards[:14], cards[14:15]], known=[[False] * 14, [False]], set_aside=cards[22:44],
        collected=[[], []], scout_chips=[3, 3],
    )  # fmt: skip
    before = e.state_dict()
    with pytest.raises(ValueError, match="hands"):  # 14 cards + 3 chips > 11 + 3
        e.from_state_dict(d)
    assert e.state_dict() == before
    d["scout_chips"] = [0, 3]  # 14 cards, no chip left: reachable (three Scouts)
    e.from_state_dict(d)
    e._state[R.O_SCOUT_CHIPS + 0] = 1  # forge a chip: the kernels must refuse, not overflow
    with pytest.raises(RuntimeError, match="MAX_HAND"):
        e.legal_action_mask()
    d["hands"][0] = cards[:15]
    d["known"][0] = [False] * 15
    with pytest.raises(ValueError, match="hands"):
        e.from_state_dict(d)
    for n in (3, 4, 5):  # 3-5 players: every hand holds a card while the game runs
        e = scout_v0.raw_env(num_players=n)
        e.reset(seed=0)
        d = e.state_dict()
        d["hands"][1] = []
        d["known"][1] = []
        with pytest.raises(ValueError, match="hands"):
            e.from_state_dict(d)
