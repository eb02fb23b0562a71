"""Sly text helpers: actions <-> dicts and words, ansi rendering, state_dict (JSON).

Plain Python (no kernels): these run once per call, never in a hot loop.
"""

from __future__ import annotations

import numpy as np

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


# -- actions ---------------------------------------------------------------------------
def _is_int(x) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def decode_action(action, hen_houses: int) -> dict:
    """The action id as a dict: lay / expose / reveal (``house`` None = reveal all)."""
    n = R.num_actions(hen_houses)
    if not _is_int(action):
        raise ValueError(f"action {action!r} is not an int; actions are ints in [0, {n})")
    a = int(action)
    if not 0 <= a < n:
        raise ValueError(f"action {a} is out of range; actions are ints in [0, {n})")
    s = R.SPACES_PER_HOUSE * hen_houses
    if a < 7 * s:
        return {"type": "lay", "card": a // s, "space": a % s}
    if a < 8 * s:
        return {"type": "expose", "space": a - 7 * s}
    h = a - 8 * s
    return {"type": "reveal", "house": None if h == hen_houses else h}


def encode_action(move: dict, hen_houses: int) -> int:
    """Inverse of :func:`decode_action`; a malformed dict raises ValueError naming the problem."""
    s = R.SPACES_PER_HOUSE * hen_houses
    if not isinstance(move, dict):
        raise ValueError(f"action dict expected, got {move!r}")
    kind = move.get("type")
    expected = {"lay": {"type", "card", "space"}, "expose": {"type", "space"}, "reveal": {"type", "house"}}
    if kind not in expected:
        raise ValueError(f"action type {kind!r} is not allowed; allowed types: 'lay', 'expose', 'reveal'")
    if set(move) != expected[kind]:
        raise ValueError(f"a {kind!r} action has exactly the keys {sorted(expected[kind])}, got {sorted(move)}")
    if kind in ("lay", "expose"):
        space = move["space"]
        if not _is_int(space) or not 0 <= space < s:
            raise ValueError(f"space={space!r} is not allowed; spaces are ints in [0, {s})")
        if kind == "expose":
            return 7 * s + int(space)
        card = move["card"]
        if not _is_int(card) or not 0 <= card <= 6:
            raise ValueError(f"card={card!r} is not allowed; cards are 0 (Fox) or 1..6 (Hens)")
        return int(card) * s + int(space)
    house = move["house"]
    if house is None:
        return 8 * s + hen_houses
    if not _is_int(house) or not 0 <= house < hen_houses:
        raise ValueError(f"house={house!r} is not allowed; houses are ints in [0, {hen_houses}) or None (all)")
    return 8 * s + int(house)


def space_name(space: int) -> str:
    return f"space {space} (house {space // R.SPACES_PER_HOUSE}, value {space % R.SPACES_PER_HOUSE + 1})"


def action_to_str(action, hen_houses: int) -> str:
    """Plain words, e.g. ``lay Hen 3 on space 5 (house 1, value 2)``."""
    m = decode_action(action, hen_houses)
    if m["type"] == "lay":
        return f"lay {CARD_NAMES[m['card']]} on {space_name(m['space'])}"
    if m["type"] == "expose":
        return f"expose {space_name(m['space'])} as a Fox"
    if m["house"] is None:
        return "reveal all face-down cards"
    return f"reveal Hen House {m['house']}"


# -- state dicts -----------------------------------------------------------------------
def _piles(state, num_p, where):
    """Per holder seat, the (owner, card) of cards in ``where`` piles, in the order they joined."""
    piles = [[] for _ in range(num_p)]
    for i in range(num_p * R.CARDS_PER_PLAYER):
        if state[R.CARD_WHERE + i] == where:
            piles[int(state[R.CARD_PLACE + i])].append(
                (int(state[R.CARD_SEQ + i]), i // R.CARDS_PER_PLAYER, i % R.CARDS_PER_PLAYER)
            )
    return [[(o, c) for _, o, c in sorted(p)] for p in piles]


def state_dict(state, options: dict) -> dict:
    """The full state as plain JSON-able Python (see env.py for the documented format)."""
    num_p = int(state[R.NUM_PLAYERS])
    n_sp = int(state[R.NUM_SPACES])
    hands, known = [], []
    for p in range(num_p):
        b = p * R.CARDS_PER_PLAYER
        hands.append([c for c in range(7) if state[R.CARD_WHERE + b + c] == R.IN_HAND])
        known.append([c for c in range(7) if state[R.KNOWN_IN_HAND + b + c] != 0])
    spaces = []
    for s in range(n_sp):
        st = state[R.SPACE_STATE + s]
        if st == R.EMPTY:
            spaces.append(None)
        else:
            spaces.append(
                {"owner": int(state[R.SPACE_OWNER + s]), "card": int(state[R.SPACE_CARD + s]), "safe": bool(st == R.SAFE)}
            )
    pts = np.zeros(num_p, dtype=np.int64)
    R.scores(state, pts)
    return {
        "game": "sly",
        "version": 0,
        "num_players": num_p,
        "hen_houses": int(state[R.HEN_HOUSES]),
        "reveal_scope": "all" if state[R.REVEAL_ALL] else "house",
        "first_player": "random" if state[R.FIRST_RANDOM] else 0,
        "current_player": int(state[R.CURRENT]),
        "game_over": bool(state[R.GAME_OVER]),
        "end_reason": END_REASONS[int(state[R.END_REASON])],
        "hands": hands,
        "spaces": spaces,
        "gobbled": [[{"owner": o, "card": c} for o, c in pile] for pile in _piles(state, num_p, R.GOBBLED)],
        "captured": [[o for o, _ in pile] for pile in _piles(state, num_p, R.CAPTURED)],
        "known_in_hand": known,
        "scores": [int(x) for x in pts],
        "rng": int(state[R.RNG]),
    }


def _bad(field, msg):
    raise ValueError(f"state dict field {field!r}: {msg}")


def _seat(field, x, num_p):
    if not _is_int(x) or not 0 <= x < num_p:
        _bad(field, f"seat {x!r} is not an int in [0, {num_p})")
    return int(x)


def _card(field, x, lo=0):
    if not _is_int(x) or not lo <= x <= 6:
        allowed = "0 (Fox) or 1..6 (Hens)" if lo == 0 else "a Hen 1..6"
        _bad(field, f"card {x!r} is not allowed; cards are {allowed}")
    return int(x)


def _per_seat_list(d, field, num_p):
    v = d[field]
    if not isinstance(v, list) or len(v) != num_p or not all(isinstance(x, list) for x in v):
        _bad(field, f"must be a list of {num_p} lists (one per seat), got {v!r}")
    return v


def load_state_dict(d: dict, state: np.ndarray) -> np.ndarray:
    """Validate ``d`` against the env whose row is ``state`` and return a new row.

    Raises ValueError naming the first bad field; ``state`` itself is never modified.
    """
    num_p = int(state[R.NUM_PLAYERS])
    houses = int(state[R.HEN_HOUSES])
    n_sp = R.SPACES_PER_HOUSE * houses
    unknown = sorted(set(d) - set(STATE_KEYS), key=str)
    if unknown:
        _bad(unknown[0], f"unknown field; fields are {', '.join(STATE_KEYS)}")
    for k in STATE_KEYS:
        if k not in d and k not in OPTIONAL_KEYS:
            _bad(k, "missing")
    if "version" in d and (not _is_int(d["version"]) or d["version"] != 0):
        _bad("version", f"{d['version']!r} is not supported; this engine reads version 0")
    if d["hen_houses"] != houses or not _is_int(d["hen_houses"]):
        _bad("hen_houses", f"{d['hen_houses']!r} does not match this env ({houses}); build the env with "
                           f"hen_houses={d['hen_houses']!r}")
    if d["reveal_scope"] not in ("house", "all") or not isinstance(d["reveal_scope"], str):
        _bad("reveal_scope", f"{d['reveal_scope']!r} is not allowed; allowed values: 'house', 'all'")
    fp = d["first_player"]
    if not ((_is_int(fp) and fp == 0) or fp == "random"):
        _bad("first_player", f"{fp!r} is not allowed; allowed values: 0, 'random'")
    cur = _seat("current_player", d["current_player"], num_p)
    if not isinstance(d["game_over"], bool):
        _bad("game_over", f"{d['game_over']!r} is not a bool")
    over = d["game_over"]

    row = np.zeros(R.ROW_SIZE, dtype=np.int64)
    R.configure(row, num_p, houses, d["reveal_scope"], fp)
    row[R.CURRENT] = cur
    row[R.GAME_OVER] = int(over)
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
        if not _is_int(r) or not -(2**63) <= r < 2**64:
            _bad("rng", f"{r!r} is not a 64-bit int")
        row[R.RNG] = int(r) - 2**64 if r >= 2**63 else int(r)
    else:
        row[R.RNG] = state[R.RNG]

    if "scores" in d:
        pts = np.zeros(num_p, dtype=np.int64)
        R.scores(row, pts)
        want = [int(x) for x in pts]
        sc = d["scores"]
        if not isinstance(sc, list) or sc != want or not all(_is_int(x) for x in sc):
            _bad("scores", f"{sc!r} does not match the position (recomputed: {want})")
    return row


# -- rendering -------------------------------------------------------------------------
def render_text(state, viewer: int | None) -> str:
    """A readable picture of the table as seen by seat ``viewer`` (None: a spectator)."""
    num_p = int(state[R.NUM_PLAYERS])
    n_sp = int(state[R.NUM_SPACES])
    cur = int(state[R.CURRENT])

    def who(p):
        return f"player_{p}" + (" (you)" if p == viewer else "")

    lines = []
    scope = "all" if state[R.REVEAL_ALL] else "house"
    head = f"Sly: {num_p} players, {int(state[R.HEN_HOUSES])} Hen House(s), reveal_scope={scope!r}"
    if state[R.GAME_OVER]:
        why = "a player held <= 1 card (final flip done)" if state[R.END_REASON] == R.END_HAND else \
            "every space holds a Safe Hen"
        lines.append(f"{head} | GAME OVER: {why}")
    else:
        lines.append(f"{head} | to act: {who(cur)}")
    for s in range(n_sp):
        if s % R.SPACES_PER_HOUSE == 0:
            lines.append(f"Hen House {s // R.SPACES_PER_HOUSE}:")
        st = state[R.SPACE_STATE + s]
        owner = int(state[R.SPACE_OWNER + s])
        card = int(state[R.SPACE_CARD + s])
        if st == R.EMPTY:
            what = "empty"
        elif st == R.FACE_DOWN:
            what = f"face down, {who(owner)}"
            if owner == viewer:
                what += f": your {CARD_NAMES[card]}"
        elif st == R.SAFE:
            what = f"SAFE {CARD_NAMES[card]} of {who(owner)}"
        else:
            what = f"Fox of {who(owner)}, face up (worth nothing)"
        lines.append(f"  [{s}] value {s % R.SPACES_PER_HOUSE + 1}: {what}")
    pts = np.zeros(num_p, dtype=np.int64)
    R.scores(state, pts)
    gob = _piles(state, num_p, R.GOBBLED)
    cap = _piles(state, num_p, R.CAPTURED)
    lines.append("Players:")
    for p in range(num_p):
        b = p * 7
        if p == viewer:
            hand = ", ".join(CARD_NAMES[c] for c in range(7) if state[R.CARD_WHERE + b + c] == R.IN_HAND) or "-"
            hand = f"hand [{hand}]"
        else:
            hand = f"{int(state[R.HAND_SIZE + p])} cards in hand"
        known = [CARD_NAMES[c] for c in range(7) if state[R.KNOWN_IN_HAND + b + c]]
        if known:
            hand += f" (known to all: {', '.join(known)})"
        extra = []
        if cap[p]:
            extra.append("captured " + ", ".join(f"Fox of player_{o}" for o, _ in cap[p]))
        if gob[p]:
            extra.append("gobbled " + ", ".join(f"{CARD_NAMES[c]} of player_{o}" for o, c in gob[p]))
        tail = ("; " + "; ".join(extra)) if extra else ""
        lines.append(f"  {who(p)}: {hand}{tail}; score {int(pts[p])}")
    return "\n".join(lines)
