"""Sly observation encoder: one seat's view as a fixed float32 vector.

Seats are relative to the observer: ``0`` = the observer, ``1`` = the player to
their left (seat + 1), and so on. With ``P`` players and ``S = 4 * hen_houses``
spaces the vector is, in order::

    slice                         size        meaning
    own_hand                      7           1 if the observer holds card c (0 Fox, 1..6 Hens)
    spaces                        S * (11+P)  per space s (in space order), SPACE_FEATURES floats:
      [0] empty                                 1 if nothing is on the space
      [1] face_down                             1 if a face-down card is on it
      [2] safe_hen                              1 if a Safe Hen is on it
      [3] face_up_fox                           1 if a Fox turned by the final flip (game over)
      [4 : 4+P] owner                           relative seat of the card's owner (one-hot)
      [4+P : 11+P] card                         the card (one-hot 0..6) when it is public (face up)
                                                or the observer's own face-down card; else 0
    players                       P * 4       per relative seat: hand size, captured Foxes,
                                              gobbled Hens, score so far (raw counts / points)
    opponents                     (P-1) * 14  per opponent (relative seats 1..P-1), per card c:
      [0:7] unseen                              1 if card c could be in their hand or face down
                                                (it is not Safe, gobbled, captured or face up)
      [7:14] known_in_hand                      1 if card c was flipped by a Reveal, went home
                                                and its owner has not laid a card since

Every value is public to the observer, or is the observer's own private card.
"""

from __future__ import annotations

from numba import njit

from .rules import (
    CAPTURED,
    CARD_PLACE,
    CARD_WHERE,
    CARDS_PER_PLAYER,
    EMPTY,
    FACE_DOWN,
    FACE_UP_FOX,
    GOBBLED,
    HAND_SIZE,
    IN_HAND,
    KNOWN_IN_HAND,
    NUM_PLAYERS,
    NUM_SPACES,
    ON_SPACE,
    SAFE,
    SPACE_CARD,
    SPACE_OWNER,
    SPACE_STATE,
    SPACES_PER_HOUSE,
)

PLAYER_FEATURES = 4
OPPONENT_FEATURES = 2 * CARDS_PER_PLAYER


@njit(cache=True, inline="always")
def space_features(num_players):
    """Floats per space: 4 flags, the owner (one-hot over seats), the card (one-hot)."""
    return 4 + num_players + CARDS_PER_PLAYER


@njit(cache=True)
def observation_size(num_players, hen_houses):
    """Length of the observation vector (the table in the module docstring); callable from kernels."""
    s = SPACES_PER_HOUSE * hen_houses
    return (
        CARDS_PER_PLAYER
        + s * space_features(num_players)
        + num_players * PLAYER_FEATURES
        + (num_players - 1) * OPPONENT_FEATURES
    )


@njit(cache=True)
def encode_observation(state, seat, out):
    """Write ``seat``'s observation into the float32 buffer ``out`` (see module docstring)."""
    num_p = state[NUM_PLAYERS]
    n_sp = state[NUM_SPACES]
    out[:] = 0.0
    base = seat * CARDS_PER_PLAYER
    for c in range(CARDS_PER_PLAYER):
        if state[CARD_WHERE + base + c] == IN_HAND:
            out[c] = 1.0
    sf = space_features(num_p)
    o = CARDS_PER_PLAYER
    players = o + n_sp * sf
    for s in range(n_sp):
        st = state[SPACE_STATE + s]
        if st == EMPTY:
            out[o] = 1.0
        else:
            owner = state[SPACE_OWNER + s]
            rel = (owner - seat + num_p) % num_p
            out[o + 4 + rel] = 1.0
            if st == FACE_DOWN:
                out[o + 1] = 1.0
                if owner == seat:
                    out[o + 4 + num_p + state[SPACE_CARD + s]] = 1.0
            else:
                if st == SAFE:
                    out[o + 2] = 1.0
                    # Safe Hens score now: add the space value to the owner's score slot.
                    out[players + rel * PLAYER_FEATURES + 3] += s % SPACES_PER_HOUSE + 1
                elif st == FACE_UP_FOX:
                    out[o + 3] = 1.0
                out[o + 4 + num_p + state[SPACE_CARD + s]] = 1.0
        o += sf
    # Per player: hand size, captured Foxes, gobbled Hens, score so far.
    for p in range(num_p):
        rel = (p - seat + num_p) % num_p
        out[players + rel * PLAYER_FEATURES] = state[HAND_SIZE + p]
    opp = players + num_p * PLAYER_FEATURES
    for i in range(num_p * CARDS_PER_PLAYER):
        owner = i // CARDS_PER_PLAYER
        card = i % CARDS_PER_PLAYER
        where = state[CARD_WHERE + i]
        if where == GOBBLED:
            holder = state[CARD_PLACE + i]
            hrel = (holder - seat + num_p) % num_p
            out[players + hrel * PLAYER_FEATURES + 2] += 1.0
            out[players + hrel * PLAYER_FEATURES + 3] += -card if holder == owner else card
        elif where == CAPTURED:
            holder = state[CARD_PLACE + i]
            hrel = (holder - seat + num_p) % num_p
            out[players + hrel * PLAYER_FEATURES + 1] += 1.0
            out[players + hrel * PLAYER_FEATURES + 3] += num_p
        if owner != seat:
            rel = (owner - seat + num_p) % num_p
            ob = opp + (rel - 1) * OPPONENT_FEATURES
            if where == IN_HAND:
                out[ob + card] = 1.0
                if state[KNOWN_IN_HAND + i] != 0:
                    out[ob + CARDS_PER_PLAYER + card] = 1.0
            elif where == ON_SPACE and state[SPACE_STATE + state[CARD_PLACE + i]] == FACE_DOWN:
                out[ob + card] = 1.0
