"""Round and match summaries of the web table: every hand face up, and how each score came about.

A summary is made by :func:`round_end` from the state dicts around the move that ended a
round (Scout) or the match (both games), so it only ever exists once that round is over:
nothing in it is a secret of a position still being played. One exception is kept
hidden: in 2-player Scout the second round of a pair is dealt from the cards set aside at
the start of the first, so the opponent's hand at the end of the first round would tell
which cards the opponent holds next; those hands stay hidden (their count is given) until
a round that is not followed by a round from the set-aside cards.

Scout's state after the last move of a round is already the next round's deal, so the
end of the round is replayed on a scratch env whose match ends with that round (the
same move, the same scoring; no new deal): its hands, collected cards and chips are the
round's last position.
"""

from __future__ import annotations

from sly_scout_env.games import get_game

# The fields of one seat in a summary, by game (what the page reads; a saved summary must have them).
SEAT_KEYS = {
    "scout": frozenset({"seat", "hand", "hand_count", "collected", "chips", "chips_scored", "hand_counted", "score",
                        "total"}),
    "sly": frozenset({"seat", "hand", "hand_count", "safe", "gobbled", "captured", "captured_foxes", "score"}),
}


def round_end(game: str, options: dict, before: dict, after: dict, action: int, viewer: int) -> dict | None:
    """The summary of the round (or match) ``action`` ended, for ``viewer``; None when it ended none."""
    if game == "scout":
        if len(after["round_scores"]) == len(before["round_scores"]):
            return None
        return _scout(options, before, after, action, viewer)
    if game == "sly":
        return _sly(after) if after["game_over"] and not before["game_over"] else None
    return None


def _scout_end_position(options: dict, before: dict, action: int) -> dict:
    """The state right after the round-ending ``action``, before the next deal."""
    scratch = get_game("scout").raw_env(num_players=before["num_players"], **options)
    last = dict(before, rounds=before["round"] + 1)  # this round ends the (scratch) match: no new deal
    scratch.reset(seed=0)
    scratch.from_state_dict(last)
    scratch.step(action)
    return scratch.state_dict()


def _scout(options: dict, before: dict, after: dict, action: int, viewer: int) -> dict:
    end = _scout_end_position(options, before, action)
    n = after["num_players"]
    r = len(before["round_scores"])
    reason = after["round_end_reasons"][r]
    last = after["phase"] == "game_over"
    # 2 players: a first round of a pair is followed by the round dealt from the set-aside cards.
    hide_others = n == 2 and r % 2 == 0 and not last
    owner = end["active_owner"]
    chips_count = n > 2 or bool(end["score_held_chips"])
    seats = []
    for s in range(n):
        hand = [list(c) for c in end["hands"][s]]
        chips = end["scout_chips"][s]
        seats.append({
            "seat": s,
            "hand": None if hide_others and s != viewer else hand,
            "hand_count": len(hand),
            "collected": len(end["collected"][s]),
            "chips": chips,
            "chips_scored": chips if chips_count else 0,
            "hand_counted": s != owner,  # the owner of the set nobody beat keeps its hand for free
            "score": after["round_scores"][r][s],
            "total": sum(rs[s] for rs in after["round_scores"][:r + 1]),
        })
    return {
        "game": "scout", "round": r, "rounds": after["rounds"], "last": last, "reason": reason,
        "ender": owner, "players": n, "chips_count": chips_count,
        "hidden": ("the opponent's hand stays hidden: the next round is dealt from the cards set aside, "
                   "so it would tell the opponent's next hand") if hide_others else None,
        "active_set": [list(c) for c in end["active_set"]],
        "seats": seats,
    }


def sly_scoring(state: dict) -> list[dict]:
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


def _sly(after: dict) -> dict:
    seats = sly_scoring(after)
    for part in seats:
        part["hand"] = list(after["hands"][part["seat"]])
        part["hand_count"] = len(part["hand"])
    return {
        "game": "sly", "round": 0, "rounds": 1, "last": True, "reason": after["end_reason"],
        "players": after["num_players"], "ender": after["current_player"],
        "spaces": [dict(sp) if sp else None for sp in after["spaces"]],
        "seats": seats, "hidden": None,
    }
