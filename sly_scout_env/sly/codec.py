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


def _bad(field, msg):
    raise ValueError(f"state dict field {field!r}: {msg}")


def _seat(field, x, num_p):
    if not is_int(x) or not 0 <= x < num_p:
        _bad(field, f"seat {x!r} is not an int in [0, {num_p})")
    return int(x)


def _card(field, x, lo=0):
    if not is_int(x) or not lo <= x <= 6:
        allowed = "0 (Fox) or 1..6 (Hens)" if lo == 0 else "a Hen 1..6"
        _bad(field, f"card {x!r} is not allowed; cards are {allowed}")
    return int(x)


def _per_seat_list(d, field, num_p):
    v = d[field]
    if not isinstance(v, list) or len(v) != num_p or not all(isinstance(x, list) for x in v):
        _bad(field, f"must be a list of {num_p} lists (one per seat), got {v!r}")
    return v


def dict_to_state(d: dict, row: np.ndarray) -> tuple[np.ndarray, None]:
    """Validate ``d`` against the env whose row is ``row``; return ``(new row, history)``
    (history is None: a Sly row holds the whole game).

    Raises ValueError naming the first bad field; ``row`` itself is never modified.
    """
    env_row = row
    num_p = int(env_row[R.NUM_PLAYERS])
    houses = int(env_row[R.HEN_HOUSES])
    n_sp = R.SPACES_PER_HOUSE * houses
    unknown = sorted(set(d) - set(STATE_KEYS), key=str)
    if unknown:
        _bad(unknown[0], f"unknown field; fields are {', '.join(STATE_KEYS)}")
    for k in STATE_KEYS:
        if k not in d and k not in OPTIONAL_KEYS:
            _bad(k, "missing")
    if "version" in d and (not is_int(d["version"]) or d["version"] != 0):
        _bad("version", f"{d['version']!r} is not supported; this engine reads version 0")
    if d["hen_houses"] != houses or not is_int(d["hen_houses"]):
        _bad("hen_houses", f"{d['hen_houses']!r} does not match this env ({houses}); build the env with "
                           f"hen_houses={d['hen_houses']!r}")
    if d["reveal_scope"] not in ("house", "all") or not isinstance(d["reveal_scope"], str):
        _bad("reveal_scope", f"{d['reveal_scope']!r} is not allowed; allowed values: 'house', 'all'")
    fp = d["first_player"]
    if not ((is_int(fp) and fp == 0) or fp == "random"):
        _bad("first_player", f"{fp!r} is not allowed; allowed values: 0, 'random'")
    cur = _seat("current_player", d["current_player"], num_p)
    if not isinstance(d["game_over"], bool):
        _bad("game_over", f"{d['game_over']!r} is not a bool")
    over = d["game_over"]

    row = np.zeros(R.ROW_SIZE, dtype=np.int64)
    R.configure(row, num_p, houses, d["reveal_scope"], fp)
    row[R.CURRENT_PLAYER] = cur
    row[R.PHASE] = R.PHASE_GAME_OVER if over else R.PHASE_PLAY
    for i in range(R.MAX_CARDS):
        row[R.CARD_PLACE + i] = -1
        row[R.CARD_SEQ + i] = -1
    for s in range(R.MAX_SPACES):
        row[R.SPACE_OWNER + s] = -1
        row[R.SPACE_CARD + s] = -1
    seen = {}  # (owner, card) -> field where it was found (card conservation)

    def place(field, owner, card):
        if (owner, card) in seen:
            _bad(field, f"player {owner}'s {CARD_NAMES[card]} is also in {seen[(owner, card)]!r}; "
                        "each card must be in exactly one place")
        seen[(owner, card)] = field

    hands = _per_seat_list(d, "hands", num_p)
    for p, hand in enumerate(hands):
        for c in hand:
            c = _card("hands", c)
            place("hands", p, c)
            row[R.CARD_WHERE + p * 7 + c] = R.IN_HAND
        row[R.HAND_SIZE + p] = len(hand)

    spaces = d["spaces"]
    if not isinstance(spaces, list) or len(spaces) != n_sp:
        _bad("spaces", f"must be a list of {n_sp} entries (4 per Hen House), got {spaces!r}")
    for s, sp in enumerate(spaces):
        if sp is None:
            continue
        if not isinstance(sp, dict) or set(sp) != {"owner", "card", "safe"}:
            _bad("spaces", f"space {s}: {sp!r} must be null or a dict with keys 'owner', 'card', 'safe'")
        owner = _seat("spaces", sp["owner"], num_p)
        card = _card("spaces", sp["card"])
        if not isinstance(sp["safe"], bool):
            _bad("spaces", f"space {s}: safe={sp['safe']!r} is not a bool")
        if sp["safe"] and card == R.FOX:
            _bad("spaces", f"space {s}: a Fox cannot be Safe (only Hens become Safe)")
        if over and not sp["safe"] and card != R.FOX:
            _bad("spaces", f"space {s}: a face-down Hen in a finished game (the final flip makes every Hen Safe)")
        place("spaces", owner, card)
        i = owner * 7 + card
        row[R.CARD_WHERE + i] = R.ON_SPACE
        row[R.CARD_PLACE + i] = s
        row[R.SPACE_OWNER + s] = owner
        row[R.SPACE_CARD + s] = card
        if sp["safe"]:
            row[R.SPACE_STATE + s] = R.SAFE
        else:
            row[R.SPACE_STATE + s] = R.FACE_UP_FOX if over else R.FACE_DOWN

    seq = 0
    for p, pile in enumerate(_per_seat_list(d, "gobbled", num_p)):
        for g in pile:
            if not isinstance(g, dict) or set(g) != {"owner", "card"}:
                _bad("gobbled", f"{g!r} must be a dict with keys 'owner', 'card'")
            owner = _seat("gobbled", g["owner"], num_p)
            card = _card("gobbled", g["card"], lo=1)
            place("gobbled", owner, card)
            i = owner * 7 + card
            row[R.CARD_WHERE + i] = R.GOBBLED
            row[R.CARD_PLACE + i] = p
            row[R.CARD_SEQ + i] = seq
            seq += 1
    for p, pile in enumerate(_per_seat_list(d, "captured", num_p)):
        for owner in pile:
            owner = _seat("captured", owner, num_p)
            if owner == p:
                _bad("captured", f"seat {p} cannot hold its own Fox (only opponents' Foxes are exposed)")
            place("captured", owner, R.FOX)
            i = owner * 7
            row[R.CARD_WHERE + i] = R.CAPTURED
            row[R.CARD_PLACE + i] = p
            row[R.CARD_SEQ + i] = seq
            seq += 1
    row[R.PILE_SEQ] = seq
    for p in range(num_p):
        missing = [CARD_NAMES[c] for c in range(7) if (p, c) not in seen]
        if missing:
            _bad("hands", f"player {p}'s {', '.join(missing)} is nowhere (not in hands, spaces, gobbled "
                          "or captured); each card must be in exactly one place")

    for p, known in enumerate(_per_seat_list(d, "known_in_hand", num_p)):
        for c in known:
            c = _card("known_in_hand", c)
            if c not in hands[p]:
                _bad("known_in_hand", f"player {p}'s {CARD_NAMES[c]} is not in their hand")
            if row[R.KNOWN_IN_HAND + p * 7 + c]:
                _bad("known_in_hand", f"player {p}'s {CARD_NAMES[c]} is listed twice")
            row[R.KNOWN_IN_HAND + p * 7 + c] = 1

    all_safe = all(sp is not None and sp["safe"] for sp in spaces)
    if "end_reason" in d and d["end_reason"] is not None:
        reason = d["end_reason"]
        if reason not in ("hand", "all_safe") or not isinstance(reason, str):
            _bad("end_reason", f"{reason!r} is not allowed; allowed values: None, 'hand', 'all_safe'")
        if not over:
            _bad("end_reason", f"{reason!r} given but game_over is false")
        if reason == "all_safe" and not all_safe:
            _bad("end_reason", "'all_safe' but not every space holds a Safe Hen")
    elif over:
        # Omitted (or None): the end the position shows (a full table of Safe Hens reads as all_safe).
        reason = "all_safe" if all_safe else "hand"
    else:
        reason = None
    row[R.END_REASON] = END_CODES[reason]
    if not over:
        if all_safe:
            _bad("game_over", "false, but every space holds a Safe Hen, which ends the game")
        if R.legal_actions(row, np.zeros(R.num_actions(houses), dtype=np.int64)) == 0:
            _bad("current_player", f"player {cur} has no legal action, impossible in a running game")
        if row[R.HAND_SIZE + cur] <= 1:
            # The end check runs at the start of a turn: such a turn never begins.
            _bad(
                "game_over",
                f"false, but player {cur} (to act) holds {row[R.HAND_SIZE + cur]} card(s); a turn that "
                "starts with at most one card in hand ends the game (set game_over true after the final flip)",
            )

    if "rng" in d:
        r = d["rng"]
        if not is_int(r) or not -(2**63) <= r < 2**64:
            _bad("rng", f"{r!r} is not a 64-bit int")
        row[R.RNG] = int(r) - 2**64 if r >= 2**63 else int(r)
    else:
        row[R.RNG] = env_row[R.RNG]

    if "scores" in d:
        pts = np.zeros(num_p, dtype=np.int64)
        R.scores(row, pts)
        want = [int(x) for x in pts]
        sc = d["scores"]
        if not isinstance(sc, list) or sc != want or not all(is_int(x) for x in sc):
            _bad("scores", f"{sc!r} does not match the position (recomputed: {want})")
    return row, None
