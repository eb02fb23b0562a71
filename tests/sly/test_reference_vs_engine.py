"""The compiled Sly engine against the plain-Python reference, in lockstep on random games.

At every step both must offer the same set of legal moves (the engine's mask decoded to
move dicts vs. ``SlyReference.legal_moves()``), and after every move both must hold the
same state dict (all fields but the generator word ``rng``). At the end the final scores
must match, and under ``reward="score"`` the rewards must be zero until the last step,
which pays the final scores.

Sizes: every (player count, hen_houses, reveal_scope) cell plays GAMES_PER_CELL = 2,000
games (so >= 2,000 per player count AND per option set, even cell by cell), plus a smaller
first_player="random" run. About 1.5 ms a game: the file takes ~40 s on one core. Cells
are split into CHUNKS test items so pytest-xdist can spread them.
"""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from .reference import SlyReference

pytestmark = pytest.mark.slow  # ~40 s of lockstep games

GAMES_PER_CELL = 2_000
CHUNKS = 2
RANDOM_FIRST_GAMES = 500  # per player count, first_player="random" (default houses/scope)
STEP_CAP = 5_000  # random play ends long before this; a hit means a game that never ends

CELLS = [
    (p, hh, scope, chunk)
    for p in (2, 3, 4)
    for hh in (1, 2)
    for scope in ("house", "all")
    for chunk in range(CHUNKS)
]


def _mkey(move: dict) -> tuple:
    return tuple(sorted(move.items()))


def _no_rng(d: dict) -> dict:
    return {k: v for k, v in d.items() if k != "rng"}


def _fail(what: str, seed: int, history: list, before: dict | None, engine: object, reference: object):
    raise AssertionError(
        f"{what} (game seed {seed})\n"
        f"moves so far: {json.dumps(history)}\n"
        f"state before the last move: {json.dumps(before)}\n"
        f"engine:    {json.dumps(engine, default=str)}\n"
        f"reference: {json.dumps(reference, default=str)}"
    )


def play_lockstep(env, seed: int, first_player) -> int:
    """Play one uniform-random game on ``env`` and the reference side by side; return its length."""
    env.reset(seed=seed)
    rng = random.Random(seed)
    start = env.state_dict()
    n = env.num_players
    if first_player == 0:
        assert start["current_player"] == 0
    assert start["hands"] == [[0, 1, 2, 3, 4, 5, 6]] * n
    assert start["spaces"] == [None] * (4 * start["hen_houses"])
    ref = SlyReference.from_state_dict(start)
    if ref.to_state_dict() != _no_rng(start):
        _fail("fresh game: state dicts differ", seed, [], None, _no_rng(start), ref.to_state_dict())

    history = []
    before = _no_rng(start)
    paid = [0.0] * n
    steps = 0
    while not ref.game_over:
        mask = env.legal_action_mask()
        legal_ids = np.flatnonzero(mask).tolist()
        eng_legal = {_mkey(env.decode_action(a)) for a in legal_ids}
        ref_legal = {_mkey(m) for m in ref.legal_moves()}
        if eng_legal != ref_legal:
            _fail("legal moves differ", seed, history, before,
                  sorted(map(str, eng_legal - ref_legal)), sorted(map(str, ref_legal - eng_legal)))
        if len(legal_ids) != len(eng_legal):
            _fail("two legal action ids decode to the same move", seed, history, before, legal_ids, None)
        assert not env.terminations[env.agent_selection]

        a = rng.choice(legal_ids)
        move = env.decode_action(a)
        assert env.encode_action(move) == a
        history.append(move)
        env.step(a)
        ref.apply(move)
        after = _no_rng(env.state_dict())
        want = ref.to_state_dict()
        if after != want:
            diff = {k: (after.get(k), want.get(k)) for k in set(after) | set(want) if after.get(k) != want.get(k)}
            _fail(f"state differs after {move}: {sorted(diff)}", seed, history, before, after, want)
        for i, agent in enumerate(env.possible_agents):
            paid[i] += env.rewards[agent]
            if not ref.game_over:
                assert env.rewards[agent] == 0.0, "reward='score' pays only at the end"
        before = after
        steps += 1
        assert steps < STEP_CAP, f"game seed {seed} did not end within {STEP_CAP} steps"

    assert all(env.terminations.values())
    assert env.legal_action_mask().sum() == 0
    assert paid == [float(x) for x in ref.scores()]
    return steps


@pytest.mark.parametrize("num_players, hen_houses, reveal_scope, chunk", CELLS)
def test_random_games_match_reference(num_players, hen_houses, reveal_scope, chunk):
    from sly_scout_env.sly_v0 import raw_env

    env = raw_env(num_players=num_players, hen_houses=hen_houses, reveal_scope=reveal_scope)
    per_chunk = -(-GAMES_PER_CELL // CHUNKS)
    base = 1_000_000 * num_players + 100_000 * hen_houses + (50_000 if reveal_scope == "all" else 0)
    total_steps = 0
    for i in range(chunk * per_chunk, (chunk + 1) * per_chunk):
        total_steps += play_lockstep(env, base + i, first_player=0)
    assert total_steps > per_chunk  # games were actually played


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_random_games_match_reference_random_first_player(num_players):
    from sly_scout_env.sly_v0 import raw_env

    env = raw_env(num_players=num_players, first_player="random")
    starts = set()
    for i in range(RANDOM_FIRST_GAMES):
        env.reset(seed=7_000_000 + i)
        starts.add(env.state_dict()["current_player"])
        play_lockstep(env, 7_000_000 + i, first_player="random")
    assert starts == set(range(num_players))  # every seat starts some game
