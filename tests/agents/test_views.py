"""player_view leaks nothing: changing what a seat cannot know leaves its view unchanged."""

import copy

import numpy as np
import pytest

from sly_scout_env import scout_v0, sly_v0
from sly_scout_env.agents.bots.views import player_view


def _positions(env_mod, num_players, seed, every=3, **options):
    """State dicts along a random game (every few moves, and the last one)."""
    env = env_mod.raw_env(num_players=num_players, **options)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    out = [env.state_dict()]
    step = 0
    while not env.terminations[env.agent_selection]:
        env.step(int(rng.choice(np.flatnonzero(env.legal_action_mask()))))
        step += 1
        if step % every == 0:
            out.append(env.state_dict())
    out.append(env.state_dict())
    return out


def _scout_change_hidden(d, viewer):
    d = copy.deepcopy(d)
    for s, hand in enumerate(d["hands"]):
        if s == viewer:
            continue
        for i, card in enumerate(hand):
            if d["phase"] == "flip" or not d["known"][s][i]:
                hand[i] = [card[1], card[0]] if i % 2 else [99, 98]  # other orientation / other card
    d["set_aside"] = list(reversed(d["set_aside"]))[:-1] if d["set_aside"] else []
    if d["set_aside"]:
        d["set_aside"].append([77, 76])  # same length, other cards
    d["rng"] = d["rng"] + 12345
    return d


def _sly_change_hidden(d, viewer):
    d = copy.deepcopy(d)
    for s, hand in enumerate(d["hands"]):
        if s != viewer:
            known = list(d["known_in_hand"][s])
            d["hands"][s] = known + [50 + i for i in range(len(hand) - len(known))]
    if not d["game_over"]:
        for sp in d["spaces"]:
            if sp is not None and not sp["safe"] and sp["owner"] != viewer:
                sp["card"] = (sp["card"] + 3) % 7
    d["rng"] = d["rng"] ^ 0x5555
    return d


@pytest.mark.parametrize("players, seed", [(2, 1), (3, 2), (4, 3)])
def test_scout_view_hides_everything_hidden(players, seed):
    positions = _positions(scout_v0, players, seed, every=4)
    saw_flip = False
    for d in positions:
        for viewer in range(players):
            view = player_view(d, viewer)
            assert view == player_view(_scout_change_hidden(d, viewer), viewer)
            assert "rng" not in view and view["viewer"] == viewer
            assert view["hands"][viewer] == d["hands"][viewer]
            assert view["hand_sizes"] == [len(h) for h in d["hands"]]
            assert view["set_aside"] == len(d["set_aside"])
            for s in range(players):
                if s == viewer:
                    continue
                for i, card in enumerate(view["hands"][s]):
                    if d["phase"] != "flip" and d["known"][s][i]:
                        assert card == d["hands"][s][i]  # public cards stay visible
                    else:
                        assert card is None
            saw_flip |= d["phase"] == "flip"
    assert saw_flip
    # Control: a change to what the viewer does know changes the view.
    d = positions[1]
    changed = copy.deepcopy(d)
    changed["hands"][0][0] = [changed["hands"][0][0][1], changed["hands"][0][0][0]]
    assert player_view(changed, 0) != player_view(d, 0)


def test_scout_known_cards_are_shown():
    # Find a position in which some opponent holds a scouted (public) card.
    for seed in range(20):
        for d in _positions(scout_v0, 3, seed, every=1):
            for s in range(3):
                if d["phase"] != "flip" and any(d["known"][s]):
                    viewer = (s + 1) % 3
                    i = d["known"][s].index(True)
                    assert player_view(d, viewer)["hands"][s][i] == d["hands"][s][i]
                    return
    pytest.fail("no scouted card in 20 random games")


@pytest.mark.parametrize("players, seed", [(2, 4), (3, 5), (4, 6)])
def test_sly_view_hides_everything_hidden(players, seed):
    positions = _positions(sly_v0, players, seed, every=1)
    saw_face_down = False
    for d in positions:
        for viewer in range(players):
            view = player_view(d, viewer)
            assert view == player_view(_sly_change_hidden(d, viewer), viewer)
            assert "rng" not in view
            assert view["hands"][viewer] == d["hands"][viewer]
            for s in range(players):
                assert len(view["hands"][s]) == len(d["hands"][s])
                if s != viewer:
                    assert [c for c in view["hands"][s] if c is not None] == sorted(d["known_in_hand"][s])
            if not d["game_over"]:
                for sp, vp in zip(d["spaces"], view["spaces"]):
                    if sp is not None and not sp["safe"] and sp["owner"] != viewer:
                        saw_face_down = True
                        assert vp == {"owner": sp["owner"], "card": None, "safe": False}
                    else:
                        assert vp == sp
    assert saw_face_down
    # Control: the viewer's own face-down card is part of its view.
    for d in positions:
        own = [i for i, sp in enumerate(d["spaces"]) if sp and not sp["safe"] and sp["owner"] == 0]
        if own and not d["game_over"]:
            changed = copy.deepcopy(d)
            changed["spaces"][own[0]]["card"] = (changed["spaces"][own[0]]["card"] + 1) % 7
            assert player_view(changed, 0) != player_view(d, 0)
            break
    else:
        pytest.fail("seat 0 never had a face-down card")


def test_view_input_untouched_and_bad_seat():
    d = _positions(sly_v0, 3, 0)[2]
    before = copy.deepcopy(d)
    player_view(d, 1)
    assert d == before
    with pytest.raises(ValueError, match="seat"):
        player_view(d, 3)
    with pytest.raises(ValueError, match="game"):
        player_view({"game": "chess", "num_players": 2}, 0)
