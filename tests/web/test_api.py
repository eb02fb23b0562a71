"""The web table's JSON API over real HTTP (httpx against uvicorn on 127.0.0.1): setup,
moves, bots, every refused input (400 naming the field, state unchanged), 404, the
state directory across a restart, download/upload in ``sly-scout play``'s save format,
and the redaction of everything the human seat cannot know.
"""

from __future__ import annotations

import json

import httpx
import numpy as np
import pytest

from sly_scout_env.agents.ui.play import Match, check_save
from sly_scout_env.games import GAMES, get_game
from sly_scout_env.views import player_view

from .conftest import LiveServer


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    s = LiveServer(str(tmp_path_factory.mktemp("api-state")), max_games=6, max_body=4096)
    yield s
    s.stop()


@pytest.fixture
def http(server):
    # Every request as JSON, as the page sends them (the server refuses anything else that changes state).
    with httpx.Client(base_url=server.url, timeout=60, headers={"Content-Type": "application/json"}) as c:
        yield c


def new_game(http, **body):
    body = {"game": "scout", "players": 3, "bots": ["random", "random"], "seed": 5} | body
    r = http.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def refused(r, field, status=400):
    assert r.status_code == status, r.text
    err = r.json()
    assert err["field"] == field, err
    assert err["error"]
    return err


def full_state(server, game_id):
    return server.app.state.store.get(game_id).match.env.state_dict()


def test_setup_lists_games_options_and_bots(http):
    setup = http.get("/api/setup").json()
    assert [g["name"] for g in setup["games"]] == list(GAMES)
    for g in setup["games"]:
        spec = get_game(g["name"])
        assert g["player_counts"] == list(spec.player_counts)
        assert [o["name"] for o in g["options"]] == list(spec.option_names)
        assert all(o["help"] for o in g["options"])
        specs = [b["spec"] for b in g["bots"]]
        assert "greedy" in specs and "ismcts" in specs
        assert "ppo" not in specs  # it loads a file: only checkpoints allowed by the server
        assert all(b["description"] for b in g["bots"])


def test_new_game_with_bots_first_and_a_seed_replays_the_deal(http, server):
    a = new_game(http, seat=2, bots=["greedy", "random"], seed=123)
    # The two bots before seat 2 have made their flip decisions.
    assert a["your_turn"] and a["to_act"] == 2 and a["moves_played"] == 2
    assert [e["seat"] for e in a["log"][1:]] == [0, 1]
    b = new_game(http, seat=2, bots=["greedy", "random"], seed=123)
    assert a["view"]["hands"][2] == b["view"]["hands"][2] and a["id"] != b["id"]
    assert a["view"] == player_view(full_state(server, a["id"]), 2)


def test_seeds_are_strings_end_to_end(http, server):
    """Seeds go up to 2**63 - 1; a JavaScript number holds integers exactly up to 2**53 only,
    so the API answers seeds as strings and takes strings (and ints, for scripts and old saves)."""
    big = 2**63 - 25  # rounds to 9223372036854775808 as a JavaScript number
    a = new_game(http, seed=str(big))
    assert a["seed"] == str(big) and server.app.state.store.get(a["id"]).match.seed == big
    b = new_game(http, seed=big)
    assert b["seed"] == str(big) and b["view"] == a["view"]
    assert new_game(http, seed=" 123 ")["seed"] == "123"
    fresh = new_game(http, seed=None)
    assert isinstance(fresh["seed"], str) and fresh["seed"].isdigit()
    again = new_game(http, seed=fresh["seed"])
    assert again["view"] == fresh["view"]
    # The download keeps an int (the format of `sly-scout play`, whose saves hold ints) ...
    data = http.get(f"/api/games/{a['id']}/save").json()
    assert data["seed"] == big
    # ... and an upload takes either.
    for seed in (big, str(big)):
        up = http.post("/api/games/upload", json=data | {"seed": seed})
        assert up.status_code == 201 and up.json()["seed"] == str(big), up.text
    before = http.get("/api/games").json()["games"]
    for bad in ("abc", "-1", "1e5", "0x10", str(2**63), "", "١٢", 2**63, 1.5, True, [1]):
        err = refused(http.post("/api/games", json={"game": "scout", "seed": bad}), "seed")
        assert "string of digits" in err["error"]
    assert http.get("/api/games").json()["games"] == before


def test_moves_return_the_bots_events_and_the_new_table(http, server):
    t = new_game(http, game="sly", players=3, bots=["greedy", "ismcts:iterations=10"], seed=9)
    lay = next(m for m in t["legal"] if m["move"]["type"] == "lay")
    r = http.post(f"/api/games/{t['id']}/moves", json={"action": lay["id"], "turn": t["moves_played"]})
    assert r.status_code == 200, r.text
    out = r.json()
    assert [e["seat"] for e in out["events"]] == [0, 1, 2]
    assert out["events"][0]["lines"][0] == f"You: {lay['text']}"
    for e in out["events"][1:]:
        assert "lay a card face down" in e["lines"][0] or "expose" in e["lines"][0] or "reveal" in e["lines"][0]
    assert out["table"]["moves_played"] == 3 and out["table"]["your_turn"]
    assert out["events"][-1]["view"] == out["table"]["view"]
    assert http.get(f"/api/games/{t['id']}").json() == out["table"]


def test_every_bad_setup_is_refused_with_the_field_and_the_allowed_values(http, server):
    before = http.get("/api/games").json()["games"]
    cases = [
        ({"game": "chess"}, "game"),
        ({"game": "sly", "players": 5}, "players"),
        ({"game": "scout", "players": "3"}, "players"),
        ({"game": "scout", "players": 3, "seat": 3}, "seat"),
        ({"game": "scout", "players": 3, "options": {"rounds": 0}}, "options.rounds"),
        ({"game": "scout", "players": 3, "options": {"roundz": 1}}, "options.roundz"),
        ({"game": "sly", "players": 3, "options": {"reveal_scope": "some"}}, "options.reveal_scope"),
        ({"game": "scout", "players": 3, "bots": ["random", "alphazero"]}, "bots[1]"),
        ({"game": "scout", "players": 3, "bots": ["random"]}, "bots"),
        ({"game": "scout", "players": 3, "bots": ["random", "ismcts:iterations=999999"]}, "bots[1]"),
        ({"game": "scout", "players": 3, "bots": ["random", "ismcts:rollout=random"]}, "bots[1]"),
        ({"game": "scout", "players": 3, "bots": ["ppo:path=/etc/passwd", "random"]}, "bots[0]"),
        ({"game": "scout", "players": 3, "bots": ["ppo:checkpoint=nope", "random"]}, "bots[0]"),
        ({"game": "scout", "players": 3, "seed": -1}, "seed"),
        ({"game": "scout", "players": 3, "colour": "red"}, "colour"),
    ]
    for body, field in cases:
        err = refused(http.post("/api/games", json=body), field)
        assert err.get("allowed") not in (None, [], ""), err
    err = refused(http.post("/api/games", json={"game": "chess"}), "game")
    assert err["allowed"] == list(GAMES)
    err = refused(http.post("/api/games", json={"game": "sly", "players": 5}), "players")
    assert err["allowed"] == [2, 3, 4]
    assert "ppo:checkpoint=NAME" in refused(http.post("/api/games", json=cases[11][0]), "bots[0]")["error"]
    # Malformed JSON, a body that is no object, an oversized body.
    refused(http.post("/api/games", content=b'{"game": "scout",', headers={"content-type": "application/json"}), "body")
    refused(http.post("/api/games", json=[1, 2]), "body")
    big = json.dumps({"game": "scout", "pad": "x" * 5000})
    err = refused(http.post("/api/games", content=big, headers={"content-type": "application/json"}), "body")
    assert err["allowed"] == [4096]
    # Chunked (no content-length): the limit holds while reading.
    err = refused(http.post("/api/games", content=iter([big[:3000].encode(), big[3000:].encode()])), "body")
    assert http.get("/api/games").json()["games"] == before  # nothing was created


def test_bad_moves_are_refused_and_change_nothing(http, server):
    t = new_game(http)
    gid = t["id"]
    state = full_state(server, gid)
    legal = [m["id"] for m in t["legal"]]
    bad_moves = [
        ({"action": 5000}, "action"),
        ({"action": "0"}, "action"),
        ({"action": True}, "action"),
        ({}, "action"),
        ({"action": legal[0], "turn": t["moves_played"] + 1}, "turn"),
        ({"action": legal[0], "extra": 1}, "extra"),
    ]
    illegal = next(a for a in range(2, 200) if a not in legal)  # a Show during the flip phase
    bad_moves.append(({"action": illegal}, "action"))
    for body, field in bad_moves:
        err = refused(http.post(f"/api/games/{gid}/moves", json=body), field)
        if field == "action" and body:
            assert err["allowed"] == legal
    refused(http.post(f"/api/games/{gid}/moves", content=b"{nope"), "body")
    refused(http.post(f"/api/games/{gid}/moves", content=b'{"action": 0, "pad": "' + b"x" * 5000 + b'"}'), "body")
    assert full_state(server, gid) == state
    assert http.get(f"/api/games/{gid}").json() == t
    # Out of turn: once the match is over, no move is anyone's.
    g = server.app.state.store.get(gid)
    while not g.over:
        r = http.post(f"/api/games/{gid}/moves", json={"action": g.snapshot["legal"][0]["id"]})
        assert r.status_code == 200
    done = full_state(server, gid)
    err = refused(http.post(f"/api/games/{gid}/moves", json={"action": 0}), "action")
    assert "over" in err["error"] and full_state(server, gid) == done


def test_out_of_turn_is_refused(server):
    # A game whose turn is a bot's (as while another tab's request is running).
    from sly_scout_env.agents.ui.web.session import BadInput, WebGame

    g = WebGame.new("x", "sly", 2, 1, get_game("sly").default_options(), ["random"], 3)
    assert not g.your_turn()
    state = g.match.env.state_dict()
    with pytest.raises(BadInput) as exc:
        g.play(0)
    assert exc.value.field == "action" and "player_0's turn" in str(exc.value)
    assert g.match.env.state_dict() == state


def test_unknown_ids_get_404_and_delete_works(http):
    for r in (http.get("/api/games/nope"), http.post("/api/games/nope/moves", json={"action": 0}),
              http.delete("/api/games/nope"), http.get("/api/games/nope/save"),
              http.post("/api/games/nope/rematch")):
        refused(r, "id", 404)
    t = new_game(http)
    assert any(g["id"] == t["id"] for g in http.get("/api/games").json()["games"])
    assert http.delete(f"/api/games/{t['id']}").json() == {"deleted": t["id"]}
    refused(http.get(f"/api/games/{t['id']}"), "id", 404)


def test_games_kept_are_limited(http, server):
    ids = [new_game(http)["id"] for _ in range(8)]
    kept = {g["id"] for g in http.get("/api/games").json()["games"]}
    assert len(kept) <= 6 and set(ids[-6:]) <= kept


def test_state_dir_survives_a_restart_and_play_reads_the_download(tmp_path, http, server):
    t = new_game(http, game="sly", players=2, bots=["greedy"], seed=31)
    lay = t["legal"][0]["id"]
    t = http.post(f"/api/games/{t['id']}/moves", json={"action": lay}).json()["table"]
    # A second server on the same state dir (a restart) knows the game, log included.
    again = LiveServer(server.app.state.store.state_dir)
    try:
        same = httpx.get(f"{again.url}/api/games/{t['id']}").json()
        assert same == t
        nxt = same["legal"][0]["id"]
        assert httpx.post(f"{again.url}/api/games/{t['id']}/moves", json={"action": nxt}).status_code == 200
    finally:
        again.stop()
    # The download is a save of `sly-scout play`: play's loader accepts it and resumes the same position.
    data = http.get(f"/api/games/{t['id']}/save").json()
    check_save(data)
    assert data["state"] == full_state(server, t["id"])
    m = Match(data["game"], data["players"], data["opponents"], data["seed"], data["seat"], data["options"], None)
    m.restore(data)
    assert m.env.state_dict() == data["state"] and m.moves_played == t["moves_played"]
    # Uploading it gives a new game at the same position.
    up = http.post("/api/games/upload", json=data)
    assert up.status_code == 201, up.text
    up = up.json()
    assert up["id"] != t["id"] and up["view"] == t["view"] and up["moves_played"] == t["moves_played"]
    # The move log in the file ("web") comes along, with a line saying where it came from.
    assert up["log"][:-1] == t["log"] and "uploaded" in up["log"][-1]["lines"][0]
    # A log that is not one (a seat out of range, no lines, not text) is replaced by one line.
    for bad in ([{"seat": 9, "lines": ["x"]}], [{"seat": 0, "lines": []}], [{"seat": 0, "lines": [1]}], "log",
                [{"seat": 0, "lines": ["x"], "html": "<b>"}]):
        up = http.post("/api/games/upload", json=data | {"web": {"log": bad}})
        assert up.status_code == 201 and len(up.json()["log"]) == 1 and "Resumed" in up.json()["log"][0]["lines"][0]


def test_bad_uploads_are_refused(http):
    t = new_game(http, game="sly", players=2, bots=["random"])
    data = http.get(f"/api/games/{t['id']}/save").json()
    data.pop("web")
    refused(http.post("/api/games/upload", json={"format": "something else"}), "body")
    refused(http.post("/api/games/upload", json=data | {"opponents": ["ppo:path=/tmp/x.zip"]}), "bots[0]")
    refused(http.post("/api/games/upload", json=data | {"players": 7}), "players")
    broken = json.loads(json.dumps(data))
    broken["state"]["hands"][0] = [9, 9]
    refused(http.post("/api/games/upload", json=broken), "state")


def test_checkpoints_only_by_the_name_the_server_allows(tmp_path):
    from sly_scout_env.agents.ui.web.session import BadInput, check_bot, parse_checkpoints

    ckpt = tmp_path / "final.zip"
    ckpt.write_bytes(b"")
    allowed = parse_checkpoints([f"strong=ppo:{ckpt}"])
    assert check_bot("ppo:checkpoint=strong", "scout", "bots[0]", allowed) == f"ppo:path={ckpt}"
    for spec in ("ppo:checkpoint=weak", f"ppo:path={tmp_path}/other.zip", "ppo"):
        with pytest.raises(BadInput):
            check_bot(spec, "scout", "bots[0]", allowed)
    with pytest.raises(ValueError, match="NAME=BOT:PATH"):
        parse_checkpoints(["strong"])
    with pytest.raises(ValueError, match="no file"):
        parse_checkpoints([f"x=ppo:{tmp_path}/missing.zip"])


def _shuffle_hidden(state: dict, seat: int, rng) -> dict:
    """Another state with the same redacted view for ``seat``: the hidden cards dealt otherwise."""
    d = json.loads(json.dumps(state))
    view = player_view(state, seat)
    if d["game"] == "scout":
        if d["phase"] == "flip":  # nothing of the opponents is seen: swap whole hands
            slots = [(s, i) for s in range(d["num_players"]) if s != seat for i in range(len(d["hands"][s]))]
        else:
            slots = [(s, i) for s in range(d["num_players"]) if s != seat
                     for i, v in enumerate(view["hands"][s]) if v is None]
        cards = [d["hands"][s][i] for s, i in slots]
        rng.shuffle(cards)
        for (s, i), c in zip(slots, cards):
            d["hands"][s][i] = c
        return d
    for s in range(d["num_players"]):  # Sly: an opponent's unseen cards trade places
        if s == seat:
            continue
        spaces = [i for i, (sp, v) in enumerate(zip(d["spaces"], view["spaces"]))
                  if sp is not None and sp["owner"] == s and v["card"] is None]
        known = list(d["known_in_hand"][s])
        unknown = [c for c in d["hands"][s] if c not in known]
        cards = [d["spaces"][i]["card"] for i in spaces] + unknown
        rng.shuffle(cards)
        for i, c in zip(spaces, cards):
            d["spaces"][i]["card"] = c
        d["hands"][s] = sorted(known + cards[len(spaces):])
    return d


@pytest.mark.parametrize("game,players", [("scout", 3), ("scout", 2), ("sly", 3), ("sly", 2)])
def test_responses_hold_nothing_the_seat_cannot_know(http, server, game, players):
    """At every turn: the view is the redacted view, and dealing the hidden cards otherwise
    (same redacted view) changes nothing in the response, so it holds nothing hidden."""
    rng = np.random.default_rng(players)
    t = new_game(http, game=game, players=players, bots=["greedy"] * (players - 1), seed=40 + players)
    gid = t["id"]
    env = server.app.state.store.get(gid).match.env
    changed = 0
    while not t["over"]:
        state = env.state_dict()
        assert t["view"] == player_view(state, t["seat"])
        other = _shuffle_hidden(state, t["seat"], rng)
        assert player_view(other, t["seat"]) == t["view"]
        changed += other != state
        env.from_state_dict(other)
        try:
            assert json.loads(json.dumps(server.app.state.store.get(gid).public())) == t
        finally:
            env.from_state_dict(state)
        # Bots' Sly lays never name the card; Scout flips are private choices.
        for e in t["log"]:
            if e["seat"] not in (None, t["seat"]):
                line = e["lines"][0]
                assert "lay Hen" not in line and "lay Fox" not in line, line
                assert "turn the whole hand" not in line and "keep the hand" not in line, line
        a = int(rng.choice([m["id"] for m in t["legal"]]))
        r = http.post(f"/api/games/{gid}/moves", json={"action": a}).json()
        for e in r["events"]:
            assert "rng" not in e["view"] and e["view"]["viewer"] == t["seat"]
        t = r["table"]
    assert changed >= 2


def test_the_server_answers_while_a_bot_thinks(http):
    """Bots run in worker threads: other requests are served while one is thinking."""
    import threading
    import time

    from sly_scout_env.agents.bots.random import RandomAgent
    from sly_scout_env.agents.bots.registry import register, unregister

    release = threading.Event()

    class SlowBot(RandomAgent):
        def act(self, observation, action_mask, info):
            release.wait(30)  # thinks until the test has been answered elsewhere
            return super().act(observation, action_mask, info)

    register("slowtest", SlowBot, description="waits for the test")
    try:
        t = new_game(http, game="sly", players=2, bots=["slowtest"])
        out = {}
        mover = threading.Thread(target=lambda: out.update(r=http.post(f"/api/games/{t['id']}/moves",
                                                                        json={"action": t["legal"][0]["id"]})))
        mover.start()
        time.sleep(0.2)
        assert mover.is_alive()  # the bot is thinking ...
        assert http.get("/api/setup").status_code == 200  # ... and the server answers
        assert http.get(f"/api/games/{t['id']}").status_code == 200
        assert mover.is_alive()
        release.set()
        mover.join(30)
        assert out["r"].status_code == 200 and out["r"].json()["table"]["moves_played"] == 2
    finally:
        release.set()
        unregister("slowtest")


def test_a_failing_bot_gives_500_and_keeps_the_game(http, server):
    from sly_scout_env.agents.bots.random import RandomAgent
    from sly_scout_env.agents.bots.registry import register, unregister

    class BrokenBot(RandomAgent):
        def act(self, observation, action_mask, info):
            raise RuntimeError("out of ideas")

    register("brokentest", BrokenBot, description="raises")
    try:
        t = new_game(http, game="sly", players=2, bots=["brokentest"])
        r = http.post(f"/api/games/{t['id']}/moves", json={"action": t["legal"][0]["id"]})
        assert r.status_code == 500 and "out of ideas" in r.json()["error"]
        after = http.get(f"/api/games/{t['id']}").json()
        assert after["moves_played"] == 1 and after["to_act"] == 1 and not after["your_turn"]
        assert after == r.json()["table"]
        # A move of mine is out of turn; {"action": null} lets the bot try again.
        refused(http.post(f"/api/games/{t['id']}/moves", json={"action": 0}), "action")
        assert http.post(f"/api/games/{t['id']}/moves", json={"action": None}).status_code == 500
        assert http.get(f"/api/games/{t['id']}").json()["moves_played"] == 1
        BrokenBot.act = RandomAgent.act
        r = http.post(f"/api/games/{t['id']}/moves", json={"action": None})
        assert r.status_code == 200 and r.json()["table"]["your_turn"] and r.json()["table"]["moves_played"] == 2
    finally:
        unregister("brokentest")
