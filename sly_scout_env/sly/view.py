"""Sly: what one seat may know of a state dict (``sly_scout_env.views.player_view``).

The rules below (:data:`SEEN`, :data:`PUBLIC`) are the one statement of what a seat
sees. :func:`redact` applies them to the view bots get (``info["view"]``) and the web
table shows; ``text.render_text(row, viewer, ...)`` draws the table from that same view,
so the text never shows what the view hides. The observation vector (a compiled kernel,
``observation.py``) encodes no more: ``tests/sly/test_observation_pieces.py`` checks
that the view, the text and the observation of a seat do not change when a card hidden
from it does. ``rng`` is removed from every view (``views.player_view``).

What a seat sees of each field it does not see whole::

{rules}

{public}
"""

from __future__ import annotations

import copy

from ..views import apply_rules, rules_doc


def space_card_seen(d: dict, seat: int | None, space: dict | None) -> bool:
    """Whether ``seat`` sees the card on ``space`` (a ``spaces`` entry; ``seat=None``: a spectator).

    A card is seen when it is face up (a Safe Hen, or any card once the final flip has ended
    the game) or it is the seat's own. A spectator sees only the face-up cards."""
    return space is None or space["safe"] or d["game_over"] or (seat is not None and space["owner"] == seat)


def _seen_hands(d: dict, seat: int) -> list:
    hands = []
    for s, hand in enumerate(d["hands"]):
        if s == seat:
            hands.append(list(hand))
        else:
            known = sorted(d["known_in_hand"][s])
            hands.append(known + [None] * (len(hand) - len(known)))
    return hands


def _seen_spaces(d: dict, seat: int) -> list:
    return [
        copy.deepcopy(sp) if space_card_seen(d, seat, sp) else {"owner": sp["owner"], "card": None, "safe": False}
        for sp in d["spaces"]
    ]


# field -> (what ``seat`` sees of it: a function of (state dict, seat), the rule in words).
SEEN = {
    "hands": (_seen_hands, "the own hand whole; of another seat's hand, its known_in_hand cards (sorted) "
                           "followed by None for each unknown card, so its length is the hand size"),
    "spaces": (_seen_spaces, "a face-down card of another seat becomes {'owner': s, 'card': None, 'safe': "
                             "False} (the owner is public: the card back shows the colour); the own face-down "
                             "cards and every face-up card (Safe Hens; once the game is over the final flip "
                             "has turned every table card face up) are kept"),
}

# The fields every seat sees whole.
PUBLIC = (
    "game", "version", "num_players", "hen_houses", "reveal_scope", "first_player", "current_player",
    "game_over", "end_reason", "gobbled", "captured", "known_in_hand", "scores",
)


__doc__ = rules_doc(__doc__, SEEN, PUBLIC)


def redact(d: dict, view: dict, seat: int) -> None:
    """Hide in ``view`` (a deep copy of ``d`` made by :func:`sly_scout_env.views.player_view`)
    what ``seat`` cannot know: each field of :data:`SEEN` becomes what ``seat`` sees of it."""
    apply_rules(SEEN, d, view, seat)
