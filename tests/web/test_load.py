"""benchmarks/web_load.py, small: concurrent players on the real server, a slow bot in one
game, the server's memory. Asserted: no error, no game lost, and other games answered
while the slow bot was thinking (their latency is reported, not asserted: shared machine)."""

from __future__ import annotations

import asyncio

import pytest

from benchmarks.web_load import Server, run_load


def test_concurrent_players_a_slow_bot_and_no_game_lost():
    server = Server(max_games=5)
    try:
        report = asyncio.run(run_load(server.url, players=3, games=2, iterations=10, slow=1.5, slow_delay=0.3,
                                      server_pid=server.proc.pid))
    finally:
        server.stop()
    s = report.summary()
    print(s)
    assert s["errors"] == 0, report.errors
    assert s["games_lost"] == 0 and s["games"] == 6
    assert s["moves"] > 10
    # The slow bot's answer took its time, and the other games went on meanwhile, much faster.
    assert s["slow_s"] >= 1.0
    assert s["moves_during_slow"] >= 3, s
    assert s["p99_during_slow_ms"] < s["slow_s"] * 1000, s


def test_hard_timing_plays_each_tables_hard_bot(monkeypatch):
    from benchmarks.web_load import hard_timing
    from sly_scout_env.agents.ui.web import words
    from sly_scout_env.games import all_games

    monkeypatch.setattr(words, "HARD_BY_TABLE", {("sly", 2): "expert:iterations=20"})
    rows = hard_timing("ismcts:iterations=20", moves=3)
    assert [(g, n) for g, n, *_ in rows] == [(g.name, n) for g in all_games() for n in g.player_counts]
    assert {spec for _, _, spec, _, _ in rows} == {"ismcts:iterations=20"}
    assert all(0 < med <= top for *_, med, top in rows)
    monkeypatch.setattr(words, "LEVELS", [("Hard", "ismcts:iterations=20")])
    specs = {(g, n): spec for g, n, spec, _, _ in hard_timing(moves=3)}
    assert specs.pop(("sly", 2)) == "expert:iterations=20"
    assert set(specs.values()) == {"ismcts:iterations=20"}
    assert [r[:3] for r in hard_timing(moves=3, tables={("sly", 2)})] == [("sly", 2, "expert:iterations=20")]


def test_hard_timing_refuses_an_unknown_table(capsys):
    from benchmarks.web_load import main

    with pytest.raises(SystemExit):
        main(["--hard-timing", "--hard-table", "sly:5"])
    err = capsys.readouterr().err
    assert "--hard-table 'sly:5' is not a table" in err and "scout:2" in err and "sly:4" in err
