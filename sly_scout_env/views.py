"""What one seat may know: the state dict with every hidden card removed.

Bots receive ``player_view(env.state_dict(), seat)`` as ``info["view"]``, so no bot
can peek at hidden cards, by construction. The view keeps the full state dict's
fields and formats (see the env contracts) with these changes:

Both games
    ``"rng"`` is removed (it would let a bot predict the next deal).
    ``"viewer"`` (the seat the view is for) and ``"hand_sizes"`` (public) are added.

Scout
    ``hands[s]`` for an opponent ``s``: each card is ``None`` except the cards whose
    ``known[s][i]`` flag is True (cards scouted this round, public, in the orientation
    everyone saw). During the flip phase every opponent card is ``None``, since
    showing even a known card's orientation would tell whether that player turned
    the hand, which is private. ``set_aside`` (2 players, round 0: the half dealt in
    round 2) becomes its length. The viewer's own hand and every public field
    (active set, chips, scores, ...) are kept; the collected piles are kept too:
    they lie face down, but every card in them was shown face up when it was played,
    so a player with perfect recall knows them.

Sly
    ``hands[s]`` for an opponent ``s``: their ``known_in_hand`` cards (sorted) followed
    by ``None`` for each unknown card, so its length is the hand size. Face-down
    opponent cards on the spaces become ``{"owner": s, "card": None, "safe": False}``
    (the owner is public: the card back shows the colour). Once the game is over the
    final flip has turned every table card face up, so the spaces are kept as they are.
    The viewer's own hand and own face-down cards are kept.
"""

from __future__ import annotations

import copy


def player_view(state_dict: dict, seat: int) -> dict:
    """The part of ``state_dict`` that ``seat`` may know (a new dict; the input is untouched)."""
    if not isinstance(state_dict, dict):
        raise ValueError(f"state_dict must be a dict, got {type(state_dict).__name__}")
    game = state_dict.get("game")
    n = state_dict.get("num_players")
    if isinstance(seat, bool) or not isinstance(seat, int) or not isinstance(n, int) or not 0 <= seat < n:
        raise ValueError(f"seat={seat!r} is not allowed; allowed values: 0..{(n or 1) - 1}")
    if game == "scout":
        return _scout_view(state_dict, seat)
    if game == "sly":
        return _sly_view(state_dict, seat)
    raise ValueError(f"state dict field 'game'={game!r} is not allowed; allowed values: 'scout', 'sly'")


def _scout_view(d: dict, seat: int) -> dict:
    view = {k: copy.deepcopy(v) for k, v in d.items() if k != "rng"}
    hide_all = d["phase"] == "flip"
    hands = []
    for s, hand in enumerate(d["hands"]):
        if s == seat:
            hands.append(copy.deepcopy(hand))
        else:
            known = d["known"][s]
            hands.append([list(card) if (known[i] and not hide_all) else None for i, card in enumerate(hand)])
    view["hands"] = hands
    view["hand_sizes"] = [len(h) for h in d["hands"]]
    view["set_aside"] = len(d.get("set_aside") or [])
    view["viewer"] = seat
    return view


def _sly_view(d: dict, seat: int) -> dict:
    view = {k: copy.deepcopy(v) for k, v in d.items() if k != "rng"}
    hands = []
    for s, hand in enumerate(d["hands"]):
        if s == seat:
            hands.append(list(hand))
        else:
            known = sorted(d["known_in_hand"][s])
            hands.append(known + [None] * (len(hand) - len(known)))
    view["hands"] = hands
    view["hand_sizes"] = [len(h) for h in d["hands"]]
    if not d["game_over"]:
        spaces = []
        for sp in d["spaces"]:
            if sp is not None and not sp["safe"] and sp["owner"] != seat:
                spaces.append({"owner": sp["owner"], "card": None, "safe": False})
            else:
                spaces.append(copy.deepcopy(sp))
        view["spaces"] = spaces
    view["viewer"] = seat
    return view
