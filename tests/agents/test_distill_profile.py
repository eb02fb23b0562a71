"""benchmarks/distill_profile.py: the accounting of a distillation run's time (a tiny run)."""

import pytest

from ..conftest import INSTALL_TRAIN, require

pytestmark = pytest.mark.train
require("torch", INSTALL_TRAIN)

import sly_scout_env.agents.training.distill as D  # noqa: E402
from benchmarks.distill_profile import Profile, Split, profile_collect, profile_fit, table_lines  # noqa: E402


def test_split_shares_add_up():
    s = Split(50, 2.0, {"teacher search": 1.2, "greedy seats": 0.2, "env & views": 0.4})
    assert s.rate == 25
    sh = s.share()
    assert sh["teacher search"] == pytest.approx(0.6) and sh["other"] == pytest.approx(0.1)
    assert sum(sh.values()) == pytest.approx(1.0)


def test_a_tiny_collection_is_timed_around_the_real_calls():
    """3 players: every game has a greedy seat; the wrappers are removed afterwards."""
    real = D.make_from_spec, D.get_game, D.player_view
    split, path = profile_collect("scout", 3, seconds=3.0, teacher="ismcts:iterations=24")
    assert (D.make_from_spec, D.get_game, D.player_view) == real
    assert split.decisions > 0
    assert all(split.phases[p] > 0 for p in ("teacher search", "greedy seats", "env & views"))
    assert sum(split.phases.values()) <= split.seconds
    features_rate, fit_rate = profile_fit("scout", 3, path, hidden=(8,))
    assert features_rate > 0 and fit_rate > 0
    p = Profile("scout", 3, [split, Split(1, 10.0, dict(split.phases))], features_rate, fit_rate)
    assert p.median is split  # the higher of the two rates: the median of two is the upper one
    row = table_lines([p])[2]
    assert row.startswith("| scout 3p | ") and row.count("|") == 9
