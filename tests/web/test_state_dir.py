"""The state directory under stress: ``kill -9`` of the real server in mid-game and
during saves (every game comes back at its last answered move or the one in flight,
never damaged), damaged and foreign files set aside (renamed, never deleted) while the
rest load, an interrupted save that leaves the old file whole, and memory bounded by
``--max-games``.
"""

from __future__ import annotations

import gc
import json
import os
import random
import signal
import threading

import httpx
import pytest

from sly_scout_env.agents.ui.web.session import ASIDE_DIR, Store, WebGame
from sly_scout_env.games import get_game

from .conftest import LiveServer, free_port
from .test_cli import serve, wait_up

JSON = {"Content-Type": "application/json"}


def a_game(url, **body) -> dict:
    body = {"game": "sly", "players": 2, "bots": ["random"], "seed": "1"} | body
    r = httpx.post(url + "/api/games", json=body, timeout=60)
    assert r.status_code == 201, r.text
    return r.json()


def check_after_restart(before: dict, now: dict) -> str:
    """``now`` is ``before`` (the last answer the client got) or one move of mine later (the
    move in flight when the server died, saved before its answer went out)."""
    if now["moves_played"] == before["moves_played"]:
        assert now["view"] == before["view"] and now["log"] == before["log"]
        return "same"
    assert now["moves_played"] > before["moves_played"], (before["moves_played"], now["moves_played"])
    assert now["log"][:len(before["log"])] == before["log"]
    mine = [e for e in now["log"][len(before["log"]):] if e["seat"] == now["seat"]]
    assert len(mine) == 1, now["log"][len(before["log"]):]
    return "one more"


def test_kill_9_mid_game_and_during_saves(tmp_path):
    state = tmp_path / "state"
    rng = random.Random(7)
    acked: dict[str, dict] = {}
    outcomes, unfinished = [], 0
    for kill in range(4):
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        proc = serve(state, "--port", str(port))
        try:
            setup = wait_up(url, proc).json()
            # Nothing damaged; at most the temporary file of a save cut short, set aside.
            for line in setup["skipped_saves"]:
                assert "unfinished save" in line, line
            unfinished += len(setup["skipped_saves"])
            for gid, before in acked.items():
                now = httpx.get(f"{url}/api/games/{gid}", timeout=30)
                assert now.status_code == 200, (kill, gid)
                outcomes.append(check_after_restart(before, now.json()))
                acked[gid] = now.json()
            for gid in [g for g, t in acked.items() if t["over"]]:
                acked.pop(gid)
            while len(acked) < 5:
                game = rng.choice(["sly", "scout"])
                t = a_game(url, game=game, players=3, bots=["random", "greedy"], seed=str(rng.randrange(10**9)))
                acked[t["id"]] = t

            def player(gid, url=url):
                client = httpx.Client(base_url=url, timeout=30, headers=JSON)
                r = random.Random(gid)
                try:
                    while not acked[gid]["over"]:
                        t = acked[gid]
                        move = r.choice(t["legal"])["id"]
                        res = client.post(f"/api/games/{gid}/moves", json={"action": move, "turn": t["moves_played"]})
                        assert res.status_code == 200, res.text
                        acked[gid] = res.json()["table"]
                except httpx.TransportError:  # the server was killed
                    pass
                finally:
                    client.close()

            threads = [threading.Thread(target=player, args=(gid,)) for gid in list(acked)]
            for th in threads:
                th.start()
            threading.Event().wait(rng.uniform(0.4, 1.2))
        finally:
            os.kill(proc.pid, signal.SIGKILL)
            proc.communicate(timeout=30)
        for th in threads:
            th.join(30)
        assert proc.returncode == -signal.SIGKILL
    # A last start: everything loads.
    port = free_port()
    proc = serve(state, "--port", str(port))
    try:
        url = f"http://127.0.0.1:{port}"
        assert all("unfinished save" in s for s in wait_up(url, proc).json()["skipped_saves"])
        for gid, before in acked.items():
            outcomes.append(check_after_restart(before, httpx.get(f"{url}/api/games/{gid}", timeout=30).json()))
    finally:
        proc.terminate()
        proc.communicate(timeout=30)
    assert len(outcomes) >= 15, outcomes
    print(f"after kill -9: {outcomes.count('same')} games at the last answered move, "
          f"{outcomes.count('one more')} at the move in flight; {unfinished} unfinished saves set aside")


def test_damaged_and_foreign_files_are_set_aside_and_the_rest_load(tmp_path):
    s = LiveServer(str(tmp_path))
    try:
        good = a_game(s.url)
        other = a_game(s.url, game="scout", players=3, bots=["random", "random"])
    finally:
        s.stop()
    files = {
        "0123456789ab.json": b'{"format": "sly-scout-play", "game": "sly", ',  # cut short
        "ba9876543210.json": b'{"format": "something else"}',
        "cafe00000000.json": b"\xff\xfe not text",
        "notes.txt": b"my notes",
        ".0123456789ab.abcd.tmp": b'{"format": "sly-sc',
        "weird name.json": b"{}",
    }
    # A save whose state is broken (a Sly hand card that does not exist).
    broken = json.loads((tmp_path / f"{other['id']}.json").read_text())
    broken["state"]["hands"][0] = [99]
    files["deadbeef0000.json"] = json.dumps(broken).encode()
    for name, content in files.items():
        (tmp_path / name).write_bytes(content)
    s = LiveServer(str(tmp_path))
    try:
        setup = httpx.get(s.url + "/api/setup").json()
        assert httpx.get(f"{s.url}/api/games/{good['id']}").json() == good
        assert httpx.get(f"{s.url}/api/games/{other['id']}").json() == other
        assert {g["id"] for g in httpx.get(s.url + "/api/games").json()["games"]} == {good["id"], other["id"]}
    finally:
        s.stop()
    assert len(setup["skipped_saves"]) == len(files), setup["skipped_saves"]
    for name in files:
        assert any(line.startswith(f"{name}: ") for line in setup["skipped_saves"]), name
    assert any("unfinished save" in line for line in setup["skipped_saves"])
    assert any("not a saved game" in line and "notes.txt" in line for line in setup["skipped_saves"])
    # Renamed, never deleted: every byte is in set-aside/.
    aside = tmp_path / ASIDE_DIR
    for name, content in files.items():
        assert not (tmp_path / name).exists()
        assert (aside / name).read_bytes() == content
    # The next start finds nothing to report; a new damaged file of the same name gets a free name.
    (tmp_path / "notes.txt").write_bytes(b"again")
    store = Store(str(tmp_path), 50, {})
    assert len(store.skipped) == 1 and (aside / "notes.txt.1").read_bytes() == b"again"
    assert set(store.games) == {good["id"], other["id"]}


def test_a_save_cut_short_leaves_the_old_file_whole(tmp_path, monkeypatch):
    store = Store(str(tmp_path), 10, {})
    g = WebGame.new("abc", "sly", 2, 0, get_game("sly").default_options(), ["random"], 3)
    store.add(g)
    path = tmp_path / "abc.json"
    old = path.read_bytes()
    g.play(g.snapshot["legal"][0]["id"])

    def crash(*args):
        raise KeyboardInterrupt("killed while renaming")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(KeyboardInterrupt):
        store.save(g)
    monkeypatch.undo()
    assert path.read_bytes() == old
    assert sorted(os.listdir(tmp_path)) == ["abc.json"]  # the temporary file went with the failure
    # A game forgotten while its save was being written is not brought back by that save.
    store.delete("abc")
    store.save(g)
    assert os.listdir(tmp_path) == []


def _is_web_game(obj) -> bool:
    try:
        return isinstance(obj, WebGame)
    except ReferenceError:  # a weak proxy whose object is gone (isinstance looks through it)
        return False


def test_memory_stays_bounded_by_max_games(tmp_path):
    s = LiveServer(str(tmp_path), max_games=3)
    try:
        with httpx.Client(base_url=s.url, timeout=60, headers=JSON) as http:
            for k in range(40):
                t = http.post("/api/games", json={"game": "scout", "players": 3, "bots": ["greedy", "random"],
                                                  "seed": str(k)}).json()
                for _ in range(3):
                    t = http.post(f"/api/games/{t['id']}/moves", json={"action": t["legal"][0]["id"]}).json()["table"]
                assert len(http.get("/api/games").json()["games"]) <= 3
        gc.collect()
        alive = [o for o in gc.get_objects() if _is_web_game(o)]
        assert len(alive) <= 3 + 1, len(alive)  # the games kept, and at most one a request still holds
        assert len([n for n in os.listdir(tmp_path) if n.endswith(".json")]) <= 3
    finally:
        s.stop()
