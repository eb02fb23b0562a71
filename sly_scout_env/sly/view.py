"""Sly: what one seat may know of a state dict (``sly_scout_env.views.player_view``).

``hands[s]`` for an opponent ``s``: their ``known_in_hand`` cards (sorted) followed
by ``None`` for each unknown card, so its length is the hand size. Face-down
opponent cards on the spaces become ``{"owner": s, "card": None, "safe": False}``
(the owner is public: the card back shows the colour). Once the game is over the
final flip has turned every table card face up, so the spaces are kept as they are.
The viewer's own hand and own face-down cards are kept.
"""

from __future__ import annotations

import copy


def redact(d: dict, view: dict, seat: int) -> None:
    """Hide in ``view`` (a deep copy of ``d`` made by :func:`sly_scout_env.views.player_view`)
    what ``seat`` cannot know."""
    hands = []
    for s, hand in enumerate(d["hands"]):
        if s == seat:
            hands.append(list(hand))
        else:
            known = sorted(d["known_in_hand"][s])
            hands.append(known + [None] * (len(hand) - len(known)))
    view["hands"] = hands
    if not d["game_over"]:
        spaces = []
        for sp in d["spaces"]:
            if sp is not None and not sp["safe"] and sp["owner"] != seat:
                spaces.append({"owner": sp["owner"], "card": None, "safe": False})
            else:
                spaces.append(copy.deepcopy(sp))
        view["spaces"] = spaces
