"""Sly state codec: a state row <-> the plain-JSON state dict, with full validation.

The format is documented in env.py ("state_dict()"). A Sly row holds the whole game, so
the ``history`` of the contract (what an env keeps beside the row) is None.
"""

from __future__ import annotations

import numpy as np

from ..checks import is_int
from . import rules as R

CARD_NAMES = ("Fox",) + tuple(f"Hen {r}" for r in range(1, 7))
STATE_KEYS = (
    "game", "version", "num_players", "hen_houses", "reveal_scope", "first_player",
    "current_player", "game_over", "end_reason", "hands", "spaces", "gobbled", "captured",
    "known_in_hand", "scores", "rng",
)
OPTIONAL_KEYS = ("version", "rng", "end_reason", "scores")
END_REASONS = {R.END_NONE: None, R.END_HAND: "hand", R.END_ALL_SAFE: "all_safe"}
END_CODES = {v: k for k, v in END_REASONS.items()}


# -- state dicts -----------------------------------------------------------------------
def piles(state, num_p, where):
    """Per holder seat, the (owner, card) of cards in ``where`` piles, in the order they joined."""
    piles = [[] for _ in range(num_p)]
    for i in range(num_p * R.CARDS_PER_PLAYER):
        if state[R.CARD_WHERE + i] == where:
            piles[int(state[R.CARD_PLACE + i])].append(
                (int(state[R.CARD_SEQ + i]), i // R.CARDS_PER_PLAYER, i % R.CARDS_PER_PLAYER)
            )
    return [[(o, c) for _, o, c in sorted(p)] for p in piles]


def state_to_dict(row, history=None) -> dict:
    """The full state as plain JSON-able Python (see env.py for the documented format).

    ``history`` is unused: a Sly row holds the whole game.
    """
    num_p = int(row[R.NUM_PLAYERS])
    n_sp = int(row[R.NUM_SPACES])
    hands, known = [], []
    for p in range(num_p):
        b = p * R.CARDS_PER_PLAYER
        hands.append([c for c in range(7) if row[R.CARD_WHERE + b + c] == R.IN_HAND])
        known.append([c for c in range(7) if row[R.KNOWN_IN_HAND + b + c] != 0])
    spaces = []
    for s in range(n_sp):
        st = row[R.SPACE_STATE + s]
        if st == R.EMPTY:
            spaces.append(None)
        else:
            spaces.append(
                {"owner": int(row[R.SPACE_OWNER + s]), "card": int(row[R.SPACE_CARD + s]), "safe": bool(st == R.SAFE)}
            )
    pts = np.zeros(num_p, dtype=np.int64)
    R.scores(row, pts)
    return {
        "game": "sly",
        "version": 0,
        "num_players": num_p,
        "hen_houses": int(row[R.HEN_HOUSES]),
        "reveal_scope": "all" if row[R.REVEAL_ALL] else "house",
        "first_player": "random" if row[R.FIRST_RANDOM] else 0,
        "current_player": int(row[R.CURRENT_PLAYER]),
        "game_over": bool(row[R.PHASE] == R.PHASE_GAME_OVER),
        "end_reason": END_REASONS[int(row[R.END_REASON])],
        "hands": hands,
        "spaces": spaces,
        "gobbled": [[{"owner": o, "card": c} for o, c in pile] for pile in piles(row, num_p, R.GOBBLED)],
        "captured": [[o for o, _ in pile] for pile in piles(row, num_p, R.CAPTURED)],
        "known_in_hand": known,
        "scores": [int(x) for x in pts],
        "rng": int(row[R.RNG]),
    }


# -- dict_to_state: a table of field validators ---------------------------------------------
# Each validator checks one field of the dict (cross-field checks read the values checked
# before it, in ``ld.v``) and writes it into the new row. Every integer is checked as an int
# (numpy ints pass, bools do not) in its range before it reaches numpy or a compiled kernel,
# so a bad dict always raises ValueError naming the field, the value and what is allowed.
_ABSENT = object()  # the value of an optional field the dict omits


def _bad(field, msg):
    raise ValueError(f"state dict field {field!r}: {msg}")


def _seat(field, x, num_p):
    if not is_int(x) or not 0 <= int(x) < num_p:
        _bad(field, f"seat {x!r} is not an int in [0, {num_p})")
    return int(x)


def _card(field, x, lo=0):
    if not is_int(x) or not lo <= int(x) <= 6:
        allowed = "0 (Fox) or 1..6 (Hens)" if lo == 0 else "a Hen 1..6"
        _bad(field, f"card {x!r} is not allowed; cards are {allowed}")
    return int(x)


def _per_seat_list(field, v, num_p):
    if not isinstance(v, list) or len(v) != num_p or not all(isinstance(x, list) for x in v):
        _bad(field, f"must be a list of {num_p} lists (one per seat), got {v!r}")
    return v


class _Load:
    """One dict_to_state call: the dict, the env's options, the new row and the values read so far."""

    def __init__(self, d: dict, env_row: np.ndarray):
        self.d = d
        self.env_row = env_row
        self.num_p = int(env_row[R.NUM_PLAYERS])
        self.houses = int(env_row[R.HEN_HOUSES])
        self.n_sp = R.SPACES_PER_HOUSE * self.houses
        row = self.row = np.zeros(R.ROW_SIZE, dtype=np.int64)
        row[R.CARD_PLACE : R.CARD_PLACE + R.MAX_CARDS] = -1
        row[R.CARD_SEQ : R.CARD_SEQ + R.MAX_CARDS] = -1
        row[R.SPACE_OWNER : R.SPACE_OWNER + R.MAX_SPACES] = -1
        row[R.SPACE_CARD : R.SPACE_CARD + R.MAX_SPACES] = -1
        self.v: dict = {}  # field -> its checked value
        self.seen: dict = {}  # (owner, card) -> field where it was found (card conservation)
        self.seq = 0  # order in which the cards joined the gobbled and captured piles

    def get(self, field):
        return self.d.get(field, _ABSENT)  # required fields are checked present up front

    def place(self, field, owner, card):
        if (owner, card) in self.seen:
            _bad(field, f"player {owner}'s {CARD_NAMES[card]} is also in {self.seen[(owner, card)]!r}; "
                        "each card must be in exactly one place")
        self.seen[(owner, card)] = field

    def join_pile(self, where, holder, owner, card):
        i = owner * R.CARDS_PER_PLAYER + card
        self.row[R.CARD_WHERE + i] = where
        self.row[R.CARD_PLACE + i] = holder
        self.row[R.CARD_SEQ + i] = self.seq
        self.seq += 1


def _game(ld, v):
    if not isinstance(v, str) or v != "sly":
        _bad("game", f"{v!r} is not allowed; this codec reads 'sly'")


def _version(ld, v):
    if v is not _ABSENT and (not is_int(v) or v != 0):
        _bad("version", f"{v!r} is not supported; this engine reads version 0")


def _num_players(ld, v):
    if not is_int(v) or v != ld.num_p:
        _bad("num_players", f"{v!r} does not match this env ({ld.num_p}); build the env with num_players={v!r}")


def _hen_houses(ld, v):
    if not is_int(v) or v != ld.houses:
        _bad("hen_houses", f"{v!r} does not match this env ({ld.houses}); build the env with hen_houses={v!r}")


def _reveal_scope(ld, v):
    if not isinstance(v, str) or v not in ("house", "all"):
        _bad("reveal_scope", f"{v!r} is not allowed; allowed values: 'house', 'all'")
    ld.v["reveal_scope"] = v


def _first_player(ld, v):
    if not ((is_int(v) and v == 0) or (isinstance(v, str) and v == "random")):
        _bad("first_player", f"{v!r} is not allowed; allowed values: 0, 'random'")
    R.configure(ld.row, ld.num_p, ld.houses, ld.v["reveal_scope"], v)  # all the options are read


def _current_player(ld, v):
    ld.v["current_player"] = ld.row[R.CURRENT_PLAYER] = _seat("current_player", v, ld.num_p)


def _game_over(ld, v):
    if not isinstance(v, bool):
        _bad("game_over", f"{v!r} is not a bool")
    ld.v["game_over"] = v
    ld.row[R.PHASE] = R.PHASE_GAME_OVER if v else R.PHASE_PLAY


def _hands(ld, v):
    hands = ld.v["hands"] = []
    for p, hand in enumerate(_per_seat_list("hands", v, ld.num_p)):
        hands.append([])
        for c in hand:
            c = _card("hands", c)
            ld.place("hands", p, c)
            hands[p].append(c)
            ld.row[R.CARD_WHERE + p * R.CARDS_PER_PLAYER + c] = R.IN_HAND
        ld.row[R.HAND_SIZE + p] = len(hand)


def _spaces(ld, v):
    over, row = ld.v["game_over"], ld.row
    if not isinstance(v, list) or len(v) != ld.n_sp:
        _bad("spaces", f"must be a list of {ld.n_sp} entries (4 per Hen House), got {v!r}")
    for s, sp in enumerate(v):
        if sp is None:
            continue
        if not isinstance(sp, dict) or set(sp) != {"owner", "card", "safe"}:
            _bad("spaces", f"space {s}: {sp!r} must be null or a dict with keys 'owner', 'card', 'safe'")
        owner = _seat("spaces", sp["owner"], ld.num_p)
        card = _card("spaces", sp["card"])
        if not isinstance(sp["safe"], bool):
            _bad("spaces", f"space {s}: safe={sp['safe']!r} is not a bool")
        if sp["safe"] and card == R.FOX:
            _bad("spaces", f"space {s}: a Fox cannot be Safe (only Hens become Safe)")
        if over and not sp["safe"] and card != R.FOX:
            _bad("spaces", f"space {s}: a face-down Hen in a finished game (the final flip makes every Hen Safe)")
        ld.place("spaces", owner, card)
        i = owner * R.CARDS_PER_PLAYER + card
        row[R.CARD_WHERE + i] = R.ON_SPACE
        row[R.CARD_PLACE + i] = s
        row[R.SPACE_OWNER + s] = owner
        row[R.SPACE_CARD + s] = card
        if sp["safe"]:
            row[R.SPACE_STATE + s] = R.SAFE
        else:
            row[R.SPACE_STATE + s] = R.FACE_UP_FOX if over else R.FACE_DOWN
    ld.v["all_safe"] = all(sp is not None and sp["safe"] for sp in v)


def _gobbled(ld, v):
    for p, pile in enumerate(_per_seat_list("gobbled", v, ld.num_p)):
        for g in pile:
            if not isinstance(g, dict) or set(g) != {"owner", "card"}:
                _bad("gobbled", f"{g!r} must be a dict with keys 'owner', 'card'")
            owner = _seat("gobbled", g["owner"], ld.num_p)
            card = _card("gobbled", g["card"], lo=1)
            ld.place("gobbled", owner, card)
            ld.join_pile(R.GOBBLED, p, owner, card)


def _captured(ld, v):
    for p, pile in enumerate(_per_seat_list("captured", v, ld.num_p)):
        for owner in pile:
            owner = _seat("captured", owner, ld.num_p)
            if owner == p:
                _bad("captured", f"seat {p} cannot hold its own Fox (only opponents' Foxes are exposed)")
            ld.place("captured", owner, R.FOX)
            ld.join_pile(R.CAPTURED, p, owner, R.FOX)
    ld.row[R.PILE_SEQ] = ld.seq


def _every_card_placed(ld, v):
    for p in range(ld.num_p):
        missing = [CARD_NAMES[c] for c in range(7) if (p, c) not in ld.seen]
        if missing:
            _bad("hands", f"player {p}'s {', '.join(missing)} is nowhere (not in hands, spaces, gobbled "
                          "or captured); each card must be in exactly one place")


def _known_in_hand(ld, v):
    for p, known in enumerate(_per_seat_list("known_in_hand", v, ld.num_p)):
        for c in known:
            c = _card("known_in_hand", c)
            if c not in ld.v["hands"][p]:
                _bad("known_in_hand", f"player {p}'s {CARD_NAMES[c]} is not in their hand")
            k = R.KNOWN_IN_HAND + p * R.CARDS_PER_PLAYER + c
            if ld.row[k]:
                _bad("known_in_hand", f"player {p}'s {CARD_NAMES[c]} is listed twice")
            ld.row[k] = 1


def _end_reason(ld, v):
    over, all_safe = ld.v["game_over"], ld.v["all_safe"]
    if v is not _ABSENT and v is not None:
        if not isinstance(v, str) or v not in ("hand", "all_safe"):
            _bad("end_reason", f"{v!r} is not allowed; allowed values: None, 'hand', 'all_safe'")
        if not over:
            _bad("end_reason", f"{v!r} given but game_over is false")
        if v == "all_safe" and not all_safe:
            _bad("end_reason", "'all_safe' but not every space holds a Safe Hen")
        reason = v
    elif over:
        # Omitted (or None): the end the position shows (a full table of Safe Hens reads as all_safe).
        reason = "all_safe" if all_safe else "hand"
    else:
        reason = None
    ld.row[R.END_REASON] = END_CODES[reason]


def _running_game(ld, v):
    """A running game must have a turn to play: checks of the whole position."""
    if ld.v["game_over"]:
        return
    row, cur = ld.row, ld.v["current_player"]
    if ld.v["all_safe"]:
        _bad("game_over", "false, but every space holds a Safe Hen, which ends the game")
    if R.legal_actions(row, np.zeros(R.num_actions(ld.houses), dtype=np.int64)) == 0:
        _bad("current_player", f"player {cur} has no legal action, impossible in a running game")
    if row[R.HAND_SIZE + cur] <= 1:
        # The end check runs at the start of a turn: such a turn never begins.
        _bad(
            "game_over",
            f"false, but player {cur} (to act) holds {row[R.HAND_SIZE + cur]} card(s); a turn that "
            "starts with at most one card in hand ends the game (set game_over true after the final flip)",
        )


def _rng(ld, v):
    if v is _ABSENT:
        ld.row[R.RNG] = ld.env_row[R.RNG]
        return
    if not is_int(v) or not -(2**63) <= int(v) < 2**64:
        _bad("rng", f"{v!r} is not a 64-bit int")
    v = int(v)
    ld.row[R.RNG] = v - 2**64 if v >= 2**63 else v


def _scores(ld, v):
    if v is _ABSENT:
        return
    pts = np.zeros(ld.num_p, dtype=np.int64)
    R.scores(ld.row, pts)
    want = [int(x) for x in pts]
    if not isinstance(v, list) or not all(is_int(x) for x in v) or v != want:
        _bad("scores", f"{v!r} does not match the position (recomputed: {want})")


FIELD_CHECKS = (
    ("game", _game),
    ("version", _version),
    ("num_players", _num_players),
    ("hen_houses", _hen_houses),
    ("reveal_scope", _reveal_scope),
    ("first_player", _first_player),
    ("current_player", _current_player),
    ("game_over", _game_over),
    ("hands", _hands),
    ("spaces", _spaces),
    ("gobbled", _gobbled),
    ("captured", _captured),
    ("hands", _every_card_placed),  # card conservation, once every place is read
    ("known_in_hand", _known_in_hand),
    ("end_reason", _end_reason),
    ("game_over", _running_game),  # needs the whole position
    ("rng", _rng),
    ("scores", _scores),  # recomputed from the loaded row
)
"""The validators of dict_to_state, in the order they run: ``(field, check(ld, value))``."""


def dict_to_state(d: dict, row: np.ndarray) -> tuple[np.ndarray, None]:
    """Validate ``d`` against the env whose row is ``row``; return ``(new row, history)``
    (history is None: a Sly row holds the whole game).

    Checks the field names, then runs :data:`FIELD_CHECKS` in order. Raises ValueError
    naming the first bad field; ``row`` itself is never modified.
    """
    if not isinstance(d, dict):
        raise ValueError(f"state dict must be a dict, got {type(d).__name__}")
    unknown = sorted(set(d) - set(STATE_KEYS), key=str)
    if unknown:
        _bad(unknown[0], f"unknown field; fields are {', '.join(STATE_KEYS)}")
    for k in STATE_KEYS:
        if k not in d and k not in OPTIONAL_KEYS:
            _bad(k, "missing")
    ld = _Load(d, row)
    for field, check in FIELD_CHECKS:
        check(ld, ld.get(field))
    return ld.row, None
