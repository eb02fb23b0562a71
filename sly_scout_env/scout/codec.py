"""Scout state codec: a state row <-> the plain-JSON state dict, with full validation.

The format is documented in env.py (section 6). Besides the row, a Scout game keeps a
``history`` beside it: ``(round_scores, round_end_reasons)`` of the finished rounds
(lists), which the state dict holds too.
"""

from __future__ import annotations

import numpy as np

from ..checks import is_int
from . import rules as R


def show_kind(values: list[int]) -> str:
    """"set", "run" or "not a set or run": the kind of a show of these numbers."""
    if len(values) == 1 or all(v == values[0] for v in values):
        return "set"
    if all(b - a == 1 for a, b in zip(values, values[1:])) or all(a - b == 1 for a, b in zip(values, values[1:])):
        return "run"
    return "not a set or run"


# --- state_dict ------------------------------------------------------------------------------------
def _cards(row, off, n) -> list:
    return [[int(c) >> 4, int(c) & 15] for c in row[off : off + n]]


def state_to_dict(row: np.ndarray, history) -> dict:
    """The state as plain JSON (the format of env.py's section 6); ``history`` is
    ``(round_scores, round_end_reasons)`` of the finished rounds."""
    round_scores, round_end_reasons = history
    n = int(row[R.NUM_PLAYERS])
    owner = int(row[R.O_ACTIVE_OWNER])
    seats = range(n)
    return {
        "game": "scout",
        "version": 0,
        "num_players": n,
        "rounds": int(row[R.O_ROUNDS]),
        "ii_after_empty_set": bool(row[R.O_II_AFTER_EMPTY]),
        "score_held_chips": bool(row[R.O_SCORE_HELD]),
        "round": int(row[R.O_ROUND]),
        "starting_player": int(row[R.O_STARTING_PLAYER]),
        "current_player": int(row[R.CURRENT_PLAYER]),
        "phase": R.PHASE_NAMES[int(row[R.PHASE])],
        "hands": [_cards(row, R.O_HANDS + s * R.HAND_CAP, row[R.O_HAND_LEN + s]) for s in seats],
        "active_set": _cards(row, R.O_ACTIVE, row[R.O_ACTIVE_LEN]),
        "active_owner": None if owner < 0 else owner,
        "scout_chips": [int(row[R.O_SCOUT_CHIPS + s]) for s in seats],
        "collected": [_cards(row, R.O_COLLECTED + s * R.DECK_CAP, row[R.O_COLLECTED_LEN + s]) for s in seats],
        "scout_and_show_left": [bool(row[R.O_SAS_LEFT + s]) for s in seats],
        "set_aside": _cards(row, R.O_SET_ASIDE, row[R.O_SET_ASIDE_LEN]),
        "known": [
            [bool(k) for k in row[R.O_KNOWN + s * R.HAND_CAP : R.O_KNOWN + s * R.HAND_CAP + row[R.O_HAND_LEN + s]]]
            for s in seats
        ],
        "round_scores": [list(r) for r in round_scores],
        "round_end_reasons": list(round_end_reasons),
        "scores": [int(row[R.O_SCORES + s]) for s in seats],
        "rng": int(row[R.RNG]),
    }


# --- dict_to_state: a table of field validators ------------------------------------------------------
# Each validator checks one field of the dict (cross-field checks read the values checked
# before it, in ``ld.v``) and writes it into the new row. Every integer is checked as an int
# (numpy ints pass, bools do not) in its range before it reaches numpy or a compiled kernel,
# so a bad dict always raises ValueError naming the field, the value and what is allowed.
_OPTIONAL = {"version": 0, "rng": 0}
_SCORE_LIMIT = 2**40  # |game total| and |round score|: far beyond any game, well inside int64


class _Load:
    """One dict_to_state call: the dict, the player count, the new row and the values read so far."""

    def __init__(self, d: dict, num_players: int):
        self.d = d
        self.n = num_players
        self.H = int(R.max_hand(num_players))
        self.row = R.new_state(num_players, 1, False, False)  # rounds and flags: their validators
        self.v: dict = {}  # field -> its checked value
        self.seen: dict[frozenset, str] = {}  # card identity -> field holding it

    def get(self, key):
        if key not in self.d:
            if key in _OPTIONAL:
                return _OPTIONAL[key]
            raise ValueError(f"state dict field {key!r} is missing")
        return self.d[key]

    def per_seat(self, key, v):
        if not isinstance(v, (list, tuple)) or len(v) != self.n:
            _fail(key, v, f"a list with one entry per seat ({self.n})")
        return v

    def cards(self, key, value, max_len) -> list[int]:
        """The card codes of a list of [up, down] cards; each card may be in one place only."""
        if not isinstance(value, (list, tuple)) or len(value) > max_len:
            _fail(key, value, f"a list of at most {max_len} [up, down] cards")
        codes = []
        for c in value:
            if (
                not isinstance(c, (list, tuple))
                or len(c) != 2
                or not all(is_int(x) and 1 <= int(x) <= 10 for x in c)  # checked before the kernel sees them
                or not bool(R.in_deck(self.n, int(c[0]), int(c[1])))
                or c[0] == c[1]
            ):
                _fail(key, c, f"cards [up, down] of two different numbers 1..10 in the {self.n}-player deck")
            ident = frozenset((int(c[0]), int(c[1])))
            if ident in self.seen:
                raise ValueError(
                    f"state dict field {key!r}: card {list(c)!r} appears twice (also in {self.seen[ident]!r})"
                )
            self.seen[ident] = key
            codes.append(int(c[0]) * 16 + int(c[1]))
        return codes


def _fail(key, value, allowed):
    raise ValueError(f"state dict field {key!r}={value!r} is not allowed; allowed: {allowed}")


def _int(key, v, lo, hi) -> int:
    """``v`` as a Python int if it is an int (numpy ints too, bools not) in ``[lo, hi]``."""
    if not is_int(v) or not lo <= int(v) <= hi:
        _fail(key, v, f"an int in [{lo}, {hi}]")
    return int(v)


def _bool(key, v) -> bool:
    if not isinstance(v, (bool, np.bool_)):
        _fail(key, v, "True or False")
    return bool(v)


def _valid_show(codes: list[int]) -> bool:
    return not codes or show_kind([c >> 4 for c in codes]) != "not a set or run"


def _game(ld, v):
    if not isinstance(v, str) or v != "scout":
        _fail("game", v, "'scout'")


def _version(ld, v):
    if not is_int(v) or v != 0:
        _fail("version", v, "0")


def _num_players(ld, v):
    _int("num_players", v, ld.n, ld.n)  # the row already holds it


def _rounds(ld, v):
    ld.v["rounds"] = ld.row[R.O_ROUNDS] = _int("rounds", v, 1, 2**31)


def _ii_after_empty_set(ld, v):
    ld.row[R.O_II_AFTER_EMPTY] = int(_bool("ii_after_empty_set", v))


def _score_held_chips(ld, v):
    ld.row[R.O_SCORE_HELD] = int(_bool("score_held_chips", v))


def _round(ld, v):
    ld.v["round"] = ld.row[R.O_ROUND] = _int("round", v, 0, ld.v["rounds"])


def _starting_player(ld, v):
    ld.row[R.O_STARTING_PLAYER] = _int("starting_player", v, 0, ld.n - 1)


def _current_player(ld, v):
    ld.row[R.CURRENT_PLAYER] = _int("current_player", v, 0, ld.n - 1)


def _phase(ld, v):
    if not isinstance(v, str) or v not in R.PHASE_NAMES:
        _fail("phase", v, ", ".join(map(repr, R.PHASE_NAMES)))
    if ld.n == 2 and v == "show_after_scout":
        _fail("phase", v, "'flip', 'play' or 'game_over' with 2 players (no Scout & Show)")
    rnd, rounds = ld.v["round"], ld.v["rounds"]
    if (v == "game_over") != (rnd == rounds):
        _fail("round", rnd, f"{rounds} (= rounds) exactly when phase is 'game_over', else < rounds")
    ld.v["phase"] = v
    ld.row[R.PHASE] = R.PHASE_NAMES.index(v)


def _hands(ld, v):
    hands = ld.v["hands"] = [ld.cards("hands", h, ld.H) for h in ld.per_seat("hands", v)]
    for s, hand in enumerate(hands):
        h = R.O_HANDS + s * R.HAND_CAP
        ld.row[R.O_HAND_LEN + s] = len(hand)
        ld.row[h : h + len(hand)] = hand


def _active_set(ld, v):
    active = ld.v["active_set"] = ld.cards("active_set", v, R.ACTIVE_CAP)
    if not _valid_show(active):
        _fail("active_set", v, "a set or a run (left to right)")
    ld.row[R.O_ACTIVE_LEN] = len(active)
    ld.row[R.O_ACTIVE : R.O_ACTIVE + len(active)] = active


def _active_owner(ld, v):
    if v is not None:
        v = _int("active_owner", v, 0, ld.n - 1)
    elif ld.v["active_set"]:
        _fail("active_owner", v, "a seat when the active set is not empty")
    ld.row[R.O_ACTIVE_OWNER] = -1 if v is None else v


def _scout_chips(ld, v):
    hi = 3 if ld.n == 2 else 10**6
    chips = ld.v["scout_chips"] = [_int("scout_chips", c, 0, hi) for c in ld.per_seat("scout_chips", v)]
    ld.row[R.O_SCOUT_CHIPS : R.O_SCOUT_CHIPS + ld.n] = chips


def _hand_limits(ld, v):
    """The MAX_HAND proof, as load-time checks, so no loaded position can overflow a hand:
    2 players: each Scout costs a chip, so hand + chips held <= 11 + 3.
    3-5 players: a player left with no card ends the round (i), so every hand holds one."""
    if ld.v["phase"] == "game_over":
        return
    hands, chips, H = ld.v["hands"], ld.v["scout_chips"], ld.H
    for s in range(ld.n):
        if ld.n == 2 and len(hands[s]) + chips[s] > H:
            _fail("hands", v[s], f"at most {H} cards minus the chips still held ({chips[s]}) for seat {s}")
        if not hands[s]:
            _fail("hands", v[s], f"at least one card for seat {s} while the game runs")


def _collected(ld, v):
    for s, pile in enumerate(ld.per_seat("collected", v)):
        codes = ld.cards("collected", pile, R.DECK_CAP)
        c = R.O_COLLECTED + s * R.DECK_CAP
        ld.row[R.O_COLLECTED_LEN + s] = len(codes)
        ld.row[c : c + len(codes)] = codes


def _scout_and_show_left(ld, v):
    sas = [_bool("scout_and_show_left", x) for x in ld.per_seat("scout_and_show_left", v)]
    if ld.n == 2 and any(sas):
        _fail("scout_and_show_left", v, "all False with 2 players (no Scout & Show)")
    ld.row[R.O_SAS_LEFT : R.O_SAS_LEFT + ld.n] = [int(x) for x in sas]


def _set_aside(ld, v):
    n, rnd = ld.n, ld.v["round"]
    codes = ld.cards("set_aside", v, R.SET_ASIDE_CAP if n == 2 else 0)
    if codes and len(codes) != R.SET_ASIDE_CAP:
        _fail("set_aside", v, f"[] or exactly {R.SET_ASIDE_CAP} cards")
    if n == 2 and rnd % 2 == 0 and rnd + 1 < ld.v["rounds"] and not codes:
        _fail("set_aside", v, f"{R.SET_ASIDE_CAP} cards: the next round deals them")
    ld.row[R.O_SET_ASIDE_LEN] = len(codes)
    ld.row[R.O_SET_ASIDE : R.O_SET_ASIDE + len(codes)] = codes


def _known(ld, v):
    hands = ld.v["hands"]
    for s, flags in enumerate(ld.per_seat("known", v)):
        if not isinstance(flags, (list, tuple)) or len(flags) != len(hands[s]):
            _fail("known", flags, f"one bool per card of hand {s} ({len(hands[s])})")
        k = R.O_KNOWN + s * R.HAND_CAP
        ld.row[k : k + len(flags)] = [int(_bool("known", x)) for x in flags]
        if ld.v["phase"] == "flip" and any(flags):
            # The deal clears every flag and nothing is scouted before play: a set flag would make
            # the observation show a card the view and the text hide.
            _fail("known", flags, f"all false for hand {s} in the flip phase (nothing is scouted before play)")


def _round_scores(ld, v):
    n, rnd, lim = ld.n, ld.v["round"], _SCORE_LIMIT
    if not isinstance(v, (list, tuple)) or len(v) != rnd:
        _fail("round_scores", v, f"one list per finished round ({rnd})")
    for r in v:
        if not isinstance(r, (list, tuple)) or len(r) != n or not all(is_int(x) and -lim <= int(x) <= lim for x in r):
            _fail("round_scores", r, f"a list of {n} ints in [{-lim}, {lim}] per finished round")
    rs = ld.v["round_scores"] = [[int(x) for x in r] for r in v]
    if rs:
        ld.row[R.O_LAST_ROUND_SCORES : R.O_LAST_ROUND_SCORES + n] = rs[-1]


def _round_end_reasons(ld, v):
    rnd = ld.v["round"]
    if not isinstance(v, (list, tuple)) or len(v) != rnd or not all(isinstance(x, str) and x in ("i", "ii") for x in v):
        _fail("round_end_reasons", v, f"a list of {rnd} entries 'i' or 'ii'")
    ld.v["round_end_reasons"] = list(v)
    ld.row[R.O_LAST_END_REASON] = 0 if not v else (R.END_EMPTY_HAND if v[-1] == "i" else R.END_ALL_SCOUTED)


def _scores(ld, v):
    scores = [_int("scores", x, -_SCORE_LIMIT, _SCORE_LIMIT) for x in ld.per_seat("scores", v)]
    sums = [sum(r[s] for r in ld.v["round_scores"]) for s in range(ld.n)]
    if scores != sums:
        _fail("scores", scores, f"the sums of round_scores per seat {sums}")
    ld.row[R.O_SCORES : R.O_SCORES + ld.n] = scores


def _rng(ld, v):
    ld.row[R.RNG] = _int("rng", v, -(2**63), 2**63 - 1)


FIELD_CHECKS = (
    ("game", _game),
    ("version", _version),
    ("num_players", _num_players),
    ("rounds", _rounds),
    ("ii_after_empty_set", _ii_after_empty_set),
    ("score_held_chips", _score_held_chips),
    ("round", _round),
    ("starting_player", _starting_player),
    ("current_player", _current_player),
    ("phase", _phase),  # also: round == rounds exactly when the game is over
    ("hands", _hands),
    ("active_set", _active_set),
    ("active_owner", _active_owner),
    ("scout_chips", _scout_chips),
    ("hands", _hand_limits),  # needs the chips
    ("collected", _collected),
    ("scout_and_show_left", _scout_and_show_left),
    ("set_aside", _set_aside),
    ("known", _known),
    ("round_scores", _round_scores),
    ("round_end_reasons", _round_end_reasons),
    ("scores", _scores),
    ("rng", _rng),
)
"""The validators of dict_to_state, in the order they run: ``(field, check(ld, value))``."""

STATE_FIELDS = tuple(dict.fromkeys(field for field, _ in FIELD_CHECKS))


def dict_to_state(d: dict, row: np.ndarray) -> tuple[np.ndarray, tuple]:
    """Validate ``d`` against the env whose row is ``row`` (its player count), then return
    ``(new row, history)``; ``history`` is ``(round_scores, round_end_reasons)``.

    Runs :data:`FIELD_CHECKS` in order; ValueError names the first bad field; ``row``
    itself is never modified.
    """
    if not isinstance(d, dict):
        raise ValueError(f"state dict must be a dict, got {type(d).__name__}")
    unknown = [k for k in d if k not in STATE_FIELDS]
    if unknown:
        raise ValueError(f"state dict field {unknown[0]!r} is unknown; fields: {', '.join(STATE_FIELDS)}")
    ld = _Load(d, int(row[R.NUM_PLAYERS]))
    for field, check in FIELD_CHECKS:
        check(ld, ld.get(field))
    return ld.row, (ld.v["round_scores"], ld.v["round_end_reasons"])
