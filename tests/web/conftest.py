"""Fixtures of the web table's tests: a real uvicorn server on a free loopback port and a
real Chromium (Debian's ``chromium`` package) driven by Playwright.

The browser tests skip when Chromium or Playwright is missing, with a reason naming the
package; under CI (``CI=true``) a missing browser fails them instead. A failing browser
test leaves a screenshot in a temporary folder (its path is printed).
"""

from __future__ import annotations

import os
import socket
import tempfile
import threading
import time

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed (pip install -e '.[web]')")

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LiveServer:
    """``sly-scout serve``'s app under uvicorn in a thread (real HTTP on 127.0.0.1)."""

    def __init__(self, state_dir: str, **kwargs):
        import uvicorn

        from sly_scout_env.agents.ui.web.app import create_app

        self.app = create_app(state_dir, **kwargs)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = uvicorn.Server(uvicorn.Config(self.app, host="127.0.0.1", port=self.port, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the web server did not start")
            time.sleep(0.02)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)


@pytest.fixture(scope="module")
def live_server(tmp_path_factory):
    server = LiveServer(str(tmp_path_factory.mktemp("web-state")))
    yield server
    server.stop()


@pytest.fixture(scope="module")
def browser():
    missing = None
    if not os.path.exists(CHROMIUM):
        missing = f"Chromium is not installed at {CHROMIUM}: install Debian's `chromium` package " \
                  "(apt-get install -y chromium)"
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing = missing or "Playwright is not installed (pip install playwright; the browser is Debian's `chromium`)"
    if missing:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true and the browser tests cannot run: {missing}")
        pytest.skip(missing)
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    setattr(item, f"rep_{rep.when}", rep)


@pytest.fixture
def page(browser, request):
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    # Bots' moves at full speed in tests (the pace is the page's own setting).
    context.add_init_script("localStorage.setItem('sly-scout-pace', '0');")
    pg = context.new_page()
    errors = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.js_errors = errors
    yield pg
    rep = getattr(request.node, "rep_call", None)
    if rep is not None and rep.failed:
        folder = tempfile.mkdtemp(prefix="sly-scout-web-failure-")
        path = os.path.join(folder, f"{request.node.name}.png")
        try:
            pg.screenshot(path=path, full_page=True)
            print(f"\nscreenshot of the failing page: {path}")
        except Exception as exc:  # the page may be gone; the failure itself matters more
            print(f"\nno screenshot ({exc})")
    context.close()
