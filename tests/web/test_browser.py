"""Whole matches played by clicking in a real Chromium against the real server.

Each human move is chosen among the legal moves the page holds, then made the way a
person makes it: pointing at cards, ends, gaps, spaces and houses (and now and then
with the keyboard, from the legal-move list). The bots answer through the same API.
"""

from __future__ import annotations

import json
import random

import pytest

IDLE = "window.APP && window.APP.table && !window.APP.busy"


def wait_idle(page, timeout=60_000):
    page.wait_for_function(IDLE, timeout=timeout)


def table(page) -> dict:
    return page.evaluate("window.APP.table")


def start(page, url, game, players, *, bots=None, seat=0, seed=1, options=None):
    """Fill the start page and start the match."""
    page.goto(url + "/")
    page.wait_for_selector("#start-btn")
    page.check(f"input[name=game][value={game}]")
    page.select_option("#players", str(players))
    page.select_option("#seat", str(seat))
    for s, spec in (bots or {}).items():
        name, _, params = spec.partition(":")
        page.select_option(f"#bot-{s}", name)
        for p in filter(None, params.split(":")):
            key, value = p.split("=")
            page.fill(f"#bots .option:has(#bot-{s}) input[data-param={key}]", value)
    for name, value in (options or {}).items():
        sel = f"#opt-{name}"
        if page.eval_on_selector(sel, "e => e.tagName") == "SELECT":
            page.select_option(sel, value)
        else:
            page.fill(sel, value)
    page.fill("#seed", str(seed))
    page.click("#start-btn")
    page.wait_for_url("**#game=*")
    wait_idle(page)
    return table(page)


def click_scout(page, move: dict) -> None:
    kind = move["type"]
    if kind == "flip":
        page.click("#btn-turn" if move["flip"] else "#btn-keep")
    elif kind == "show":
        for i in range(move["start"], move["start"] + move["length"]):
            page.click(f"#hand [data-card='{i}']")
        page.click("#btn-show")
    else:
        if kind == "scout_and_show":
            page.click("#btn-sas")
        page.click(f"#active-set [data-ends~={move['end']}]")
        if move["flip"]:
            page.click("#btn-flip-scouted")
        page.click(f"#hand [data-gap='{move['position']}']")


def click_sly(page, move: dict) -> None:
    kind = move["type"]
    if kind == "lay":
        page.click(f"#hand [data-hand-card='{move['card']}']")
        page.click(f"[data-space='{move['space']}']")
    elif kind == "expose":
        page.click(f"[data-space='{move['space']}']")
    elif move["house"] is None:
        page.click("#btn-reveal-all")
    else:
        page.click(f"[data-reveal='{move['house']}']")


CLICK = {"scout": click_scout, "sly": click_sly}


def pick(rng, legal: list, done: dict) -> dict:
    """A legal move: a type not clicked yet if any (else any type), then a move of that type."""
    kinds = sorted({m["move"]["type"] for m in legal})
    kind = rng.choice([k for k in kinds if k not in done] or kinds)
    return rng.choice([m for m in legal if m["move"]["type"] == kind])


def play_to_the_end(page, rng, *, max_moves=400, on_move=None, choose=pick) -> dict:
    """Play my moves until the match is over; ``page.kinds`` counts the move types clicked."""
    t = table(page)
    page.kinds = {}
    for k in range(max_moves):
        if t["over"]:
            return t
        assert t["your_turn"], "the page waits for a bot although the server has answered"
        move = choose(rng, t["legal"], page.kinds)
        before = t["moves_played"]
        if k % 5 == 3 and move["move"]["type"] in page.kinds:  # now and then by keyboard, from the list
            page.focus(f"#move-list button[data-action='{move['id']}']")
            page.keyboard.press("Enter")
        else:
            CLICK[t["game"]](page, move["move"])
            page.kinds[move["move"]["type"]] = page.kinds.get(move["move"]["type"], 0) + 1
        page.wait_for_function(f"window.APP.table.moves_played > {before} && !window.APP.busy", timeout=60_000)
        t = table(page)
        mine = [e for e in t["log"] if e["seat"] == t["seat"]]
        assert mine[-1]["lines"][0].endswith(move["text"]), (mine[-1], move)
        if on_move:
            on_move(k, t)
    raise AssertionError(f"the match did not end within {max_moves} of my moves")


def check_final_screen(page, t) -> None:
    assert t["over"] and t["result"]["scores"] == t["view"]["scores"]
    page.wait_for_selector("#final-scores")
    text = page.inner_text("#result")
    for s in range(t["players"]):
        assert f"player_{s}" in text
    assert page.is_visible("#rematch-btn")
    assert page.locator("#move-list button").count() == 0
    assert not page.js_errors, page.js_errors


def test_scout_3p_against_greedy_and_ismcts_by_clicking(live_server, page):
    t = start(page, live_server.url, "scout", 3, bots={1: "greedy", 2: "ismcts:iterations=30"},
              options={"rounds": "1"}, seed=11)
    assert [s["name"] for s in t["seating"]] == ["you", "greedy", "ismcts:iterations=30"]
    t = play_to_the_end(page, random.Random(3))
    check_final_screen(page, t)
    assert {"flip", "show", "scout", "scout_and_show"} <= set(page.kinds), page.kinds
    assert len(t["view"]["round_scores"]) == 1
    assert page.locator("#round-scores").count() == 1
    # The bots' moves went into the log in words, flips told as private choices.
    bot_lines = [e["lines"][0] for e in t["log"] if e["seat"] in (1, 2)]
    assert bot_lines and all(line.startswith(("player_1 (greedy)", "player_2 (ismcts")) for line in bot_lines)
    assert any("private choice" in line for line in bot_lines)
    # Rematch: a new match, same seats and bots, a fresh deal.
    page.click("#rematch-btn")
    page.wait_for_function(f"window.APP.table && window.APP.table.id !== '{t['id']}' && !window.APP.busy")
    t2 = table(page)
    assert t2["seating"] == t["seating"] and t2["moves_played"] <= 2 and not t2["over"]


def test_scout_2p_by_clicking_shows_chips_and_continued_turn(live_server, page):
    t = start(page, live_server.url, "scout", 2, bots={1: "greedy"}, options={"rounds": "1"}, seed=4)
    seen = {"chips": False, "continued": False}

    def watch(k, t):
        seen["chips"] |= "chips held:" in page.inner_text("#board")
        seen["continued"] |= page.locator("text=Your turn continues").count() > 0

    t = play_to_the_end(page, random.Random(5), on_move=watch)
    check_final_screen(page, t)
    assert {"flip", "show", "scout"} <= set(page.kinds), page.kinds
    assert seen["chips"] and seen["continued"]


@pytest.mark.parametrize("players", [2, 3])
def test_sly_by_clicking_to_the_final_scoring(live_server, page, players):
    bots = {s: "greedy" for s in range(1, players)}
    t = start(page, live_server.url, "sly", players, bots=bots, seed=7 + players)
    assert page.locator("[data-space]").count() == 4 * (1 if players == 2 else 2)
    t = play_to_the_end(page, random.Random(players))
    check_final_screen(page, t)
    assert {"lay", "expose", "reveal"} <= set(page.kinds), page.kinds
    final = page.inner_text("#sly-final")
    assert "Game over" in final and "Safe Hens" in final
    # The final flip: no card on the table is face down any more.
    assert page.locator(".sly-card.down").count() == 0


def test_reload_mid_game_and_illegal_clicks(live_server, page):
    t = start(page, live_server.url, "scout", 3, bots={1: "greedy", 2: "greedy"}, seed=21)
    page.click("#btn-keep")
    page.wait_for_function("window.APP.table.moves_played >= 3 && !window.APP.busy")
    t = table(page)
    assert t["your_turn"] and t["view"]["phase"] == "play"
    # Reload: the same game, the same position.
    page.reload()
    wait_idle(page)
    again = table(page)
    assert again["id"] == t["id"] and again["moves_played"] == t["moves_played"]
    assert again["view"]["hands"][0] == t["view"]["hands"][0]
    # An illegal Show: cards that are no set or run cannot be confirmed.
    hand = t["view"]["hands"][0]
    shows = {(m["move"]["start"], m["move"]["length"]) for m in t["legal"] if m["move"]["type"] == "show"}
    bad = next(i for i in range(len(hand) - 1) if (i, 2) not in shows)
    page.click(f"#hand [data-card='{bad}']")
    page.click(f"#hand [data-card='{bad + 1}']")
    assert page.is_disabled("#btn-show")
    assert "Not a legal Show" in page.inner_text("#show-hint")
    # An illegal action sent anyway (as a stale page would): refused, shown, nothing changes.
    page.evaluate("APP.play(100000)")
    wait_idle(page)
    assert "refused" in page.inner_text("#error")
    assert table(page)["moves_played"] == t["moves_played"]
    # Sly: a space clicked without choosing a card first does nothing.
    s = start(page, live_server.url, "sly", 2, bots={1: "random"}, seed=3)
    page.click("[data-space='0']")
    page.wait_for_timeout(200)
    assert table(page)["moves_played"] == s["moves_played"]
    assert page.locator("[data-space='0'] .sly-card").count() == 0


def test_narrow_window(live_server, page):
    page.set_viewport_size({"width": 380, "height": 800})
    start(page, live_server.url, "sly", 3, bots={1: "random", 2: "random"}, seed=2)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 400, f"the page is {width}px wide in a 380px window"
    box_board = page.locator("#board").bounding_box()
    box_side = page.locator("#side").bounding_box()
    assert box_side["y"] >= box_board["y"] + box_board["height"] - 1  # the side panel goes below the table


def test_bots_moves_one_by_one_at_the_chosen_pace_and_skip(live_server, page):
    t = start(page, live_server.url, "sly", 4, bots={1: "random", 2: "random", 3: "random"}, seed=5)
    page.evaluate("localStorage.setItem('sly-scout-pace', '400')")
    n0 = len(t["log"])
    page.click(f"#move-list button[data-action='{t['legal'][0]['id']}']")
    counts = []
    while True:
        counts.append(page.locator("#log li").count())
        if not page.evaluate("window.APP.busy"):
            break
        page.wait_for_timeout(50)
    counts.append(page.locator("#log li").count())
    # My move, then each of the three bots' moves appeared on its own.
    assert counts[-1] == n0 + 4
    assert {n0 + 2, n0 + 3} <= set(counts), counts
    # A very slow pace, skipped: the replay ends at once.
    page.evaluate("localStorage.setItem('sly-scout-pace', '20000')")
    t = table(page)
    page.click(f"#move-list button[data-action='{t['legal'][0]['id']}']")
    page.wait_for_function("window.APP.busy && document.querySelectorAll('#log li').length > %d" % (len(t["log"]) + 1))
    page.click("#skip-btn")
    page.wait_for_function("!window.APP.busy", timeout=10_000)
    assert table(page)["moves_played"] == t["moves_played"] + 4


def test_download_then_upload_continues_the_game(live_server, page, tmp_path):
    t = start(page, live_server.url, "scout", 2, bots={1: "random"}, options={"rounds": "1"}, seed=13)
    page.click("#btn-turn")
    page.wait_for_function(f"window.APP.table.moves_played > {t['moves_played']} && !window.APP.busy")
    t = table(page)
    with page.expect_download() as info:
        page.click("#download-link")
    path = tmp_path / "saved.json"
    info.value.save_as(path)
    saved = json.loads(path.read_text())
    assert saved["format"] == "sly-scout-play" and saved["moves_played"] == t["moves_played"]
    page.click("#new-btn")
    page.wait_for_selector("#upload")
    page.set_input_files("#upload", str(path))
    page.wait_for_function(f"window.APP.table && window.APP.table.id !== '{t['id']}' && !window.APP.busy")
    up = table(page)
    assert up["view"] == t["view"] and up["moves_played"] == t["moves_played"] and up["your_turn"]
    # A file that is no save is refused with a message, and no game opens.
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "other"}')
    page.click("#new-btn")
    page.wait_for_selector("#upload")
    page.set_input_files("#upload", str(bad))
    page.wait_for_selector("#error:not([hidden])")
    assert "Upload refused" in page.inner_text("#error") and "format" in page.inner_text("#error")
