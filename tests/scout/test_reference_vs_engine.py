"""The engine against the plain-Python reference, in lockstep, on thousands of random games.

At every step both must offer the same legal moves, and after every move both must be
in the same state (the whole state dict except ``rng``; the reference copies only a new
deal from the engine, see ``ScoutReference.take_deal``), so the scores agree as well.

Legal sets are compared as action ids: the reference encodes its moves with its own
implementation of the contract's action layout; the engine's ``decode_action`` is
checked on every chosen action and on the whole legal set at the first play decision of
every game (decoding every legal id of every step would dominate the run time).

Per player count: 2,000 one-hand games (``rounds=1``) and 300 full-length games, with
both values of ``ii_after_empty_set`` (and of ``score_held_chips`` for two players).
Each game draws its moves by one of four random policies: uniformly over the legal
ids; type first (show / scout / scout_and_show uniformly, then uniformly within the
type); any Show whenever there is one; a longest Show whenever there is one. Uniform
play alone mostly Scouts and ends almost every round by (ii); the others make long
rounds and ends by (i) common too. ``SCOUT_LOCKSTEP_SCALE`` (a float, default 1)
scales the game counts for quick local runs.
"""

from __future__ import annotations

import json
import os
import random

import numpy as np
import pytest

from sly_scout_env.scout_v0 import raw_env

from .reference import ScoutReference, encode_move, move_to_dict

SCALE = float(os.environ.get("SCOUT_LOCKSTEP_SCALE", "1"))
ONE_HAND_GAMES = max(1, int(2000 * SCALE))
FULL_GAMES = max(1, int(300 * SCALE))


def option_sets(n: int) -> list[tuple[bool, bool]]:
    """(ii_after_empty_set, score_held_chips) combinations worth playing for ``n`` players."""
    if n == 2:
        return [(ii, held) for ii in (True, False) for held in (True, False)]
    return [(True, True), (False, True)]


POLICIES = ("uniform", "by_type", "show_first", "longest_show")


def choose(policy: str, rng: random.Random, moves: dict, ids: list[int]) -> int:
    """A random legal action id: uniform; type first; a Show whenever there is one; or a
    longest Show whenever there is one."""
    if policy == "by_type":
        kind = rng.choice(sorted({m[0] for m in moves.values()}))
        return rng.choice([a for a, m in moves.items() if m[0] == kind])
    if policy in ("show_first", "longest_show"):
        shows = [a for a, m in moves.items() if m[0] == "show"]
        if shows and policy == "longest_show":
            longest = max(moves[a][2] for a in shows)
            shows = [a for a in shows if moves[a][2] == longest]
        if shows:
            return rng.choice(shows)
    return rng.choice(ids)


def _engine_state(e) -> dict:
    d = e.state_dict()
    d.pop("rng")
    return d


def _comparable(d: dict) -> dict:
    d = dict(d)
    if d["phase"] == "game_over":
        d.pop("current_player")  # any seat is fine once the game is over (contract)
    return d


def _mismatch(what: str, before: dict, move, expected, actual) -> str:
    return (
        f"{what}\nstate before the move:\n{json.dumps(before)}\nmove: {move}\n"
        f"reference: {json.dumps(expected)}\nengine:    {json.dumps(actual)}"
    )


def _diff_states(expected: dict, actual: dict) -> dict:
    keys = sorted(set(expected) | set(actual))
    return {k: {"reference": expected.get(k), "engine": actual.get(k)}
            for k in keys if expected.get(k) != actual.get(k)}


def play_lockstep(n: int, seed: int, rounds: int | None, ii_after_empty_set: bool, score_held_chips: bool) -> int:
    """Play one random game on both; return the number of steps. Fails on any difference."""
    rng = random.Random(seed)
    policy = rng.choice(POLICIES)
    e = raw_env(num_players=n, rounds=rounds, ii_after_empty_set=ii_after_empty_set,
                score_held_chips=score_held_chips)
    e.reset(seed=seed)
    ref = ScoutReference(n, rounds, ii_after_empty_set, score_held_chips)
    state = _engine_state(e)
    ref.take_deal(state)
    expected = ref.to_state_dict()
    assert _comparable(expected) == _comparable(state), _mismatch(
        "start of game", state, None, _diff_states(expected, state), None
    )
    steps = 0
    decoded_all = False
    while ref.phase != "game_over":
        assert not e.terminations[e.agent_selection], f"engine ended early:\n{json.dumps(state)}"
        assert e.agent_selection == f"player_{ref.current_player}"
        moves = {encode_move(m, n): m for m in ref.legal_move_tuples()}
        engine_ids = np.flatnonzero(e.legal_action_mask()).tolist()
        if set(engine_ids) != moves.keys():
            only_engine = [e.decode_action(a) for a in sorted(set(engine_ids) - moves.keys())]
            only_ref = [move_to_dict(moves[a]) for a in sorted(moves.keys() - set(engine_ids))]
            raise AssertionError(
                f"legal moves differ\nstate:\n{json.dumps(state)}\n"
                f"engine only: {only_engine}\nreference only: {only_ref}"
            )
        assert engine_ids, f"no legal move while the game runs:\n{json.dumps(state)}"
        if not decoded_all and ref.phase == "play":
            decoded = sorted(map(json.dumps, (e.decode_action(a) for a in engine_ids)))
            assert decoded == sorted(map(json.dumps, ref.legal_moves())), json.dumps(state)
            decoded_all = True
        action = choose(policy, rng, moves, engine_ids)
        move = moves[action]
        assert e.decode_action(action) == move_to_dict(move)
        before = state
        e.step(action)
        ref.apply_unchecked(move)
        steps += 1
        state = _engine_state(e)
        if ref.needs_deal:
            ref.take_deal(state)
        expected = ref.to_state_dict()
        if _comparable(expected) != _comparable(state):
            raise AssertionError(
                _mismatch("states differ after the move", before, move_to_dict(move), None, None)
                + "\ndifferences: "
                + json.dumps(_diff_states(_comparable(expected), _comparable(state)))
            )
    assert all(e.terminations.values())
    assert state["scores"] == ref.scores
    assert len(ref.round_scores) == ref.rounds
    return steps


def _run(n: int, games: int, rounds: int | None, seed_base: int) -> None:
    combos = option_sets(n)
    total = 0
    for g in range(games):
        ii, held = combos[g % len(combos)]
        total += play_lockstep(n, seed_base + g, rounds, ii, held)
    assert total > games  # every game took several steps


@pytest.mark.slow
@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_one_hand_games_match_reference(n):
    _run(n, ONE_HAND_GAMES, rounds=1, seed_base=1_000_000 * n)


@pytest.mark.slow
@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_full_games_match_reference(n):
    _run(n, FULL_GAMES, rounds=None, seed_base=1_000_000 * n + 500_000)


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_more_rounds_than_official_match_reference(n):
    # rounds is free (>= 1); with two players an odd round deals the set-aside half and
    # an even one deals the whole deck afresh.
    _run(n, max(1, int(20 * SCALE)), rounds=5, seed_base=1_000_000 * n + 900_000)
