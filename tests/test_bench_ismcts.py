"""benchmarks/ismcts_speed.py runs end to end on a small size and writes its table."""

import importlib.util
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.slow


def test_the_speed_tables_have_a_row_per_table_and_rollout(tmp_path):
    spec = importlib.util.spec_from_file_location("ismcts_speed", ROOT / "benchmarks" / "ismcts_speed.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    out = tmp_path / "t.md"
    assert mod.main(["--quick", "--rollouts", "random", "--out", str(out)]) == 0
    text = out.read_text()
    first, rest = text.split("The compiled search with the network inside it")
    second, rest = rest.split("A time-limited move")
    third, fourth = rest.split("The models of the other seats")
    rows = [ln for ln in first.splitlines() if ln.startswith("| ") and "players" not in ln]
    from sly_scout_env.games import all_games

    tables = sum(len(s.player_counts) for s in all_games())
    assert len(rows) == tables
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert cells[2] == "random" and float(cells[3].replace(",", "")) > 0 and cells[6].endswith("x")
    guided = [ln for ln in second.splitlines() if ln.startswith("| ") and "players" not in ln]
    assert len(guided) == tables
    for row in guided:
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert all(float(c.replace(",", "")) > 0 for c in cells[2:6]) and cells[6].endswith("x")
    limited = [ln for ln in third.splitlines() if ln.startswith("| ") and "players" not in ln]
    assert len(limited) == tables
    for row in limited:  # every search runs at least one chunk; a kernel call costs time
        cells = [float(c.strip().replace(",", "")) for c in row.strip("|").split("|")[2:]]
        assert min(cells[:4]) >= 4 and cells[4] > 0
    models = [ln for ln in fourth.splitlines() if ln.startswith("| ") and "players" not in ln]
    assert len(models) == tables
    for row in models:  # hybrid, policy, policy with policy_leaf: each runs at least one chunk
        cells = [float(c.strip().replace(",", "")) for c in row.strip("|").split("|")[2:]]
        assert len(cells) == 3 and min(cells) >= 4


def test_one_table_alone_and_a_bad_table_name(tmp_path, capsys):
    spec = importlib.util.spec_from_file_location("ismcts_speed", ROOT / "benchmarks" / "ismcts_speed.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    with pytest.raises(SystemExit):
        mod.main(["--tables", "models,nope"])
    assert "--tables: no table 'nope'; the tables: speed, guided, time, models" in capsys.readouterr().err
    out = tmp_path / "m.md"
    assert mod.main(["--quick", "--tables", "models", "--out", str(out)]) == 0
    text = out.read_text()
    assert "The models of the other seats" in text and "Python µs/iteration" not in text
    assert "A time-limited move" not in text and "value cut-off" not in text
