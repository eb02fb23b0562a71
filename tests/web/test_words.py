"""What a person reads: 1-based positions and seat names in move texts and the log, plain
option labels (code names stay in the API), bot descriptions for the chosen game, levels."""

from __future__ import annotations

import re

import numpy as np
import pytest

from sly_scout_env import ismcts as K
from sly_scout_env.agents.bots.registry import make_from_spec, registration
from sly_scout_env.agents.ui.web.app import _game_setup
from sly_scout_env.agents.ui.web.session import BadInput, WebGame, check_bot
from sly_scout_env.agents.ui.web.words import (
    HARD_BY_TABLE,
    bot_label,
    for_people,
    level_spec,
    levels,
    plural,
    seat_name,
)
from sly_scout_env.games import GAMES, get_game

from ..nets import hide_shipped


def expected_numbers(game: str, move: dict) -> list[str]:
    if game == "sly":
        if move["type"] in ("lay", "expose"):
            sp = move["space"]
            return [f"space {sp + 1} (Hen House {sp // 4 + 1}, value {sp % 4 + 1})"]
        return [] if move["house"] is None else [f"Hen House {move['house'] + 1}"]
    if move["type"] == "show":
        s, n = move["start"], move["length"]
        return [f"card {s + 1}" if n == 1 else f"cards {s + 1}-{s + n}"]
    if move["type"] in ("scout", "scout_and_show"):
        return [f"insert at position {move['position'] + 1}"]
    return []


@pytest.mark.parametrize("game,players,seat", [("scout", 3, 1), ("scout", 2, 0), ("sly", 3, 2), ("sly", 4, 0)])
def test_moves_and_log_count_from_one_and_name_seats(game, players, seat):
    rng = np.random.default_rng(players)
    g = WebGame.new("w", game, players, seat, get_game(game).default_options(), ["greedy"] * (players - 1), 3)
    g.run_bots()
    assert [s["name"] for s in g.snapshot["seating"]] == [
        "You" if s == seat else f"Greedy (seat {s + 1})" for s in range(players)]
    checked = 0
    while not g.over:
        for m in g.snapshot["legal"]:
            for words in expected_numbers(game, m["move"]):
                assert words in m["text"], (m["move"], m["text"])
                checked += 1
        g.play(int(rng.choice([m["id"] for m in g.snapshot["legal"]])))
    assert checked > 20
    text = "\n".join(line for e in g.log for line in e["lines"])
    assert "player_" not in text and "You's" not in text and "(you)" not in text
    assert "You: " in text and "Greedy (seat" in text
    assert not re.search(r"\b(space|Hen House|house) 0\b", text)


def test_for_people():
    name = lambda s: seat_name(s, 0, "greedy")  # noqa: E731
    assert for_people("player_1's Fox gobbled player_0's Hen 3.", name) == "Greedy (seat 2)'s Fox gobbled your Hen 3."
    assert for_people("    player_0's Hen 2 is Safe on space 4 (value 1).", name) == \
        "    Your Hen 2 is Safe on space 5 (value 1)."
    assert for_people("reveal Hen House 0", name) == "reveal Hen House 1"
    assert for_people("show cards 0-2 (run 3 4 5)", name) == "show cards 1-3 (run 3 4 5)"
    assert for_people("scout the left card (7/8), keep it, insert at 0", name) == \
        "scout the left card (7/8), keep it, insert at position 1"
    assert plural(1, "card") == "1 card" and plural(2, "card") == "2 cards" and plural(0, "Fox", "Foxes") == "0 Foxes"


@pytest.mark.parametrize("game", GAMES)
def test_setup_words_levels_and_descriptions(game):
    setup = _game_setup(get_game(game), {})
    for o in setup["options"]:
        assert o["label"] and o["label"] != o["name"] and o["words"]
        if o["choices"]:
            assert len(o["choice_labels"]) == len(o["choices"])
    for b in setup["bots"]:
        assert b["description"] == registration(b["name"]).describe(game)
    greedy = next(b for b in setup["bots"] if b["spec"] == "greedy")
    other = "sly" if game == "scout" else "scout"
    assert greedy["description"] != registration("greedy").describe(other)
    names = [lv["level"] for lv in levels(game)]
    assert names == ["Easy", "Medium", "Hard"]
    hard = levels(game)[2]
    assert hard["spec"].startswith("ismcts") and set(hard["seconds"]) == {str(n) for n in hard["players"]}
    medium = levels(game)[1]
    assert medium["spec"] == "neural" and medium["players"]
    # Every level's bot is one the server accepts for those counts, at every count.
    for lv in levels(game):
        check_bot(lv["spec"], game, "bots[0]", {})
        assert set(lv["specs"]) == set(lv["bots"]) == {str(n) for n in lv["players"]}
        for n, spec in lv["specs"].items():
            check_bot(spec, game, "bots[0]", {})
            assert lv["bots"][n] == bot_label(spec)
    # A level's bot is accepted as it is, not a request's own variant of it.
    variants = {s for lv in levels(game) for s in lv["specs"].values() if s.startswith("expert:")}
    assert variants  # (every game has an expert at some table's Hard level)
    for spec in variants:
        with pytest.raises(ValueError, match="parameter '(iterations|opponents|guide_temperature)' is not allowed "
                                             "from the web"):
            check_bot(spec + ":opponents=tree", game, "bots[0]", {})
    # Hard is the table's measured strongest: HARD_BY_TABLE where the expert beat the search.
    for n in hard["players"]:
        assert hard["specs"][str(n)] == HARD_BY_TABLE.get((game, n), "ismcts:iterations=1000")
        assert hard["bots"][str(n)].startswith("Hard ")


def test_scout_hard_models_the_other_seats_as_measured():
    # Hard at Scout 2p/3p plays its checkpoint's opponents="policy"; 4p names "hybrid" (the
    # checkpoint's policy model scored below it there); 5p's checkpoint carries no model: hybrid.
    expected = {2: K.OPP_POLICY, 3: K.OPP_POLICY, 4: K.OPP_HYBRID, 5: K.OPP_HYBRID}
    for n, code in expected.items():
        bot = make_from_spec(level_spec("Hard", "ismcts:iterations=1000", "scout", n), game="scout")
        bot.reset(0, game="scout", num_players=n, seat=0, options=get_game("scout").default_options())
        assert bot.search.cfg[K.C_OPPONENTS] == code, (n, bot.search.cfg[K.C_OPPONENTS])
        assert bot.search.fcfg[K.F_GUIDE_T] == 1.0  # (2p: the temperature Hard was measured with)
        assert bot.search.fcfg[K.F_FPU] == 0.0  # (2p: the first-play urgency too)
        assert bot.search.fcfg[K.F_GUIDE_C] == 0.5  # (2p: and the PUCT constant; 3-5p: their checkpoints')


def test_hard_at_a_table_can_be_another_bot(monkeypatch):
    monkeypatch.setitem(HARD_BY_TABLE, ("sly", 3), "expert:iterations=700")
    hard = levels("sly")[2]
    assert hard["specs"]["3"] == "expert:iterations=700" and hard["bots"]["3"] == "Hard Expert"
    assert hard["specs"]["2"] == HARD_BY_TABLE.get(("sly", 2), "ismcts:iterations=1000")
    assert seat_name(1, 0, "expert:iterations=700") == "Hard Expert (seat 2)"
    assert seat_name(1, 0, "expert:iterations=701") == "Expert (iterations 701) (seat 2)"


def test_neural_only_where_a_network_is_shipped(monkeypatch):
    g = WebGame.new("n", "scout", 2, 0, get_game("scout").default_options(), ["neural"], 1)
    assert g.snapshot["seating"][1]["name"] == "Neural (seat 2)"
    assert levels("sly")[1]["players"] == [2, 3, 4]  # Medium (the network) for every count
    hide_shipped(monkeypatch, "sly", 4)  # a count without a network: not offered, refused
    assert levels("sly")[1]["players"] == [2, 3] and levels("sly")[2]["players"] == [2, 3, 4]
    with pytest.raises(BadInput) as exc:
        WebGame.new("n", "sly", 4, 0, get_game("sly").default_options(), ["neural", "greedy", "greedy"], 1)
    assert exc.value.field == "bots" and "no shipped checkpoint" in str(exc.value)
    with pytest.raises(BadInput):
        check_bot("neural:path=/etc/passwd", "scout", "bots[0]", {})
