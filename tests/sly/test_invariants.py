"""Hypothesis properties of Sly on random play through the engine's public env API.

Hypothesis draws the options, the seed and every move (an index into the legal moves),
so a failure shrinks to a short game. After every move:
  * each player's 7 cards are somewhere exactly once (hand, spaces, gobbled, captured);
  * the legal mask equals the reference's legal moves for that position;
  * while the game runs there is at least one legal move, and the player to act holds
    at least 2 cards (the end check at the start of a turn);
  * the scores equal their recomputation from the piles (Scoring section of the rules);
  * public-knowledge bookkeeping is sane (known_in_hand within the hand, Safe cards are Hens);
  * the state dict round-trips exactly through ``from_state_dict``.
"""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .reference import SlyReference, space_value

OPTIONS = st.fixed_dictionaries(
    {
        "num_players": st.sampled_from([2, 3, 4]),
        "hen_houses": st.sampled_from([None, 1, 2]),
        "reveal_scope": st.sampled_from(["house", "all"]),
        "first_player": st.sampled_from([0, "random"]),
    }
)

_envs: dict = {}


def _env(options: dict):
    """One env per option set, reused across examples (construction is not what we test)."""
    from sly_scout_env.sly_v0 import raw_env

    key = tuple(sorted((k, str(v)) for k, v in options.items()))
    if key not in _envs:
        _envs[key] = (raw_env(**options), raw_env(**options))
    return _envs[key]


def _mkey(move: dict) -> tuple:
    return tuple(sorted(move.items()))


def _scores_from_piles(d: dict) -> list[int]:
    """The Scoring section, written out once more from the raw dict."""
    n = d["num_players"]
    pts = [0] * n
    for s, sp in enumerate(d["spaces"]):
        if sp is not None and sp["safe"]:
            pts[sp["owner"]] += space_value(s)
    for gobbler in range(n):
        for hen in d["gobbled"][gobbler]:
            pts[gobbler] += -hen["card"] if hen["owner"] == gobbler else hen["card"]
        pts[gobbler] += n * len(d["captured"][gobbler])
    return pts


def check_position(env, twin, d: dict) -> None:
    n = d["num_players"]
    # every player's 7 cards, each exactly once
    for seat in range(n):
        where = list(d["hands"][seat])
        where += [sp["card"] for sp in d["spaces"] if sp is not None and sp["owner"] == seat]
        where += [h["card"] for pile in d["gobbled"] for h in pile if h["owner"] == seat]
        where += [0 for pile in d["captured"] for owner in pile if owner == seat]
        assert sorted(where) == [0, 1, 2, 3, 4, 5, 6], f"seat {seat}'s cards: {sorted(where)}"
    for sp in d["spaces"]:
        if sp is not None and sp["safe"]:
            assert sp["card"] != 0, "a Safe card must be a Hen"
    for pile in d["gobbled"]:
        assert all(h["card"] != 0 for h in pile), "only Hens are gobbled"
    for seat in range(n):
        assert set(d["known_in_hand"][seat]) <= set(d["hands"][seat])
    assert d["scores"] == _scores_from_piles(d)

    mask = env.legal_action_mask()
    legal = {_mkey(env.decode_action(int(a))) for a in np.flatnonzero(mask)}
    ref = SlyReference.from_state_dict(d)
    assert legal == {_mkey(m) for m in ref.legal_moves()}
    if d["game_over"]:
        assert mask.sum() == 0
        assert all(env.terminations.values())
        if d["end_reason"] == "all_safe":
            assert all(sp is not None and sp["safe"] for sp in d["spaces"])
        else:
            assert d["end_reason"] == "hand"
            # after the final flip no face-down Hen is left on the table
            assert all(sp is None or sp["safe"] or sp["card"] == 0 for sp in d["spaces"])
    else:
        assert mask.sum() >= 1, "there is always a legal move while the game runs"
        assert len(d["hands"][d["current_player"]]) >= 2
        assert env.agent_selection == f"player_{d['current_player']}"

    twin.from_state_dict(d)
    assert twin.state_dict() == d


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(options=OPTIONS, seed=st.integers(0, 2**32 - 1), data=st.data())
def test_invariants_hold_along_random_play(options, seed, data):
    env, twin = _env(options)
    env.reset(seed=seed)
    d = env.state_dict()
    check_position(env, twin, d)
    for _ in range(500):
        if d["game_over"]:
            break
        legal = np.flatnonzero(env.legal_action_mask())
        a = int(legal[data.draw(st.integers(0, len(legal) - 1), label="move")])
        env.step(a)
        d = env.state_dict()
        check_position(env, twin, d)
    assert d["game_over"], "random play should end well within 500 moves"


@settings(max_examples=200, deadline=None)
@given(options=OPTIONS, data=st.data())
def test_reference_invariants_on_its_own_play(options, data):
    """The same properties for the reference itself (no engine needed)."""
    opts = dict(options)
    start = 0 if opts["first_player"] == 0 else data.draw(st.integers(0, opts["num_players"] - 1))
    g = SlyReference(opts["num_players"], opts["hen_houses"], opts["reveal_scope"], opts["first_player"], start)
    for _ in range(500):
        if g.game_over:
            break
        moves = g.legal_moves()
        assert moves and len(g.hands[g.current_player]) >= 2
        g.apply(moves[data.draw(st.integers(0, len(moves) - 1), label="move")])
        d = g.to_state_dict()
        for seat in range(g.num_players):
            assert g.card_locations(seat) == [0, 1, 2, 3, 4, 5, 6]
        assert d["scores"] == _scores_from_piles(d)
    assert g.game_over and g.legal_moves() == []
