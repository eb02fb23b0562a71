"""Round and match summaries in the API: they appear only once their round is over, show
every hand (but the one that would tell a 2-player opponent's next hand), and explain every
score (Scout: collected cards + scored chips - cards left in hand unless exempt; Sly: Safe
Hens + gobbled Hens + captured Foxes)."""

from __future__ import annotations

import httpx
import numpy as np
import pytest

from .conftest import LiveServer


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    s = LiveServer(str(tmp_path_factory.mktemp("summary-state")))
    yield s
    s.stop()


def play_out(server, body, seed):
    """A whole match of random moves; (every table answered, every round_end event, the final state)."""
    rng = np.random.default_rng(seed)
    with httpx.Client(base_url=server.url, timeout=60) as http:
        t = http.post("/api/games", json=body | {"seed": str(seed)}).json()
        tables, ends = [t], []
        while not t["over"]:
            move = int(rng.choice([m["id"] for m in t["legal"]]))
            r = http.post(f"/api/games/{t['id']}/moves", json={"action": move})
            assert r.status_code == 200, r.text
            out = r.json()
            ends += [e["round_end"] for e in out["events"] if "round_end" in e]
            t = out["table"]
            tables.append(t)
    return tables, ends, server.app.state.store.get(t["id"]).match.env.state_dict()


@pytest.mark.parametrize("players,rounds", [(3, 2), (2, 3), (5, 1), (4, None)])
def test_scout_round_summaries(server, players, rounds):
    options = {"rounds": rounds} if rounds else {}
    tables, ends, final = play_out(server, {"game": "scout", "players": players,
                                            "bots": ["greedy"] * (players - 1), "options": options}, players)
    t = tables[-1]
    assert len(ends) == len(final["round_scores"]) == final["rounds"]
    assert [e["round"] for e in ends] == list(range(final["rounds"]))
    assert [e["last"] for e in ends] == [False] * (len(ends) - 1) + [True]
    for e in ends:
        r = e["round"]
        assert e["reason"] == final["round_end_reasons"][r]
        for s, part in enumerate(e["seats"]):
            counted = part["hand_count"] if part["hand_counted"] else 0
            assert part["score"] == part["collected"] + part["chips_scored"] - counted == final["round_scores"][r][s]
            assert part["total"] == sum(x[s] for x in final["round_scores"][:r + 1])
            hidden = players == 2 and r % 2 == 0 and not e["last"] and s != t["seat"]
            assert (part["hand"] is None) == hidden
            if part["hand"] is not None:
                assert len(part["hand"]) == part["hand_count"]
        assert not all(p["hand_counted"] for p in e["seats"])  # the owner of the last set keeps its hand
        if e["reason"] == "i":
            assert e["seats"][e["ender"]]["hand_count"] == 0
    # The match end: every hand face up, as the final state holds them.
    assert [p["hand"] for p in ends[-1]["seats"]] == final["hands"]
    assert t["round_end"] == ends[-1]
    # A summary only once its round is over: the table's is always of a finished round.
    for tab in tables:
        done = len(tab["view"]["round_scores"])
        assert (tab["round_end"] is None) == (done == 0)
        if tab["round_end"]:
            assert tab["round_end"]["round"] == done - 1


@pytest.mark.parametrize("players", [2, 3, 4])
def test_sly_final_flip_summary(server, players):
    tables, ends, final = play_out(server, {"game": "sly", "players": players, "bots": ["greedy"] * (players - 1)},
                                   10 + players)
    assert len(ends) == 1 and ends[0]["last"] and tables[-1]["round_end"] == ends[0]
    assert all(t["round_end"] is None for t in tables[:-1])
    e = ends[0]
    assert e["reason"] == final["end_reason"] and e["spaces"] == final["spaces"]
    for s, part in enumerate(e["seats"]):
        assert part["safe"] + part["gobbled"] + part["captured"] == part["score"] == final["scores"][s]
        assert part["hand"] == final["hands"][s]


def test_summaries_survive_a_restart_and_a_download(server, tmp_path):
    tables, ends, _ = play_out(server, {"game": "scout", "players": 3, "bots": ["greedy", "greedy"],
                                        "options": {"rounds": 2}}, 99)
    gid = tables[-1]["id"]
    again = LiveServer(server.app.state.store.state_dir)
    try:
        assert httpx.get(f"{again.url}/api/games/{gid}").json()["round_end"] == ends[-1]
    finally:
        again.stop()
    data = httpx.get(f"{server.url}/api/games/{gid}/save").json()
    assert data["web"]["round_ends"] == ends


def test_an_upload_keeps_good_summaries_and_drops_bad_ones(server):
    tables, ends, _ = play_out(server, {"game": "sly", "players": 2, "bots": ["greedy"]}, 5)
    data = httpx.get(f"{server.url}/api/games/{tables[-1]['id']}/save").json()
    up = httpx.post(f"{server.url}/api/games/upload", json=data).json()
    assert up["round_end"] == ends[-1]
    for bad in ("x", [{"game": "scout"}], [dict(ends[0], seats=[{"seat": 0}] * 2)],
                [dict(ends[0], seats=[dict(p, score="9") for p in ends[0]["seats"]])]):
        d = dict(data, web=dict(data["web"], round_ends=bad))
        r = httpx.post(f"{server.url}/api/games/upload", json=d)
        assert r.status_code == 201 and r.json()["round_end"] is None, bad
