"""The example and the two benchmarks run (at tiny sizes: the measurements are not asserted)."""

from ..conftest import require
from .helpers import INSTALL_OPENSPIEL

require("pyspiel", INSTALL_OPENSPIEL)  # (the benchmarks import OpenSpiel)

from benchmarks import openspiel_arena, openspiel_example, openspiel_speed  # noqa: E402


def test_the_example_runs_in_small_mode(capsys):
    assert openspiel_example.main(["--small"]) == 0
    out = capsys.readouterr().out
    assert "small mode" in out and "registered: python_scout, python_sly" in out
    assert "random_sim_test python_sly(players=3): 1 games OK" in out and "OPENSPIEL EXAMPLE OK" in out


def test_the_speed_benchmark_runs(capsys):
    assert openspiel_speed.main(["--games", "1", "--repeats", "1", "--tables", "scout:2,sly:3",
                                 "--lockstep", "2", "--evaluate", "2"]) == 0
    out = capsys.readouterr().out
    assert "| scout | 2 |" in out and "| sly | 3 |" in out
    assert "sly 3p: ok" in out


def test_the_arena_benchmark_runs(capsys):
    assert openspiel_arena.main(["--game", "sly", "--players", "2", "--games", "2", "--iterations", "3",
                                 "--time-limit", "0.01"]) == 0
    out = capsys.readouterr().out
    assert "equal iterations (3 per move)" in out and "equal time (0.01 s per move)" in out
    assert "openspiel_ismcts:iterations=3" in out and "ismcts:time_limit=0.01:iterations=None" in out
