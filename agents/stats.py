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
