"""Test helpers that play games: random positions, whole games between bots, refused state dicts.

Generic over the registry (``sly_scout_env.games``); every test module that needs a position or
a bots' game takes it from here.
"""

from __future__ import annotations

import numpy as np
import pytest

from sly_scout_env.games import get_game
from sly_scout_env.views import player_view


def random_position(game: str, players: int, seed: int, moves: int, **options):
    """A raw env of ``game`` after ``moves`` uniform-random legal moves from ``seed`` (fewer at game over)."""
    env = get_game(game).raw_env(num_players=players, **options)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        if env.terminations[env.agent_selection]:
            break
        env.step(int(rng.choice(np.flatnonzero(env.legal_action_mask()))))
    return env


def bot_info(env, seat: int) -> dict:
    """What a bot gets as ``info`` in the arena: its seat and its redacted view."""
    return {"seat": seat, "view": player_view(env.state_dict(), seat)}


def play_bots(game: str, players: int, options: dict, seed: int, bots, max_moves: int | None = None) -> list:
    """One game of ``bots`` (seat order; bot seeds ``100 + seat``), every move checked legal; the moves.

    Without ``max_moves`` the game is played to its end (and checked over)."""
    env = get_game(game).raw_env(num_players=players, **options)
    env.reset(seed=seed)
    for s, b in enumerate(bots):
        b.reset(100 + s, game=game, num_players=players, seat=s, options=options)
    moves = []
    while not env.terminations[env.agent_selection]:
        seat = env.agent_name_mapping[env.agent_selection]
        o = env.observe(env.agent_selection)
        a = int(bots[seat].act(o["observation"], o["action_mask"], bot_info(env, seat)))
        assert o["action_mask"][a] == 1, (game, players, options, seat, a)
        moves.append(a)
        env.step(a)
        if max_moves is not None and len(moves) >= max_moves:
            return moves
    assert all(env.terminations.values())
    return moves


def assert_refused(env, d, field):
    """``from_state_dict(d)`` raises a ValueError naming ``field`` and leaves ``env`` as it was."""
    before = env.state_dict()
    with pytest.raises(ValueError) as info:
        env.from_state_dict(d)
    assert f"state dict field {field!r}" in str(info.value), str(info.value)
    assert env.state_dict() == before
