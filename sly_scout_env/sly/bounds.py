"""Sly: how long a game can last and how far a score can go, derived from the rules.

Used where a game must be described by its bounds (``sly_scout_env.openspiel``: OpenSpiel's
``max_game_length``, ``min_utility`` and ``max_utility``). ``options`` is the dict of
:func:`sly_scout_env.sly.rules.parse_options` (``hen_houses`` resolved). A *move* is one
action of a player.

Length
------
**No bound.** A Reveal of a Hen House whose face-down cards are all Foxes gobbles and
saves nothing and sends the Foxes home; their owners lay them again and the same Reveal
can follow, for ever (the env's docstring notes it at ``max_steps``). Random play ends
fast (measured: at most 37 moves in 300 games at 4 players), but no finite ``max_moves``
exists: a caller caps the game.

Scores
------
A seat scores its Safe Hens (the space's value, 1-4), the Hens it gobbled (+rank, or
-rank for its own) and the Foxes it captured (the number of players each):

* at least -21: only its own Hens 1..6 gobbled by itself can cost points;
* at most its 6 Hens Safe on the 6 most valuable spaces, plus every opponent Hen
  gobbled (21 each) and every opponent Fox captured.

Sound, not tight (a Hen gobbled is not also Safe). A game stopped early by a move cap
scores 0 for everyone (the env's ``reward="score"`` pays at the end only), inside the bounds.
"""

from __future__ import annotations

from . import rules as R

HENS = tuple(range(1, R.CARDS_PER_PLAYER))  # ranks 1..6
HEN_POINTS = sum(HENS)  # 21


def max_moves(options: dict) -> int | None:
    """The most moves a game can last by the rules: None (no bound; see the module docstring)."""
    return None


def score_bounds(options: dict, max_moves: int | None) -> tuple[float, float]:
    """``(lo, hi)``: every seat's score lies in ``[lo, hi]`` (whatever the length of the game)."""
    p = options["num_players"]
    values = sorted((s % R.SPACES_PER_HOUSE + 1 for s in range(R.SPACES_PER_HOUSE * options["hen_houses"])),
                    reverse=True)
    safe = sum(values[: len(HENS)])
    return float(-HEN_POINTS), float(safe + HEN_POINTS * (p - 1) + p * (p - 1))
