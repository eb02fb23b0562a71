"""One literal scenario per rule and corner case of docs/scout_rules.md.

Each test builds a position on the ENGINE with ``from_state_dict``, plays moves through
the public env API, and checks the result against values worked out by hand in the test
(the reference implementation is not used here). Cards are written ``(up, down)``.
"""

from __future__ import annotations

import numpy as np
import pytest

from sly_scout_env.scout_v0 import raw_env


# -- helpers --------------------------------------------------------------------------
def state(num_players, hands, *, active_set=(), active_owner=None, current_player=0, phase="play",
          scout_chips=None, collected=None, scout_and_show_left=None, known=None, rounds=1, round=0,
          starting_player=0, set_aside=(), round_scores=None, round_end_reasons=None, scores=None,
          ii_after_empty_set=True, score_held_chips=True):
    """A complete state dict with sensible defaults (round 0 of a one-round game)."""
    n = num_players
    two = n == 2
    return {
        "game": "scout",
        "version": 0,
        "num_players": n,
        "rounds": rounds,
        "ii_after_empty_set": ii_after_empty_set,
        "score_held_chips": score_held_chips,
        "round": round,
        "starting_player": starting_player,
        "current_player": current_player,
        "phase": phase,
        "hands": [[list(c) for c in h] for h in hands],
        "active_set": [list(c) for c in active_set],
        "active_owner": active_owner,
        "scout_chips": list(scout_chips) if scout_chips is not None else ([3] * n if two else [0] * n),
        "collected": [[list(c) for c in p] for p in collected] if collected is not None else [[] for _ in range(n)],
        "scout_and_show_left": (
            list(scout_and_show_left) if scout_and_show_left is not None else [not two] * n
        ),
        "set_aside": [list(c) for c in set_aside],
        "known": [list(k) for k in known] if known is not None else [[False] * len(h) for h in hands],
        "round_scores": round_scores if round_scores is not None else [],
        "round_end_reasons": round_end_reasons if round_end_reasons is not None else [],
        "scores": scores if scores is not None else [0] * n,
        "rng": 12345,
    }


def engine(d, **extra):
    e = raw_env(
        num_players=d["num_players"],
        rounds=d["rounds"],
        ii_after_empty_set=d["ii_after_empty_set"],
        score_held_chips=d["score_held_chips"],
        **extra,
    )
    e.reset(seed=0)
    e.from_state_dict(d)
    return e


def legal(e) -> list[dict]:
    return [e.decode_action(int(a)) for a in np.flatnonzero(e.legal_action_mask())]


def legal_shows(e) -> set[tuple[int, int]]:
    return {(m["start"], m["length"]) for m in legal(e) if m["type"] == "show"}


def legal_types(e) -> set[str]:
    return {m["type"] for m in legal(e)}


def play(e, move: dict) -> None:
    e.step(e.encode_action(move))


def show(start, length):
    return {"type": "show", "start": start, "length": length}


def scout(end, flip, position, kind="scout"):
    return {"type": kind, "end": end, "flip": flip, "position": position}


def cards(lst):
    return [list(c) for c in lst]


def rewards(e) -> list[float]:
    return [e.rewards[a] for a in e.possible_agents]


# -- which show beats which -------------------------------------------------------------
def test_ties_do_not_beat():
    # Active run 3-4 (low 3). Seat 0 holds 4-3 (descending, same strength) and, after
    # a non-group card, 3-4 (ascending, same strength): neither beats, no single does.
    d = state(3, [[(4, 2), (3, 2), (7, 1), (3, 5), (4, 5)], [(1, 5)], [(1, 6)]],
              active_set=[(3, 1), (4, 1)], active_owner=2)
    assert legal_shows(engine(d)) == set()
    # The same equal-strength set: a pair of 5s does not beat a pair of 5s.
    d = state(3, [[(5, 3), (5, 4)], [(1, 2)], [(1, 3)]], active_set=[(5, 1), (5, 2)], active_owner=2)
    assert legal_shows(engine(d)) == set()


def test_more_cards_beat_fewer():
    # Active: a pair of 9s (a strong set of two). The run 1-2-3 (three cards, lowest
    # number 1) beats it; the run 1-2 (two cards) does not, a set beats a run.
    d = state(4, [[(1, 3), (2, 3), (3, 4)], [(1, 2)], [(1, 4)], [(1, 5)]],
              active_set=[(9, 1), (9, 2)], active_owner=3)
    assert legal_shows(engine(d)) == {(0, 3)}


def test_set_beats_run_of_same_length():
    # A pair of 2s beats the run 7-8.
    d = state(4, [[(2, 1), (2, 3), (9, 2)], [(1, 4)], [(1, 5)], [(1, 6)]],
              active_set=[(7, 1), (8, 1)], active_owner=3)
    assert legal_shows(engine(d)) == {(0, 2)}
    # ... and the run 7-8 does not beat a pair of 2s.
    d = state(4, [[(7, 3), (8, 3)], [(1, 4)], [(1, 5)], [(1, 6)]],
              active_set=[(2, 4), (2, 5)], active_owner=3)
    assert legal_shows(engine(d)) == set()


def test_higher_lowest_number_wins():
    # Active run 4-5-6 (low 4). Hand 7 6 5 4: 7-6-5 (low 5) beats, 6-5-4 (low 4) ties,
    # 7-6-5-4 beats by count; no pair or single beats three cards.
    d = state(3, [[(7, 2), (6, 2), (5, 2), (4, 2)], [(1, 2)], [(1, 3)]],
              active_set=[(4, 1), (5, 1), (6, 1)], active_owner=2)
    assert legal_shows(engine(d)) == {(0, 3), (0, 4)}
    # Sets: a pair of 7s beats a pair of 6s, a pair of 5s does not.
    d = state(3, [[(5, 1), (5, 2), (7, 1), (7, 2)], [(1, 2)], [(1, 3)]],
              active_set=[(6, 3), (6, 4)], active_owner=2)
    assert legal_shows(engine(d)) == {(2, 2)}


def test_single_card_is_a_set_of_one():
    # Against a single 5: a higher single beats it; an equal or lower one does not; any
    # valid pair (here the run 4-5) beats a single card.
    d = state(3, [[(6, 2), (4, 2), (5, 3)], [(1, 2)], [(1, 3)]], active_set=[(5, 1)], active_owner=2)
    assert legal_shows(engine(d)) == {(0, 1), (1, 2)}
    # With no active set every single card may be shown (3 and 8, 8 and 5 are no groups).
    d = state(3, [[(3, 1), (8, 2), (5, 4)], [(1, 2)], [(1, 4)]])
    assert legal_shows(engine(d)) == {(0, 1), (1, 1), (2, 1)}
    # A set of one beats nothing bigger than one card, but two equal cards are a set
    # that beats a run of two with a higher lowest number.
    d = state(3, [[(2, 1), (2, 3)], [(1, 5)], [(1, 4)]], active_set=[(8, 3), (9, 3)], active_owner=2)
    assert legal_shows(engine(d)) == {(0, 2)}


def test_runs_ascending_and_descending_in_hand_order():
    # Hand 2 3 4 3 2 with no active set. Groups: every single, 2-3, 2-3-4, 3-4, 4-3,
    # 4-3-2, 3-2; 3-4-3 and longer slices are not runs.
    d = state(3, [[(2, 1), (3, 1), (4, 1), (3, 5), (2, 5)], [(1, 6)], [(1, 7)]])
    expected = {(i, 1) for i in range(5)} | {(0, 2), (0, 3), (1, 2), (2, 2), (2, 3), (3, 2)}
    assert legal_shows(engine(d)) == expected


def test_non_adjacent_cards_cannot_be_shown():
    # 2 and 3 are consecutive numbers but a 7 lies between them; 5 and 5 likewise.
    d = state(3, [[(2, 1), (7, 1), (3, 1), (5, 1), (8, 1), (5, 2)], [(1, 6)], [(1, 9)]])
    assert legal_shows(engine(d)) == {(i, 1) for i in range(6)}


def test_no_scout_without_active_set_and_flip_only_in_flip_phase():
    d = state(3, [[(2, 1), (7, 1)], [(1, 6)], [(1, 9)]])
    assert legal_types(engine(d)) == {"show"}
    d = state(3, [[(2, 1), (7, 1)], [(1, 6)], [(1, 9)]], phase="flip")
    assert legal(engine(d)) == [{"type": "flip", "flip": False}, {"type": "flip", "flip": True}]


# -- Scout ------------------------------------------------------------------------------
def test_scout_takes_an_end_card_and_gives_owner_a_chip():
    # 4 players: seat 0 scouts the right card of the owner's (seat 3) run 5-6, flips it
    # (6/2 becomes 2/6) and inserts it between its two cards.
    d = state(4, [[(1, 3), (9, 4)], [(1, 4)], [(1, 5)], [(1, 6)]],
              active_set=[(5, 2), (6, 2)], active_owner=3, scout_chips=[0, 0, 0, 1])
    e = engine(d)
    moves = legal(e)
    assert scout("left", False, 0) in moves and scout("right", True, 2) in moves
    # Positions 0..hand size (3 of them), 2 ends, 2 orientations.
    assert sum(m["type"] == "scout" for m in moves) == 2 * 2 * 3
    play(e, scout("right", True, 1))
    s = e.state_dict()
    assert s["hands"][0] == cards([(1, 3), (2, 6), (9, 4)])
    assert s["known"][0] == [False, True, False]
    assert s["active_set"] == cards([(5, 2)])
    assert s["active_owner"] == 3
    assert s["scout_chips"] == [0, 0, 0, 2]
    assert s["current_player"] == 1 and s["phase"] == "play"


def test_scouting_the_last_card_of_the_active_set():
    # 3 players: seat 2 scouts the single card of seat 1's set. With one card only
    # "left" is offered. The set is now empty: seat 0 may show anything (even a 1),
    # and cannot Scout. The owner (seat 1) still gets its chip.
    d = state(3, [[(1, 2), (8, 3)], [(5, 9), (8, 9)], [(4, 7)]],
              active_set=[(6, 1)], active_owner=1, current_player=2)
    e = engine(d)
    ends = {m["end"] for m in legal(e) if m["type"] in ("scout", "scout_and_show")}
    assert ends == {"left"}
    play(e, scout("left", False, 0))
    s = e.state_dict()
    assert s["active_set"] == [] and s["active_owner"] == 1
    assert s["scout_chips"] == [0, 1, 0]
    assert s["hands"][2] == cards([(6, 1), (4, 7)])
    assert s["current_player"] == 0
    assert legal_shows(e) == {(0, 1), (1, 1)}
    assert legal_types(e) == {"show"}
    play(e, show(0, 1))  # the 1 is shown over the empty set, nothing collected
    s = e.state_dict()
    assert s["active_set"] == cards([(1, 2)]) and s["active_owner"] == 0
    assert s["collected"] == [[], [], []]


# -- Scout & Show -----------------------------------------------------------------------
def test_scout_and_show_then_only_shows_and_chip_spent():
    d = state(4, [[(7, 1), (8, 1)], [(1, 4)], [(1, 5)], [(1, 6)]],
              active_set=[(5, 2), (6, 2)], active_owner=3)
    e = engine(d)
    assert scout("left", False, 0, "scout_and_show") in legal(e)
    play(e, scout("left", False, 0, "scout_and_show"))
    s = e.state_dict()
    assert s["phase"] == "show_after_scout" and s["current_player"] == 0
    assert s["hands"][0] == cards([(5, 2), (7, 1), (8, 1)])
    assert s["scout_chips"] == [0, 0, 0, 1]  # the owner still gets a chip
    assert s["scout_and_show_left"] == [False, True, True, True]
    # Only Shows beating the remaining single 6: the 7, the 8, the run 7-8.
    assert legal_types(e) == {"show"}
    assert legal_shows(e) == {(1, 1), (2, 1), (1, 2)}
    play(e, show(1, 2))
    s = e.state_dict()
    assert s["collected"][0] == cards([(6, 2)])
    assert s["active_set"] == cards([(7, 1), (8, 1)]) and s["active_owner"] == 0
    assert s["hands"][0] == cards([(5, 2)]) and s["known"][0] == [True]
    assert s["current_player"] == 1 and s["phase"] == "play"


def test_scout_and_show_only_once_per_round():
    # Seat 0 has spent its Scout & Show chip this round: Scout and Show only.
    d = state(4, [[(7, 1), (8, 1)], [(1, 4)], [(1, 5)], [(1, 6)]],
              active_set=[(5, 2), (6, 2)], active_owner=3, scout_and_show_left=[False, True, True, True])
    assert legal_types(engine(d)) == {"scout", "show"}


def test_scout_and_show_not_startable_when_no_show_could_follow():
    # Active: three 9s. After scouting an end card two 9s remain, and no hand made of
    # 1 3 5 plus the scouted card (9, or 1 / 3 when flipped) holds anything that beats
    # a pair of 9s. Plain Scouts stay legal.
    d = state(3, [[(1, 2), (3, 4), (5, 6)], [(1, 5)], [(1, 6)]],
              active_set=[(9, 1), (9, 2), (9, 3)], active_owner=2)
    e = engine(d)
    assert legal_types(e) == {"scout"}
    assert len(legal(e)) == 2 * 2 * 4


def test_scout_and_show_legal_exactly_where_a_show_follows():
    # Active: pair of 3s; after scouting either end a single 3 remains. Hand 1 3 beats
    # nothing. Inserting an unflipped 3 next to the 3 (positions 1, 2) makes a pair;
    # at position 0 (3 1 3) it does not. Flipped, the card shows 6 or 7, which beats a
    # single 3 anywhere.
    d = state(3, [[(1, 8), (3, 9)], [(1, 5)], [(2, 5)]], active_set=[(3, 6), (3, 7)], active_owner=2)
    e = engine(d)
    sas = {(m["end"], m["flip"], m["position"]) for m in legal(e) if m["type"] == "scout_and_show"}
    expected = set()
    for end in ("left", "right"):
        expected |= {(end, False, 1), (end, False, 2), (end, True, 0), (end, True, 1), (end, True, 2)}
    assert sas == expected
    assert legal_shows(e) == set()


def test_scout_and_show_of_the_last_card_then_show_anything():
    # The active set has one card: after taking it any show follows, so every position
    # (and both orientations) is legal, with the one end "left".
    d = state(3, [[(1, 8), (3, 9)], [(1, 5)], [(2, 5)]], active_set=[(9, 7)], active_owner=2)
    e = engine(d)
    sas = {(m["end"], m["flip"], m["position"]) for m in legal(e) if m["type"] == "scout_and_show"}
    assert sas == {("left", f, p) for f in (False, True) for p in range(3)}
    play(e, scout("left", True, 2, "scout_and_show"))  # hand 1 3 7
    assert legal_shows(e) == {(0, 1), (1, 1), (2, 1)}


# -- round end and scoring (3-5 players) ----------------------------------------------
def test_round_end_i_and_scores_and_score_rewards():
    # Seat 0 shows its last card: the round ends at once (i). Scores by hand:
    # seat 0: collected 1 + the beaten 5 = 2, chips 1, hand 0 -> 3
    # seat 1: collected 2, chips 0, hand 2 -> 0;   seat 2: 0 + 2 - 1 = 1.
    # The final active set (the 7) scores nothing.
    d = state(3, [[(7, 1)], [(8, 2), (8, 3)], [(9, 1)]], active_set=[(5, 1)], active_owner=2,
              scout_chips=[1, 0, 2], collected=[[(2, 3)], [(4, 5), (4, 6)], []])
    e = engine(d)
    play(e, show(0, 1))
    s = e.state_dict()
    assert s["phase"] == "game_over"
    assert s["round_end_reasons"] == ["i"]
    assert s["round_scores"] == [[3, 0, 1]]
    assert s["scores"] == [3, 0, 1]
    assert rewards(e) == [3.0, 0.0, 1.0]
    assert all(e.terminations.values())


def test_round_end_i_after_scout_and_show_of_whole_hand():
    # Seat 0 holds a single 8. Scout & Show takes seat 4's single 7 (the set is now
    # empty), inserts it before the 8 and shows the run 7-8: no card left -> (i).
    d = state(5, [[(8, 1)], [(1, 2)], [(1, 3)], [(1, 4)], [(1, 5)]], active_set=[(7, 2)], active_owner=4)
    e = engine(d)
    play(e, scout("left", False, 0, "scout_and_show"))
    play(e, show(0, 2))
    s = e.state_dict()
    assert s["round_end_reasons"] == ["i"]
    # seat 0: nothing collected (the set was empty), no chips, no cards -> 0;
    # seat 4 got the chip: 1 - 1 card = 0; seats 1-3: -1 each.
    assert s["round_scores"] == [[0, -1, -1, -1, 0]]


def test_round_end_ii_with_exemption():
    # 3 players, seat 1 owns the run 6-7-8. Seats 2 and 0 only Scout; when the turn
    # would come back to seat 1 the round ends (ii): seat 1 keeps its 2 cards unpunished.
    d = state(3, [[(1, 3), (2, 4)], [(5, 9), (8, 9)], [(4, 7)]], active_set=[(6, 2), (7, 2), (8, 2)],
              active_owner=1, current_player=2, collected=[[], [(1, 9)], []])
    e = engine(d)
    play(e, scout("left", False, 1))  # seat 2: 4/7 6/2
    assert e.state_dict()["current_player"] == 0
    play(e, scout("right", False, 0))  # seat 0: 8/2 1/3 2/4
    s = e.state_dict()
    assert s["round_end_reasons"] == ["ii"]
    # seat 0: 0 + 0 - 3 = -3; seat 1: 1 collected + 2 chips, hand exempt -> 3; seat 2: -2.
    assert s["round_scores"] == [[-3, 3, -2]]
    assert rewards(e) == [-3.0, 3.0, -2.0]


def test_scout_and_show_counts_as_a_show_for_ii():
    # Seat 1 owns 6-7-8. Seat 2 Scout & Shows (takes the 6, shows its pair of 9s over the
    # remaining 7-8): seat 2 is the new owner, so when seat 0 Scouts and the turn reaches
    # seat 1 nothing ends; it ends (ii) when seat 1 Scouts and the turn reaches seat 2.
    d = state(3, [[(1, 3), (2, 4)], [(5, 9), (8, 9)], [(9, 3), (9, 4)]], active_set=[(6, 2), (7, 2), (8, 2)],
              active_owner=1, current_player=2)
    e = engine(d)
    play(e, scout("left", False, 0, "scout_and_show"))
    play(e, show(1, 2))
    s = e.state_dict()
    assert s["active_owner"] == 2 and s["collected"][2] == cards([(7, 2), (8, 2)])
    play(e, scout("left", False, 0))  # seat 0
    s = e.state_dict()
    assert s["round_scores"] == [] and s["current_player"] == 1
    play(e, scout("left", False, 2))  # seat 1 takes the last 9
    s = e.state_dict()
    assert s["round_end_reasons"] == ["ii"]
    # seat 0: -3 cards; seat 1: 1 chip - 3 cards; seat 2: 2 collected + 2 chips, exempt.
    assert s["round_scores"] == [[-3, -2, 4]]


def test_round_end_ii_after_the_set_was_scouted_empty():
    # As above with a run 6-7: seat 0 takes the last card; (ii) still holds (default).
    d = state(3, [[(1, 3), (2, 4)], [(5, 9), (8, 9)], [(4, 7)]], active_set=[(6, 2), (7, 2)],
              active_owner=1, current_player=2, collected=[[], [(1, 9)], []])
    e = engine(d)
    play(e, scout("left", False, 1))
    play(e, scout("left", True, 0))  # the single 7/2 flipped: 2/7
    s = e.state_dict()
    assert s["round_end_reasons"] == ["ii"]
    assert s["round_scores"] == [[-3, 3, -2]]


def test_round_does_not_end_after_set_scouted_empty_with_option_off():
    # ii_after_empty_set=False: the owner gets the turn back and shows anything.
    d = state(3, [[(1, 3), (2, 4)], [(5, 9), (8, 9)], [(4, 7)]], active_set=[(6, 2), (7, 2)],
              active_owner=1, current_player=2, collected=[[], [(1, 9)], []], ii_after_empty_set=False)
    e = engine(d)
    play(e, scout("left", False, 1))
    play(e, scout("left", True, 0))
    s = e.state_dict()
    assert s["round_scores"] == [] and s["phase"] == "play"
    assert s["current_player"] == 1 and s["active_set"] == [] and s["active_owner"] == 1
    assert legal_types(e) == {"show"}
    assert legal_shows(e) == {(0, 1), (1, 1)}
    # With a card still in the set the option changes nothing: (ii) ends the round.
    d = state(3, [[(1, 3), (2, 4)], [(5, 9), (8, 9)], [(4, 7)]], active_set=[(6, 2), (7, 2), (8, 2)],
              active_owner=1, current_player=2, ii_after_empty_set=False)
    e = engine(d)
    play(e, scout("left", False, 1))
    play(e, scout("left", False, 0))
    assert e.state_dict()["round_end_reasons"] == ["ii"]


# -- two players ----------------------------------------------------------------------
def test_two_players_scout_costs_a_chip_and_turn_continues():
    d = state(2, [[(1, 3), (2, 3)], [(6, 7), (8, 7)]], active_set=[(4, 1), (5, 1)], active_owner=1,
              scout_chips=[3, 3])
    e = engine(d)
    assert "scout_and_show" not in legal_types(e)
    play(e, scout("right", False, 0))
    s = e.state_dict()
    assert s["scout_chips"] == [2, 3]  # spent to the centre: the owner gets nothing
    assert s["current_player"] == 0 and s["phase"] == "play"
    assert s["hands"][0] == cards([(5, 1), (1, 3), (2, 3)]) and s["known"][0] == [True, False, False]
    # Seat 0 continues: the run 1-2 beats the single 4; or Scout the last card (left only).
    moves = legal(e)
    assert {(m["start"], m["length"]) for m in moves if m["type"] == "show"} == {(0, 1), (1, 2)}
    assert {m["end"] for m in moves if m["type"] == "scout"} == {"left"}
    assert sum(m["type"] == "scout" for m in moves) == 2 * 4
    play(e, scout("left", False, 3))
    s = e.state_dict()
    assert s["scout_chips"] == [1, 3] and s["current_player"] == 0 and s["active_set"] == []
    assert legal_types(e) == {"show"}  # the set is empty: show anything


def test_two_players_no_chip_no_scout():
    # Seat 0 has spent its chips: only the Show of its run 7-8 over the run 4-5 is left.
    d = state(2, [[(7, 3), (8, 3)], [(6, 7), (8, 7)]], active_set=[(4, 1), (5, 1)], active_owner=1,
              scout_chips=[0, 3])
    e = engine(d)
    assert legal(e) == [show(0, 2)]


def test_two_players_stuck_after_a_show_ends_round_ii():
    # Seat 0 shows the pair of 5s over seat 1's single 3. Seat 1 has no chip and only 6
    # and 9 (no pair, no single beats a pair): it can do nothing, the round ends (ii) with
    # seat 0 exempt. seat 0: 1 collected + 1 chip, hand (1 card) exempt -> 2;
    # seat 1: 0 + 0 - 2 = -2.
    d = state(2, [[(5, 6), (5, 7), (1, 8)], [(6, 8), (9, 2)]], active_set=[(3, 4)], active_owner=1,
              scout_chips=[1, 0])
    e = engine(d)
    play(e, show(0, 2))
    s = e.state_dict()
    assert s["round_end_reasons"] == ["ii"]
    assert s["round_scores"] == [[2, -2]]


def test_two_players_round_goes_on_when_other_can_act():
    # Same, but seat 1 holds one chip: it can Scout, so nothing ends.
    d = state(2, [[(5, 6), (5, 7), (1, 8)], [(6, 8), (9, 2)]], active_set=[(3, 4)], active_owner=1,
              scout_chips=[1, 1])
    e = engine(d)
    play(e, show(0, 2))
    s = e.state_dict()
    assert s["round_scores"] == [] and s["current_player"] == 1
    assert legal_types(e) == {"scout"}


@pytest.mark.parametrize("score_held_chips, seat0_score", [(True, 3), (False, 1)])
def test_two_players_stuck_after_spending_chips_in_that_turn(score_held_chips, seat0_score):
    # Seat 1 (one chip, hand: a 1) faces seat 0's run 7-8-9: it cannot show, so Scouts
    # are its only moves. It scouts the 7 to the front: 7 1 against the run 8-9, no chip
    # left, nothing beats -> (ii), seat 0 exempt.
    # seat 0: 1 collected + 2 held chips (if they score) - 0 (exempt) -> 3 or 1;
    # seat 1: 0 + 0 - 2 = -2.
    d = state(2, [[(2, 3), (4, 5)], [(1, 2)]], active_set=[(7, 1), (8, 1), (9, 1)], active_owner=0,
              current_player=1, scout_chips=[2, 1], collected=[[(6, 1)], []],
              score_held_chips=score_held_chips)
    e = engine(d)
    assert legal_types(e) == {"scout"}
    assert len(legal(e)) == 2 * 2 * 2
    play(e, scout("left", False, 0))
    s = e.state_dict()
    assert s["round_end_reasons"] == ["ii"]
    assert s["round_scores"] == [[seat0_score, -2]]


def test_two_players_scout_that_leaves_a_move_does_not_end():
    # Same position, but the scouted 7 flipped (1/7) lands next to the 1: the pair of 1s
    # beats the run 8-9 (a set beats a run), so seat 1 plays on.
    d = state(2, [[(2, 3), (4, 5)], [(1, 2)]], active_set=[(7, 1), (8, 1), (9, 1)], active_owner=0,
              current_player=1, scout_chips=[2, 1], collected=[[(6, 1)], []])
    e = engine(d)
    play(e, scout("left", True, 0))
    s = e.state_dict()
    assert s["round_scores"] == [] and s["current_player"] == 1
    assert legal_types(e) == {"show"} and legal_shows(e) == {(0, 2)}


def play_random_until(e, rng, stop):
    """Random legal moves until ``stop(state_dict)`` holds or the game ends; returns the dict."""
    while True:
        s = e.state_dict()
        if stop(s) or s["phase"] == "game_over":
            return s
        e.step(int(rng.choice(np.flatnonzero(e.legal_action_mask()))))


def test_two_players_set_aside_half_dealt_in_round_2():
    rng = np.random.default_rng(7)
    e = raw_env(num_players=2)
    e.reset(seed=3)
    s0 = e.state_dict()
    assert [len(h) for h in s0["hands"]] == [11, 11] and len(s0["set_aside"]) == 22
    assert s0["scout_chips"] == [3, 3] and s0["scout_and_show_left"] == [False, False]
    set_aside = sorted(sorted(c) for c in s0["set_aside"])
    s1 = play_random_until(e, rng, lambda s: s["round"] == 1)
    assert s1["round"] == 1 and s1["phase"] == "flip"
    assert [len(h) for h in s1["hands"]] == [11, 11]
    assert sorted(sorted(c) for h in s1["hands"] for c in h) == set_aside
    assert s1["set_aside"] == []
    assert s1["scout_chips"] == [3, 3]  # three fresh chips each round
    assert s1["starting_player"] == 1 and s1["current_player"] == 1


# -- round start ------------------------------------------------------------------------
def test_flip_keeps_card_order_and_swaps_every_card():
    # Round 1 of 3: seat 1 starts the flip decisions, then seat 2, then seat 0; after
    # the last decision seat 1 plays first.
    hands = [[(1, 2), (3, 4)], [(5, 6), (7, 8), (2, 9)], [(3, 1), (4, 2)]]
    d = state(3, hands, phase="flip", round=1, rounds=3, starting_player=1, current_player=1,
              round_scores=[[0, 0, 0]], round_end_reasons=["i"])
    e = engine(d)
    play(e, {"type": "flip", "flip": True})
    s = e.state_dict()
    assert s["hands"][1] == cards([(6, 5), (8, 7), (9, 2)])
    assert s["current_player"] == 2 and s["phase"] == "flip"
    play(e, {"type": "flip", "flip": False})
    s = e.state_dict()
    assert s["hands"][2] == cards([(3, 1), (4, 2)])
    assert s["current_player"] == 0 and s["phase"] == "flip"
    play(e, {"type": "flip", "flip": True})
    s = e.state_dict()
    assert s["hands"][0] == cards([(2, 1), (4, 3)])
    assert s["phase"] == "play" and s["current_player"] == 1


EXPECTED_REMOVED = {
    2: {(9, 10)},
    3: {(a, 10) for a in range(1, 10)},
    4: {(9, 10)},
    5: set(),
}
EXPECTED_DEAL = {2: 11, 3: 12, 4: 11, 5: 9}


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_deck_per_player_count(n):
    all_pairs = {(a, b) for a in range(1, 11) for b in range(a + 1, 11)}
    assert len(all_pairs) == 45
    orientations = set()
    for seed in range(5):
        e = raw_env(num_players=n)
        e.reset(seed=seed)
        s = e.state_dict()
        dealt = [tuple(c) for h in s["hands"] for c in h] + [tuple(c) for c in s["set_aside"]]
        keys = [tuple(sorted(c)) for c in dealt]
        assert len(keys) == len(set(keys)), "a card dealt twice"
        assert set(keys) == all_pairs - EXPECTED_REMOVED[n]
        assert [len(h) for h in s["hands"]] == [EXPECTED_DEAL[n]] * n
        assert len(s["set_aside"]) == (22 if n == 2 else 0)
        assert s["phase"] == "flip" and s["round"] == 0 and s["starting_player"] == 0
        assert s["current_player"] == 0 and s["active_set"] == [] and s["active_owner"] is None
        orientations |= {c[0] < c[1] for c in dealt}
    assert orientations == {True, False}  # the orientation is shuffled too


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_rounds_default_rotation_and_totals(n):
    """Official round count; round r starts with seat r mod n; totals = sums; rewards per round."""
    rng = np.random.default_rng(n)
    e = raw_env(num_players=n, reward="score")
    e.reset(seed=11 + n)
    s = e.state_dict()
    assert s["rounds"] == {2: 2, 3: 3, 4: 4, 5: 5}[n]
    starts = []
    paid = np.zeros(n)
    rounds_seen = 0
    while s["phase"] != "game_over":
        if s["phase"] == "flip" and len(starts) == s["round"]:
            starts.append((s["starting_player"], s["current_player"]))
        e.step(int(rng.choice(np.flatnonzero(e.legal_action_mask()))))
        s = e.state_dict()
        r = rewards(e)
        if len(s["round_scores"]) > rounds_seen:  # a round was scored in this step
            assert r == [float(x) for x in s["round_scores"][-1]]
            rounds_seen = len(s["round_scores"])
        else:
            assert r == [0.0] * n
        paid += r
    rounds = {2: 2, 3: 3, 4: 4, 5: 5}[n]
    assert starts == [(r % n, r % n) for r in range(rounds)]
    assert len(s["round_scores"]) == rounds == len(s["round_end_reasons"]) == s["round"]
    totals = [sum(rs[i] for rs in s["round_scores"]) for i in range(n)]
    assert s["scores"] == totals
    assert list(paid) == totals
    assert all(e.terminations.values())


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_rounds_1_plays_one_hand(n):
    rng = np.random.default_rng(0)
    e = raw_env(num_players=n, rounds=1)
    e.reset(seed=5)
    s = play_random_until(e, rng, lambda s: False)
    assert s["phase"] == "game_over" and len(s["round_scores"]) == 1
    assert s["scores"] == s["round_scores"][0]


# -- the largest hands (contract: 2p 14, 3p 34, 4p/5p 41) ------------------------------
def test_largest_hands_are_reachable_and_addressable():
    # 4 players: seat 0 holds 40 of the 44 cards; it scouts seat 3's single card to the
    # far right (position 40): 41 cards. Action id by the contract's layout:
    # SCOUT_BASE = 2 + 41 * 10 = 412; left, no flip, position 40 -> 452.
    deck4 = [(a, b) for a in range(1, 11) for b in range(a + 1, 11) if (a, b) != (9, 10)]
    others = [(1, 2), (1, 3), (1, 4), (1, 5)]
    big = [c for c in deck4 if c not in others]
    d = state(4, [big, [(1, 3)], [(1, 4)], [(1, 5)]], active_set=[(1, 2)], active_owner=3)
    e = engine(d)
    assert e.encode_action(scout("left", False, 40)) == 452
    assert e.legal_action_mask()[452] == 1
    e.step(452)
    s = e.state_dict()
    assert len(s["hands"][0]) == 41 and s["hands"][0][-1] == [1, 2]
    # 3 players: 33 cards + Scout & Show of the single active card to position 33 = 34.
    # SAS_BASE = 2 + 34 * 10 + 4 * 34 = 478; left, no flip, position 33 -> 511; then the
    # Show of that last card alone: 2 + 33 * 10 + 0 = 332.
    deck3 = [(a, b) for a in range(1, 10) for b in range(a + 1, 10)]
    others = [(1, 2), (1, 3), (1, 4)]
    big = [c for c in deck3 if c not in others]
    d = state(3, [big, [(1, 3)], [(1, 4)]], active_set=[(1, 2)], active_owner=2)
    e = engine(d)
    assert e.encode_action(scout("left", False, 33, "scout_and_show")) == 511
    e.step(511)
    assert len(e.state_dict()["hands"][0]) == 34
    assert e.encode_action(show(33, 1)) == 332
    e.step(332)
    s = e.state_dict()
    assert len(s["hands"][0]) == 33 and s["active_set"] == [[1, 2]]
    # 2 players: 13 cards and one chip; Scout the right card flipped to position 13: 14.
    # SCOUT_BASE = 2 + 14 * 10 = 142; right (1), flipped (1): (1*2+1) * 14 + 13 -> 197.
    hand = [(1, 3), (1, 4), (1, 5), (1, 6), (1, 7), (1, 8), (1, 9), (2, 3), (2, 4), (2, 5), (2, 6), (2, 7),
            (2, 8)]
    d = state(2, [hand, [(3, 4)]], active_set=[(5, 6), (6, 7)], active_owner=1, scout_chips=[1, 0])
    e = engine(d)
    assert e.encode_action(scout("right", True, 13)) == 197
    e.step(197)
    s = e.state_dict()
    assert len(s["hands"][0]) == 14 and s["hands"][0][-1] == [7, 6] and s["scout_chips"] == [0, 0]
