"""benchmarks/neural_strength.py: the numbers behind the strength table (README, docs/strength.md)."""

from benchmarks.neural_strength import measure


def test_the_same_games_whatever_the_workers_and_the_chunking():
    # Every deal and seat is seeded on its own: splitting the deals among workers and
    # chunks must not change one game.
    one = measure("sly", 2, "neural", "greedy", deals=5, seed=4, workers=1, progress=False)
    two = measure("sly", 2, "neural", "greedy", deals=5, seed=4, workers=2, progress=False)
    for key in ("deals", "games", "win_share", "ci95_deals", "wilson95_games", "mean_score", "opponent_mean_score"):
        assert one[key] == two[key], key
    assert one["deals"] == 5 and one["games"] == 10
    assert 0.0 <= one["ci95_deals"][0] <= one["win_share"] <= one["ci95_deals"][1] <= 1.0


def test_the_learned_seat_is_measured_not_the_opponent():
    # neural against random wins nearly everything; random against neural nearly nothing.
    strong = measure("sly", 2, "neural", "random", deals=6, seed=2, workers=1, progress=False)
    weak = measure("sly", 2, "random", "neural", deals=6, seed=2, workers=1, progress=False)
    assert strong["win_share"] > 0.6 > 0.4 > weak["win_share"]
    assert strong["parity"] == 0.5
