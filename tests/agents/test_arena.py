"""The arena: seat balance, duplicate deals, determinism, outputs."""

import csv
import json
from collections import Counter

import numpy as np
import pytest

from agents import Agent, register, unregister
from agents.arena import derive_seed, run_arena, seating_block
from agents.cli import build_parser, run_arena as cli_run_arena
from sly_scout_env import scout_v0


@pytest.mark.parametrize(
    "entries, players, size",
    [(2, 2, 2), (3, 2, 6), (3, 3, 6), (4, 4, 24), (5, 5, 120), (2, 4, 6), (3, 4, 36), (1, 3, 1), (6, 5, 6), (2, 5, 20)],
)
def test_seat_balance(entries, players, size):
    block = seating_block(entries, players)
    assert len(block) == size
    assert len(set(block)) == len(block)  # no seating twice
    per_seat = [Counter(seating[k] for seating in block) for k in range(players)]
    for e in range(entries):
        counts = {per_seat[k][e] for k in range(players)}
        assert len(counts) == 1 and counts.pop() > 0, f"entry {e} does not hold every seat equally often"
    # Every entry plays the same number of seats in total.
    totals = Counter(e for seating in block for e in seating)
    assert len(set(totals.values())) == 1


def test_full_permutations_when_feasible():
    block = seating_block(3, 2)
    assert sorted(block) == [(0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1)]


def test_duplicate_deals_identical_across_seatings():
    res = run_arena("scout", 3, ["random", "random", "random"], games=18, seed=11, workers=1, progress=False)
    by_deal = {}
    for r in res.records:
        by_deal.setdefault(r.deal, set()).add(r.deal_digest)
    assert len(by_deal) == 3 and all(len(v) == 1 for v in by_deal.values())
    assert len({next(iter(v)) for v in by_deal.values()}) == 3  # different deals differ
    # The deal's hands, read from the env: the same whichever seating plays it.
    env = scout_v0.raw_env(num_players=3)
    env.reset(seed=derive_seed(11, 0))
    hands = env.state_dict()["hands"]
    env.reset(seed=derive_seed(11, 1))
    assert env.state_dict()["hands"] != hands


def _round_deals(bot_seed, seed=5):
    """Scout 3 players: the hands dealt at the start of each round, under random play seeded bot_seed."""
    env = scout_v0.raw_env(num_players=3)
    env.reset(seed=seed)
    rng = np.random.default_rng(bot_seed)
    deals, last_round = [env.state_dict()["hands"]], 0
    while not env.terminations[env.agent_selection]:
        env.step(int(rng.choice(np.flatnonzero(env.legal_action_mask()))))
        d = env.state_dict()
        if d["round"] != last_round and d["phase"] == "flip":
            last_round = d["round"]
            deals.append(d["hands"])
    return deals


def test_later_rounds_deals_do_not_depend_on_the_moves():
    a, b = _round_deals(1), _round_deals(2)
    assert len(a) == len(b) == 3
    assert a == b


def test_results_deterministic_across_worker_counts():
    kw = dict(games=12, seed=3, progress=False)
    one = run_arena("sly", 3, ["random", "random"], workers=1, **kw)
    two = run_arena("sly", 3, ["random", "random"], workers=2, **kw)
    assert one.to_dict() == two.to_dict()
    assert [r.scores for r in one.records] == [r.scores for r in two.records]
    other = run_arena("sly", 3, ["random", "random"], workers=1, games=12, seed=4, progress=False)
    assert other.to_dict() != one.to_dict()


def test_statistics_are_consistent():
    res = run_arena("sly", 2, ["random", "random", "random"], games=30, seed=0, workers=1, progress=False)
    assert res.games == 30 and res.truncated == 0
    d = res.to_dict()
    # Each game has 2 seats -> 60 entries, spread evenly over 3 entries.
    assert [a["games"] for a in d["agents"]] == [20, 20, 20]
    assert sum(a["win_rate"] * a["games"] for a in d["agents"]) == pytest.approx(30)  # one win per game
    for a in d["agents"]:
        lo, hi = a["win_rate_ci95"]
        assert lo <= a["win_rate"] <= hi
    h = d["head_to_head"]
    for x in h:
        for y in h[x]:
            assert h[x][y] + h[y][x] == pytest.approx(1.0)
    # Means from the records, computed here.
    for e, a in enumerate(d["agents"]):
        mine = [r.scores[k] for r in res.records for k, s in enumerate(r.seating) if s == e]
        assert a["mean_score"] == pytest.approx(np.mean(mine))


def test_step_guard_truncates_and_reports():
    res = run_arena("scout", 2, ["random"], games=2, seed=0, workers=1, progress=False, max_steps=3)
    assert res.truncated == res.games == 2
    assert "truncated" in res.table()
    assert res.to_dict()["agents"][0]["games"] == 0


class _Illegal(Agent):
    def act(self, observation, action_mask, info):
        return int(np.flatnonzero(action_mask == 0)[0])


def test_illegal_move_names_the_bot():
    register("illegal_t", _Illegal)
    try:
        with pytest.raises(ValueError, match="illegal_t"):
            run_arena("sly", 2, ["illegal_t", "random"], games=2, workers=1, progress=False)
    finally:
        unregister("illegal_t")


class _Peek(Agent):
    """Records the views it gets."""

    seen = []

    def act(self, observation, action_mask, info):
        _Peek.seen.append(info["view"])
        return int(np.flatnonzero(action_mask)[0])


def test_bots_get_their_redacted_view():
    register("peek_t", _Peek)
    try:
        run_arena("sly", 3, ["peek_t", "random"], games=6, workers=1, progress=False)
    finally:
        unregister("peek_t")
    assert _Peek.seen
    for v in _Peek.seen:
        assert "rng" not in v
        for s, hand in enumerate(v["hands"]):
            if s != v["viewer"]:
                assert all(c is None or c in v["known_in_hand"][s] for c in hand)


def test_bad_arguments():
    with pytest.raises(ValueError, match="unknown bot"):
        run_arena("sly", 3, ["nobody"], games=1, progress=False)
    with pytest.raises(ValueError, match="num_players"):
        run_arena("sly", 7, ["random"], games=1, progress=False)
    with pytest.raises(ValueError, match="games"):
        run_arena("sly", 3, ["random"], games=0, progress=False)


def test_cli_writes_json_and_csv(tmp_path, capsys):
    jpath, cpath = tmp_path / "r.json", tmp_path / "r.csv"
    args = build_parser().parse_args(
        ["arena", "sly", "--players", "3", "--agents", "random,random", "--games", "6", "--workers", "1",
         "--json", str(jpath), "--csv", str(cpath), "--no-progress", "--option", "reveal_scope=all"]
    )
    cli_run_arena(args)
    printed = capsys.readouterr().out
    assert "mean score" in printed and "head-to-head" in printed
    data = json.loads(jpath.read_text())
    assert {"game", "players", "games", "agents", "head_to_head"} <= set(data)
    assert data["game"] == "sly" and data["players"] == 3 and data["games"] == 6
    assert data["options"] == {"reveal_scope": "all"}
    for a in data["agents"]:
        assert {"name", "mean_score", "win_rate", "win_rate_ci95", "rating_mu", "rating_sigma"} <= set(a)
        assert len(a["win_rate_ci95"]) == 2
    assert set(data["head_to_head"]) == {"random", "random#2"}
    rows = list(csv.DictReader(cpath.open()))
    assert [r["name"] for r in rows] == ["random", "random#2"]
    assert float(rows[0]["mean_score"]) == pytest.approx(data["agents"][0]["mean_score"], abs=1e-6)
    assert rows[0]["vs_random#2"] != "" and rows[0]["vs_random"] == ""


class _First(Agent):
    def act(self, observation, action_mask, info):
        return int(np.flatnonzero(action_mask)[0])


def test_runtime_registered_bot_in_worker_processes():
    # The factory travels to the spawned workers by reference, though their registry lacks the name.
    register("first_t", _First)
    register("lambda_t", lambda: _First())
    try:
        one = run_arena("sly", 2, ["first_t", "random"], games=4, seed=1, workers=1, progress=False)
        two = run_arena("sly", 2, ["first_t", "random"], games=4, seed=1, workers=2, progress=False)
        assert one.to_dict() == two.to_dict()
        with pytest.raises(ValueError, match="worker processes"):
            run_arena("sly", 2, ["lambda_t", "random"], games=4, seed=1, workers=2, progress=False)
        assert run_arena("sly", 2, ["lambda_t", "random"], games=4, seed=1, workers=1, progress=False).games == 4
    finally:
        unregister("first_t")
        unregister("lambda_t")


def test_short_runs_use_the_rotation():
    res = run_arena("sly", 3, ["random", "random", "random"], games=3, seed=0, workers=1, progress=False)
    assert res.games == 3 and len(res.seatings) == 3  # not the 6 permutations
    assert sorted(res.seatings) == [(0, 1, 2), (1, 2, 0), (2, 0, 1)]
    one = run_arena("sly", 4, ["random"], games=2, seed=0, workers=1, progress=False)
    assert one.to_dict()["agents"][0]["win_rate"] == pytest.approx(0.25)  # all four seats are one bot
    assert one.head_to_head == {"random": {}}
