"""Determinization for Sly: sample the hidden cards from what one seat may know.

In Sly nothing is dealt at random: every card starts in its owner's hand, so the only
hidden information is *which* of an opponent's cards lie where. For an opponent ``o``
the public knowledge (see ``docs/sly_rules.md``, Public knowledge) is:

* the owner of every face-down card (the back shows the colour), every face-up card,
  the hand sizes, the gobbled and captured piles;
* ``known_in_hand[o]``: cards flipped by a Reveal and sent home, known to be in the
  hand until ``o`` lays a card again.

So ``o``'s *free* cards (in hand but not known there, or face down on the table) may be
anywhere among ``o``'s *free slots* (the face-down spaces of ``o`` and the unknown hand
places). :func:`determinize` deals the free cards uniformly at random over the free
slots, independently per opponent: a uniform draw among every full state consistent
with what the observer knows as tracked by the engine. (The engine tracks public
knowledge as ``known_in_hand``; finer deductions from the move history, e.g. that a
card laid before a Reveal cannot be the card that Reveal sent home, are not used, so
the belief is a little wider than a perfect bookkeeper's, never narrower.)

The observer's own hand and face-down cards, every face-up card and every pile are
left as they are, and the observer's cards are never touched.

:func:`row_from_view` builds a full state row from a redacted view
(:func:`sly_scout_env.agents.bots.views.player_view`), placing the hidden cards in a fixed canonical way
that depends on the view only; :func:`determinize` then re-deals them.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .._rng import rng_below
from . import rules as R


@njit(cache=True)
def determinize(state, seat, rng, rng_off):
    """Re-deal, in place, every card hidden from ``seat`` (see the module docstring).

    ``rng[rng_off]`` is the splitmix64 word to draw from (the caller's generator, so the
    game's own generator in ``state[RNG]`` is left alone). Uses no scratch memory: the
    free cards of one opponent are at most 7, held in a fixed-size local loop.
    """
    num_p = state[R.NUM_PLAYERS]
    for o in range(num_p):
        if o == seat:
            continue
        base = o * R.CARDS_PER_PLAYER
        # Free cards as a 7-bit set, and their number.
        free_mask = 0
        n_free = 0
        for c in range(R.CARDS_PER_PLAYER):
            i = base + c
            where = state[R.CARD_WHERE + i]
            if (where == R.IN_HAND and state[R.KNOWN_IN_HAND + i] == 0) or (
                where == R.ON_SPACE and state[R.SPACE_STATE + state[R.CARD_PLACE + i]] == R.FACE_DOWN
            ):
                free_mask |= 1 << c
                n_free += 1
        if n_free > 1:
            deal_unseen(state, o, free_mask, n_free, rng, rng_off)


@njit(cache=True)
def deal_unseen(row, owner, free, left, rng, rng_off):
    """Deal ``owner``'s unseen cards (the 7-bit set ``free`` of ``left`` cards) at random.

    Walks the free slots (``owner``'s face-down spaces in space order, then the hand) and
    gives each one a uniformly drawn card among those not dealt yet: a uniform random
    assignment of cards to slots. Serves ISMCTS's :func:`determinize` and the greedy
    heuristic's belief samples (``heuristic.sample_row``).
    """
    base = owner * R.CARDS_PER_PLAYER
    for s in range(row[R.NUM_SPACES]):
        if row[R.SPACE_STATE + s] == R.FACE_DOWN and row[R.SPACE_OWNER + s] == owner and left > 0:
            c = _kth_bit(free, rng_below(rng, rng_off, left))
            free &= ~(1 << c)
            left -= 1
            row[R.SPACE_CARD + s] = c
            row[R.CARD_WHERE + base + c] = R.ON_SPACE
            row[R.CARD_PLACE + base + c] = s
    # What is left of the free cards goes to the hand.
    for c in range(R.CARDS_PER_PLAYER):
        if free & (1 << c):
            row[R.CARD_WHERE + base + c] = R.IN_HAND
            row[R.CARD_PLACE + base + c] = -1


@njit(cache=True, inline="always")
def _kth_bit(mask, k):
    """The index of the ``k``-th (0-based) set bit of ``mask``."""
    for c in range(R.CARDS_PER_PLAYER):
        if mask & (1 << c):
            if k == 0:
                return c
            k -= 1
    return -1


def row_from_view(view: dict, template: np.ndarray | None = None) -> np.ndarray:
    """A full state row consistent with ``view`` (a :func:`sly_scout_env.agents.bots.views.player_view` dict).

    Each opponent's unseen cards (their 7 cards minus those face up, in piles or in
    ``known_in_hand``) fill, in ascending order, first their face-down spaces (in space
    order), then the unknown places of their hand. The placement depends on the view
    only, so nothing hidden leaks in; call :func:`determinize` to re-deal it. The row's
    generator word is 0 (the view carries none): set ``row[RNG]`` before playing moves
    that draw from it.
    """
    from .codec import dict_to_state

    if not isinstance(view, dict) or view.get("game") != "sly":
        raise ValueError(f"view must be a Sly player view dict (game 'sly'), got {type(view).__name__}")
    seat = view["viewer"]
    num_p = view["num_players"]
    d = {k: v for k, v in view.items() if k not in ("viewer", "hand_sizes")}
    hands = [list(h) for h in view["hands"]]
    spaces = [None if sp is None else dict(sp) for sp in view["spaces"]]
    for o in range(num_p):
        if o == seat:
            continue
        seen = {c for c in hands[o] if c is not None}
        for sp in spaces:
            if sp is not None and sp["owner"] == o and sp["card"] is not None:
                seen.add(sp["card"])
        for g in (g for pile in view["gobbled"] for g in pile):
            if g["owner"] == o:
                seen.add(g["card"])
        for pile in view["captured"]:
            if o in pile:
                seen.add(R.FOX)
        unseen = [c for c in range(R.CARDS_PER_PLAYER) if c not in seen]
        for sp in spaces:
            if sp is not None and sp["owner"] == o and sp["card"] is None:
                sp["card"] = unseen.pop(0)
        hands[o] = sorted([c for c in hands[o] if c is not None] + unseen)
    d["hands"] = hands
    d["spaces"] = spaces
    d.pop("scores", None)  # recomputed by the loader
    if template is None:
        template = R.new_state(num_players=num_p, hen_houses=view["hen_houses"], reveal_scope=view["reveal_scope"],
                               first_player=view["first_player"])
    row, _ = dict_to_state(d, template)
    row[R.RNG] = 0
    return row
