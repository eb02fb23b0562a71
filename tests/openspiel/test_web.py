"""OpenSpiel's ISMCTS seated at the web table: offered on the start page and playing a whole Sly game over HTTP."""

from __future__ import annotations

import httpx
import pytest

from ..conftest import INSTALL_WEB, require
from .helpers import pyspiel  # noqa: F401  (the openspiel extra, required under CI)

for _module in ("starlette", "uvicorn"):
    require(_module, INSTALL_WEB)

from ..web.conftest import LiveServer  # noqa: E402


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    s = LiveServer(str(tmp_path_factory.mktemp("os-web")), max_games=4)
    yield s
    s.stop()


def test_openspiel_ismcts_is_offered_and_plays_a_whole_game(server):
    with httpx.Client(base_url=server.url, timeout=120, headers={"Content-Type": "application/json"}) as http:
        setup = http.get("/api/setup").json()
        sly = next(g for g in setup["games"] if g["name"] == "sly")
        assert "openspiel_ismcts" in [b["spec"] for b in sly["bots"]]
        r = http.post("/api/games", json={"game": "sly", "players": 2, "bots": ["openspiel_ismcts:iterations=4"],
                                          "seed": "3"})
        assert r.status_code == 201, r.text
        t = r.json()
        moves = 0
        while t["legal"]:
            t = http.post(f"/api/games/{t['id']}/moves", json={"action": t["legal"][0]["id"]}).json()["table"]
            moves += 1
            assert moves < 200
        assert moves > 0 and t["over"]
