"""Scout's round summary: every hand face up, and how each seat's round score came about.

The game's ``summary`` role (optional; the web table's round-end panel reads it through the
game registry). :func:`round_end` is made from the state dicts around the move that ended a
round, so it only exists once that round is over. One exception stays hidden: with 2
players the second round of a pair is dealt from the cards set aside at the start of the
first, so the opponent's hand at the end of the first round would tell the opponent's next
hand; it stays hidden (its count is given) until a round not followed by one from the
set-aside cards.

The state after a round's last move is already the next round's deal, so the end of the
round is replayed on a scratch env whose match ends with that round (the same move, the
same scoring; no new deal): its hands, collected cards and chips are the round's last
position.
"""

from __future__ import annotations

# The fields of one seat in a summary (what the page reads; a saved summary must have them).
SEAT_KEYS = frozenset({"seat", "hand", "hand_count", "collected", "chips", "chips_scored", "hand_counted", "score",
                       "total"})


def round_end(options: dict, before: dict, after: dict, action: int, viewer: int) -> dict | None:
    """The summary of the round ``action`` ended, for ``viewer``; None when it ended none."""
    if len(after["round_scores"]) == len(before["round_scores"]):
        return None
    return _summary(options, before, after, action, viewer)


def _scout_end_position(options: dict, before: dict, action: int) -> dict:
    """The state right after the round-ending ``action``, before the next deal."""
    from .env import raw_env

    scratch = raw_env(num_players=before["num_players"], **options)
    last = dict(before, rounds=before["round"] + 1)  # this round ends the (scratch) match: no new deal
    scratch.reset(seed=0)
    scratch.from_state_dict(last)
    scratch.step(action)
    return scratch.state_dict()


def _summary(options: dict, before: dict, after: dict, action: int, viewer: int) -> dict:
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
