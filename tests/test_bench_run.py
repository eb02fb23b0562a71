"""benchmarks/run.py without measuring: the calibration of a run's size and the README's small table."""

import pytest

from benchmarks import run as bench


def test_autorange_grows_tenfold_then_scales_to_the_target():
    sizes = []

    def seconds_for(n):
        sizes.append(n)
        return n * 1e-5  # 100,000 units/s

    assert bench.autorange(seconds_for, 1.0) == 100_000
    assert sizes == [100, 1_000, 10_000]  # 0.1 s is a tenth of the target: scaled from there


def _row(game, players):
    return bench.Row(game, players, 1.0, 2.0, 3.0, 4.0, (10, 20), {b: 1000.0 + b for b in bench.BATCHES}, 7.0, 8.0,
                     4_760, 9.0, "1 MiB arrays; 2 MiB process")


def test_the_readme_gets_the_small_table_between_its_markers(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text(f"intro\n{bench.README_START}\nold table\n{bench.README_END}\noutro\n")
    bench.update_readme(bench.readme_body([_row("sly", 2), _row("sly", 3)], 3, False), readme)
    text = readme.read_text()
    assert text.startswith(f"intro\n{bench.README_START}\n") and text.endswith(f"{bench.README_END}\noutro\n")
    assert "old table" not in text and "benchmarks/results.md" in text
    table = [line for line in text.splitlines() if line.startswith("|")]
    assert table[0] == ("| game | players | in-kernel units/s, all threads | vector agent-steps/s, batch 1024 "
                        "| batch 8192 | raw AEC steps/s | bytes/state |")
    # batch 8192: 9,192 agent-steps/s, 9192 / 2024 = 4.54 times the batch-1024 rate
    assert table[2:] == ["| sly | 2 | 2 | 2,024 | 9,192 (4.54x) | 7 | 4,760 |",
                         "| sly | 3 | 2 | 2,024 | 9,192 (4.54x) | 7 | 4,760 |"]


def test_the_scale_target_is_checked_for_every_row():
    slow = _row("scout", 4)
    slow.vec[8192] = 0.89 * slow.vec[1024]  # just under 90%
    checks = bench.target_checks([_row("sly", 3), slow], {}, 1000)
    scale = [c for c in checks if "of its batch-1024 rate" in c]
    assert scale == ["- vector env at batch 4096 and 8192 >= 90% of its batch-1024 rate (sly, 3 players): "
                     "2.52, 4.54: met",
                     "- vector env at batch 4096 and 8192 >= 90% of its batch-1024 rate (scout, 4 players): "
                     "2.52, 0.89: NOT met"]


def test_a_readme_without_markers_is_refused(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("no table here\n")
    with pytest.raises(SystemExit, match="no benchmark placeholder"):
        bench.update_readme(["x"], readme)
