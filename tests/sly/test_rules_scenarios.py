"""Literal Sly scenarios: hand-written positions, one action, hand-worked results.

Every expected value below is worked out by hand from docs/sly_rules.md (the
comments show the working). Each scenario runs on the compiled engine through its
public env API, and also on the plain-Python reference (tests/sly/reference.py), so a
failure says which side misreads the rule.
"""

from __future__ import annotations

import numpy as np
import pytest

from .reference import SlyReference, build_state

FOX = 0


def mkey(move: dict) -> tuple:
    """A hashable form of a decoded move dict."""
    return tuple(sorted(move.items()))


def lay(card, space):
    return {"type": "lay", "card": card, "space": space}


def expose(space):
    return {"type": "expose", "space": space}


def reveal(house):
    return {"type": "reveal", "house": house}


def action_id(move: dict, hen_houses: int) -> int:
    """The flat action id of ``move`` from the contract's layout (written out independently)."""
    S = 4 * hen_houses
    if move["type"] == "lay":
        return move["card"] * S + move["space"]
    if move["type"] == "expose":
        return 7 * S + move["space"]
    return 8 * S + (hen_houses if move["house"] is None else move["house"])


# -- the two implementations behind one small interface ---------------------------------
class EngineGame:
    name = "engine"

    def __init__(self, d: dict, **env_kw):
        from sly_scout_env.sly_v0 import raw_env

        self.hen_houses = d["hen_houses"]
        self.env = raw_env(num_players=d["num_players"], hen_houses=d["hen_houses"],
                           reveal_scope=d["reveal_scope"], first_player=d["first_player"], **env_kw)
        self.env.reset(seed=0)
        self.env.from_state_dict(d)

    def legal(self) -> set:
        mask = self.env.legal_action_mask()
        return {mkey(self.env.decode_action(int(a))) for a in np.flatnonzero(mask)}

    def mask(self) -> np.ndarray:
        return self.env.legal_action_mask()

    def act(self, move: dict) -> None:
        a = self.env.encode_action(move)
        assert a == action_id(move, self.hen_houses)
        self.env.step(a)

    def state(self) -> dict:
        return self.env.state_dict()

    def rewards(self) -> list[float]:
        return [self.env.rewards[a] for a in self.env.possible_agents]


class ReferenceGame:
    name = "reference"

    def __init__(self, d: dict, **env_kw):
        self.hen_houses = d["hen_houses"]
        self.g = SlyReference.from_state_dict(d)

    def legal(self) -> set:
        return {mkey(m) for m in self.g.legal_moves()}

    def mask(self) -> np.ndarray:
        n = 8 * 4 * self.hen_houses + self.hen_houses + 1
        m = np.zeros(n, dtype=np.int8)
        for mv in self.g.legal_moves():
            m[action_id(mv, self.hen_houses)] = 1
        return m

    def act(self, move: dict) -> None:
        self.g.apply(move)

    def state(self) -> dict:
        return self.g.to_state_dict()


@pytest.fixture(params=["engine", "reference"])
def Game(request):
    return EngineGame if request.param == "engine" else ReferenceGame


# -- Lay -----------------------------------------------------------------------------
def test_lay_puts_the_card_face_down_on_the_empty_space(Game):
    d = build_state(3)  # 2 houses, 8 spaces, all hands full, seat 0 to act
    g = Game(d)
    assert mkey(lay(4, 6)) in g.legal()
    g.act(lay(4, 6))
    st = g.state()
    assert st["hands"][0] == [0, 1, 2, 3, 5, 6]
    assert st["spaces"][6] == {"owner": 0, "card": 4, "safe": False}
    assert [s for i, s in enumerate(st["spaces"]) if i != 6] == [None] * 7
    assert st["current_player"] == 1  # play passes to the left (seat + 1)
    assert st["game_over"] is False
    assert st["scores"] == [0, 0, 0]


def test_lay_only_on_empty_spaces_and_only_cards_in_hand(Game):
    # Seat 0 holds [1, 2] (Fox face down on 0, Hens 3-6 gobbled by seat 1); seat 1 has a
    # face-down card on 1 and a Safe Hen on 2; space 3 is the only empty space.
    d = build_state(2, {0: (0, FOX), 1: (1, 1), 2: (1, 2, "safe")},
                    gobbled={1: [(0, 3), (0, 4), (0, 5), (0, 6)]})
    g = Game(d)
    # Lay 1 or 2 on space 3; expose seat 1's face-down card on 1 (not the Safe Hen, not
    # our own card); reveal house 0.
    assert g.legal() == {mkey(lay(1, 3)), mkey(lay(2, 3)), mkey(expose(1)), mkey(reveal(0))}
    assert set(np.flatnonzero(g.mask()).tolist()) == {1 * 4 + 3, 2 * 4 + 3, 28 + 1, 32}


# -- Expose --------------------------------------------------------------------------
@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_expose_a_fox_captures_it_worth_the_number_of_players(Game, num_players):
    d = build_state(num_players, {2: (1, FOX), 1: (0, 3)}, current=0)
    g = Game(d)
    g.act(expose(2))
    st = g.state()
    assert st["captured"][0] == [1]
    assert st["spaces"][2] is None  # the space becomes empty
    assert st["spaces"][1] == {"owner": 0, "card": 3, "safe": False}
    assert st["hands"][1] == [1, 2, 3, 4, 5, 6]  # the Fox is out of its owner's game
    expected = [0] * num_players
    expected[0] = num_players
    assert st["scores"] == expected
    assert st["current_player"] == 1
    # Seat 1 (to act now) can never lay its Fox again.
    assert not any(k == mkey(lay(FOX, s)) for k in g.legal() for s in range(len(st["spaces"])))
    assert all(dict(k).get("card") != FOX for k in g.legal())


def test_expose_a_hen_makes_it_safe_on_its_space_scoring_the_space_value(Game):
    # Seat 2's Hen 5 face down on space 3 (house 0, value 4); seat 0 guesses Fox.
    d = build_state(3, {3: (2, 5)}, current=0)
    g = Game(d)
    g.act(expose(3))
    st = g.state()
    assert st["spaces"][3] == {"owner": 2, "card": 5, "safe": True}  # stays, face up
    assert st["scores"] == [0, 0, 4]  # the space's value, for the Hen's owner
    assert st["captured"] == [[], [], []]
    assert st["hands"][2] == [0, 1, 2, 3, 4, 6]
    assert st["current_player"] == 1
    # Safe for the rest of the game: seat 1 can neither expose it nor lay on its space.
    legal = g.legal()
    assert mkey(expose(3)) not in legal
    assert all(not (dict(k)["type"] == "lay" and dict(k)["space"] == 3) for k in legal)
    assert mkey(reveal(0)) not in legal  # no face-down card left in house 0


def test_expose_a_hen_on_a_value_2_space_of_the_second_house(Game):
    # Space 5 is house 1, value 5 % 4 + 1 = 2.
    d = build_state(4, {5: (3, 6)}, current=1)
    g = Game(d)
    g.act(expose(5))
    assert g.state()["scores"] == [0, 0, 0, 2]


def test_expose_is_illegal_on_own_cards_and_on_safe_hens(Game):
    d = build_state(3, {0: (0, 2), 1: (1, 4, "safe"), 2: (2, 1)}, current=0)
    g = Game(d)
    legal = g.legal()
    assert mkey(expose(0)) not in legal  # own face-down card
    assert mkey(expose(1)) not in legal  # an opponent's Safe Hen
    assert mkey(expose(2)) in legal  # an opponent's face-down card
    assert mkey(expose(3)) not in legal  # an empty space
    mask = g.mask()
    assert mask[7 * 8 + 0] == 0 and mask[7 * 8 + 1] == 0 and mask[7 * 8 + 2] == 1


def test_engine_refuses_illegal_expose_and_keeps_state():
    d = build_state(3, {0: (0, 2), 1: (1, 4, "safe")}, current=0)
    g = EngineGame(d)
    before = g.state()
    for s in (0, 1, 3):
        with pytest.raises(ValueError):
            g.env.step(7 * 8 + s)
    assert g.state() == before


# -- Reveal: the three results -------------------------------------------------------
def test_reveal_fox_and_hens(Game):
    # House 0: space 0 seat 1 Hen 3, space 1 seat 2 Fox, space 2 seat 0 Hen 5, space 3
    # seat 2 Hen 2. House 1: space 5 seat 1 Hen 6 (not revealed). Seat 0 reveals house 0.
    # Hens rank 5 (seat 0), 3 (seat 1), 2 (seat 2); the only Fox is seat 2's.
    # -> seat 2 gobbles seat 0's Hen 5 (+5); seat 1's Hen 3 on space 0 is Safe (value 1);
    #    seat 2's Fox and Hen 2 return home (known in hand); spaces 1, 2, 3 empty.
    d = build_state(3, {0: (1, 3), 1: (2, FOX), 2: (0, 5), 3: (2, 2), 5: (1, 6)}, current=0)
    g = Game(d)
    g.act(reveal(0))
    st = g.state()
    assert st["gobbled"] == [[], [], [{"owner": 0, "card": 5}]]
    assert st["spaces"][:4] == [{"owner": 1, "card": 3, "safe": True}, None, None, None]
    assert st["spaces"][5] == {"owner": 1, "card": 6, "safe": False}  # other house untouched
    assert st["hands"][2] == [0, 1, 2, 3, 4, 5, 6]
    assert st["hands"][0] == [0, 1, 2, 3, 4, 6]
    assert st["known_in_hand"] == [[], [], [0, 2]]
    assert st["scores"] == [0, 1, 5]
    assert st["captured"] == [[], [], []]
    assert st["current_player"] == 1


def test_reveal_gobbling_ones_own_hen_scores_minus_its_number(Game):
    # 2 players, 1 house: seat 0's Fox on 0 and seat 0's Hen 4 on 3; seat 1 reveals.
    # Seat 0's Fox gobbles seat 0's own Hen 4: -4. No Hen left to be Safe; the Fox goes home.
    d = build_state(2, {0: (0, FOX), 3: (0, 4), 1: (1, 2, "safe")}, current=1)
    g = Game(d)
    g.act(reveal(0))
    st = g.state()
    assert st["gobbled"] == [[{"owner": 0, "card": 4}], []]
    assert st["scores"] == [-4, 2]  # seat 1's Safe Hen on space 1 is worth 2
    assert st["spaces"] == [None, {"owner": 1, "card": 2, "safe": True}, None, None]
    assert st["hands"][0] == [0, 1, 2, 3, 5, 6]
    assert st["known_in_hand"] == [[0], []]


def test_reveal_own_fox_gobbles_own_hen_when_it_is_the_top_one(Game):
    # 3 players. Seat 1 (active) has Fox on 4 and Hen 6 on 5; seat 2 Hen 6 on 6.
    # Equal Hens 6: the active seat 1 ranks first -> seat 1 gobbles its own Hen 6 (-6);
    # seat 2's Hen 6 on space 6 (value 3) becomes Safe.
    d = build_state(3, {4: (1, FOX), 5: (1, 6), 6: (2, 6)}, current=1)
    g = Game(d)
    g.act(reveal(1))
    st = g.state()
    assert st["gobbled"][1] == [{"owner": 1, "card": 6}]
    assert st["spaces"][4:] == [None, None, {"owner": 2, "card": 6, "safe": True}, None]
    assert st["scores"] == [0, -6, 3]


def test_reveal_hens_only_top_hen_safe_rest_home(Game):
    # House 0: seat 0 Hen 2 on 0, seat 1 Hen 5 on 1, seat 2 Hen 1 on 3. Seat 2 reveals.
    # Top Hen: seat 1's 5 -> Safe on space 1 (value 2); the others go home.
    d = build_state(3, {0: (0, 2), 1: (1, 5), 3: (2, 1)}, current=2)
    g = Game(d)
    g.act(reveal(0))
    st = g.state()
    assert st["spaces"][:4] == [None, {"owner": 1, "card": 5, "safe": True}, None, None]
    assert st["gobbled"] == [[], [], []]
    assert st["scores"] == [0, 2, 0]
    assert st["hands"][0] == [0, 1, 2, 3, 4, 5, 6]
    assert st["hands"][2] == [0, 1, 2, 3, 4, 5, 6]
    assert st["known_in_hand"] == [[2], [], [1]]
    assert st["current_player"] == 0


def test_reveal_single_hen_becomes_safe(Game):
    d = build_state(2, {2: (1, 3)}, current=0)
    g = Game(d)
    g.act(reveal(0))
    st = g.state()
    assert st["spaces"] == [None, None, {"owner": 1, "card": 3, "safe": True}, None]
    assert st["scores"] == [0, 3]
    assert st["known_in_hand"] == [[], []]


def test_reveal_foxes_only_all_home(Game):
    d = build_state(3, {0: (1, FOX), 2: (2, FOX), 4: (0, 3)}, current=0)
    g = Game(d)
    g.act(reveal(0))
    st = g.state()
    assert st["spaces"][:4] == [None] * 4
    assert st["spaces"][4] == {"owner": 0, "card": 3, "safe": False}
    assert st["hands"][1] == [0, 1, 2, 3, 4, 5, 6]
    assert st["hands"][2] == [0, 1, 2, 3, 4, 5, 6]
    assert st["known_in_hand"] == [[], [0], [0]]
    assert st["gobbled"] == [[], [], []] and st["captured"] == [[], [], []]
    assert st["scores"] == [0, 0, 0]
    assert st["current_player"] == 1


def test_reveal_ignores_safe_hens(Game):
    # House 0: seat 1's Safe Hen 6 on 0, seat 2's Fox on 1, seat 0's Hen 1 on 2.
    # The Fox gobbles the Hen 1 (the Safe Hen 6 does not take part); nothing else.
    d = build_state(3, {0: (1, 6, "safe"), 1: (2, FOX), 2: (0, 1)}, current=0)
    g = Game(d)
    g.act(reveal(0))
    st = g.state()
    assert st["spaces"][:4] == [{"owner": 1, "card": 6, "safe": True}, None, None, None]
    assert st["gobbled"] == [[], [], [{"owner": 0, "card": 1}]]
    assert st["scores"] == [0, 1, 1]
    assert st["hands"][2] == [0, 1, 2, 3, 4, 5, 6]


def test_reveal_ignores_safe_hens_hens_only(Game):
    # Safe Hen 6 of seat 0 on 3 and a face-down Hen 2 of seat 1 on 0: the Hen 2 is the
    # top (only) revealed Hen and becomes Safe even though a higher Safe Hen is there.
    d = build_state(2, {3: (0, 6, "safe"), 0: (1, 2)}, current=0)
    g = Game(d)
    g.act(reveal(0))
    st = g.state()
    assert st["spaces"] == [{"owner": 1, "card": 2, "safe": True}, None, None,
                            {"owner": 0, "card": 6, "safe": True}]


def test_reveal_illegal_on_a_house_without_face_down_cards(Game):
    # House 0 holds only Safe Hens; house 1 is empty: no Reveal is legal.
    d = build_state(3, {0: (1, 6, "safe"), 2: (2, 3, "safe")}, current=0)
    g = Game(d)
    legal = g.legal()
    assert mkey(reveal(0)) not in legal and mkey(reveal(1)) not in legal
    mask = g.mask()
    assert mask[64] == 0 and mask[65] == 0 and mask[66] == 0
    # A face-down card in house 1 makes Reveal house 1 legal, house 0 still not.
    d = build_state(3, {0: (1, 6, "safe"), 7: (0, 3)}, current=1)
    g = Game(d)
    assert mkey(reveal(1)) in g.legal() and mkey(reveal(0)) not in g.legal()


# -- Ranking: ties from the active player to the left ---------------------------------
@pytest.mark.parametrize("active", [0, 1, 2, 3])
def test_equal_hens_rank_from_the_active_player(Game, active):
    # 4 players, house 1: Hen 3 of seat k on space 4 + k. Hens only, all equal: the active
    # player's Hen ranks highest, so it is the one made Safe (on space 4 + active, value
    # active + 1); the three others go home.
    d = build_state(4, {4: (0, 3), 5: (1, 3), 6: (2, 3), 7: (3, 3)}, current=active)
    g = Game(d)
    g.act(reveal(1))
    st = g.state()
    for k in range(4):
        if k == active:
            assert st["spaces"][4 + k] == {"owner": k, "card": 3, "safe": True}
            assert st["hands"][k] == [0, 1, 2, 4, 5, 6]
        else:
            assert st["spaces"][4 + k] is None
            assert st["hands"][k] == [0, 1, 2, 3, 4, 5, 6]
            assert st["known_in_hand"][k] == [3]
    expected = [0, 0, 0, 0]
    expected[active] = active + 1
    assert st["scores"] == expected


@pytest.mark.parametrize(
    "active, a, b, winner",
    [
        # 3 players, two equal Hens 4 of seats a (space 0) and b (space 1), neither active.
        # From the active seat to the left: the seat at distance 1 beats distance 2.
        (2, 1, 0, 0),  # from seat 2: seat 0 (left) before seat 1 (right)
        (0, 1, 2, 1),  # from seat 0: seat 1 before seat 2
        (1, 0, 2, 2),  # from seat 1: seat 2 before seat 0
    ],
)
def test_equal_hens_direction_is_to_the_left(Game, active, a, b, winner):
    d = build_state(3, {0: (a, 4), 1: (b, 4)}, current=active)
    g = Game(d)
    g.act(reveal(0))
    st = g.state()
    safe_space = 0 if winner == a else 1
    assert st["spaces"][safe_space] == {"owner": winner, "card": 4, "safe": True}
    assert st["spaces"][1 - safe_space] is None
    assert st["scores"][winner] == safe_space + 1


def test_equal_hens_with_a_fox_gobble_and_safe_in_tie_order(Game):
    # 4 players, house 0: seat 3's Fox on 0; Hen 6 of seat 1 on 1, of seat 2 on 2, of seat
    # 0 on 3. Seat 2 is active: Hen order seat 2 (d0), seat 0 (d2), seat 1 (d3).
    # -> seat 3 gobbles seat 2's Hen 6 (+6); seat 0's Hen 6 on space 3 Safe (value 4);
    #    seat 1's Hen 6 and seat 3's Fox go home.
    d = build_state(4, {0: (3, FOX), 1: (1, 6), 2: (2, 6), 3: (0, 6)}, current=2)
    g = Game(d)
    g.act(reveal(0))
    st = g.state()
    assert st["gobbled"][3] == [{"owner": 2, "card": 6}]
    assert st["spaces"][:4] == [None, None, None, {"owner": 0, "card": 6, "safe": True}]
    assert st["scores"] == [4, 0, 0, 6]
    assert st["known_in_hand"] == [[], [6], [], [0]]
    assert st["hands"][1] == [0, 1, 2, 3, 4, 5, 6] and st["hands"][3] == [0, 1, 2, 3, 4, 5, 6]


@pytest.mark.parametrize("active, gobbler", [(0, 0), (1, 1), (2, 3), (3, 3)])
def test_several_foxes_rank_from_the_active_player_to_the_left(Game, active, gobbler):
    # 4 players, house 0: Foxes of seats 1 (space 0), 3 (space 1), 0 (space 2); seat 2's
    # Hen 2 on space 3. The top Fox is the first Fox owner met going left from the active
    # seat: from 0 -> 0; from 1 -> 1; from 2 -> 3 (seat 3 is left of 2, seat 1 is right);
    # from 3 -> 3. It gobbles the Hen 2 (+2; -2 never, seat 2 owns no Fox here).
    d = build_state(4, {0: (1, FOX), 1: (3, FOX), 2: (0, FOX), 3: (2, 2)}, current=active)
    g = Game(d)
    g.act(reveal(0))
    st = g.state()
    expected_gob = [[], [], [], []]
    expected_gob[gobbler] = [{"owner": 2, "card": 2}]
    assert st["gobbled"] == expected_gob
    expected_scores = [0, 0, 0, 0]
    expected_scores[gobbler] = 2
    assert st["scores"] == expected_scores
    assert st["spaces"][:4] == [None] * 4  # every Fox goes home, the gobbling one too
    for seat in (0, 1, 3):
        assert FOX in st["hands"][seat] and st["known_in_hand"][seat] == [0]


@pytest.mark.parametrize("active, gobbler", [(0, 0), (1, 2), (2, 2)])
def test_several_foxes_three_players(Game, active, gobbler):
    # Foxes of seats 0 (space 1) and 2 (space 2), seat 1's Hen 5 on space 0.
    # From seat 1 going left: seat 2 before seat 0.
    d = build_state(3, {1: (0, FOX), 2: (2, FOX), 0: (1, 5)}, current=active)
    g = Game(d)
    g.act(reveal(0))
    st = g.state()
    assert st["gobbled"][gobbler] == [{"owner": 1, "card": 5}]
    assert sum(len(p) for p in st["gobbled"]) == 1


# -- End of the game -----------------------------------------------------------------
def end_position(num_players=3):
    # Seat 1 holds only its Hen 6. Its other cards: Hen 5 face down on 0, Fox on 4, Hens 1
    # and 2 face down on 5 and 6, Hen 3 gobbled by seat 0, Hen 4 Safe on 7. Seat 2 has its
    # Hen 3 on 1 and its Fox on 2, face down. Space 3 is empty. Seat 0 is to act.
    return build_state(
        num_players,
        {0: (1, 5), 1: (2, 3), 2: (2, FOX), 4: (1, FOX), 5: (1, 1), 6: (1, 2), 7: (1, 4, "safe")},
        gobbled={0: [(1, 3)]},
        current=0,
    )


def test_game_ends_when_the_player_to_act_holds_one_card_with_the_final_flip(Game):
    d = end_position()
    g = Game(d)
    g.act(lay(6, 3))  # seat 0 lays Hen 6 on the last empty space; seat 1 (1 card) is next
    st = g.state()
    assert st["game_over"] is True
    assert st["end_reason"] == "hand"
    # Final flip: face-down Hens are Safe where they lie, Foxes stay face up worth nothing.
    assert st["spaces"] == [
        {"owner": 1, "card": 5, "safe": True},   # value 1
        {"owner": 2, "card": 3, "safe": True},   # value 2
        {"owner": 2, "card": FOX, "safe": False},
        {"owner": 0, "card": 6, "safe": True},   # value 4
        {"owner": 1, "card": FOX, "safe": False},
        {"owner": 1, "card": 1, "safe": True},   # value 2
        {"owner": 1, "card": 2, "safe": True},   # value 3
        {"owner": 1, "card": 4, "safe": True},   # value 4 (already Safe)
    ]
    # seat 0: Safe Hen on 3 (4) + gobbled seat 1's Hen 3 (+3) = 7
    # seat 1: 1 + 2 + 3 + 4 = 10;  seat 2: 2
    assert st["scores"] == [7, 10, 2]
    assert st["hands"][1] == [6]
    assert g.legal() == set()


def test_score_reward_pays_final_points_at_the_end_only():
    d = end_position()
    g = EngineGame(d, reward="score")
    g.act(lay(6, 3))
    assert g.rewards() == [7.0, 10.0, 2.0]
    assert all(g.env.terminations.values())


def test_score_reward_is_zero_before_the_end_even_when_points_are_made():
    # An Expose that makes a Hen Safe gives seat 2 four points on the table, but the
    # "score" reward pays only at the end of the game.
    d = build_state(3, {3: (2, 5)}, current=0)
    g = EngineGame(d, reward="score")
    g.act(expose(3))
    assert g.state()["scores"] == [0, 0, 4]
    assert g.rewards() == [0.0, 0.0, 0.0]
    assert not any(g.env.terminations.values())


def test_end_check_is_at_the_start_of_the_turn_not_after_laying(Game):
    # 2 players: seat 0 holds 2 cards and lays one (holding 1): the game goes on; seat 1
    # plays; at the start of seat 0's next turn it holds 1 card: the game ends.
    d = build_state(2, {0: (0, 1), 1: (0, 2), 2: (0, 3)}, gobbled={1: [(0, 4), (0, 5)]},
                    current=0)  # seat 0 hand [0, 6]
    g = Game(d)
    assert g.state()["hands"][0] == [0, 6]
    g.act(lay(FOX, 3))
    st = g.state()
    assert st["game_over"] is False and st["current_player"] == 1 and st["hands"][0] == [6]
    g.act(expose(3))  # seat 1 captures seat 0's Fox (+2), space 3 empties
    st = g.state()
    assert st["game_over"] is True and st["end_reason"] == "hand"
    # Final flip: seat 0's Hens 1, 2, 3 Safe on spaces 0, 1, 2 (1 + 2 + 3 = 6).
    # Seat 1: gobbled seat 0's Hens 4 and 5 (+9) and captured a Fox (+2) = 11.
    assert st["scores"] == [6, 11]
    assert [sp["safe"] for sp in st["spaces"][:3]] == [True, True, True]


def test_two_cards_in_hand_is_not_the_end(Game):
    d = build_state(3, {0: (1, 1), 1: (1, 2), 2: (1, 3), 3: (1, 4), 4: (1, 5)}, current=0)
    g = Game(d)  # seat 1 holds [0, 6]
    g.act(lay(6, 5))
    st = g.state()
    assert st["game_over"] is False and st["current_player"] == 1
    assert len(g.legal()) > 0


def test_game_ends_when_every_space_holds_a_safe_hen(Game):
    # 2 players, 1 house: three Safe Hens; seat 0 exposes seat 1's last face-down Hen 2.
    d = build_state(2, {0: (0, 6, "safe"), 1: (1, 5, "safe"), 2: (0, 4, "safe"), 3: (1, 2)}, current=0)
    g = Game(d)
    g.act(expose(3))
    st = g.state()
    assert st["game_over"] is True and st["end_reason"] == "all_safe"
    assert st["scores"] == [1 + 3, 2 + 4]
    assert g.legal() == set()


def test_all_safe_end_by_a_reveal_with_two_houses(Game):
    # 3 players, 2 houses: 7 Safe Hens and one face-down Hen; the Reveal of house 1 makes
    # it Safe and every space holds a Safe Hen.
    spaces = {0: (0, 1, "safe"), 1: (0, 2, "safe"), 2: (1, 1, "safe"), 3: (1, 2, "safe"),
              4: (2, 1, "safe"), 5: (2, 2, "safe"), 6: (0, 3, "safe"), 7: (1, 6)}
    d = build_state(3, spaces, current=2)
    g = Game(d)
    g.act(reveal(1))
    st = g.state()
    assert st["game_over"] is True and st["end_reason"] == "all_safe"
    # seat 0: 1 + 2 + 3 = 6; seat 1: 3 + 4 + 4 = 11; seat 2: 1 + 2 = 3
    assert st["scores"] == [6, 11, 3]


def test_not_over_while_a_space_is_empty(Game):
    spaces = {0: (0, 1, "safe"), 1: (0, 2, "safe"), 2: (1, 1, "safe"), 3: (1, 2, "safe"),
              4: (2, 1, "safe"), 5: (2, 2, "safe"), 6: (1, 6)}
    d = build_state(3, spaces, current=0)
    g = Game(d)
    g.act(expose(6))  # space 7 is still empty
    st = g.state()
    assert st["game_over"] is False and st["spaces"][6]["safe"] is True


# -- Rewards "win" ---------------------------------------------------------------------
def test_win_reward_zero_sum():
    d = build_state(2, {0: (0, 6, "safe"), 1: (1, 5, "safe"), 2: (0, 4, "safe"), 3: (1, 2)}, current=0)
    g = EngineGame(d, reward="win")
    g.act(expose(3))  # final scores [4, 6]
    assert g.rewards() == [-1.0, 1.0]


def test_win_reward_shared_ties():
    # 3 players, 1 house. Seat 0: Safe Hen on 0 (1) + seat 2's Fox captured (3) + seat 2's
    # Hen 2 gobbled (2) = 6. Seat 1: Safe Hen on 1 (2), then its Hen 2 on 3 is exposed and
    # Safe (4) = 6. Seat 2: Safe Hen on 2 (3). -> seats 0 and 1 share the win.
    d = build_state(3, {0: (0, 1, "safe"), 1: (1, 1, "safe"), 2: (2, 1, "safe"), 3: (1, 2)},
                    captured={0: [2]}, gobbled={0: [(2, 2)]}, hen_houses=1, current=0)
    g = EngineGame(d, reward="win")
    g.act(expose(3))
    assert g.state()["scores"] == [6, 6, 3]
    r = g.rewards()
    assert r == [0.5, 0.5, -1.0]
    assert sum(r) == 0.0


def test_win_reward_all_tied_is_zero():
    # 2 players, 1 house: Safe Hens of seat 0 on 0 (1) and 3 (4), of seat 1 on 1 (2);
    # seat 1's Hen on 2 (3) is exposed by seat 0: 5 all.
    d = build_state(2, {0: (0, 1, "safe"), 3: (0, 2, "safe"), 1: (1, 1, "safe"), 2: (1, 2)}, current=0)
    g = EngineGame(d, reward="win")
    g.act(expose(2))
    assert g.state()["scores"] == [5, 5]
    assert g.rewards() == [0.0, 0.0]


# -- reveal_scope="all" ----------------------------------------------------------------
def test_reveal_all_flips_every_face_down_card(Game):
    # Both houses: seat 1 Hen 4 on 1; seat 2 Hen 2 on 4, Fox on 6; seat 0 Hen 6 on 7;
    # seat 0 Safe Hen 1 on 0 (ignored). Seat 1 reveals all.
    # Hens 6 (seat 0), 4 (seat 1), 2 (seat 2); Fox of seat 2 gobbles seat 0's Hen 6 (+6);
    # seat 1's Hen 4 Safe on space 1 (value 2); seat 2's Hen 2 and Fox go home.
    d = build_state(3, {0: (0, 1, "safe"), 1: (1, 4), 4: (2, 2), 6: (2, FOX), 7: (0, 6)},
                    current=1, reveal_scope="all")
    g = Game(d)
    legal = g.legal()
    assert mkey(reveal(None)) in legal
    assert mkey(reveal(0)) not in legal and mkey(reveal(1)) not in legal
    mask = g.mask()
    assert mask[66] == 1 and mask[64] == 0 and mask[65] == 0
    g.act(reveal(None))
    st = g.state()
    assert st["gobbled"] == [[], [], [{"owner": 0, "card": 6}]]
    assert st["spaces"] == [{"owner": 0, "card": 1, "safe": True}, {"owner": 1, "card": 4, "safe": True},
                            None, None, None, None, None, None]
    assert st["scores"] == [1, 2, 6]
    assert st["known_in_hand"] == [[], [], [0, 2]]


def test_reveal_all_illegal_without_face_down_cards_and_in_house_scope(Game):
    d = build_state(2, {0: (0, 1, "safe")}, reveal_scope="all", current=1)
    g = Game(d)
    assert all(dict(k)["type"] != "reveal" for k in g.legal())
    d = build_state(2, {1: (0, 1)}, reveal_scope="house", current=1)
    g = Game(d)
    assert mkey(reveal(None)) not in g.legal() and mkey(reveal(0)) in g.legal()
    assert g.mask()[33] == 0 and g.mask()[32] == 1


# -- hen_houses options, action ids ----------------------------------------------------
@pytest.mark.parametrize("num_players, hen_houses, n_actions", [
    (2, None, 34), (3, None, 67), (4, None, 67), (2, 2, 67), (3, 1, 34), (4, 1, 34)])
def test_hen_houses_sizes_and_reset(num_players, hen_houses, n_actions):
    from sly_scout_env.sly_v0 import raw_env

    kw = {} if hen_houses is None else {"hen_houses": hen_houses}
    e = raw_env(num_players=num_players, **kw)
    e.reset(seed=1)
    H = n_actions // 33  # 34 -> 1 house, 67 -> 2 houses
    st = e.state_dict()
    assert st["hen_houses"] == H
    assert len(st["spaces"]) == 4 * H and st["spaces"] == [None] * (4 * H)
    assert st["hands"] == [[0, 1, 2, 3, 4, 5, 6]] * num_players
    assert st["current_player"] == 0 and st["game_over"] is False
    assert st["scores"] == [0] * num_players
    mask = e.legal_action_mask()
    assert mask.dtype == np.int8 and mask.shape == (n_actions,)
    # At the start only Lays are legal: every card on every space.
    assert set(np.flatnonzero(mask).tolist()) == set(range(7 * 4 * H))
    assert e.action_space(e.agent_selection).n == n_actions


@pytest.mark.parametrize("hen_houses", [1, 2])
def test_action_ids_decode_encode(hen_houses):
    from sly_scout_env.sly_v0 import raw_env

    e = raw_env(num_players=3, hen_houses=hen_houses)
    e.reset(seed=0)
    S = 4 * hen_houses
    for card in range(7):
        for s in range(S):
            assert e.decode_action(card * S + s) == {"type": "lay", "card": card, "space": s}
    for s in range(S):
        assert e.decode_action(7 * S + s) == {"type": "expose", "space": s}
    for h in range(hen_houses):
        assert e.decode_action(8 * S + h) == {"type": "reveal", "house": h}
    assert e.decode_action(8 * S + hen_houses) == {"type": "reveal", "house": None}
    for a in range(8 * S + hen_houses + 1):
        assert e.encode_action(e.decode_action(a)) == a


@pytest.mark.parametrize("hen_houses", [1, 2])
def test_space_values_by_house(Game, hen_houses):
    # A Hen exposed on each space scores space % 4 + 1 for its owner.
    for s in range(4 * hen_houses):
        d = build_state(3, {s: (1, 3)}, hen_houses=hen_houses, current=0)
        g = Game(d)
        g.act(expose(s))
        assert g.state()["scores"] == [0, [1, 2, 3, 4][s % 4], 0]


# -- known_in_hand -------------------------------------------------------------------------
def test_known_in_hand_set_by_reveal_cleared_when_owner_lays(Game):
    # Seat 2's Fox on 1 and Hen 2 on 3, seat 1's Hen 3 on 0 and seat 0's Hen 5 on 2 (as in
    # test_reveal_fox_and_hens): after the Reveal seat 2's Fox and Hen 2 are known in hand.
    d = build_state(3, {0: (1, 3), 1: (2, FOX), 2: (0, 5), 3: (2, 2)}, current=0)
    g = Game(d)
    g.act(reveal(0))
    assert g.state()["known_in_hand"] == [[], [], [0, 2]]
    g.act(lay(1, 4))  # seat 1 lays: seat 2's knowledge stays
    assert g.state()["known_in_hand"] == [[], [], [0, 2]]
    g.act(lay(5, 5))  # seat 2 lays (not one of the known cards): cleared all the same
    st = g.state()
    assert st["known_in_hand"] == [[], [], []]
    assert st["hands"][2] == [0, 1, 2, 3, 4, 6]


def test_known_in_hand_accumulates_over_reveals(Game):
    # Seat 1 already known to hold its Hen 4; a Foxes-only Reveal returns its Fox too.
    d = build_state(3, {0: (1, FOX), 2: (2, FOX)}, known_in_hand={1: [4]}, current=0)
    g = Game(d)
    g.act(reveal(0))
    assert g.state()["known_in_hand"] == [[], [0, 4], [0]]


# -- first_player --------------------------------------------------------------------------
def test_first_player_random_varies_with_seed_and_is_reproducible():
    from sly_scout_env.sly_v0 import raw_env

    e = raw_env(num_players=4, first_player="random")
    seats = []
    for seed in range(40):
        e.reset(seed=seed)
        seats.append(e.state_dict()["current_player"])
        assert e.agent_selection == f"player_{seats[-1]}"
    assert len(set(seats)) >= 3  # 40 draws over 4 seats
    for seed in (0, 7, 13):
        e.reset(seed=seed)
        assert e.state_dict()["current_player"] == seats[seed]
    f = raw_env(num_players=4)
    for seed in range(10):
        f.reset(seed=seed)
        assert f.state_dict()["current_player"] == 0


# -- more corner cases -------------------------------------------------------------------
def test_no_lay_when_every_space_is_taken(Game):
    # 2 players, 1 house, all 4 spaces occupied (two face down): only Expose/Reveal remain.
    d = build_state(2, {0: (0, 1), 1: (1, 1), 2: (0, 2, "safe"), 3: (1, 2, "safe")}, current=0)
    g = Game(d)
    assert g.legal() == {mkey(expose(1)), mkey(reveal(0))}


def test_reveal_all_two_foxes_and_three_hens(Game):
    # 4 players, reveal all. Foxes of seats 0 (space 0) and 2 (space 5); Hens 3 of seats 1
    # (space 1) and 3 (space 6), Hen 1 of seat 0 (space 7). Seat 3 is active.
    # Fox order from seat 3: seat 0 (distance 1) before seat 2 (distance 3).
    # Hen order: 3 of seat 3 (distance 0), 3 of seat 1 (distance 2), then the 1.
    # -> seat 0 gobbles seat 3's Hen 3 (+3); seat 1's Hen 3 Safe on space 1 (value 2);
    #    both Foxes and seat 0's Hen 1 go home.
    d = build_state(4, {0: (0, FOX), 5: (2, FOX), 1: (1, 3), 6: (3, 3), 7: (0, 1)},
                    current=3, reveal_scope="all")
    g = Game(d)
    g.act(reveal(None))
    st = g.state()
    assert st["gobbled"] == [[{"owner": 3, "card": 3}], [], [], []]
    assert st["spaces"] == [None, {"owner": 1, "card": 3, "safe": True}] + [None] * 6
    assert st["scores"] == [3, 2, 0, 0]
    assert st["known_in_hand"] == [[0, 1], [], [0], []]
    assert st["hands"][0] == [0, 1, 2, 3, 4, 5, 6]


def test_all_safe_end_comes_before_the_next_players_hand_check(Game):
    # Seat 1 holds one card (Hen 6): Hens 1-3 on the table, Hens 4-5 gobbled and its Fox
    # captured by seat 0. Seat 0 exposes seat 1's Hen 3 on space 3: every space now holds
    # a Safe Hen, so the game ends after the action as "all_safe" (no turn of seat 1 starts).
    d = build_state(2, {0: (0, 1, "safe"), 1: (1, 1, "safe"), 2: (1, 2, "safe"), 3: (1, 3)},
                    gobbled={0: [(1, 4), (1, 5)]}, captured={0: [1]}, current=0)
    assert d["hands"][1] == [6]
    g = Game(d)
    g.act(expose(3))
    st = g.state()
    assert st["game_over"] is True and st["end_reason"] == "all_safe"
    # seat 0: 1 + (4 + 5) + 2 = 12; seat 1: 2 + 3 + 4 = 9
    assert st["scores"] == [12, 9]
