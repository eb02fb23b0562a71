"""The web table's safety rules over real HTTP (uvicorn on a free loopback port, httpx):
the Host allow-list (DNS rebinding), state changes only as JSON from the page's own
origin (CSRF), the security headers on every answer, and a page without inline script.
Each attack is refused with 400 or 403 and changes nothing.
"""

from __future__ import annotations

from html.parser import HTMLParser

import httpx
import pytest

from sly_scout_env.agents.ui.web.guard import CSP, allowed_hosts

from .conftest import LiveServer

JSON = {"Content-Type": "application/json"}
EVIL = "http://evil.example.com"
NEW = '{"game": "sly", "players": 2, "bots": ["random"], "seed": "3"}'


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    s = LiveServer(str(tmp_path_factory.mktemp("safety-state")))
    yield s
    s.stop()


@pytest.fixture
def http(server):
    with httpx.Client(base_url=server.url, timeout=30) as c:
        yield c


def games(http) -> list:
    return http.get("/api/games").json()["games"]


def a_game(http) -> dict:
    r = http.post("/api/games", content=NEW, headers=JSON)
    assert r.status_code == 201, r.text
    return r.json()


def test_a_cross_site_form_post_creates_no_game(http):
    """The request a page of another site can send without asking (a form, or a "simple"
    fetch: text/plain, no preflight) used to create a game (201)."""
    before = games(http)
    for headers in ({"Content-Type": "text/plain", "Origin": EVIL},
                    {"Content-Type": "text/plain;charset=UTF-8", "Origin": EVIL, "Sec-Fetch-Site": "cross-site"},
                    {"Content-Type": "application/x-www-form-urlencoded", "Origin": EVIL},
                    {"Content-Type": "multipart/form-data; boundary=x", "Origin": "null"}):
        r = http.post("/api/games", content=NEW, headers=headers)
        assert r.status_code == 403, (headers, r.status_code, r.text)
        assert r.json()["field"] == "origin"
    assert games(http) == before


def test_state_changes_need_json_and_the_own_origin(http, server):
    before = games(http)
    own = server.url
    refusals = [
        ({"Content-Type": "text/plain"}, 400, "content-type"),  # no Origin (an old browser, a script): JSON only
        ({}, 400, "content-type"),
        ({"Content-Type": "application/json", "Origin": EVIL}, 403, "origin"),
        ({"Content-Type": "application/json", "Origin": own.replace("127.0.0.1", "localhost")}, 403, "origin"),
        ({"Content-Type": "application/json", "Origin": f"http://127.0.0.1:{server.port + 1}"}, 403, "origin"),
        ({"Content-Type": "application/json", "Sec-Fetch-Site": "cross-site"}, 403, "origin"),
        ({"Content-Type": "application/json", "Sec-Fetch-Site": "same-site"}, 403, "origin"),  # another port
        ({"Content-Type": "application/json", "Origin": own, "Sec-Fetch-Site": "cross-site"}, 403, "origin"),
    ]
    for headers, status, field in refusals:
        r = http.post("/api/games", content=NEW, headers=headers)
        assert r.status_code == status and r.json()["field"] == field, (headers, r.text)
    assert games(http) == before
    # The page's own requests, and scripts' (JSON, no Origin) are served.
    ok = http.post("/api/games", content=NEW, headers=JSON | {"Origin": own, "Sec-Fetch-Site": "same-origin"})
    assert ok.status_code == 201, ok.text
    assert http.post("/api/games", content=NEW, headers=JSON | {"Content-Type": "application/json; charset=utf-8"}
                     ).status_code == 201


def test_moves_deletes_and_rematches_of_another_origin_change_nothing(http, server):
    t = a_game(http)
    gid = t["id"]
    state = server.app.state.store.get(gid).match.env.state_dict()
    move = f'{{"action": {t["legal"][0]["id"]}}}'
    for method, path, body in (("POST", f"/api/games/{gid}/moves", move), ("DELETE", f"/api/games/{gid}", None),
                               ("POST", f"/api/games/{gid}/rematch", None), ("POST", "/api/games/upload", "{}")):
        for headers in ({"Content-Type": "text/plain", "Origin": EVIL}, {"Origin": EVIL},
                        JSON | {"Origin": EVIL}, JSON | {"Sec-Fetch-Site": "cross-site"}):
            r = http.request(method, path, content=body, headers=headers)
            assert r.status_code == 403, (method, path, headers, r.text)
        r = http.request(method, path, content=body, headers={"Content-Type": "text/plain"})
        assert r.status_code == 400, (method, path, r.text)
    assert server.app.state.store.get(gid).match.env.state_dict() == state
    assert http.get(f"/api/games/{gid}").json() == t
    assert len([g for g in games(http) if g["id"] == gid]) == 1


def test_no_cors_for_other_origins(http):
    r = http.options("/api/games", headers={"Origin": EVIL, "Access-Control-Request-Method": "POST",
                                            "Access-Control-Request-Headers": "content-type"})
    assert r.status_code >= 400
    assert not any(k.lower().startswith("access-control-") for k in r.headers)
    r = http.get("/api/games", headers={"Origin": EVIL})
    assert not any(k.lower().startswith("access-control-") for k in r.headers)


def test_a_foreign_host_header_is_refused(http, server):
    """DNS rebinding: evil.example.com made to point at 127.0.0.1 sends its own name as Host.
    The page and the API used to be served to it (200)."""
    before = games(http)
    for host in ("evil.example.com", f"evil.example.com:{server.port}", "127.0.0.1.evil.example.com",
                 "localhost.evil.example.com", "0.0.0.0", "[::2]", "bad host"):
        for method, path, body in (("GET", "/", None), ("GET", "/api/games", None), ("GET", "/static/app.js", None),
                                   ("POST", "/api/games", NEW)):
            r = http.request(method, path, content=body, headers=JSON | {"Host": host})
            assert r.status_code == 400, (host, path, r.status_code)
            assert "sly-scout" not in r.text and "games" not in r.text
    assert games(http) == before
    for host in (f"127.0.0.1:{server.port}", f"localhost:{server.port}", f"[::1]:{server.port}", "localhost",
                 "LOCALHOST"):
        assert http.get("/api/setup", headers={"Host": host}).status_code == 200, host


def test_allow_host_adds_names(tmp_path):
    hosts = allowed_hosts("0.0.0.0", ["mybox.lan", "192.168.1.5", "fe80::1"])
    assert hosts == ["127.0.0.1", "localhost", "[::1]", "mybox.lan", "192.168.1.5", "[fe80::1]"]
    assert allowed_hosts("::1") == ["127.0.0.1", "localhost", "[::1]"]
    s = LiveServer(str(tmp_path), hosts=hosts)
    try:
        for host, status in (("mybox.lan", 200), ("192.168.1.5:8765", 200), ("[fe80::1]:80", 200),
                             ("evil.example.com", 400), ("otherbox.lan", 400)):
            assert httpx.get(f"{s.url}/api/setup", headers={"Host": host}).status_code == status, host
        # The own origin is the Host the page was loaded from.
        r = httpx.post(f"{s.url}/api/games", content=NEW, headers=JSON | {"Host": "mybox.lan:8765",
                                                                          "Origin": "http://mybox.lan:8765"})
        assert r.status_code == 201, r.text
        r = httpx.post(f"{s.url}/api/games", content=NEW, headers=JSON | {"Host": "mybox.lan:8765",
                                                                          "Origin": "http://192.168.1.5:8765"})
        assert r.status_code == 403
    finally:
        s.stop()


def test_security_headers_on_every_answer(http, server):
    answers = [http.get("/"), http.get("/static/app.js"), http.get("/static/style.css"), http.get("/api/setup"),
               http.get("/api/games/nope"), http.get("/static/nope.js"),
               http.get("/", headers={"Host": "evil.example"}),
               http.post("/api/games", content=NEW, headers={"Origin": EVIL}),
               http.post("/api/games", content="{", headers=JSON)]
    assert [r.status_code for r in answers] == [200, 200, 200, 200, 404, 404, 400, 403, 400]
    for r in answers:
        assert r.headers["content-security-policy"] == CSP, r.url
        assert r.headers["x-content-type-options"] == "nosniff"
        assert r.headers["referrer-policy"] == "no-referrer"
        assert r.headers["x-frame-options"] == "DENY"
    csp = dict(part.strip().split(" ", 1) for part in CSP.split(";"))
    assert csp["script-src"] == "'self'" and csp["style-src"] == "'self'" and csp["frame-ancestors"] == "'none'"
    assert "unsafe" not in CSP
    assert answers[1].headers["content-type"].startswith(("text/javascript", "application/javascript"))


class _Inline(HTMLParser):
    def __init__(self):
        super().__init__()
        self.problems, self._in = [], None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "script" and "src" not in attrs:
            self._in = "script"
        if tag == "style":
            self.problems.append("a <style> element")
        for k, v in attrs.items():
            if k == "style" or k.startswith("on"):
                self.problems.append(f"<{tag} {k}=...>")
            if k in ("href", "src") and v and v.strip().lower().startswith("javascript:"):
                self.problems.append(f"<{tag} {k}=javascript:...>")

    def handle_data(self, data):
        if self._in and data.strip():
            self.problems.append(f"an inline <{self._in}>: {data.strip()[:40]}")

    def handle_endtag(self, tag):
        self._in = None


def test_the_page_has_no_inline_script_or_style(http):
    parser = _Inline()
    parser.feed(http.get("/").text)
    assert parser.problems == []
