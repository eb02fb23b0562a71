"""Scout: what one seat may know of a state dict (``sly_scout_env.views.player_view``).

``hands[s]`` for an opponent ``s``: each card is ``None`` except the cards whose
``known[s][i]`` flag is True (cards scouted this round, public, in the orientation
everyone saw). During the flip phase every opponent card is ``None``, since
showing even a known card's orientation would tell whether that player turned
the hand, which is private. ``set_aside`` (2 players, round 0: the half dealt in
round 2) becomes its length. The viewer's own hand and every public field
(active set, chips, scores, ...) are kept; the collected piles are kept too:
they lie face down, but every card in them was shown face up when it was played,
so a player with perfect recall knows them.
"""

from __future__ import annotations

import copy


def redact(d: dict, view: dict, seat: int) -> None:
    """Hide in ``view`` (a deep copy of ``d`` made by :func:`sly_scout_env.views.player_view`)
    what ``seat`` cannot know."""
    hide_all = d["phase"] == "flip"
    hands = []
    for s, hand in enumerate(d["hands"]):
        if s == seat:
            hands.append(copy.deepcopy(hand))
        else:
            known = d["known"][s]
            hands.append([list(card) if (known[i] and not hide_all) else None for i, card in enumerate(hand)])
    view["hands"] = hands
    view["set_aside"] = len(d.get("set_aside") or [])
