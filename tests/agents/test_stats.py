"""Wilson intervals, t quantiles, intervals over clusters (deals) and rating updates against known values."""

import math

import numpy as np
import pytest
from openskill.models import PlackettLuce

from sly_scout_env.agents.evaluation.stats import cluster_interval, rate_game, t_quantile, wilson_interval, win_shares


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


@pytest.mark.parametrize(
    "df, q",
    # Two-sided 95% quantiles t_{0.975, df} from printed tables (e.g. NIST/SEMATECH e-Handbook 1.3.6.7.2).
    [(1, 12.706), (2, 4.303), (3, 3.182), (4, 2.776), (9, 2.262), (29, 2.045), (100, 1.984), (5000, 1.960)],
)
def test_t_quantile_known_values(df, q):
    assert t_quantile(df) == pytest.approx(q, abs=5e-4)


def test_t_quantile_other_levels_and_bad_input():
    assert t_quantile(10, 0.90) == pytest.approx(1.812, abs=5e-4)  # t_{0.95, 10}
    assert t_quantile(3000) < t_quantile(2000) < t_quantile(1000)  # both branches, monotone
    with pytest.raises(ValueError, match="df"):
        t_quantile(0)
    with pytest.raises(ValueError, match="level"):
        t_quantile(5, 1.0)


def test_cluster_interval_equal_counts_is_the_t_interval_of_cluster_means():
    sums, counts = [3, 1, 4, 1, 5], [4, 4, 4, 4, 4]
    means = np.array(sums) / 4
    mean, (lo, hi) = cluster_interval(sums, counts)
    half = 2.776445 * means.std(ddof=1) / math.sqrt(5)  # t_{0.975, 4}
    assert mean == pytest.approx(means.mean())
    assert (lo, hi) == pytest.approx((means.mean() - half, means.mean() + half), abs=1e-6)


def test_cluster_interval_unequal_counts_and_edges():
    # Ratio estimator: sum(y) / sum(n) with the cluster-robust standard error, written out.
    sums, counts = [2.0, 0.5, 3.0], [2, 1, 4]
    mean, (lo, hi) = cluster_interval(sums, counts)
    m = 5.5 / 7
    se = math.sqrt(3 / 2 * ((2 - 2 * m) ** 2 + (0.5 - m) ** 2 + (3 - 4 * m) ** 2)) / 7
    assert mean == pytest.approx(m)
    assert (lo, hi) == pytest.approx((m - 4.302653 * se, m + 4.302653 * se), abs=1e-6)
    # Bounds clip; clusters without units are left out; fewer than two clusters: no interval.
    assert cluster_interval([1, 0, 0], [1, 1, 1], bounds=(0, 1))[1][0] == 0.0
    assert cluster_interval([1, 0, 9], [1, 1, 0]) == cluster_interval([1, 0], [1, 1])
    m1, ci1 = cluster_interval([3], [4])
    assert m1 == 0.75 and all(math.isnan(x) for x in ci1)
    m0, _ = cluster_interval([], [])
    assert math.isnan(m0)


def test_cluster_interval_covers_under_strong_within_deal_correlation_where_wilson_does_not():
    """Synthetic deals: each deal has its own win probability (the luck of the cards) and
    12 games replay it. Over 400 independent small experiments of 6 deals, the interval
    over deals covers the true mean about 95% of the time; the per-game Wilson interval,
    which takes the 72 games as independent, far less."""
    rng = np.random.default_rng(7)
    cover_deals = cover_wilson = 0
    runs, deals, games = 400, 6, 12
    for _ in range(runs):
        p = rng.beta(1, 1, size=deals)  # true mean 0.5, strong deal effect
        wins = rng.binomial(games, p)
        _, (lo, hi) = cluster_interval(wins, [games] * deals, bounds=(0, 1))
        cover_deals += lo <= 0.5 <= hi
        wlo, whi = wilson_interval(wins.sum(), games * deals)
        cover_wilson += wlo <= 0.5 <= whi
    assert cover_deals / runs >= 0.92  # measured 0.955
    assert cover_wilson / runs <= 0.75  # measured 0.67
