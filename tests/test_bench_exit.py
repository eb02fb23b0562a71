"""benchmarks/exit_speed.py runs end to end on a small size and writes its table."""

import importlib.util
import pathlib

import pytest

from .conftest import INSTALL_TRAIN, require

ROOT = pathlib.Path(__file__).resolve().parents[1]

pytestmark = [pytest.mark.slow, pytest.mark.train]


def test_the_exit_speed_table_has_a_row_per_table(tmp_path):
    require("torch", INSTALL_TRAIN)
    spec = importlib.util.spec_from_file_location("exit_speed", ROOT / "benchmarks" / "exit_speed.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    out = tmp_path / "t.md"
    assert mod.main(["--quick", "--games-only", "sly", "--out", str(out)]) == 0
    rows = [ln for ln in out.read_text().splitlines() if ln.startswith("| sly")]
    assert [r.split("|")[2].strip() for r in rows] == ["2", "3", "4"]
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert all(float(c.replace(",", "")) > 0 for c in cells[2:5])
