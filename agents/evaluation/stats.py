"""Statistics for the arena: Wilson score intervals and openskill (Plackett-Luce) ratings."""

from __future__ import annotations

import math

Z95 = 1.959963984540054  # two-sided 95% normal quantile


def wilson_interval(successes: float, n: float, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion ``successes / n``.

    ``successes`` may be fractional (a k-way tie for the win counts 1/k), which the
    formula handles as is. ``n == 0`` gives the uninformative ``(0.0, 1.0)``.
    """
    if n < 0 or successes < 0 or successes > n + 1e-9:
        raise ValueError(f"need 0 <= successes <= n, got successes={successes!r}, n={n!r}")
    if n == 0:
        return (0.0, 1.0)
    p = min(successes / n, 1.0)
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    lo = 0.0 if successes <= 0 else max(0.0, centre - half)
    hi = 1.0 if successes >= n else min(1.0, centre + half)  # exact ends, no rounding noise
    return (lo, hi)


def win_shares(scores) -> list[float]:
    """Each seat's share of the win: 1/k for each of the k top scorers, else 0."""
    best = max(scores)
    top = [i for i, s in enumerate(scores) if s == best]
    return [1.0 / len(top) if i in top else 0.0 for i in range(len(scores))]


def new_rating_model():
    """The openskill Plackett-Luce model with its default parameters (mu 25, sigma 25/3)."""
    from openskill.models import PlackettLuce

    return PlackettLuce()


def rate_game(model, ratings: dict, seat_labels: list[str], scores: list) -> None:
    """Update ``ratings`` (label -> openskill rating) in place from one game.

    Each seat is one team of one player, ranked by its score (higher better, ties
    share a rank). A bot that holds several seats of the same game enters the
    update once per seat, each time with its rating before the game; its new rating
    adds up the mu changes of its seats and multiplies its sigma by each seat's
    sigma shrink factor (each seat is an entry, as in the other statistics).
    """
    for label in seat_labels:
        if label not in ratings:
            ratings[label] = model.rating(name=label)
    teams = [[model.rating(mu=ratings[lb].mu, sigma=ratings[lb].sigma, name=lb)] for lb in seat_labels]
    new = model.rate(teams, scores=[float(s) for s in scores])
    updates: dict[str, tuple[float, float]] = {}
    for lb, team in zip(seat_labels, new):
        old = ratings[lb]
        dmu, factor = updates.get(lb, (0.0, 1.0))
        updates[lb] = (dmu + team[0].mu - old.mu, factor * team[0].sigma / old.sigma)
    for lb, (dmu, factor) in updates.items():
        old = ratings[lb]
        ratings[lb] = model.rating(mu=old.mu + dmu, sigma=old.sigma * factor, name=lb)


# -- intervals over deals -----------------------------------------------------------------
def _t_two_sided_mass(t: float, df: int) -> float:
    """P(|T| < t) for Student's t with an integer ``df`` (closed forms, Abramowitz & Stegun 26.7.3-4)."""
    theta = math.atan(t / math.sqrt(df))
    c2 = math.cos(theta) ** 2
    if df % 2 == 1:
        if df == 1:
            return 2.0 * theta / math.pi
        term, total = 1.0, 1.0
        for k in range(2, df - 1, 2):  # 1 + 2/3 c2 + (2*4)/(3*5) c2^2 + ...
            term *= c2 * k / (k + 1)
            total += term
        return 2.0 / math.pi * (theta + math.sin(theta) * math.cos(theta) * total)
    term, total = 1.0, 1.0
    for k in range(1, df - 2, 2):  # 1 + 1/2 c2 + (1*3)/(2*4) c2^2 + ...
        term *= c2 * k / (k + 1)
        total += term
    return math.sin(theta) * total


def t_quantile(df: int, level: float = 0.95) -> float:
    """The two-sided ``level`` quantile of Student's t with ``df`` degrees of freedom (t_{0.975, df} for 95%).

    Exact (bisection on the closed-form CDF) up to 2000 degrees of freedom, a
    Cornish-Fisher expansion beyond (error below 1e-9 there); no scipy needed.
    """
    if isinstance(df, bool) or not isinstance(df, int) or df < 1:
        raise ValueError(f"df={df!r} is not allowed; give an int >= 1")
    if not 0.0 < level < 1.0:
        raise ValueError(f"level={level!r} is not allowed; give a number strictly between 0 and 1")
    if df > 2000:
        z = _normal_quantile(0.5 + level / 2)
        g1 = (z**3 + z) / 4
        g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
        g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
        return z + g1 / df + g2 / df**2 + g3 / df**3
    lo, hi = 0.0, 1.0
    while _t_two_sided_mass(hi, df) < level:
        hi *= 2.0
    for _ in range(100):
        mid = (lo + hi) / 2
        if _t_two_sided_mass(mid, df) < level:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12:
            break
    return (lo + hi) / 2


def _normal_quantile(p: float) -> float:
    """Inverse of the standard normal CDF (bisection on math.erf; fine for the few calls made here)."""
    lo, hi = -40.0, 40.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if 0.5 * (1 + math.erf(mid / math.sqrt(2))) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def cluster_interval(sums, counts, level: float = 0.95, bounds: tuple | None = None) -> tuple[float, tuple]:
    """Mean per unit and its ``level`` interval over independent clusters (deals).

    ``sums[d]`` is the total of cluster ``d`` (e.g. a bot's win shares over its seats in
    all seatings of deal ``d``) and ``counts[d]`` its number of units (those seats).
    The estimate is ``sum(sums) / sum(counts)`` (the pooled mean per unit). Its standard
    error is the cluster-robust one of a ratio over the ``D`` clusters with a nonzero
    count, ``sqrt(D / (D - 1) * sum((sums[d] - mean * counts[d])**2)) / sum(counts)``,
    with Student's t on ``D - 1`` degrees of freedom. When every cluster has the same
    count this is exactly the t-interval of the per-cluster means. Units within a
    cluster may be correlated in any way; only clusters are assumed independent.

    Returns ``(mean, (lo, hi))``; ``(nan, (nan, nan))`` without units and
    ``(mean, (nan, nan))`` with fewer than two clusters. ``bounds=(a, b)`` clips the
    interval to the range the mean can take (a win share: ``(0, 1)``).
    """
    sums = [float(s) for s, c in zip(sums, counts) if c > 0]
    counts = [float(c) for c in counts if c > 0]
    if len(sums) != len(counts):
        raise ValueError("sums and counts need the same length")
    total = sum(counts)
    if total == 0:
        return float("nan"), (float("nan"), float("nan"))
    mean = sum(sums) / total
    d = len(counts)
    if d < 2:
        return mean, (float("nan"), float("nan"))
    resid = sum((s - mean * c) ** 2 for s, c in zip(sums, counts))
    se = math.sqrt(d / (d - 1) * resid) / total
    half = t_quantile(d - 1, level) * se
    lo, hi = mean - half, mean + half
    if bounds is not None:
        lo, hi = max(bounds[0], lo), min(bounds[1], hi)
    return mean, (lo, hi)
