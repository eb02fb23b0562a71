"""What the web table says to a person: option names and help in plain words, seat and bot
names, levels of opponents, and the game's move words with 1-based positions.

The API keeps the code names (options, bot specs, 0-based seats and ids in ``move``);
only the texts meant to be read (``legal[].text``, the log, ``seating[].name``, the labels
of ``/api/setup``) use these words. The game layer's words (``action_to_str``,
``text.narrate``) count spaces, houses, hand positions and players from 0, as the code
does; :func:`for_people` renumbers them from 1, as a person counts.
"""

from __future__ import annotations

import re
from functools import cache

from sly_scout_env.games import get_game

BOT_LABELS = {"random": "Random", "greedy": "Greedy", "ismcts": "ISMCTS", "neural": "Neural", "ppo": "PPO",
              "expert": "Expert"}

# Opponents by strength (docs/strength.md): Easy is the compiled heuristic, Medium the shipped
# network (for the tables it was trained on), Hard the strongest bot measured for the table:
# the information-set search at 1000 iterations a move, or, where it beat that search
# head to head (HARD_BY_TABLE: docs/strength.md, "The web table's Hard level"), the expert
# (the search with the table's network inside it). HARD_SECONDS: Hard's time per move
# (median, slowest) on a 2-core machine, by game and players: `python
# benchmarks/web_load.py --hard-timing` measures it again. Scout 2p and 3p play their
# checkpoints' model of the other seats (`opponents=policy`, measured here too); Scout 4p
# keeps `opponents=hybrid`: its checkpoint's model scored below it there (0.297 against 0.303).
# Scout 2p names the prior's temperature, PUCT constant and first-play urgency it was measured with
# (its checkpoint's are 2, 1.0 and 0.1 since, measured at equal time only).
LEVELS = [("Easy", "greedy"), ("Medium", "neural"), ("Hard", "ismcts:iterations=1000")]
HARD_BY_TABLE: dict[tuple[str, int], str] = {
    ("scout", 2): "expert:iterations=500:guide_temperature=1:guide_c=0.5:fpu_reduction=0",
    ("scout", 3): "expert:iterations=500", ("scout", 4): "expert:iterations=500:opponents=hybrid",
    ("scout", 5): "expert:iterations=500",
    ("sly", 2): "expert:iterations=1000", ("sly", 3): "expert:iterations=1000", ("sly", 4): "expert:iterations=1000",
}
HARD_SECONDS = {
    ("scout", 2): (0.03, 0.08), ("scout", 3): (0.11, 0.22), ("scout", 4): (0.09, 0.19), ("scout", 5): (0.07, 0.14),
    ("sly", 2): (0.01, 0.04), ("sly", 3): (0.02, 0.03), ("sly", 4): (0.06, 0.23),
}


def plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


def option_words(game: str, option) -> dict:
    """The page's label, help and choice labels of one option (the registry's ``Option``: its
    ``label``, ``words`` and ``choice_labels``, in the rulebook's words; the code name stays in ``name``)."""
    choices = list(option.choice_labels) or None
    if option.choices and (choices is None or len(choices) != len(option.choices)):
        choices = ["Official" if c is None else str(c) for c in option.choices]
    return {"label": option.label or option.name, "words": option.words or option.help, "choice_labels": choices}


def level_spec(level: str, bot: str, game: str, players: int) -> str:
    """The bot a level plays at one table (Hard: :data:`HARD_BY_TABLE`, else the level's bot)."""
    return HARD_BY_TABLE.get((game, players), bot) if level == "Hard" else bot


def level_specs(game: str) -> set[str]:
    """Every bot a level plays at some table of ``game``: server constants, accepted from the web as
    they are (a Hard bot may name a parameter a request may not give, e.g. ``opponents``)."""
    return {bot for _, bot in LEVELS} | {bot for (g, _), bot in HARD_BY_TABLE.items() if g == game}


def bot_label(spec: str) -> str:
    """``"ismcts:iterations=30"`` -> ``"ISMCTS (iterations 30)"``; a level's bot by its level (``"Hard ISMCTS"``)."""
    level_bots = [(level, bot) for level, bot in LEVELS] + [("Hard", bot) for bot in HARD_BY_TABLE.values()]
    for level, bot in level_bots:
        if spec == bot and ":" in bot:
            return f"{level} {BOT_LABELS.get(bot.split(':')[0], bot)}"
    name, _, params = str(spec).partition(":")
    label = BOT_LABELS.get(name, name)
    if params:
        label += " (" + ", ".join(p.replace("=", " ") for p in params.split(":")) + ")"
    return label


def seat_name(seat: int, me: int, spec: str | None) -> str:
    return "You" if seat == me else f"{bot_label(spec)} (seat {seat + 1})"


@cache
def neural_counts(game: str) -> tuple:
    """Player counts with a shipped network for ``game`` under the default rules."""
    from sly_scout_env.netfile import CheckpointError, shipped_for

    spec = get_game(game)
    out = []
    for n in spec.player_counts:
        try:
            shipped_for(game, n, spec.default_options())
            out.append(n)
        except CheckpointError:
            pass
    return tuple(out)


def levels(game: str) -> list[dict]:
    """The levels the start page offers for ``game``, with the player counts each plays."""
    spec = get_game(game)
    out = []
    for level, bot in LEVELS:
        counts = list(neural_counts(game)) if bot == "neural" else list(spec.player_counts)
        entry = {"level": level, "spec": bot, "players": counts, "bot": bot_label(bot)}
        # The bot of each player count (a level may play another bot at some tables).
        entry["specs"] = {str(n): level_spec(level, bot, game, n) for n in counts}
        entry["bots"] = {n: bot_label(s) for n, s in entry["specs"].items()}
        if level == "Hard":
            entry["seconds"] = {str(n): list(HARD_SECONDS[(game, n)]) for n in counts if (game, n) in HARD_SECONDS}
        out.append(entry)
    return out


_SPACE = re.compile(r"\bspace (\d+)")
_HOUSE = re.compile(r"\b(?:Hen House|house) (\d+)")
_CARDS = re.compile(r"\bcards (\d+)-(\d+)")
_CARD = re.compile(r"\bcard (\d+)\b")
_INSERT = re.compile(r"\binsert at (\d+)")
_PLAYER = re.compile(r"\bplayer_(\d+)")
_YOURS = re.compile(r"(^\s*)?\bYou's\b")


def for_people(text: str, name) -> str:
    """The game layer's words renumbered from 1, players called by ``name(seat)``."""
    text = _SPACE.sub(lambda m: f"space {int(m[1]) + 1}", text)
    text = _HOUSE.sub(lambda m: f"Hen House {int(m[1]) + 1}", text)
    text = _CARDS.sub(lambda m: f"cards {int(m[1]) + 1}-{int(m[2]) + 1}", text)
    text = _CARD.sub(lambda m: f"card {int(m[1]) + 1}", text)
    text = _INSERT.sub(lambda m: f"insert at position {int(m[1]) + 1}", text)
    text = _PLAYER.sub(lambda m: name(int(m[1])), text)
    return _YOURS.sub(lambda m: (m[1] + "Your") if m[1] is not None else "your", text)
