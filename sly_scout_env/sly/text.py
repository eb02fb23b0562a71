"""Sly text: actions <-> dicts and words, ansi rendering, the narration of moves.

The state dict codec (row <-> JSON, validation) is :mod:`.codec`.

Plain Python (no kernels): these run once per call, never in a hot loop.
"""

from __future__ import annotations

from ..checks import is_int
from ..views import player_view
from . import rules as R
from .codec import CARD_NAMES, state_to_dict


# -- actions ---------------------------------------------------------------------------
def decode_action(action, hen_houses: int) -> dict:
    """The action id as a dict: lay / expose / reveal (``house`` None = reveal all)."""
    n = R.num_actions(hen_houses)
    if not is_int(action):
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
        if not is_int(space) or not 0 <= space < s:
            raise ValueError(f"space={space!r} is not allowed; spaces are ints in [0, {s})")
        if kind == "expose":
            return 7 * s + int(space)
        card = move["card"]
        if not is_int(card) or not 0 <= card <= 6:
            raise ValueError(f"card={card!r} is not allowed; cards are 0 (Fox) or 1..6 (Hens)")
        return int(card) * s + int(space)
    house = move["house"]
    if house is None:
        return 8 * s + hen_houses
    if not is_int(house) or not 0 <= house < hen_houses:
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


# -- rendering -------------------------------------------------------------------------
def render_text(row, viewer: int | None, history=None) -> str:
    """A readable picture of the table as seen by seat ``viewer`` (None: a spectator).

    ``history`` is unused: a Sly row holds the whole game (see :mod:`.codec`). The table is
    drawn from ``viewer``'s redacted view (:func:`sly_scout_env.views.player_view`, the rules
    of :mod:`.view`) only, so it shows nothing the seat may not know; a spectator sees the
    face-up cards and the public counts only.
    """
    d = state_to_dict(row, history)
    if viewer is not None:
        d = player_view(d, int(viewer))
    num_p = d["num_players"]

    def who(p):
        return f"player_{p}" + (" (you)" if p == viewer else "")

    lines = []
    head = f"Sly: {num_p} players, {d['hen_houses']} Hen House(s), reveal_scope={d['reveal_scope']!r}"
    if d["game_over"]:
        why = "a player held <= 1 card (final flip done)" if d["end_reason"] == "hand" else \
            "every space holds a Safe Hen"
        lines.append(f"{head} | GAME OVER: {why}")
    else:
        lines.append(f"{head} | to act: {who(d['current_player'])}")
    for s, sp in enumerate(d["spaces"]):
        if s % R.SPACES_PER_HOUSE == 0:
            lines.append(f"Hen House {s // R.SPACES_PER_HOUSE}:")
        if sp is None:
            what = "empty"
        elif sp["safe"]:
            what = f"SAFE {CARD_NAMES[sp['card']]} of {who(sp['owner'])}"
        elif d["game_over"]:  # the final flip turned it: a Fox (every Hen became Safe)
            what = f"Fox of {who(sp['owner'])}, face up (worth nothing)"
        else:
            what = f"face down, {who(sp['owner'])}"
            if sp["owner"] == viewer:
                what += f": your {CARD_NAMES[sp['card']]}"
        lines.append(f"  [{s}] value {s % R.SPACES_PER_HOUSE + 1}: {what}")
    lines.append("Players:")
    for p in range(num_p):
        if p == viewer:
            hand = f"hand [{', '.join(CARD_NAMES[c] for c in d['hands'][p]) or '-'}]"
        else:
            hand = f"{len(d['hands'][p])} cards in hand"
        known = [CARD_NAMES[c] for c in sorted(d["known_in_hand"][p])]
        if known:
            hand += f" (known to all: {', '.join(known)})"
        extra = []
        if d["captured"][p]:
            extra.append("captured " + ", ".join(f"Fox of player_{o}" for o in d["captured"][p]))
        if d["gobbled"][p]:
            extra.append("gobbled " + ", ".join(f"{CARD_NAMES[g['card']]} of player_{g['owner']}"
                                                for g in d["gobbled"][p]))
        tail = ("; " + "; ".join(extra)) if extra else ""
        lines.append(f"  {who(p)}: {hand}{tail}; score {d['scores'][p]}")
    return "\n".join(lines)


# -- narration (agents/ui/play.py, the web table) -----------------------------------------
def narrate(before: dict, after: dict, actor: int, action: int, words: str, viewer: int, who) -> list[str]:
    """What the person at seat ``viewer`` is told of seat ``actor``'s move ``action``.

    ``before`` / ``after`` are the state dicts around the move, ``words`` the move's
    :func:`action_to_str` taken before it, ``who(seat)`` a seat's name. Returns the lines:
    the move as the viewer may see it (another seat's Lay shows only the space), then
    what it uncovered: Safe Hens, gobbled Hens, captured Foxes, cards sent home.
    """
    move = decode_action(action, after["hen_houses"])
    if actor != viewer and move["type"] == "lay":
        words = f"lay a card face down on {space_name(move['space'])}"
    lines = [f"{who(actor)}: {words}"]
    for i, (b, a) in enumerate(zip(before["spaces"], after["spaces"])):
        if a is not None and a["safe"] and not (b is not None and b["safe"]):
            lines.append(f"    player_{a['owner']}'s {CARD_NAMES[a['card']]} is Safe on space {i} "
                         f"(value {i % R.SPACES_PER_HOUSE + 1}).")
    for s in range(after["num_players"]):
        for g in after["gobbled"][s][len(before["gobbled"][s]):]:
            lines.append(f"    {who(s)}'s Fox gobbled player_{g['owner']}'s {CARD_NAMES[g['card']]}.")
        for f in after["captured"][s][len(before["captured"][s]):]:
            lines.append(f"    {who(s)} exposed and captured player_{f}'s Fox.")
        back = sorted(set(after["known_in_hand"][s]) - set(before["known_in_hand"][s]))
        if back:
            lines.append(f"    back to player_{s}'s hand: {', '.join(CARD_NAMES[c] for c in back)}.")
    return lines
