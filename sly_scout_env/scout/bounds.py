"""Scout: how long a game can last and how far a score can go, derived from the rules.

Used where a game must be described by its bounds (``sly_scout_env.openspiel``: OpenSpiel's
``max_game_length``, ``min_utility`` and ``max_utility``). ``options`` is the dict of
:func:`sly_scout_env.scout.rules.parse_options` (``rounds`` resolved). A *move* is one
action of a player (a flip decision counts, as in the env's ``max_steps``).

Length
------
**2 players: at most 36 moves a round.** 2 flip decisions; a Scout costs the scout one of
its 3 chips (never regained), so at most 6 Scouts; every Show takes at least one card out of
the shower's hand, and at most 22 dealt + 6 scouted cards ever enter the hands, so at most
28 Shows. A game: ``36 * rounds``.

**3-5 players: no bound.** Scouts cost nothing (the chip goes to the active set's owner),
and a Show on a set that was scouted empty collects nothing. So with 3 players, A shows
one card, B scouts it (the set is empty and the turn passes to C, not to its owner A),
C shows one card on the empty set, A scouts it, B shows, C scouts, ... repeats for ever
without ending the round (also with ``ii_after_empty_set=True``: the turn never returns to
the owner right after the set is emptied). Random play rarely lingers (measured at 5
players: about 650 moves a game on average), but no finite ``max_moves`` exists: a
caller caps the game.

Scores
------
A seat's round points are ``collected + chips - hand`` (the hand not counted for the owner
who ended the round by (ii); 2 players: held chips only with ``score_held_chips``):

* at least ``-MAX_HAND``: nothing collected, no chip, the largest hand;
* at most the cards in play that round (all collected) plus the chips: 2 players at most 3
  held chips a round; 3-5 players one chip per Scout by another seat, so over a game at
  most one per move (unbounded without a move cap, like the length).

A game's total is the sum of its rounds'. The bounds are sound, not tight (no round both
collects every card and ends with an empty hand at every seat).
"""

from __future__ import annotations

from . import rules as R

MOVES_PER_ROUND_2P = 2 + 2 * 3 + (2 * 11 + 2 * 3)  # flips + Scouts (chips) + Shows (cards entering hands)


def max_moves(options: dict) -> int | None:
    """The most moves a game of these options can last by the rules; None: no bound (3-5 players)."""
    if options["num_players"] == 2:
        return MOVES_PER_ROUND_2P * options["rounds"]
    return None


def cards_in_play(num_players: int) -> int:
    """Cards dealt in one round (2 players: half of the 44-card deck)."""
    return int(R.cards_dealt(num_players)) * num_players


def score_bounds(options: dict, max_moves: int | None) -> tuple[float, float]:
    """``(lo, hi)``: every seat's game total lies in ``[lo, hi]`` when the game lasts at most
    ``max_moves`` moves (None: as the rules allow; ValueError at 3-5 players, where chips,
    like the length, are unbounded)."""
    n = options["num_players"]
    rounds = options["rounds"]
    lo = -rounds * int(R.max_hand(n))
    per_round = cards_in_play(n)
    if n == 2:
        chips = 3 * rounds if options["score_held_chips"] else 0
    else:
        if max_moves is None:
            raise ValueError("Scout with 3-5 players has no score bound without a move cap (Scouts give "
                             "chips and can go on for ever); give max_moves")
        chips = max_moves
    return float(lo), float(rounds * per_round + chips)
