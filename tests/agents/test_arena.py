"""The arena: entries and seatings, seat balance, duplicate deals, pooled statistics, intervals over deals,
calibration, determinism, outputs."""

import csv
import json
from collections import Counter

import numpy as np
import pytest

from sly_scout_env import scout_v0
from sly_scout_env.agents import Agent, register, unregister
from sly_scout_env.agents.evaluation.arena import GameRecord, derive_seed, resolve_entries, run_arena, seating_block
from sly_scout_env.agents.evaluation.report import ArenaResult, summarise
from sly_scout_env.agents.ui.cli import build_parser
from sly_scout_env.agents.ui.cli import run_arena as cli_run_arena


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


@pytest.mark.parametrize("players", [3, 4, 5])
def test_one_against_copies_is_one_seating_per_seat(players):
    """One bot against players-1 copies of another: `players` distinct seatings, not players!."""
    block = seating_block([0] + [1] * (players - 1), players)
    assert len(block) == players
    assert sorted(s.index(0) for s in block) == list(range(players))  # the lone bot at each seat once
    assert all(Counter(s) == {0: 1, 1: players - 1} for s in block)
    # The same through run_arena: one entry per bot, games rounded up to whole deals of `players` games.
    if players < 5:  # (Sly has no 5-player game; Scout's seating logic is the same code)
        res = run_arena("sly", players, ["greedy"] + ["random"] * (players - 1), games=2 * players + 1, seed=0,
                        workers=1, progress=False)
        assert res.agents == ["greedy", "random"] and len(res.seatings) == players
        assert res.deals == 3 and res.games == 3 * players
        assert [s.seats for s in res.stats] == [res.games, (players - 1) * res.games]


@pytest.mark.parametrize(
    "slots, players, size",
    [([0, 0, 1, 1, 1], 5, 10), ([0, 1, 1], 2, 3), ([0, 1, 2, 2], 4, 12), ([0, 0], 4, 1), ([0, 1, 1], 4, 10)],
)
def test_repeated_specs_give_distinct_balanced_seatings(slots, players, size):
    block = seating_block(slots, players)
    assert len(block) == size and len(set(block)) == size
    for e in set(slots):
        assert len({sum(s[k] == e for s in block) for k in range(players)}) == 1  # each seat equally often


def test_labels_keep_copies_apart_and_repeats_merge():
    kw = dict(games=6, seed=2, workers=1, progress=False)
    merged = run_arena("sly", 3, ["greedy", "greedy", "random"], **kw)
    assert merged.agents == ["greedy", "random"] and len(merged.seatings) == 3
    apart = run_arena("sly", 3, ["g1@greedy", "greedy:name=g2", "random"], **kw)
    assert apart.agents == ["g1", "g2", "random"] and len(apart.seatings) == 3  # the rotation: 6 games < 10 deals
    assert [s.spec for s in apart.stats] == ["greedy", "greedy", "random"]
    same = run_arena("sly", 3, ["g@greedy", "g@greedy", "random"], **kw)  # one label, one entry
    assert same.agents == ["g", "random"]
    with pytest.raises(ValueError, match="names two different bots"):
        run_arena("sly", 3, ["x@greedy", "x@random"], **kw)
    with pytest.raises(ValueError, match="label"):
        run_arena("sly", 3, ["bad label@greedy", "random"], **kw)
    with pytest.raises(ValueError, match="two labels"):
        run_arena("sly", 3, ["a@greedy:name=b", "random"], **kw)
    # Parameters are part of the spec: different parameters are different entries.
    entries, slots = resolve_entries(["ismcts:iterations=5", "ismcts:iterations=6", "ismcts:iterations=5"], "sly")
    assert [e.label for e in entries] == ["ismcts:iterations=5", "ismcts:iterations=6"] and slots == [0, 1, 0]
    assert [e.kwargs for e in entries] == [{"iterations": 5}, {"iterations": 6}]


def _record(deal, k, seating, scores):
    return GameRecord(deal, k, tuple(seating), list(scores), 10, False)


def test_pooled_statistics_on_a_hand_made_result():
    """Two deals of 'A against two copies of B' at 3 players, written by hand."""
    block = [(0, 1, 1), (1, 0, 1), (1, 1, 0)]
    scores = {
        (0, 0): [5, 3, 1],  # A wins
        (0, 1): [4, 4, 2],  # B and A tie for the top: 1/2 each
        (0, 2): [6, 2, 1],  # B (seat 0) wins
        (1, 0): [0, 7, 7],  # two B seats tie: B's seats get 1/2 + 1/2
        (1, 1): [1, 9, 3],  # A wins
        (1, 2): [2, 2, 8],  # A wins
    }
    records = [_record(d, k, block[k], scores[d, k]) for d in (0, 1) for k in range(3)]
    res = ArenaResult("sly", 3, ["A", "B"], {}, 0, 6, block, records)
    summarise(res)
    a, b = res.stats
    assert (a.seats, b.seats, a.deals, res.deals) == (6, 12, 2, 2)
    # Mean score per seat: A's seats score 5, 4, 1 | 0, 9, 8; B's the other twelve.
    assert a.mean_score == pytest.approx(27 / 6)
    assert b.mean_score == pytest.approx((3 + 1 + 4 + 2 + 6 + 2 + 7 + 7 + 1 + 3 + 2 + 2) / 12)
    # Win share per seat: A 1 + 1/2 + 0 | 0 + 1 + 1 -> 3.5 / 6; B the rest of the 6 wins over 12 seats.
    assert a.win_rate == pytest.approx(3.5 / 6)
    assert b.win_rate == pytest.approx(2.5 / 12)
    assert a.win_rate * a.seats + b.win_rate * b.seats == pytest.approx(res.games)  # one win per game
    # Intervals over the two deals: per-deal means 1.5/3 and 2/3, t with 1 degree of freedom.
    m = np.array([1.5 / 3, 2 / 3])
    half = 12.706205 * m.std(ddof=1) / np.sqrt(2)
    assert a.win_rate_ci95 == pytest.approx((max(0, m.mean() - half), min(1, m.mean() + half)), abs=1e-6)
    s = np.array([10 / 3, 17 / 3])
    half = 12.706205 * s.std(ddof=1) / np.sqrt(2)
    assert a.mean_score_ci95 == pytest.approx((s.mean() - half, s.mean() + half), abs=1e-6)
    # Head-to-head over the pairs (A seat, B seat) of each game, ties 1/2: A gets 2 + 1.5 + 0 in deal 0
    # (game (0, 1): A=4 ties B=4 and beats B=2) and 0 + 2 + 2 in deal 1, of 12 pairs.
    assert res.head_to_head["A"]["B"] == pytest.approx((2 + 1.5 + 0 + 0 + 2 + 2) / 12)
    assert res.head_to_head["A"]["B"] + res.head_to_head["B"]["A"] == pytest.approx(1.0)
    assert res.head_to_head_games == {"A": {"B": 12}, "B": {"A": 12}}
    d = np.array([3.5 / 6, 4 / 6])
    half = 12.706205 * d.std(ddof=1) / np.sqrt(2)
    assert res.head_to_head_ci95["A"]["B"] == pytest.approx((d.mean() - half, min(1, d.mean() + half)), abs=1e-6)
    # Truncated games count nowhere.
    records.append(GameRecord(2, 0, (0, 1, 1), [99, 0, 0], 5, True))
    res2 = ArenaResult("sly", 3, ["A", "B"], {}, 0, 6, block, records)
    summarise(res2)
    assert res2.stats[0].mean_score == a.mean_score and res2.stats[0].deals == 2


def test_calibration_interval_over_deals_covers_the_grand_mean():
    """100 independent small arenas (Sly, 4 players, greedy against three random copies, 5 deals
    = 20 games each): the 95% interval of each run covers the mean over all runs in about 95%
    of the runs (measured 0.94 for the win share, 0.96 for the mean score)."""
    runs = [
        run_arena("sly", 4, ["greedy", "random", "random", "random"], games=20, seed=i, workers=1, progress=False)
        for i in range(100)
    ]
    assert all(r.deals == 5 and r.games == 20 for r in runs)
    for entry in (0, 1):
        for value, ci in (("win_rate", "win_rate_ci95"), ("mean_score", "mean_score_ci95")):
            est = np.array([getattr(r.stats[entry], value) for r in runs])
            grand = est.mean()
            covered = np.mean([getattr(r.stats[entry], ci)[0] <= grand <= getattr(r.stats[entry], ci)[1] for r in runs])
            assert covered >= 0.9, (entry, value, covered)


def test_full_permutations_when_feasible():
    block = seating_block(3, 2)
    assert sorted(block) == [(0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1)]
    # run_arena uses them when the games fill 10 deals of them, else the rotation (more deals).
    kw = dict(seed=0, workers=1, progress=False)
    assert len(run_arena("sly", 2, ["random", "b@random", "c@random"], games=60, **kw).seatings) == 6
    assert len(run_arena("sly", 2, ["random", "b@random", "c@random"], games=59, **kw).seatings) == 3


def test_duplicate_deals_identical_across_seatings():
    res = run_arena("scout", 3, ["random", "b@random", "c@random"], games=9, seed=11, workers=1, progress=False)
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


@pytest.mark.parametrize("agents", [["random", "r2@random"], ["greedy", "random", "random"]])
def test_results_deterministic_across_worker_counts(agents):
    kw = dict(games=12, seed=3, progress=False)
    one = run_arena("sly", 3, agents, workers=1, **kw)
    two = run_arena("sly", 3, agents, workers=2, **kw)
    assert one.to_dict() == two.to_dict()
    assert [r.scores for r in one.records] == [r.scores for r in two.records]
    assert one.table() == two.table()
    other = run_arena("sly", 3, agents, workers=1, games=12, seed=4, progress=False)
    assert other.to_dict() != one.to_dict()


def test_statistics_are_consistent():
    res = run_arena("sly", 2, ["random", "random", "random"], games=30, seed=0, workers=1, progress=False)
    assert res.games == 30 and res.truncated == 0
    d = res.to_dict()
    # Three identical specs are one entry holding both seats of every game.
    assert [a["seats"] for a in d["agents"]] == [60] and d["deals"] == 30
    assert d["agents"][0]["win_rate"] == pytest.approx(0.5)  # parity 1/players: one win per game
    res = run_arena("sly", 2, ["random", "b@random", "c@random"], games=30, seed=0, workers=1, progress=False)
    d = res.to_dict()
    # Each game has 2 seats -> 60 seats, spread evenly over 3 entries; 30 games < 10 deals of the
    # 6 permutations, so the 3-seating rotation: 10 deals.
    assert [a["seats"] for a in d["agents"]] == [20, 20, 20] and d["deals"] == 10
    assert sum(a["win_rate"] * a["seats"] for a in d["agents"]) == pytest.approx(30)  # one win per game
    for a in d["agents"]:
        lo, hi = a["win_rate_ci95"]
        assert lo <= a["win_rate"] <= hi
        lo, hi = a["mean_score_ci95"]
        assert lo <= a["mean_score"] <= hi
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
    assert res.to_dict()["agents"][0]["seats"] == 0
    assert res.to_dict()["agents"][0]["win_rate"] is None  # NaN in Python, null in the JSON


def test_default_step_guard_is_the_one_the_cli_help_states():
    from sly_scout_env.agents.evaluation.arena import DEFAULT_MAX_STEPS

    arena = build_parser()._subparsers._group_actions[0].choices["arena"]
    guard = next(a for a in arena._actions if a.dest == "max_steps")
    assert f"default {DEFAULT_MAX_STEPS};" in guard.help
    # Far above the longest game of normal play (random Scout 5p: about 1,100 moves).
    assert 5_000 <= DEFAULT_MAX_STEPS <= 20_000


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
        ["arena", "sly", "--players", "3", "--agents", "random,random,greedy", "--games", "6", "--workers", "1",
         "--json", str(jpath), "--csv", str(cpath), "--no-progress", "--option", "reveal_scope=all"]
    )
    cli_run_arena(args)
    printed = capsys.readouterr().out
    assert "mean score" in printed and "head-to-head" in printed
    assert "6 games = 2 deals x 3 seatings" in printed and "intervals over the 2 deals" in printed
    data = json.loads(jpath.read_text())
    assert {"game", "players", "games", "deals", "agents", "head_to_head", "head_to_head_ci95", "interval"} <= set(data)
    assert data["game"] == "sly" and data["players"] == 3 and data["games"] == 6 and data["deals"] == 2
    assert data["options"] == {"reveal_scope": "all"}
    for a in data["agents"]:
        assert {"name", "spec", "seats", "deals", "mean_score", "mean_score_ci95", "win_rate", "win_rate_ci95",
                "win_rate_ci95_per_game_wilson", "rating_mu", "rating_sigma"} <= set(a)
        assert len(a["win_rate_ci95"]) == 2 and len(a["mean_score_ci95"]) == 2
    assert [a["seats_per_game"] for a in data["agents"]] == [2, 1]
    assert set(data["head_to_head"]) == {"random", "greedy"}
    lo, hi = data["head_to_head_ci95"]["random"]["greedy"]
    assert lo <= data["head_to_head"]["random"]["greedy"] <= hi
    rows = list(csv.DictReader(cpath.open()))
    assert [r["name"] for r in rows] == ["random", "greedy"]
    assert float(rows[0]["mean_score"]) == pytest.approx(data["agents"][0]["mean_score"], abs=1e-6)
    assert float(rows[0]["win_rate_lo"]) == pytest.approx(data["agents"][0]["win_rate_ci95"][0], abs=1e-6)
    assert float(rows[1]["win_rate_per_game_wilson_hi"]) == pytest.approx(
        data["agents"][1]["win_rate_ci95_per_game_wilson"][1], abs=1e-6)
    assert rows[0]["vs_greedy"] != "" and rows[0]["vs_random"] == ""
    assert float(rows[0]["vs_greedy_lo"]) == pytest.approx(lo, abs=1e-6)


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
    res = run_arena("sly", 3, ["random", "b@random", "c@random"], games=3, seed=0, workers=1, progress=False)
    assert res.games == 3 and len(res.seatings) == 3  # not the 6 permutations
    assert sorted(res.seatings) == [(0, 1, 2), (1, 2, 0), (2, 0, 1)]
    one = run_arena("sly", 4, ["random"], games=2, seed=0, workers=1, progress=False)
    assert one.to_dict()["agents"][0]["win_rate"] == pytest.approx(0.25)  # all four seats are one bot
    assert one.head_to_head == {"random": {}}
