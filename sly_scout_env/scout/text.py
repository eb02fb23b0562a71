"""Scout text: actions <-> dicts and words, the ansi table, the narration of moves.

The state dict codec (row <-> JSON, validation) is :mod:`.codec`.

Plain Python (no kernels): these run once per call, never in the hot path.
"""

from __future__ import annotations

import numpy as np

from ..checks import is_int
from ..views import player_view
from . import rules as R
from .codec import show_kind, state_to_dict

ENDS = ("left", "right")
_ACTION_KEYS = {
    "flip": ("type", "flip"),
    "show": ("type", "start", "length"),
    "scout": ("type", "end", "flip", "position"),
    "scout_and_show": ("type", "end", "flip", "position"),
}


# --- actions --------------------------------------------------------------------------------------
def decode_action(a, num_players: int) -> dict:
    """The dict form of action id ``a`` (legal or not); ``ValueError`` if ``a`` is out of range."""
    H = int(R.max_hand(num_players))
    n = 2 + 18 * H
    if not is_int(a):
        raise ValueError(f"action {a!r} is not an int; actions are ints in [0, {n})")
    a = int(a)
    if not 0 <= a < n:
        raise ValueError(f"action {a} is out of range; actions are ints in [0, {n})")
    if a < 2:
        return {"type": "flip", "flip": a == 1}
    scout_base = 2 + R.MAX_SHOW * H
    if a < scout_base:
        return {"type": "show", "start": (a - 2) // R.MAX_SHOW, "length": (a - 2) % R.MAX_SHOW + 1}
    sas = a >= scout_base + 4 * H
    r = a - scout_base - (4 * H if sas else 0)
    ef = r // H
    return {
        "type": "scout_and_show" if sas else "scout",
        "end": ENDS[ef >> 1],
        "flip": bool(ef & 1),
        "position": r % H,
    }


def encode_action(d, num_players: int) -> int:
    """Inverse of :func:`decode_action`; ``ValueError`` naming the bad key."""
    H = int(R.max_hand(num_players))
    if not isinstance(d, dict):
        raise ValueError(f"action must be a dict, got {d!r}")
    kind = d.get("type")
    if kind not in _ACTION_KEYS:
        raise ValueError(f"action key 'type'={kind!r} is not allowed; allowed: {', '.join(map(repr, _ACTION_KEYS))}")
    keys = _ACTION_KEYS[kind]
    for k in d:
        if k not in keys:
            raise ValueError(f"action key {k!r} is not allowed for type {kind!r}; keys: {', '.join(keys)}")
    for k in keys:
        if k not in d:
            raise ValueError(f"action key {k!r} is missing for type {kind!r}")

    def ranged(key, lo, hi):
        v = d[key]
        if not is_int(v) or not lo <= v < hi:
            raise ValueError(f"action key {key!r}={v!r} is not allowed; allowed: ints in [{lo}, {hi})")
        return int(v)

    def boolean(key):
        v = d[key]
        if not isinstance(v, (bool, np.bool_)):
            raise ValueError(f"action key {key!r}={v!r} is not allowed; allowed: True, False")
        return int(bool(v))

    if kind == "flip":
        return boolean("flip")
    if kind == "show":
        return 2 + ranged("start", 0, H) * R.MAX_SHOW + ranged("length", 1, R.MAX_SHOW + 1) - 1
    if d["end"] not in ENDS:
        raise ValueError(f"action key 'end'={d['end']!r} is not allowed; allowed: 'left', 'right'")
    base = 2 + R.MAX_SHOW * H + (4 * H if kind == "scout_and_show" else 0)
    ef = ENDS.index(d["end"]) * 2 + boolean("flip")
    return base + ef * H + ranged("position", 0, H)


def card_str(code: int) -> str:
    """A card as "up/down" (the number in play first)."""
    return f"{code >> 4}/{code & 15}"


def action_to_str(a, num_players: int, hand=None, active=None) -> str:
    """Plain words for action ``a``; with the acting hand / active set (card codes) it names the cards."""
    d = decode_action(a, num_players)
    if d["type"] == "flip":
        return "turn the whole hand (flip every card)" if d["flip"] else "keep the hand as dealt"
    if d["type"] == "show":
        s, ln = d["start"], d["length"]
        where = f"card {s}" if ln == 1 else f"cards {s}-{s + ln - 1}"
        text = f"show {where}"
        if hand is not None and s + ln <= len(hand):
            values = [int(c) >> 4 for c in hand[s : s + ln]]
            text += f" ({show_kind(values)} {' '.join(map(str, values))})"
        return text
    what = f"the {d['end']} card"
    if active is not None and len(active):
        what += f" ({card_str(int(active[0] if d['end'] == 'left' else active[-1]))})"
    move = f"scout {what}, {'flip it' if d['flip'] else 'keep it'}, insert at {d['position']}"
    if d["type"] == "scout_and_show":
        return f"scout & show: {move}, then show"
    return move


# --- ansi rendering -----------------------------------------------------------------------------------
def render_text(row: np.ndarray, viewer: int | None, history) -> str:
    """The table as text from ``viewer``'s seat (own hand face up); ``viewer=None`` shows every hand.

    ``history`` is the env's ``(round_scores, round_end_reasons)`` (see :mod:`.codec`). The
    table is drawn from ``viewer``'s redacted view (:func:`sly_scout_env.views.player_view`,
    the rules of :mod:`.view`) only, so it shows nothing the seat may not know.
    """
    d = state_to_dict(row, history)
    if viewer is not None:
        d = player_view(d, int(viewer))
    round_scores = d["round_scores"]
    n = d["num_players"]
    name = [f"player_{s}" for s in range(n)]
    over = d["phase"] == "game_over"
    shown_round = min(d["round"] + 1, d["rounds"])
    lines = [
        f"Scout, {n} players | round {shown_round} of {d['rounds']} | phase: {d['phase']}"
        + ("" if over else f" | starting player: {name[d['starting_player']]} | to act: {name[d['current_player']]}")
    ]
    active = d["active_set"]
    if d["active_owner"] is None:
        lines.append("Active set: none (any show may be played)")
    else:
        codes = [u * 16 + w for u, w in active]
        kind = "" if not active else f" ({show_kind([c >> 4 for c in codes])} of {len(active)})"
        cards = " ".join(card_str(c) for c in codes) or "empty (scouted empty; any show may be played)"
        lines.append(f"Active set: {cards}{kind}, owner {name[d['active_owner']]}")
    lines.append(f"{'seat':<16}{'hand':>5}{'collected':>10}{'chips':>6}{'S&S':>5}{'score':>7}")
    for s in range(n):
        tag = name[s] + (" (you)" if s == viewer else "")
        lines.append(
            f"{tag:<16}{len(d['hands'][s]):>5}{len(d['collected'][s]):>10}{d['scout_chips'][s]:>6}"
            f"{('yes' if d['scout_and_show_left'][s] else '-'):>5}{d['scores'][s]:>7}"
        )
    for s in range(n):
        hand = d["hands"][s]
        if viewer is None or s == viewer:
            marked = zip(hand, d["known"][s])
            cards = " ".join(f"[{i}]{u}/{w}{'*' if k else ''}" for i, ((u, w), k) in enumerate(marked))
            lines.append(f"{name[s]} hand (up/down, * = public): {cards or '(empty)'}")
        else:
            seen = [f"[{i}]{card[0]}/{card[1]}" for i, card in enumerate(hand) if card is not None]
            lines.append(f"{name[s]} hand: {len(hand)} cards; public: {' '.join(seen) or 'none'}")
    set_aside = d["set_aside"]  # a view holds its length only
    if set_aside:
        count = set_aside if isinstance(set_aside, int) else len(set_aside)
        lines.append(f"Set aside for the next round: {count} cards")
    if round_scores:
        lines.append("Round scores: " + "; ".join(" ".join(f"{x:+d}" for x in r) for r in round_scores))
    return "\n".join(lines)


# --- narration (agents/ui/play.py, the web table) ------------------------------------------------
def narrate(before: dict, after: dict, actor: int, action: int, words: str, viewer: int, who) -> list[str]:
    """What the person at seat ``viewer`` is told of seat ``actor``'s move ``action``.

    ``before`` / ``after`` are the state dicts around the move, ``words`` the move's
    :func:`action_to_str` taken before it (it names the cards of the hand then), ``who(seat)``
    a seat's name. Returns the lines: the move as the viewer may see it (another seat's
    flip decision is private), then every round it ended with the round's scores.
    """
    n = after["num_players"]
    if actor != viewer and decode_action(action, n)["type"] == "flip":
        words = "decided whether to turn the hand around (a private choice)"
    lines = [f"{who(actor)}: {words}"]
    for r in range(len(before["round_scores"]), len(after["round_scores"])):
        reason = after["round_end_reasons"][r]
        if reason == "i":
            why = "a hand was emptied (i)"
        elif n == 2:
            why = "the other player could neither Show nor Scout (ii)"
        else:
            why = "the turn came back to the active set's owner (ii)"
        lines.append(f"--- Round {r + 1} of {after['rounds']} is over: {why}.")
        for s in range(n):
            lines.append(f"    {who(s):<28} round {after['round_scores'][r][s]:+d}   total {after['scores'][s]:+d}")
    return lines
