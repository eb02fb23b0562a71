"""benchmarks/teacher_agreement.py: two searches of the same position, and the student (a tiny run)."""

import numpy as np
import pytest

from benchmarks.teacher_agreement import main, measure, share


def test_share_is_pooled_over_positions_with_an_interval_over_games():
    per_game = np.array([[10, 5, 10], [30, 27, 0]])
    p, lo, hi = share(per_game, 1)
    assert p == pytest.approx(32 / 40) and lo < p < hi
    assert share(per_game, 2)[0] == pytest.approx(10 / 40)
    assert np.isnan(share(per_game[:1], 1)[1])  # one game: no interval


def test_a_tiny_measurement_counts_each_teacher_position_once():
    res = measure("scout", 2, 25, teacher="ismcts:iterations=24", student="greedy", seed=3)
    pg = res["per_game"]
    assert res["positions"] == pg[:, 0].sum() == 25 and res["games"] == len(pg) >= 1
    assert np.all((pg[:, 1:] >= 0) & (pg[:, 1:] <= pg[:, :1]))
    again = measure("scout", 2, 25, teacher="ismcts:iterations=24", student="greedy", seed=3)
    assert np.array_equal(again["per_game"], pg)  # seeded: the same positions and searches


def test_main_prints_both_rows_and_refuses_bad_input(capsys):
    assert main(["scout", "--positions", "6", "--teacher", "ismcts:iterations=16", "--student", "greedy"]) == 0
    out = capsys.readouterr().out
    assert "| a second search of the teacher |" in out and "| the student |" in out
    with pytest.raises(SystemExit):
        main(["scout", "--positions", "0"])
    assert "--positions 0 is not allowed" in capsys.readouterr().err
