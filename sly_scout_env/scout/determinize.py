"""Determinization for Scout: sample the hidden cards from what one seat may know.

What a seat ``o`` (the observer) knows of the cards (``docs/scout_rules.md`` and the
redacted view of :func:`sly_scout_env.views.player_view`):

* its own hand, in order and orientation;
* every public card: the active set, the collected piles (every card in them was
  shown face up), and the opponents' hand cards flagged ``known`` (scouted this round:
  the whole Scout move, card, orientation and place, is public);
* the hand sizes, chips and scores, and (2 players, round 1) the size of the
  set-aside half.

Everything else is hidden: the identity *and orientation* of every other card in an
opponent's hand (the deal shuffled both, and the round-start flip is private), and the
set-aside half. :func:`determinize` gathers the hidden cards (their number is fixed by
the hand sizes and the set-aside size) and re-deals them uniformly over the hidden
places (a uniform permutation) with a uniform orientation each: a uniform draw among
every full state consistent with the public cards, hand sizes and ``known`` flags.
(Finer deductions from the move history, e.g. that a player who passed on a show
probably lacks a strong set, are not used, so the belief is a little wider than a
perfect reasoner's, never narrower.)

One deduction can be switched on (:func:`determinize_believing`, the search's
``belief`` parameter): a player who scouted a card usually put it where it meets an
equal or neighbouring number, to grow a set or a run. With ``belief=b``, a deal in which
a scouted card in an opponent's hand has such a neighbour (its number equal or one
apart from the scouted card's number, both as they now lie) counts ``1 + b`` times as
likely, once per scouted card: :data:`BELIEF_DRAWS` uniform deals are drawn and one is
kept in proportion to its weight (sampling-importance-resampling, so the belief leans
towards those deals without ever ruling a consistent deal out). ``belief=0`` is the
uniform draw above.

:func:`row_from_view` builds a full state row from a redacted view, placing the hidden
cards in a fixed canonical way that depends on the view only; :func:`determinize` then
re-deals them.

Two players, second round of a pair: the 22 cards of the first round are out of play.
The view does not say which of them the opponent still held unseen, so those 22 cards
are parked as extra hidden places in the (otherwise empty) set-aside region and the
opponent's hidden cards are drawn from all the unaccounted cards (again a wider belief
than a perfect-recall player's, never a narrower one).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .._rng import rng_below, rng_next, rng_unit
from . import rules as R
from .codec import dict_to_state

# The hidden cards are a subset of the deck, so the pool never holds more than the deck.
MAX_HIDDEN = R.DECK_CAP
BELIEF_DRAWS = 8  # uniform deals drawn per believing determinization; one is kept in proportion to its weight


@njit(cache=True)
def _is_hidden(state, seat, s, i):
    """Whether hand slot ``i`` of seat ``s`` is hidden from ``seat``."""
    if s == seat:
        return False
    if state[R.PHASE] == R.PHASE_FLIP:
        return True  # during the flip phase even a known card's side would tell the private choice
    return state[R.O_KNOWN + s * R.HAND_CAP + i] == 0


@njit(cache=True)
def count_hidden(state, seat):
    """Number of cards hidden from ``seat`` (opponents' unknown hand cards + set-aside half)."""
    n = state[R.NUM_PLAYERS]
    m = 0
    for s in range(n):
        for i in range(state[R.O_HAND_LEN + s]):
            if _is_hidden(state, seat, s, i):
                m += 1
    return m + state[R.O_SET_ASIDE_LEN]


@njit(cache=True)
def _gather(state, seat, pool):
    """Copy the hidden cards into ``pool`` (hand places seat by seat, then the set-aside half); their number."""
    n = state[R.NUM_PLAYERS]
    m = 0
    for s in range(n):
        h = R.O_HANDS + s * R.HAND_CAP
        for i in range(state[R.O_HAND_LEN + s]):
            if _is_hidden(state, seat, s, i):
                pool[m] = state[h + i]
                m += 1
    for j in range(state[R.O_SET_ASIDE_LEN]):
        pool[m] = state[R.O_SET_ASIDE + j]
        m += 1
    return m


@njit(cache=True)
def _scatter(state, seat, pool):
    """The inverse of :func:`_gather`: write ``pool`` back to the hidden places, in the same order."""
    n = state[R.NUM_PLAYERS]
    m = 0
    for s in range(n):
        h = R.O_HANDS + s * R.HAND_CAP
        for i in range(state[R.O_HAND_LEN + s]):
            if _is_hidden(state, seat, s, i):
                state[h + i] = pool[m]
                m += 1
    for j in range(state[R.O_SET_ASIDE_LEN]):
        state[R.O_SET_ASIDE + j] = pool[m]
        m += 1


@njit(cache=True)
def determinize(state, seat, rng, rng_off, pool):
    """Re-deal, in place, every card hidden from ``seat`` (see the module docstring).

    ``rng[rng_off]`` is the splitmix64 word to draw from (the caller's generator: the
    row's own generator, which deals later rounds, is left alone). ``pool`` is an int64
    scratch of at least ``MAX_HIDDEN`` entries. Reads only which places are hidden
    (public) and the multiset of hidden cards (the complement of the public cards), so
    the result's distribution depends on the observer's information only.
    """
    m = _gather(state, seat, pool)
    for j in range(m - 1, 0, -1):  # Fisher-Yates: a uniform permutation of the hidden cards
        k = rng_below(rng, rng_off, j + 1)
        t = pool[j]
        pool[j] = pool[k]
        pool[k] = t
    for j in range(m):  # a uniform orientation each
        if rng_next(rng, rng_off) & np.uint64(1):
            pool[j] = R.flipped(pool[j])
    _scatter(state, seat, pool)


@njit(cache=True)
def _meets(a, b):
    """Whether two cards' numbers in play are equal or one apart (they could grow one set or run)."""
    d = (a >> 4) - (b >> 4)
    return -1 <= d <= 1


@njit(cache=True)
def belief_weight(state, seat, belief):
    """The weight of a deal: ``1 + belief`` for each scouted card in an opponent's hand next to a card it meets."""
    if state[R.PHASE] == R.PHASE_FLIP:
        return 1.0  # nothing is scouted yet in a round's flip phase
    w = 1.0
    for s in range(state[R.NUM_PLAYERS]):
        if s == seat:
            continue
        h = R.O_HANDS + s * R.HAND_CAP
        kn = R.O_KNOWN + s * R.HAND_CAP
        L = state[R.O_HAND_LEN + s]
        for i in range(L):
            if state[kn + i] == 0:
                continue
            c = state[h + i]
            if (i > 0 and _meets(c, state[h + i - 1])) or (i + 1 < L and _meets(c, state[h + i + 1])):
                w *= 1.0 + belief
    return w


@njit(cache=True)
def determinize_believing(state, seat, rng, rng_off, pool, kept, belief):
    """:func:`determinize`, leaning towards deals that explain the opponents' Scouts (module docstring).

    Draws :data:`BELIEF_DRAWS` deals with :func:`determinize` and keeps one with probability
    proportional to :func:`belief_weight` (one pass, weighted reservoir sampling); ``kept``
    is a second scratch like ``pool``. ``belief=0`` is exactly :func:`determinize` (one
    draw, the same random numbers).
    """
    if belief <= 0:
        determinize(state, seat, rng, rng_off, pool)
        return
    total = 0.0
    for k in range(BELIEF_DRAWS):
        determinize(state, seat, rng, rng_off, pool)
        w = belief_weight(state, seat, belief)
        total += w
        if k == 0 or rng_unit(rng, rng_off) * total < w:
            _gather(state, seat, kept)
    _scatter(state, seat, kept)


def row_from_view(view: dict) -> np.ndarray:
    """A full state row consistent with ``view`` (a Scout :func:`player_view`), hidden cards canonical.

    The hidden cards (the deck minus every card the view shows) go, in ascending
    order and lower number up, to the hidden opponent hand places (seat by seat, left
    to right) and then to the set-aside half. Only the view is read, so two states
    that give the same view give the same row. ValueError if the view is inconsistent.
    """
    if not isinstance(view, dict) or view.get("game") != "scout" or "viewer" not in view:
        raise ValueError("view must be a Scout player view (sly_scout_env.views.player_view of a scout state)")
    n = view["num_players"]
    seat = view["viewer"]
    seen = set()

    def note(cards):
        for c in cards:
            if c is not None:
                seen.add(frozenset(c))

    for hand in view["hands"]:
        note(hand)
    note(view["active_set"])
    for pile in view["collected"]:
        note(pile)
    deck = [(a, b) for a in range(1, 11) for b in range(a + 1, 11) if R.in_deck(n, a, b)]
    hidden = [list(c) for c in deck if frozenset(c) not in seen]
    set_aside_len = view["set_aside"] if isinstance(view["set_aside"], int) else len(view["set_aside"])
    flip_phase = view["phase"] == "flip"
    hands = []
    k = 0
    for s, hand in enumerate(view["hands"]):
        out = []
        for card in hand:
            if s != seat and (card is None or flip_phase):
                # A flip-phase view hides every opponent card; none is known at round start anyway.
                out.append(None)
            else:
                out.append(list(card))
        hands.append(out)
    need = sum(c is None for h in hands for c in h) + set_aside_len
    if n == 2 and set_aside_len == 0 and len(hidden) - need == R.SET_ASIDE_CAP:
        # 2 players, second round of a pair: the first round's 22 cards are out of play, and
        # which of them the opponent kept hidden cannot be told from the view. Park every
        # unaccounted card in the (now unused) set-aside region as hidden places, so that
        # determinize deals the opponent's hidden cards from all of them. (The engine never
        # reads this region in an odd round: the next round, if any, shuffles afresh.)
        set_aside_len = R.SET_ASIDE_CAP
        need += R.SET_ASIDE_CAP
    if need != len(hidden):
        raise ValueError(
            f"view field 'hands'/'set_aside': {need} hidden places but {len(hidden)} cards unaccounted for "
            f"in the {n}-player deck; the view is inconsistent"
        )
    for hand in hands:
        for i, card in enumerate(hand):
            if card is None:
                hand[i] = hidden[k]
                k += 1
    d = {key: v for key, v in view.items() if key not in ("viewer", "hand_sizes")}
    d["hands"] = hands
    d["set_aside"] = hidden[k : k + set_aside_len]
    row, _ = dict_to_state(d, R.new_state(**R.parse_options(num_players=n)))
    return row
