"""Wilson intervals and rating updates against known values."""

import math

import pytest
from openskill.models import PlackettLuce

from agents.stats import rate_game, wilson_interval, win_shares


@pytest.mark.parametrize(
    "k, n, lo, hi",
    [
        (50, 100, 0.4038, 0.5962),  # textbook values
        (0, 10, 0.0, 0.2775),
        (10, 10, 0.7225, 1.0),
        (1, 10, 0.0179, 0.4042),
    ],
)
def test_wilson_known_values(k, n, lo, hi):
    got = wilson_interval(k, n)
    assert got[0] == pytest.approx(lo, abs=1e-4)
    assert got[1] == pytest.approx(hi, abs=1e-4)


def test_wilson_fractional_and_edges():
    lo, hi = wilson_interval(2.5, 5)  # half wins from shared ties: symmetric around 1/2
    assert lo + hi == pytest.approx(1.0)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    # Formula written out independently for p = 1/3, n = 30.
    p, n, z = 10 / 30, 30, 1.959964
    c = (p + z * z / (2 * n)) / (1 + z * z / n)
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    assert wilson_interval(10, 30) == pytest.approx((c - h, c + h), abs=1e-6)
    with pytest.raises(ValueError):
        wilson_interval(11, 10)


def test_win_shares():
    assert win_shares([3, 5, 5, 1]) == [0, 0.5, 0.5, 0]
    assert win_shares([7, 1]) == [1.0, 0.0]


def test_rating_update_matches_openskill_directly():
    model = PlackettLuce()
    ratings = {}
    rate_game(model, ratings, ["a", "b", "c"], [10, 4, 7])
    direct = PlackettLuce().rate(
        [[PlackettLuce().rating()], [PlackettLuce().rating()], [PlackettLuce().rating()]], ranks=[1, 3, 2]
    )
    assert ratings["a"].mu == pytest.approx(direct[0][0].mu)
    assert ratings["b"].mu == pytest.approx(direct[1][0].mu)
    assert ratings["c"].mu == pytest.approx(direct[2][0].mu)
    assert ratings["a"].sigma == pytest.approx(direct[0][0].sigma)
    assert ratings["a"].mu > 25 > ratings["b"].mu  # winner up, loser down


def test_rating_update_two_seats_add_up():
    model = PlackettLuce()
    ratings = {}
    rate_game(model, ratings, ["a", "b", "a"], [3, 2, 1])
    direct = PlackettLuce().rate([[PlackettLuce().rating()] for _ in range(3)], ranks=[1, 2, 3])
    assert ratings["a"].mu == pytest.approx(25 + (direct[0][0].mu - 25) + (direct[2][0].mu - 25))
    assert ratings["b"].mu == pytest.approx(direct[1][0].mu)
