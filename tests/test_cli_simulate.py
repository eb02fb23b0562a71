"""`sly-scout simulate`: its printed numbers agree with simulation.simulate; --out writes the arrays."""

import re

import numpy as np
import pytest

from sly_scout_env.agents.ui.cli import main
from sly_scout_env.simulation import simulate


def _floats(line):
    return [float(x) for x in re.findall(r"seat \d+: ([+-]?\d+\.\d+)", line)]


@pytest.mark.parametrize(
    "argv,game,players,n",
    [
        (["simulate", "sly", "--players", "3", "--games", "400", "--seed", "3", "--threads", "1"], "sly", 3, 400),
        (["simulate", "scout", "--players", "4", "--hands", "150", "--seed", "2", "--policies",
          "random,random,random,random"], "scout", 4, 150),
    ],
)
def test_printed_numbers_match_simulate_and_out_writes_arrays(argv, game, players, n, tmp_path, capsys):
    out = tmp_path / "r.npz"
    assert main(argv + ["--no-progress", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    seed = int(argv[argv.index("--seed") + 1])
    ref = simulate(game, n, players=players, seed=seed)
    lines = text.splitlines()
    mean_line = next(ln for ln in lines if "mean score per seat" in ln)
    np.testing.assert_allclose(_floats(mean_line), ref["scores"].mean(axis=0), atol=5e-4)
    win_line = next(ln for ln in lines if "win share per seat" in ln)
    np.testing.assert_allclose(_floats(win_line), ref["winners"].mean(axis=0), atol=5e-4)
    per = next(ln for ln in lines if ln.strip().startswith("steps per"))
    assert float(per.split()[-1]) == pytest.approx(ref["steps"].mean(), abs=5e-3)
    assert f"{n} {'games' if game == 'sly' else 'hands'}" in lines[0]
    saved = np.load(out)
    for k in ("scores", "winners", "steps", "end_reason"):
        np.testing.assert_array_equal(saved[k], ref[k])
    assert "seconds" in saved.files


def test_bad_policy_name_is_a_clean_error(capsys):
    assert main(["simulate", "sly", "--games", "10", "--policies", "random,psychic,random", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "'psychic'" in err and "random" in err


def test_bad_thread_count_is_a_usage_error(capsys):
    with pytest.raises(SystemExit):
        main(["simulate", "scout", "--hands", "10", "--threads", "0"])
    assert "--threads" in capsys.readouterr().err


def test_option_pairs_are_spelled_as_in_every_other_command(capsys):
    # --option KEY=VALUE (as arena, play and train take it) and the dedicated flag give one run.
    base = ["simulate", "sly", "--players", "3", "--games", "300", "--seed", "4", "--threads", "1", "--no-progress"]
    assert main(base + ["--option", "hen_houses=1", "--option", "reveal_scope=all"]) == 0
    by_option = capsys.readouterr().out
    assert main(base + ["--hen-houses", "1", "--reveal-scope", "all"]) == 0
    by_flag = capsys.readouterr().out
    assert "hen_houses=1" in by_option and "reveal_scope='all'" in by_option
    strip = [ln for ln in by_option.splitlines() if "time" not in ln and "/s" not in ln]
    assert strip == [ln for ln in by_flag.splitlines() if "time" not in ln and "/s" not in ln]
    assert main(["simulate", "scout", "--players", "2", "--hands", "50", "--no-progress",
                 "--option", "score_held_chips=false"]) == 0
    assert "score_held_chips=False" in capsys.readouterr().out


def test_an_option_simulate_does_not_take_is_refused_by_name(capsys):
    assert main(["simulate", "scout", "--hands", "10", "--no-progress", "--option", "rounds=1"]) == 2
    err = capsys.readouterr().err
    assert "--option rounds=1 is not allowed for simulate scout" in err and "ii_after_empty_set" in err
    assert main(["simulate", "sly", "--games", "10", "--no-progress", "--option", "colour=red"]) == 2
    assert "allowed options: hen_houses, reveal_scope, first_player" in capsys.readouterr().err
    assert main(["simulate", "sly", "--games", "10", "--no-progress", "--option", "hen_houses=7"]) == 2
    assert "hen_houses" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["simulate", "sly", "--games", "10", "--option", "hen_houses"])  # not KEY=VALUE
