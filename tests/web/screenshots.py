"""Make the README's screenshots of the web table (docs/web-scout.png, docs/web-sly.png).

    python -m tests.web.screenshots [OUT_DIR]      # default: docs/

Headless Chromium (Debian's /usr/bin/chromium, driven by Playwright) against the real
server: a Scout match (3 players, 2 rounds) played to the end of its first round, shown
with the round's summary; a Sly game (3 players) played to its final flip. The moves are
drawn from a seeded generator, so the pictures are the same each time.
"""

from __future__ import annotations

import os
import random
import sys
import tempfile

from playwright.sync_api import sync_playwright

from tests.web.conftest import CHROMIUM, CHROMIUM_ARGS, LiveServer, wait_js

IDLE = "window.APP && window.APP.table && !window.APP.busy"


def start(page, url, game, players, bots, seed, options=None):
    page.goto(url + "/")
    page.wait_for_selector("#start-btn")
    page.check(f"input[name=game][value={game}]")
    page.select_option("#players", str(players))
    for s, value in bots.items():
        page.select_option(f"#bot-{s}", value)
    for name, value in (options or {}).items():
        page.select_option(f"#opt-{name}", value) if page.eval_on_selector(
            f"#opt-{name}", "e => e.tagName") == "SELECT" else page.fill(f"#opt-{name}", value)
    page.fill("#seed", str(seed))
    page.click("#start-btn")
    page.wait_for_url("**#game=*")
    wait_js(page, IDLE)


def play_until(page, rng, stop) -> None:
    """Random legal moves through the API the page uses (APP.play), until ``stop()``."""
    for _ in range(500):
        if stop():
            return
        t = page.evaluate("window.APP.table")
        if t["over"]:
            return
        move = rng.choice(t["legal"])["id"]
        page.evaluate(f"() => {{ APP.play({move}); }}")  # not awaited: a round end waits for its button
        wait_js(page, f"({IDLE} && window.APP.table.moves_played > {t['moves_played']}) || !!window.APP.paused")


def main(out: str = "docs") -> None:
    with tempfile.TemporaryDirectory() as state, sync_playwright() as p:
        server = LiveServer(state)
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            ctx = browser.new_context(viewport={"width": 1200, "height": 900}, device_scale_factor=1)
            ctx.add_init_script("localStorage.setItem('sly-scout-pace', '0');")
            page = ctx.new_page()
            start(page, server.url, "scout", 3, {1: "level:Easy", 2: "level:Hard"}, 2024, {"rounds": "2"})
            play_until(page, random.Random(4), lambda: page.evaluate("!!window.APP.paused"))
            page.wait_for_selector("#round-end")
            page.screenshot(path=os.path.join(out, "web-scout.png"), full_page=False)
            start(page, server.url, "sly", 3, {1: "level:Easy", 2: "level:Medium"}, 77)
            play_until(page, random.Random(2), lambda: False)
            page.wait_for_selector("#round-end")
            page.screenshot(path=os.path.join(out, "web-sly.png"), full_page=False)
        finally:
            browser.close()
            server.stop()


if __name__ == "__main__":
    main(*sys.argv[1:])
