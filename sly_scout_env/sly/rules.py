"""Sly rules as Numba kernels on one flat ``int64`` state row.

Rules: ``docs/sly_rules.md`` (the authority). Every kernel takes the state row
first so that a batched version can loop rows with ``numba.prange``.

Cards are ints: ``0`` = Fox, ``1..6`` = Hen of that rank; each player owns one of
each, so a card is identified by ``(owner, card)`` and stored at index
``owner * 7 + card`` of the per-card blocks below.

Spaces are numbered house by house: space ``s`` lies in Hen House ``s // 4`` and is
worth ``s % 4 + 1``::

      house 0                 house 1 (with hen_houses=2)
    [s0=1][s1=2]            [s4=1][s5=2]
    [s2=3][s3=4]            [s6=3][s7=4]

Where a card is is kept twice, per card (``CARD_WHERE``/``CARD_PLACE``) and per space
(``SPACE_*``): the per-space view makes legal masks and Reveals cheap, the per-card
view makes card conservation, piles and public knowledge cheap. Every kernel that
moves a card updates both.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .._rng import rng_below, word_store
from ..checks import check_choice

# -- sizes -----------------------------------------------------------------------------
MAX_PLAYERS = 4
CARDS_PER_PLAYER = 7  # Fox (0) and Hens 1..6
FOX = 0
SPACES_PER_HOUSE = 4
MAX_HOUSES = 2
MAX_SPACES = SPACES_PER_HOUSE * MAX_HOUSES
MAX_CARDS = MAX_PLAYERS * CARDS_PER_PLAYER

# -- codes -----------------------------------------------------------------------------
# CARD_WHERE values: where one card is.
IN_HAND = 0
ON_SPACE = 1  # CARD_PLACE = the space (face down, Safe, or a face-up Fox after the final flip)
GOBBLED = 2  # CARD_PLACE = the seat of the gobbler (a Hen only)
CAPTURED = 3  # CARD_PLACE = the seat of the captor (a Fox only)

# SPACE_STATE values.
EMPTY = 0
FACE_DOWN = 1
SAFE = 2  # a Safe Hen, face up for the rest of the game
FACE_UP_FOX = 3  # a Fox turned by the final flip: stays on its space, worth nothing

# PHASE values (the contract's shared phase field: Sly has one playing phase).
PHASE_PLAY = 0
PHASE_GAME_OVER = 1
PHASE_NAMES = ("play", "game_over")

# END_REASON values (also the simulate() ``end_reason`` codes).
END_NONE = 0
END_HAND = 1  # a player held <= 1 card at the start of their turn (final flip done)
END_ALL_SAFE = 2  # every space in play holds a Safe Hen

# -- the state row ---------------------------------------------------------------------
RNG = 0  # splitmix64 generator word of this game (see _rng.py)
NUM_PLAYERS = 1  # option: 2..4 players
HEN_HOUSES = 2  # option: Hen Houses in play (1 or 2)
NUM_SPACES = 3  # 4 * HEN_HOUSES, kept to save a multiply in every kernel
REVEAL_ALL = 4  # option reveal_scope: 0 = "house" (a Reveal picks one house), 1 = "all"
FIRST_RANDOM = 5  # option first_player: 0 = seat 0 starts, 1 = a seat drawn from RNG at reset
CURRENT_PLAYER = 6  # seat to act
PHASE = 7  # PHASE_PLAY, or PHASE_GAME_OVER once the game has ended
END_REASON = 8  # why it ended: END_NONE / END_HAND / END_ALL_SAFE
STEPS = 9  # actions applied since reset (simulate's step cap and statistics)
PILE_SEQ = 10  # next sequence number for gobbled/captured piles: keeps each pile in event order
HAND_SIZE = 11  # [MAX_PLAYERS] cards in each seat's hand
CARD_WHERE = HAND_SIZE + MAX_PLAYERS  # [MAX_CARDS] IN_HAND / ON_SPACE / GOBBLED / CAPTURED per card
CARD_PLACE = CARD_WHERE + MAX_CARDS  # [MAX_CARDS] the space, or the gobbler/captor seat, per card
CARD_SEQ = CARD_PLACE + MAX_CARDS  # [MAX_CARDS] PILE_SEQ value when the card joined a pile
KNOWN_IN_HAND = CARD_SEQ + MAX_CARDS  # [MAX_CARDS] 1 = flipped by a Reveal and returned, and its
#   owner has not laid a card since: publicly known to be in that hand
SPACE_OWNER = KNOWN_IN_HAND + MAX_CARDS  # [MAX_SPACES] seat owning the card on the space, -1 if empty
SPACE_CARD = SPACE_OWNER + MAX_SPACES  # [MAX_SPACES] card on the space (0 Fox, 1..6 Hen), -1 if empty
SPACE_STATE = SPACE_CARD + MAX_SPACES  # [MAX_SPACES] EMPTY / FACE_DOWN / SAFE / FACE_UP_FOX
ROW_SIZE = SPACE_STATE + MAX_SPACES

# The fields that grow with play without a bound fixed by the deal (Reveals can repeat):
# checked by the batched kernels on narrow rows (kernels.NARROW_LIMIT; Sly's vector-env rows
# are int64, see batch.new_batch).
GROWING = np.array([STEPS, PILE_SEQ], dtype=np.int64)

MAX_ACTIONS = 8 * MAX_SPACES + MAX_HOUSES + 1  # the largest action space (2 Hen Houses)
# The int64 scratch of legal_actions / legal_mask / apply_action: the legal action ids.
SCRATCH_SIZE = MAX_ACTIONS


def make_scratch() -> np.ndarray:
    """A scratch buffer for ``legal_actions`` / ``legal_mask`` / ``apply_action``."""
    return np.zeros(SCRATCH_SIZE, dtype=np.int64)


def num_actions(hen_houses: int) -> int:
    """Size of the flat action space: 7*S lays + S exposes + one reveal per house + reveal-all."""
    s = SPACES_PER_HOUSE * hen_houses
    return 8 * s + hen_houses + 1


def parse_options(num_players=3, hen_houses=None, reveal_scope="house", first_player=0) -> dict:
    """Validate the game options; return them with ``hen_houses`` resolved.

    Raises ValueError naming the bad option and the allowed values.
    """
    num_players = check_choice("num_players", num_players, (2, 3, 4))
    if hen_houses is None:
        # [decision] 1 Hen House for 2 players, 2 for 3-4: about 2-3 cards per space.
        hen_houses = 1 if num_players == 2 else 2
    else:
        hen_houses = check_choice("hen_houses", hen_houses, (None, 1, 2))
    reveal_scope = check_choice("reveal_scope", reveal_scope, ("house", "all"))
    first_player = check_choice("first_player", first_player, (0, "random"))
    return {
        "num_players": num_players,
        "hen_houses": hen_houses,
        "reveal_scope": reveal_scope,
        "first_player": first_player,
    }


def new_state(num_players: int, hen_houses: int, reveal_scope: str, first_player) -> np.ndarray:
    """A state row holding the options of :func:`parse_options` (call :func:`reset` before playing)."""
    state = np.zeros(ROW_SIZE, dtype=np.int64)
    configure(state, num_players, hen_houses, reveal_scope, first_player)
    return state


def configure(state, num_players, hen_houses, reveal_scope, first_player) -> None:
    """Write the options into the row (the fields :func:`reset` keeps)."""
    state[NUM_PLAYERS] = num_players
    state[HEN_HOUSES] = hen_houses
    state[NUM_SPACES] = SPACES_PER_HOUSE * hen_houses
    state[REVEAL_ALL] = 1 if reveal_scope == "all" else 0
    state[FIRST_RANDOM] = 1 if first_player == "random" else 0


# -- kernels ---------------------------------------------------------------------------
@njit(cache=True)
def reset(state, seed_word):
    """Start a new game with the options already in the row: every card in its owner's hand."""
    num_p = state[NUM_PLAYERS]
    word_store(state, RNG, seed_word)
    state[PHASE] = PHASE_PLAY
    state[END_REASON] = END_NONE
    state[STEPS] = 0
    state[PILE_SEQ] = 0
    for p in range(MAX_PLAYERS):
        state[HAND_SIZE + p] = CARDS_PER_PLAYER if p < num_p else 0
    for i in range(MAX_CARDS):
        state[CARD_WHERE + i] = IN_HAND
        state[CARD_PLACE + i] = -1
        state[CARD_SEQ + i] = -1
        state[KNOWN_IN_HAND + i] = 0
    for s in range(MAX_SPACES):
        state[SPACE_OWNER + s] = -1
        state[SPACE_CARD + s] = -1
        state[SPACE_STATE + s] = EMPTY
    if state[FIRST_RANDOM] != 0:
        state[CURRENT_PLAYER] = rng_below(state, RNG, num_p)
    else:
        state[CURRENT_PLAYER] = 0
    # The turn-start check (<= 1 card ends the game) cannot fire here: everyone holds 7.


@njit(cache=True)
def legal_mask(state, out, scratch):
    """Write the int8 legal-action mask of the player to act into ``out`` (zeros if over); return the count.

    ``scratch`` is unused (Sly needs none); it keeps the signature of the game contract.
    """
    n_sp = state[NUM_SPACES]
    houses = state[HEN_HOUSES]
    out[:] = 0
    if state[PHASE] == PHASE_GAME_OVER:
        return 0
    cur = state[CURRENT_PLAYER]
    base = cur * CARDS_PER_PLAYER
    # The count is summed per space and house rather than per mask entry set: a counter in
    # the inner loops cost the vector env's step ~2% (measured).
    held = 0
    for c in range(CARDS_PER_PLAYER):
        if state[CARD_WHERE + base + c] == IN_HAND:
            held += 1
    count = 0
    any_down = False
    reveal_all = state[REVEAL_ALL] != 0
    for s in range(n_sp):
        st = state[SPACE_STATE + s]
        if st == EMPTY:
            for c in range(CARDS_PER_PLAYER):
                if state[CARD_WHERE + base + c] == IN_HAND:
                    out[c * n_sp + s] = 1
            count += held
        elif st == FACE_DOWN:
            any_down = True
            if state[SPACE_OWNER + s] != cur:
                out[7 * n_sp + s] = 1
                count += 1
            if not reveal_all:
                out[8 * n_sp + s // SPACES_PER_HOUSE] = 1
    if reveal_all:
        if any_down:
            out[8 * n_sp + houses] = 1
            count += 1
    else:
        for h in range(houses):
            count += out[8 * n_sp + h]
    return count


@njit(cache=True)
def legal_actions(state, scratch):
    """Write the legal action ids (ascending) to ``scratch[:count]``; return the count."""
    out = scratch
    n_sp = state[NUM_SPACES]
    houses = state[HEN_HOUSES]
    if state[PHASE] == PHASE_GAME_OVER:
        return 0
    cur = state[CURRENT_PLAYER]
    base = cur * CARDS_PER_PLAYER
    n = 0
    for c in range(CARDS_PER_PLAYER):
        if state[CARD_WHERE + base + c] == IN_HAND:
            for s in range(n_sp):
                if state[SPACE_STATE + s] == EMPTY:
                    out[n] = c * n_sp + s
                    n += 1
    any_down = False
    for s in range(n_sp):
        if state[SPACE_STATE + s] == FACE_DOWN:
            any_down = True
            if state[SPACE_OWNER + s] != cur:
                out[n] = 7 * n_sp + s
                n += 1
    if state[REVEAL_ALL] == 0:
        for h in range(houses):
            for s in range(h * SPACES_PER_HOUSE, (h + 1) * SPACES_PER_HOUSE):
                if state[SPACE_STATE + s] == FACE_DOWN:
                    out[n] = 8 * n_sp + h
                    n += 1
                    break
    elif any_down:
        out[n] = 8 * n_sp + houses
        n += 1
    return n


@njit(cache=True)
def is_legal(state, action):
    """True if ``action`` (any int) is legal for the player to act."""
    n_sp = state[NUM_SPACES]
    houses = state[HEN_HOUSES]
    if state[PHASE] == PHASE_GAME_OVER or action < 0 or action >= 8 * n_sp + houses + 1:
        return False
    cur = state[CURRENT_PLAYER]
    if action < 7 * n_sp:
        c = action // n_sp
        s = action % n_sp
        return state[SPACE_STATE + s] == EMPTY and state[CARD_WHERE + cur * CARDS_PER_PLAYER + c] == IN_HAND
    if action < 8 * n_sp:
        s = action - 7 * n_sp
        return state[SPACE_STATE + s] == FACE_DOWN and state[SPACE_OWNER + s] != cur
    h = action - 8 * n_sp
    if h == houses:
        lo = 0
        hi = n_sp
        if state[REVEAL_ALL] == 0:
            return False
    else:
        lo = h * SPACES_PER_HOUSE
        hi = lo + SPACES_PER_HOUSE
        if state[REVEAL_ALL] != 0:
            return False
    for s in range(lo, hi):
        if state[SPACE_STATE + s] == FACE_DOWN:
            return True
    return False


@njit(cache=True, inline="always")
def _empty_space(state, s):
    state[SPACE_OWNER + s] = -1
    state[SPACE_CARD + s] = -1
    state[SPACE_STATE + s] = EMPTY


@njit(cache=True, inline="always")
def _to_pile(state, idx, where, holder):
    state[CARD_WHERE + idx] = where
    state[CARD_PLACE + idx] = holder
    state[CARD_SEQ + idx] = state[PILE_SEQ]
    state[PILE_SEQ] += 1


@njit(cache=True)
def _reveal(state, cur, lo, hi):
    """Flip and resolve every face-down card on spaces ``lo..hi-1`` (Safe Hens never take part)."""
    num_p = state[NUM_PLAYERS]
    # Rank the flipped cards. Tie order: the active player's card first, then to the
    # left, so a smaller (owner - cur) % num_p ranks higher.
    top_fox = -1
    top_fox_dist = 99
    top_hen = -1
    top_hen_key = -1
    for s in range(lo, hi):
        if state[SPACE_STATE + s] != FACE_DOWN:
            continue
        dist = (state[SPACE_OWNER + s] - cur + num_p) % num_p
        card = state[SPACE_CARD + s]
        if card == FOX:
            if dist < top_fox_dist:
                top_fox_dist = dist
                top_fox = s
        else:
            key = card * 8 + (7 - dist)
            if key > top_hen_key:
                top_hen_key = key
                top_hen = s
    safe_hen = top_hen
    if top_fox >= 0 and top_hen >= 0:
        # The owner of the top Fox gobbles the top Hen; the next Hen (if any) becomes Safe.
        fox_owner = state[SPACE_OWNER + top_fox]
        hen_idx = state[SPACE_OWNER + top_hen] * CARDS_PER_PLAYER + state[SPACE_CARD + top_hen]
        _to_pile(state, hen_idx, GOBBLED, fox_owner)
        _empty_space(state, top_hen)
        safe_hen = -1
        second_key = -1
        for s in range(lo, hi):
            if state[SPACE_STATE + s] == FACE_DOWN and state[SPACE_CARD + s] != FOX:
                dist = (state[SPACE_OWNER + s] - cur + num_p) % num_p
                key = state[SPACE_CARD + s] * 8 + (7 - dist)
                if key > second_key:
                    second_key = key
                    safe_hen = s
    if safe_hen >= 0:
        state[SPACE_STATE + safe_hen] = SAFE
    # Every other flipped card goes home, seen by all: it is known to be in that hand.
    for s in range(lo, hi):
        if state[SPACE_STATE + s] == FACE_DOWN:
            owner = state[SPACE_OWNER + s]
            idx = owner * CARDS_PER_PLAYER + state[SPACE_CARD + s]
            state[CARD_WHERE + idx] = IN_HAND
            state[CARD_PLACE + idx] = -1
            state[KNOWN_IN_HAND + idx] = 1
            state[HAND_SIZE + owner] += 1
            _empty_space(state, s)


@njit(cache=True)
def final_flip(state):
    """End of game by hand size: Hens face down become Safe; Foxes stay face up, worth nothing."""
    for s in range(state[NUM_SPACES]):
        if state[SPACE_STATE + s] == FACE_DOWN:
            if state[SPACE_CARD + s] == FOX:
                state[SPACE_STATE + s] = FACE_UP_FOX
            else:
                state[SPACE_STATE + s] = SAFE


@njit(cache=True)
def apply_action(state, action, scratch):
    """Apply a legal ``action`` for the player to act, then pass the turn or end the game; return 0.

    The caller guarantees legality (the envs check the action against the legal mask
    first; :func:`is_legal` answers for one action). ``scratch`` is unused (Sly needs
    none); it keeps the signature of the game contract, where a negative return is an
    engine error (Sly has none).
    """
    n_sp = state[NUM_SPACES]
    houses = state[HEN_HOUSES]
    num_p = state[NUM_PLAYERS]
    cur = state[CURRENT_PLAYER]
    if action < 7 * n_sp:
        # Lay: card from hand face down on an empty space.
        c = action // n_sp
        s = action % n_sp
        base = cur * CARDS_PER_PLAYER
        state[CARD_WHERE + base + c] = ON_SPACE
        state[CARD_PLACE + base + c] = s
        state[SPACE_OWNER + s] = cur
        state[SPACE_CARD + s] = c
        state[SPACE_STATE + s] = FACE_DOWN
        state[HAND_SIZE + cur] -= 1
        # The laid card could be any card known to be in the hand: the knowledge is lost.
        for k in range(CARDS_PER_PLAYER):
            state[KNOWN_IN_HAND + base + k] = 0
    elif action < 8 * n_sp:
        # Expose: declare the opponent's face-down card a Fox and flip it.
        s = action - 7 * n_sp
        if state[SPACE_CARD + s] == FOX:
            _to_pile(state, state[SPACE_OWNER + s] * CARDS_PER_PLAYER + FOX, CAPTURED, cur)
            _empty_space(state, s)
        else:
            state[SPACE_STATE + s] = SAFE
    else:
        h = action - 8 * n_sp
        if h == houses:
            _reveal(state, cur, 0, n_sp)
        else:
            _reveal(state, cur, h * SPACES_PER_HOUSE, (h + 1) * SPACES_PER_HOUSE)
    state[STEPS] += 1
    nxt = (cur + 1) % num_p
    state[CURRENT_PLAYER] = nxt
    all_safe = True
    for s in range(n_sp):
        if state[SPACE_STATE + s] != SAFE:
            all_safe = False
            break
    if all_safe:
        state[PHASE] = PHASE_GAME_OVER
        state[END_REASON] = END_ALL_SAFE
    elif state[HAND_SIZE + nxt] <= 1:
        # Start of the next player's turn with at most one card in hand: the game ends.
        final_flip(state)
        state[PHASE] = PHASE_GAME_OVER
        state[END_REASON] = END_HAND
    return 0


@njit(cache=True)
def scores(state, out):
    """Points so far per seat into ``out[:num_players]`` (final once the game is over).

    Safe Hens score their space's value; gobbled Hens +rank (or -rank for one's own);
    captured Foxes the number of players. Face-down cards and face-up Foxes score nothing.
    """
    num_p = state[NUM_PLAYERS]
    for p in range(num_p):
        out[p] = 0
    for s in range(state[NUM_SPACES]):
        if state[SPACE_STATE + s] == SAFE:
            out[state[SPACE_OWNER + s]] += s % SPACES_PER_HOUSE + 1
    for i in range(num_p * CARDS_PER_PLAYER):
        where = state[CARD_WHERE + i]
        if where == GOBBLED:
            owner = i // CARDS_PER_PLAYER
            rank = i % CARDS_PER_PLAYER
            holder = state[CARD_PLACE + i]
            if holder == owner:
                out[holder] -= rank
            else:
                out[holder] += rank
        elif where == CAPTURED:
            out[state[CARD_PLACE + i]] += num_p
