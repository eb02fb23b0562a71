"""Sly's match summary: every hand face up after the final flip, and each seat's score in parts.

The game's ``summary`` role (optional; the web table's end panel reads it through the game
registry). :func:`round_end` exists only once the game is over: nothing in it is a secret
of a position still being played.
"""

from __future__ import annotations

# The fields of one seat in a summary (what the page reads; a saved summary must have them).
SEAT_KEYS = frozenset({"seat", "hand", "hand_count", "safe", "gobbled", "captured", "captured_foxes", "score"})


def round_end(options: dict, before: dict, after: dict, action: int, viewer: int) -> dict | None:
    """The summary of the match, once ``action`` ended it; None before."""
    return _summary(after) if after["game_over"] and not before["game_over"] else None


def scoring(state: dict) -> list[dict]:
    """Each seat's final score in parts: Safe Hens on the table, gobbled Hens, captured Foxes."""
    n = state["num_players"]
    out = []
    for s in range(n):
        safe = sum(i % 4 + 1 for i, sp in enumerate(state["spaces"]) if sp and sp["owner"] == s and sp["card"] > 0)
        gobbled = sum(-g["card"] if g["owner"] == s else g["card"] for g in state["gobbled"][s])
        captured = len(state["captured"][s]) * n
        out.append({"seat": s, "safe": safe, "gobbled": gobbled, "captured": captured,
                    "captured_foxes": len(state["captured"][s]), "score": state["scores"][s]})
    return out


def _summary(after: dict) -> dict:
    seats = scoring(after)
    for part in seats:
        part["hand"] = list(after["hands"][part["seat"]])
        part["hand_count"] = len(part["hand"])
    return {
        "game": "sly", "round": 0, "rounds": 1, "last": True, "reason": after["end_reason"],
        "players": after["num_players"], "ender": after["current_player"],
        "spaces": [dict(sp) if sp else None for sp in after["spaces"]],
        "seats": seats, "hidden": None,
    }
