"""Scout: what one seat may know of a state dict (``sly_scout_env.views.player_view``).

The rules below (:data:`SEEN`, :data:`PUBLIC`) are the one statement of what a seat
sees. :func:`redact` applies them to the view bots get (``info["view"]``) and the web
table shows; ``text.render_text(row, viewer, ...)`` draws the table from that same view,
so the text never shows what the view hides. The observation vector (a compiled kernel,
``observation.py``) encodes no more: ``tests/scout/test_observation_pieces.py`` checks
that the view, the text and the observation of a seat do not change when a card hidden
from it does. ``rng`` is removed from every view (``views.player_view``).

What a seat sees of each field it does not see whole::

{rules}

{public}
(The collected piles lie face down, but every card in them was shown face up when it was
played, so a player with perfect recall knows them.)
"""

from __future__ import annotations

from ..views import apply_rules, rules_doc


def hand_card_seen(d: dict, seat: int | None, owner: int, i: int) -> bool:
    """Whether ``seat`` sees card ``i`` of ``owner``'s hand (``seat=None``: a spectator sees all)."""
    return seat is None or owner == seat or (d["phase"] != "flip" and bool(d["known"][owner][i]))


def _seen_hands(d: dict, seat: int) -> list:
    return [
        [list(card) if hand_card_seen(d, seat, s, i) else None for i, card in enumerate(hand)]
        for s, hand in enumerate(d["hands"])
    ]


def _seen_set_aside(d: dict, seat: int) -> int:
    return len(d.get("set_aside") or [])


# field -> (what ``seat`` sees of it: a function of (state dict, seat), the rule in words).
SEEN = {
    "hands": (_seen_hands, "the own hand whole; of another seat's hand, the cards flagged in known (scouted "
                           "this round, public, in the orientation everyone saw), None for the others; during "
                           "the flip phase every card of another seat is None, since even a known card's "
                           "orientation would tell whether that player turned the hand, which is private"),
    "set_aside": (_seen_set_aside, "its length (2 players, round 0: the half dealt in round 2)"),
}

# The fields every seat sees whole (the collected piles too: see the module docstring).
PUBLIC = (
    "game", "version", "num_players", "rounds", "ii_after_empty_set", "score_held_chips", "round",
    "starting_player", "current_player", "phase", "active_set", "active_owner", "scout_chips", "collected",
    "scout_and_show_left", "known", "round_scores", "round_end_reasons", "scores",
)


__doc__ = rules_doc(__doc__, SEEN, PUBLIC)


def redact(d: dict, view: dict, seat: int) -> None:
    """Hide in ``view`` (a deep copy of ``d`` made by :func:`sly_scout_env.views.player_view`)
    what ``seat`` cannot know: each field of :data:`SEEN` becomes what ``seat`` sees of it."""
    apply_rules(SEEN, d, view, seat)
