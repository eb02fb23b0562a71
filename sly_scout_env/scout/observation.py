"""The float32 observation of one seat, written by a Numba kernel into a preallocated buffer.

Numbers are raw card values (1..10, 0 = empty slot); counts are raw counts. Seats are
relative to the observer: 0 = the observer, 1 = the player to the left, ... With
``N`` players and ``H = MAX_HAND`` (``rules.max_hand(N)``), the pieces are, in this order
(:data:`PIECES`, the one statement of the layout: this table, :func:`observation_slices`,
:func:`observation_size` and the offsets the kernel writes at are all made from it)::

{table}

Only public information and the observer's own hand are encoded: opponents' cards are
visible only where they were scouted this round (the whole Scout move is public). What
a seat may know is stated in :mod:`.view`; ``tests/scout/test_observation_pieces.py``
checks that the observation is a function of that view.
"""

from __future__ import annotations

import textwrap
from typing import NamedTuple

import numpy as np
from numba import njit

from .rules import (
    ACTIVE_CAP,
    HAND_CAP,
    MAX_PLAYERS,
    NUM_PLAYERS,
    O_ACTIVE,
    O_ACTIVE_LEN,
    O_ACTIVE_OWNER,
    O_COLLECTED_LEN,
    O_HAND_LEN,
    O_HANDS,
    O_KNOWN,
    O_MAX_HAND,
    O_ROUND,
    O_ROUNDS,
    O_SAS_LEFT,
    O_SCORES,
    O_SCOUT_CHIPS,
    O_STARTING_PLAYER,
    PHASE,
    PHASE_NAMES,
    max_hand,
)

PLAYER_COUNTS = tuple(range(2, MAX_PLAYERS + 1))

# Floats per entry of the pieces that repeat (the last dimension of their shapes).
HAND_SLOT = 4  # own hand, per slot: present, up, down, known to others
CARD_SLOT = 3  # active set and opponents' known cards, per slot: present, up, down
PLAYER_FIELDS = 5  # per seat: hand size, collected cards, Scout chips, Scout & Show chip left, score


class Piece(NamedTuple):
    """One named piece of the observation vector."""

    name: str
    # Its dimensions, outer first: ints, or expressions (str) in N (players) and H (MAX_HAND).
    shape: tuple
    # What it holds, in one line.
    meaning: str


PIECES = (
    # The observer's hand, left to right (slots past the hand are 0).
    Piece("own_hand", ("H", HAND_SLOT), "per slot: present, up, down, known to others (it was scouted)"),
    # The active set on the table.
    Piece("active_set", (ACTIVE_CAP, CARD_SLOT), "per slot: present, up, down (left to right as shown)"),
    # Who played the active set.
    Piece("active_owner", ("N + 1",), "one-hot relative seat of the owner; last entry = no owner"),
    # The public counts of every seat, the observer first.
    Piece("players", ("N", PLAYER_FIELDS), "per relative seat: hand size, collected cards, Scout chips, "
                                           "Scout & Show chip left (0/1), game score so far"),
    # The phase of the round.
    Piece("phase", (len(PHASE_NAMES),), "one-hot: " + ", ".join(PHASE_NAMES)),
    # Where the game is.
    Piece("round", (2,), "round being played (0-based), rounds in the game"),
    # Who started this round.
    Piece("starting_player", ("N",), "one-hot relative seat of this round's starting player"),
    # The opponents' scouted (public) cards, in their hands' slots.
    Piece("known_cards", ("N - 1", "H", CARD_SLOT), "per opponent (relative seats 1..N-1), per hand slot: "
                                                    "present (the card there is public), up, down"),
)


# --- what the table gives: sizes, slices, the docstring ----------------------------------------------
def _dim(d, num_players: int) -> int:
    if isinstance(d, str):
        return int(eval(d, {"__builtins__": {}}, {"N": num_players, "H": int(max_hand(num_players))}))
    return int(d)


def piece_shape(piece: Piece, num_players: int) -> tuple[int, ...]:
    """The shape of ``piece`` with ``num_players`` players."""
    return tuple(_dim(d, num_players) for d in piece.shape)


def piece_size(piece: Piece, num_players: int) -> int:
    """The number of floats of ``piece`` with ``num_players`` players."""
    return int(np.prod(piece_shape(piece, num_players), dtype=np.int64))


def observation_slices(num_players: int) -> dict[str, slice]:
    """Name -> slice of the observation vector, in the order of :data:`PIECES`."""
    out, o = {}, 0
    for piece in PIECES:
        size = piece_size(piece, num_players)
        out[piece.name] = slice(o, o + size)
        o += size
    return out


def _shape_text(shape) -> str:
    many = len(shape) > 1
    return " x ".join(f"({d})" if many and isinstance(d, str) and " " in d else str(d) for d in shape)


def pieces_table() -> str:
    """The table of :data:`PIECES` as the module docstring shows it."""
    rows = [("piece", "shape", "meaning")] + [(p.name, _shape_text(p.shape), p.meaning) for p in PIECES]
    w0 = max(len(r[0]) for r in rows) + 2
    w1 = max(len(r[1]) for r in rows) + 2
    lines = []
    for name, shape, meaning in rows:
        col = 4 + w0 + w1
        wrapped = textwrap.wrap(meaning, 100 - col)
        lines.append(f"    {name:<{w0}}{shape:<{w1}}{wrapped[0]}")
        lines += [" " * col + w for w in wrapped[1:]]
    sizes = ", ".join(f"{n} players: {sum(piece_size(p, n) for p in PIECES)}" for n in PLAYER_COUNTS)
    lines.append(f"    {'length':<{w0}}{sizes}")
    return "\n".join(lines)


if __doc__:
    __doc__ = __doc__.replace("{table}", pieces_table())

# The kernel's names for the pieces (rows of START, below).
_ROW = {p.name: k for k, p in enumerate(PIECES)}
OWN_HAND = _ROW["own_hand"]
ACTIVE_SET = _ROW["active_set"]
ACTIVE_OWNER = _ROW["active_owner"]
PLAYERS = _ROW["players"]
PHASE_PIECE = _ROW["phase"]
ROUND_PIECE = _ROW["round"]
STARTING_PLAYER = _ROW["starting_player"]
KNOWN_CARDS = _ROW["known_cards"]

# Where each piece starts, by player count: START[piece, num_players] (read by the kernel);
# SIZE[num_players]: the vector's length (-1 for a player count without a layout).
START = np.zeros((len(PIECES), MAX_PLAYERS + 1), dtype=np.int64)
SIZE = np.full(MAX_PLAYERS + 1, -1, dtype=np.int64)
for _n in PLAYER_COUNTS:
    _slices = observation_slices(_n)
    for _k, _p in enumerate(PIECES):
        START[_k, _n] = _slices[_p.name].start
    SIZE[_n] = _slices[PIECES[-1].name].stop


# --- the kernels ----------------------------------------------------------------------------------------
@njit(cache=True)
def observation_size(num_players):
    """Length of the observation vector (the sum of :data:`PIECES`); callable from kernels.

    -1 for a player count the game does not have."""
    if num_players < 0 or num_players >= SIZE.shape[0]:
        return -1
    return SIZE[num_players]


@njit(cache=True)
def encode_observation(state, seat, out):
    """Write ``seat``'s observation into the float32 buffer ``out`` (every entry is written)."""
    out[:] = 0.0
    n = state[NUM_PLAYERS]
    H = state[O_MAX_HAND]
    o = START[OWN_HAND, n]
    h = O_HANDS + seat * HAND_CAP
    kn = O_KNOWN + seat * HAND_CAP
    for i in range(state[O_HAND_LEN + seat]):
        c = state[h + i]
        out[o + HAND_SLOT * i] = 1.0
        out[o + HAND_SLOT * i + 1] = c >> 4
        out[o + HAND_SLOT * i + 2] = c & 15
        out[o + HAND_SLOT * i + 3] = state[kn + i]
    o = START[ACTIVE_SET, n]
    for i in range(state[O_ACTIVE_LEN]):
        c = state[O_ACTIVE + i]
        out[o + CARD_SLOT * i] = 1.0
        out[o + CARD_SLOT * i + 1] = c >> 4
        out[o + CARD_SLOT * i + 2] = c & 15
    o = START[ACTIVE_OWNER, n]
    owner = state[O_ACTIVE_OWNER]
    if owner < 0:
        out[o + n] = 1.0
    else:
        out[o + (owner - seat) % n] = 1.0
    o = START[PLAYERS, n]
    for j in range(n):
        s = (seat + j) % n
        out[o] = state[O_HAND_LEN + s]
        out[o + 1] = state[O_COLLECTED_LEN + s]
        out[o + 2] = state[O_SCOUT_CHIPS + s]
        out[o + 3] = state[O_SAS_LEFT + s]
        out[o + 4] = state[O_SCORES + s]
        o += PLAYER_FIELDS
    out[START[PHASE_PIECE, n] + state[PHASE]] = 1.0
    o = START[ROUND_PIECE, n]
    out[o] = state[O_ROUND]
    out[o + 1] = state[O_ROUNDS]
    out[START[STARTING_PLAYER, n] + (state[O_STARTING_PLAYER] - seat) % n] = 1.0
    o = START[KNOWN_CARDS, n]
    for j in range(1, n):
        s = (seat + j) % n
        h = O_HANDS + s * HAND_CAP
        kn = O_KNOWN + s * HAND_CAP
        for i in range(state[O_HAND_LEN + s]):
            if state[kn + i]:
                c = state[h + i]
                out[o + CARD_SLOT * i] = 1.0
                out[o + CARD_SLOT * i + 1] = c >> 4
                out[o + CARD_SLOT * i + 2] = c & 15
        o += CARD_SLOT * H
