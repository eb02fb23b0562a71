"""Fixtures of the web table's tests: a real uvicorn server on a free loopback port and a
real Chromium (Debian's ``chromium`` package) driven by Playwright.

The web tests need the web extra, the browser tests (``browser`` marker) Chromium and
Playwright too: missing, they skip with a reason naming the install command, and under CI
(``CI=true``) fail instead (``require`` of ``tests/conftest.py``). A failing browser test
leaves a screenshot in a temporary folder (its path is printed).
"""

from __future__ import annotations

import os
import socket
import tempfile
import threading
import time

import pytest

from ..conftest import CHROMIUM, INSTALL_BROWSER, INSTALL_WEB, chromium, require

for _module in ("starlette", "uvicorn", "httpx"):
    require(_module, INSTALL_WEB)

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
    require(chromium, INSTALL_BROWSER)
    sync_playwright = require("playwright.sync_api", INSTALL_BROWSER).sync_playwright
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


def wait_js(pg, expression: str, timeout: float = 30_000) -> None:
    """Wait until ``expression`` is true in the page, polled through ``page.evaluate``.

    Playwright's ``wait_for_function`` compiles its predicate in the page with ``eval``,
    which the page's CSP (no ``unsafe-eval``) refuses; ``evaluate`` goes through the
    debugger protocol, which the CSP does not govern.
    """
    deadline = time.monotonic() + timeout / 1000
    while True:
        try:
            if pg.evaluate(expression):
                return
        except Exception as exc:  # the page is navigating, or the expression failed
            if "Execution context was destroyed" not in str(exc) and "navigat" not in str(exc):
                raise
        if time.monotonic() > deadline:
            raise TimeoutError(f"waited {timeout / 1000:.0f} s for {expression!r}")
        time.sleep(0.03)


def csp_violations(pg) -> list:
    """The CSP violations of ``pg`` so far: the console's and the page's own record."""
    try:
        seen = pg.evaluate("window.__csp || []")
    except Exception:  # the page is navigating
        seen = []
    return list(pg.csp_console) + seen


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
    # Content-Security-Policy violations, as the page sees them and as the console logs them.
    context.add_init_script("window.__csp = []; document.addEventListener('securitypolicyviolation', "
                            "e => window.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));")
    pg = context.new_page()
    errors, csp = [], []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.on("console", lambda m: csp.append(m.text) if "Content Security Policy" in m.text else None)
    pg.js_errors = errors
    pg.csp_console = csp
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
