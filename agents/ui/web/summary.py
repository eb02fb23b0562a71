"""Round and match summaries of the web table: every hand face up, and how each score came about.

Each game makes its own summary (its optional ``summary`` role, ``sly_scout_env/<game>/summary.py``:
``round_end(options, before, after, action, viewer)`` and ``SEAT_KEYS``), from the state dicts
around the move that ended a round or the match, so a summary only ever exists once that round
is over: nothing in it is a secret of a position still being played. This module finds the role
through the game registry; a game without one shows no summary.
"""

from __future__ import annotations

from sly_scout_env.games import get_game


def seat_keys(game: str) -> frozenset | None:
    """The fields of one seat in ``game``'s summaries (None: the game makes none)."""
    role = get_game(game).optional_module("summary")
    return None if role is None else role.SEAT_KEYS


def round_end(game: str, options: dict, before: dict, after: dict, action: int, viewer: int) -> dict | None:
    """The summary of the round (or match) ``action`` ended, for ``viewer``; None when it ended none."""
    role = get_game(game).optional_module("summary")
    return None if role is None else role.round_end(options, before, after, action, viewer)
