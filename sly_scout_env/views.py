"""What one seat may know: the state dict with every hidden card removed.

Bots receive ``player_view(env.state_dict(), seat)`` as ``info["view"]``, so no bot
can peek at hidden cards, by construction. The view keeps the full state dict's
fields and formats (see the env contracts) with these changes:

Both games
    ``"rng"`` is removed (it would let a bot predict the next deal).
    ``"viewer"`` (the seat the view is for) and ``"hand_sizes"`` (public) are added.

Each game's own changes are documented in its ``view`` module
(``sly_scout_env/<game>/view.py``), found through the game registry.
"""

from __future__ import annotations

import copy
import textwrap

from .games import GAMES, get_game


def player_view(state_dict: dict, seat: int) -> dict:
    """The part of ``state_dict`` that ``seat`` may know (a new dict; the input is untouched)."""
    if not isinstance(state_dict, dict):
        raise ValueError(f"state_dict must be a dict, got {type(state_dict).__name__}")
    game = state_dict.get("game")
    n = state_dict.get("num_players")
    if isinstance(seat, bool) or not isinstance(seat, int) or not isinstance(n, int) or not 0 <= seat < n:
        raise ValueError(f"seat={seat!r} is not allowed; allowed values: 0..{(n or 1) - 1}")
    if game not in GAMES:
        raise ValueError(f"state dict field 'game'={game!r} is not allowed; "
                         f"allowed values: {', '.join(map(repr, GAMES))}")
    view = {k: copy.deepcopy(v) for k, v in state_dict.items() if k != "rng"}
    view["hand_sizes"] = [len(h) for h in state_dict["hands"]]
    view["viewer"] = seat
    get_game(game).module("view").redact(state_dict, view, seat)
    return view


# -- the games' visibility rules (each game's ``view`` module holds a table of them) ----------
# SEEN: field -> (rule, words): ``rule(state_dict, seat)`` is what ``seat`` sees of the field,
# ``words`` the rule for the docs; PUBLIC: the fields every seat sees whole.


def apply_rules(seen: dict, d: dict, view: dict, seat: int) -> None:
    """In ``view`` (a copy of ``d``), each field of ``seen`` becomes what ``seat`` sees of it."""
    for field, (rule, _) in seen.items():
        view[field] = rule(d, seat)


def rules_doc(doc: str | None, seen: dict, public: tuple) -> str | None:
    """``doc`` with ``{rules}`` (the rules of ``seen`` in words) and ``{public}`` (the public fields) filled in."""
    if not doc:
        return doc
    lines = []
    for field, (_, words) in seen.items():
        wrapped = textwrap.wrap(words, 82)
        lines.append(f"    {field:<12}{wrapped[0]}")
        lines += [" " * 16 + w for w in wrapped[1:]]
    return doc.replace("{rules}", "\n".join(lines)).replace(
        "{public}", textwrap.fill("Every other field is public, kept as it is: " + ", ".join(public) + ".", 88))
