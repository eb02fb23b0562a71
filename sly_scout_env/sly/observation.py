"""Sly observation encoder: one seat's view as a fixed float32 vector.

Seats are relative to the observer: ``0`` = the observer, ``1`` = the player to
their left (seat + 1), and so on. With ``P`` players and ``S = 4 * hen_houses``
spaces the pieces are, in order (:data:`PIECES`, the one statement of the layout: this
table, :func:`observation_slices`, :func:`observation_size` and the offsets the kernel
writes at are all made from it; ``[a : b]`` are the parts of one entry)::

{table}

Every value is public to the observer, or is the observer's own private card. What a
seat may know is stated in :mod:`.view`; ``tests/sly/test_observation_pieces.py``
checks that the observation is a function of that view.
"""

from __future__ import annotations

import textwrap
from typing import NamedTuple

import numpy as np
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
    HEN_HOUSES,
    IN_HAND,
    KNOWN_IN_HAND,
    MAX_HOUSES,
    MAX_PLAYERS,
    NUM_PLAYERS,
    NUM_SPACES,
    ON_SPACE,
    SAFE,
    SPACE_CARD,
    SPACE_OWNER,
    SPACE_STATE,
    SPACES_PER_HOUSE,
)

PLAYER_COUNTS = tuple(range(2, MAX_PLAYERS + 1))
HOUSE_COUNTS = tuple(range(1, MAX_HOUSES + 1))

PLAYER_FEATURES = 4  # per seat: hand size, captured Foxes, gobbled Hens, score so far


class Piece(NamedTuple):
    """One named piece of the observation vector."""

    name: str
    # Its dimensions, outer first: ints, or expressions (str) in P (players) and S (spaces).
    shape: tuple
    # What it holds, in one line.
    meaning: str
    # The named parts of one entry, ``(name, width, meaning)``: the shape then ends with
    # a dimension of their total width.
    parts: tuple = ()


PIECES = (
    # The observer's hand.
    Piece("own_hand", (CARDS_PER_PLAYER,), "1 if the observer holds card c (0 Fox, 1..6 Hens)"),
    # The table: what lies on each space.
    Piece("spaces", ("S",), "per space s (in space order):", (
        ("empty", 1, "1 if nothing is on the space"),
        ("face_down", 1, "1 if a face-down card is on it"),
        ("safe_hen", 1, "1 if a Safe Hen is on it"),
        ("face_up_fox", 1, "1 if a Fox turned by the final flip (game over)"),
        ("owner", "P", "relative seat of the card's owner (one-hot)"),
        ("card", CARDS_PER_PLAYER, "the card (one-hot 0..6) when it is public (face up) or the observer's "
                                   "own face-down card; else 0"),
    )),
    # The public counts of every seat, the observer first.
    Piece("players", ("P", PLAYER_FEATURES), "per relative seat: hand size, captured Foxes, gobbled Hens, "
                                             "score so far (raw counts / points)"),
    # What the table tells of each opponent's cards.
    Piece("opponents", ("P - 1",), "per opponent (relative seats 1..P-1), per card c:", (
        ("unseen", CARDS_PER_PLAYER, "1 if card c could be in their hand or face down (it is not Safe, "
                                     "gobbled, captured or face up)"),
        ("known_in_hand", CARDS_PER_PLAYER, "1 if card c was flipped by a Reveal, went home and its owner "
                                            "has not laid a card since"),
    )),
)


# --- what the table gives: sizes, slices, the docstring ----------------------------------------------
def _dim(d, num_players: int, hen_houses: int) -> int:
    if isinstance(d, str):
        return int(eval(d, {"__builtins__": {}}, {"P": num_players, "S": SPACES_PER_HOUSE * hen_houses}))
    return int(d)


def piece_shape(piece: Piece, num_players: int, hen_houses: int) -> tuple[int, ...]:
    """The shape of ``piece`` with ``num_players`` players and ``hen_houses`` Hen Houses."""
    shape = tuple(_dim(d, num_players, hen_houses) for d in piece.shape)
    if piece.parts:
        shape += (sum(_dim(w, num_players, hen_houses) for _, w, _ in piece.parts),)
    return shape


def piece_size(piece: Piece, num_players: int, hen_houses: int) -> int:
    """The number of floats of ``piece``."""
    return int(np.prod(piece_shape(piece, num_players, hen_houses), dtype=np.int64))


def part_slices(piece: Piece, num_players: int) -> dict[str, slice]:
    """Part name -> slice within one entry of ``piece`` (the parts do not depend on the Hen Houses)."""
    out, o = {}, 0
    for name, width, _ in piece.parts:
        w = _dim(width, num_players, 1)
        out[name] = slice(o, o + w)
        o += w
    return out


def observation_slices(num_players: int, hen_houses: int) -> dict[str, slice]:
    """Name -> slice of the observation vector, in the order of :data:`PIECES`."""
    out, o = {}, 0
    for piece in PIECES:
        size = piece_size(piece, num_players, hen_houses)
        out[piece.name] = slice(o, o + size)
        o += size
    return out


def _sum_text(widths) -> str:
    """A sum of part widths in words: the ints added up, then the symbols (``11 + P``)."""
    total = sum(w for w in widths if not isinstance(w, str))
    terms = [str(total)] if total or not widths else []
    return " + ".join(terms + [w for w in widths if isinstance(w, str)]) or "0"


def _shape_text(piece: Piece) -> str:
    dims = list(piece.shape) + ([_sum_text([w for _, w, _ in piece.parts])] if piece.parts else [])
    many = len(dims) > 1
    return " x ".join(f"({d})" if many and isinstance(d, str) and " " in d else str(d) for d in dims)


def pieces_table() -> str:
    """The table of :data:`PIECES` as the module docstring shows it."""
    rows = [("piece", "shape", "meaning", 0)]  # (label, shape, meaning, extra indent of the meaning)
    for p in PIECES:
        rows.append((p.name, _shape_text(p), p.meaning, 0))
        widths = []
        for name, width, meaning in p.parts:
            start = _sum_text(widths)
            widths.append(width)
            at = f"[{start}]" if width == 1 else f"[{start} : {_sum_text(widths)}]"
            rows.append((f"  {at} {name}", "", meaning, 2))
    w0 = max(len(r[0]) for r in rows if r[1]) + 2
    w1 = max(len(r[1]) for r in rows) + 2
    lines = []
    for label, shape, meaning, extra in rows:
        head = f"    {label:<{w0}}{shape}" if shape else f"    {label}"
        col = 4 + w0 + w1 + extra
        if len(head) >= col:
            lines.append(head)
            head = ""
        wrapped = textwrap.wrap(meaning, 100 - col)
        lines.append(f"{head:<{col}}{wrapped[0]}")
        lines += [" " * col + w for w in wrapped[1:]]
    sizes = "; ".join(
        f"{n} players: " + ", ".join(f"{sum(piece_size(p, n, h) for p in PIECES)}" for h in HOUSE_COUNTS)
        for n in PLAYER_COUNTS)
    lines.append(f"    {'length':<{w0}}with {' / '.join(map(str, HOUSE_COUNTS))} Hen House(s): {sizes}")
    return "\n".join(lines)


if __doc__:
    __doc__ = __doc__.replace("{table}", pieces_table())

# The kernel's names for the pieces (rows of START, below).
_ROW = {p.name: k for k, p in enumerate(PIECES)}
OWN_HAND = _ROW["own_hand"]
SPACES = _ROW["spaces"]
PLAYERS = _ROW["players"]
OPPONENTS = _ROW["opponents"]
OPPONENT_FEATURES = piece_shape(PIECES[OPPONENTS], 2, 1)[-1]  # per opponent: unseen, known_in_hand

# Where each piece starts: START[piece, num_players, hen_houses] (read by the kernel);
# SIZE[num_players, hen_houses]: the vector's length (-1 for options without a layout);
# SPACE_FLOATS[num_players]: the floats of one space.
START = np.zeros((len(PIECES), MAX_PLAYERS + 1, MAX_HOUSES + 1), dtype=np.int64)
SIZE = np.full((MAX_PLAYERS + 1, MAX_HOUSES + 1), -1, dtype=np.int64)
SPACE_FLOATS = np.zeros(MAX_PLAYERS + 1, dtype=np.int64)
for _n in PLAYER_COUNTS:
    SPACE_FLOATS[_n] = piece_shape(PIECES[SPACES], _n, 1)[-1]
    for _h in HOUSE_COUNTS:
        _slices = observation_slices(_n, _h)
        for _k, _p in enumerate(PIECES):
            START[_k, _n, _h] = _slices[_p.name].start
        SIZE[_n, _h] = _slices[PIECES[-1].name].stop


# --- the kernels ----------------------------------------------------------------------------------------
@njit(cache=True, inline="always")
def space_features(num_players):
    """Floats per space: 4 flags, the owner (one-hot over seats), the card (one-hot)."""
    return SPACE_FLOATS[num_players]


@njit(cache=True)
def observation_size(num_players, hen_houses):
    """Length of the observation vector (the sum of :data:`PIECES`); callable from kernels.

    -1 for options the game does not have."""
    if not (0 <= num_players < SIZE.shape[0] and 0 <= hen_houses < SIZE.shape[1]):
        return -1
    return SIZE[num_players, hen_houses]


@njit(cache=True)
def encode_observation(state, seat, out):
    """Write ``seat``'s observation into the float32 buffer ``out`` (see module docstring)."""
    num_p = state[NUM_PLAYERS]
    houses = state[HEN_HOUSES]
    n_sp = state[NUM_SPACES]
    out[:] = 0.0
    o = START[OWN_HAND, num_p, houses]
    base = seat * CARDS_PER_PLAYER
    for c in range(CARDS_PER_PLAYER):
        if state[CARD_WHERE + base + c] == IN_HAND:
            out[o + c] = 1.0
    sf = space_features(num_p)
    o = START[SPACES, num_p, houses]
    players = START[PLAYERS, num_p, houses]
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
    opp = START[OPPONENTS, num_p, houses]
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
