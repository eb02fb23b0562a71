"""The float32 observation of one seat, written by a Numba kernel into a preallocated buffer.

Numbers are raw card values (1..10, 0 = empty slot); counts are raw counts. Seats are
relative to the observer: 0 = the observer, 1 = the player to the left, ... With
``N`` players and ``H = MAX_HAND``, the slices are (in this order)::

    own_hand        4 * H   per slot: present, up, down, known to others (it was scouted)
    active_set      3 * 10  per slot: present, up, down (left to right as shown)
    active_owner    N + 1   one-hot relative seat of the owner; last entry = no owner
    players         5 * N   per relative seat: hand size, collected cards, Scout chips,
                            Scout & Show chip left (0/1), game score so far
    phase           4       one-hot: flip, play, show_after_scout, game_over
    round           2       round being played (0-based), rounds in the game
    starting_player N       one-hot relative seat of this round's starting player
    known_cards     3 * H * (N - 1)  per opponent (relative seats 1..N-1), per hand slot:
                            present (the card there is public), up, down

Only public information and the observer's own hand are encoded: opponents' cards are
visible only where they were scouted this round (the whole Scout move is public).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .rules import (
    ACTIVE_CAP,
    HAND_CAP,
    O_ACTIVE,
    O_ACTIVE_LEN,
    O_ACTIVE_OWNER,
    O_COLLECTED_LEN,
    O_HAND_LEN,
    O_HANDS,
    O_KNOWN,
    O_MAX_HAND,
    NUM_PLAYERS,
    PHASE,
    O_ROUND,
    O_ROUNDS,
    O_SAS_LEFT,
    O_SCORES,
    O_SCOUT_CHIPS,
    O_STARTING_PLAYER,
    max_hand,
)

PLAYER_FIELDS = 5


def observation_slices(num_players: int) -> dict[str, slice]:
    """Name -> slice of the observation vector (the table in the module docstring)."""
    H = int(max_hand(num_players))
    N = num_players
    sizes = [
        ("own_hand", 4 * H),
        ("active_set", 3 * ACTIVE_CAP),
        ("active_owner", N + 1),
        ("players", PLAYER_FIELDS * N),
        ("phase", 4),
        ("round", 2),
        ("starting_player", N),
        ("known_cards", 3 * H * (N - 1)),
    ]
    out, o = {}, 0
    for name, size in sizes:
        out[name] = slice(o, o + size)
        o += size
    return out


@njit(cache=True)
def observation_size(num_players):
    """Length of the observation vector (the table in the module docstring); callable from kernels."""
    H = max_hand(num_players)
    N = num_players
    return 4 * H + 3 * ACTIVE_CAP + (N + 1) + PLAYER_FIELDS * N + 4 + 2 + N + 3 * H * (N - 1)


@njit(cache=True)
def encode_observation(state, seat, out):
    """Write ``seat``'s observation into the float32 buffer ``out`` (every entry is written)."""
    out[:] = 0.0
    n = state[NUM_PLAYERS]
    H = state[O_MAX_HAND]
    o = 0
    h = O_HANDS + seat * HAND_CAP
    kn = O_KNOWN + seat * HAND_CAP
    for i in range(state[O_HAND_LEN + seat]):
        c = state[h + i]
        out[o + 4 * i] = 1.0
        out[o + 4 * i + 1] = c >> 4
        out[o + 4 * i + 2] = c & 15
        out[o + 4 * i + 3] = state[kn + i]
    o += 4 * H
    for i in range(state[O_ACTIVE_LEN]):
        c = state[O_ACTIVE + i]
        out[o + 3 * i] = 1.0
        out[o + 3 * i + 1] = c >> 4
        out[o + 3 * i + 2] = c & 15
    o += 3 * ACTIVE_CAP
    owner = state[O_ACTIVE_OWNER]
    if owner < 0:
        out[o + n] = 1.0
    else:
        out[o + (owner - seat) % n] = 1.0
    o += n + 1
    for j in range(n):
        s = (seat + j) % n
        out[o] = state[O_HAND_LEN + s]
        out[o + 1] = state[O_COLLECTED_LEN + s]
        out[o + 2] = state[O_SCOUT_CHIPS + s]
        out[o + 3] = state[O_SAS_LEFT + s]
        out[o + 4] = state[O_SCORES + s]
        o += PLAYER_FIELDS
    out[o + state[PHASE]] = 1.0
    o += 4
    out[o] = state[O_ROUND]
    out[o + 1] = state[O_ROUNDS]
    o += 2
    out[o + (state[O_STARTING_PLAYER] - seat) % n] = 1.0
    o += n
    for j in range(1, n):
        s = (seat + j) % n
        h = O_HANDS + s * HAND_CAP
        kn = O_KNOWN + s * HAND_CAP
        for i in range(state[O_HAND_LEN + s]):
            if state[kn + i]:
                c = state[h + i]
                out[o + 3 * i] = 1.0
                out[o + 3 * i + 1] = c >> 4
                out[o + 3 * i + 2] = c & 15
        o += 3 * H
