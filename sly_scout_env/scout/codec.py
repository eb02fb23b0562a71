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


STATE_FIELDS = (
    "game", "version", "num_players", "rounds", "ii_after_empty_set", "score_held_chips", "round",
    "starting_player", "current_player", "phase", "hands", "active_set", "active_owner", "scout_chips",
    "collected", "scout_and_show_left", "set_aside", "known", "round_scores", "round_end_reasons", "scores", "rng",
)
_OPTIONAL = {"version": 0, "rng": 0}


class _Checker:
    """Field validation for dict_to_state; every error names the field."""

    def __init__(self, d: dict, num_players: int):
        self.d = d
        self.n = num_players
        self.seen: dict[frozenset, str] = {}

    def get(self, key):
        if key not in self.d:
            if key in _OPTIONAL:
                return _OPTIONAL[key]
            raise ValueError(f"state dict field {key!r} is missing")
        return self.d[key]

    @staticmethod
    def fail(key, value, allowed):
        raise ValueError(f"state dict field {key!r}={value!r} is not allowed; allowed: {allowed}")

    def int_(self, key, lo, hi, value=None):
        v = self.get(key) if value is None else value
        if not is_int(v) or not lo <= v <= hi:
            self.fail(key, v, f"an int in [{lo}, {hi}]")
        return int(v)

    def bool_(self, key, value=None):
        v = self.get(key) if value is None else value
        if not isinstance(v, (bool, np.bool_)):
            self.fail(key, v, "True or False")
        return bool(v)

    def per_seat(self, key):
        v = self.get(key)
        if not isinstance(v, (list, tuple)) or len(v) != self.n:
            self.fail(key, v, f"a list with one entry per seat ({self.n})")
        return v

    def cards(self, key, value, max_len):
        if not isinstance(value, (list, tuple)) or len(value) > max_len:
            self.fail(key, value, f"a list of at most {max_len} [up, down] cards")
        codes = []
        for c in value:
            if (
                not isinstance(c, (list, tuple))
                or len(c) != 2
                or not all(is_int(x) for x in c)
                or not bool(R.in_deck(self.n, int(c[0]), int(c[1])))
                or c[0] == c[1]
            ):
                self.fail(key, c, f"cards [up, down] of two different numbers 1..10 in the {self.n}-player deck")
            ident = frozenset((int(c[0]), int(c[1])))
            if ident in self.seen:
                raise ValueError(
                    f"state dict field {key!r}: card {list(c)!r} appears twice (also in {self.seen[ident]!r})"
                )
            self.seen[ident] = key
            codes.append(int(c[0]) * 16 + int(c[1]))
        return codes


def _valid_show(codes: list[int]) -> bool:
    return not codes or show_kind([c >> 4 for c in codes]) != "not a set or run"


def dict_to_state(d: dict, row: np.ndarray) -> tuple[np.ndarray, tuple]:
    """Validate ``d`` against the env whose row is ``row`` (its player count), then return
    ``(new row, history)``; ``history`` is ``(round_scores, round_end_reasons)``.

    ValueError names the first bad field; ``row`` itself is never modified.
    """
    num_players = int(row[R.NUM_PLAYERS])
    if not isinstance(d, dict):
        raise ValueError(f"state dict must be a dict, got {type(d).__name__}")
    unknown = [k for k in d if k not in STATE_FIELDS]
    if unknown:
        raise ValueError(f"state dict field {unknown[0]!r} is unknown; fields: {', '.join(STATE_FIELDS)}")
    ck = _Checker(d, num_players)
    n = num_players
    H = int(R.max_hand(n))
    if ck.get("game") != "scout":
        ck.fail("game", d.get("game"), "'scout'")
    if ck.get("version") != 0:
        ck.fail("version", d.get("version"), "0")
    ck.int_("num_players", n, n)
    rounds = ck.int_("rounds", 1, 2**31)
    ii = ck.bool_("ii_after_empty_set")
    held = ck.bool_("score_held_chips")
    rnd = ck.int_("round", 0, rounds)
    start = ck.int_("starting_player", 0, n - 1)
    cur = ck.int_("current_player", 0, n - 1)
    phase = ck.get("phase")
    if phase not in R.PHASE_NAMES:
        ck.fail("phase", phase, ", ".join(map(repr, R.PHASE_NAMES)))
    if n == 2 and phase == "show_after_scout":
        ck.fail("phase", phase, "'flip', 'play' or 'game_over' with 2 players (no Scout & Show)")
    if (phase == "game_over") != (rnd == rounds):
        ck.fail("round", rnd, f"{rounds} (= rounds) exactly when phase is 'game_over', else < rounds")
    hands = [ck.cards("hands", h, H) for h in ck.per_seat("hands")]
    active = ck.cards("active_set", ck.get("active_set"), R.ACTIVE_CAP)
    if not _valid_show(active):
        ck.fail("active_set", d["active_set"], "a set or a run (left to right)")
    owner = ck.get("active_owner")
    if owner is not None:
        owner = ck.int_("active_owner", 0, n - 1, owner)
    elif active:
        ck.fail("active_owner", owner, "a seat when the active set is not empty")
    chips = [ck.int_("scout_chips", 0, 3 if n == 2 else 10**6, c) for c in ck.per_seat("scout_chips")]
    if phase != "game_over":
        # The MAX_HAND proof, as load-time checks, so no loaded position can overflow a hand:
        # 2 players: each Scout costs a chip, so hand + chips held <= 11 + 3.
        # 3-5 players: a player left with no card ends the round (i), so every hand holds one.
        for s in range(n):
            if n == 2 and len(hands[s]) + chips[s] > H:
                ck.fail("hands", d["hands"][s], f"at most {H} cards minus the chips still held ({chips[s]}) for seat {s}")
            if not hands[s]:
                ck.fail("hands", d["hands"][s], f"at least one card for seat {s} while the game runs")
    collected = [ck.cards("collected", c, R.DECK_CAP) for c in ck.per_seat("collected")]
    sas = [ck.bool_("scout_and_show_left", v) for v in ck.per_seat("scout_and_show_left")]
    if n == 2 and any(sas):
        ck.fail("scout_and_show_left", d["scout_and_show_left"], "all False with 2 players (no Scout & Show)")
    set_aside = ck.cards("set_aside", ck.get("set_aside"), R.SET_ASIDE_CAP if n == 2 else 0)
    if set_aside and len(set_aside) != R.SET_ASIDE_CAP:
        ck.fail("set_aside", d["set_aside"], f"[] or exactly {R.SET_ASIDE_CAP} cards")
    if n == 2 and rnd % 2 == 0 and rnd + 1 < rounds and not set_aside:
        ck.fail("set_aside", d["set_aside"], f"{R.SET_ASIDE_CAP} cards: the next round deals them")
    known = ck.per_seat("known")
    for s in range(n):
        if not isinstance(known[s], (list, tuple)) or len(known[s]) != len(hands[s]):
            ck.fail("known", known[s], f"one bool per card of hand {s} ({len(hands[s])})")
        for k in known[s]:
            ck.bool_("known", k)
    rs = ck.get("round_scores")
    if not isinstance(rs, (list, tuple)) or len(rs) != rnd:
        ck.fail("round_scores", rs, f"one list per finished round ({rnd})")
    for r in rs:
        if not isinstance(r, (list, tuple)) or len(r) != n or not all(is_int(x) for x in r):
            ck.fail("round_scores", r, f"a list of {n} ints per finished round")
    reasons = ck.get("round_end_reasons")
    if not isinstance(reasons, (list, tuple)) or len(reasons) != rnd or any(x not in ("i", "ii") for x in reasons):
        ck.fail("round_end_reasons", reasons, f"a list of {rnd} entries 'i' or 'ii'")
    scores = [ck.int_("scores", -(2**40), 2**40, x) for x in ck.per_seat("scores")]
    sums = [sum(int(r[s]) for r in rs) for s in range(n)]
    if scores != sums:
        ck.fail("scores", scores, f"the sums of round_scores per seat {sums}")
    rng = ck.int_("rng", -(2**63), 2**63 - 1)

    row = R.new_state(n, rounds, ii, held)
    row[R.O_ROUND] = rnd
    row[R.O_STARTING_PLAYER] = start
    row[R.CURRENT_PLAYER] = cur
    row[R.PHASE] = R.PHASE_NAMES.index(phase)
    row[R.O_ACTIVE_OWNER] = -1 if owner is None else owner
    row[R.O_ACTIVE_LEN] = len(active)
    row[R.O_ACTIVE : R.O_ACTIVE + len(active)] = active
    for s in range(n):
        h = R.O_HANDS + s * R.HAND_CAP
        row[R.O_HAND_LEN + s] = len(hands[s])
        row[h : h + len(hands[s])] = hands[s]
        k = R.O_KNOWN + s * R.HAND_CAP
        row[k : k + len(hands[s])] = [int(bool(x)) for x in known[s]]
        row[R.O_SCOUT_CHIPS + s] = chips[s]
        c = R.O_COLLECTED + s * R.DECK_CAP
        row[R.O_COLLECTED_LEN + s] = len(collected[s])
        row[c : c + len(collected[s])] = collected[s]
        row[R.O_SAS_LEFT + s] = int(sas[s])
        row[R.O_SCORES + s] = scores[s]
        if rs:
            row[R.O_LAST_ROUND_SCORES + s] = int(rs[-1][s])
    row[R.O_LAST_END_REASON] = 0 if not reasons else (R.END_EMPTY_HAND if reasons[-1] == "i" else R.END_ALL_SCOUTED)
    row[R.O_SET_ASIDE_LEN] = len(set_aside)
    row[R.O_SET_ASIDE : R.O_SET_ASIDE + len(set_aside)] = set_aside
    row[R.RNG] = rng
    return row, ([[int(x) for x in r] for r in rs], list(reasons))
