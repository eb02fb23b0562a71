"""``sly-scout exit``, expert iteration: end to end on a tiny budget, and resumed after a kill.

The real command in a subprocess: two generations of Sly 2p (8 iterations a move, two games
a generation); the log, the learning curve and the checkpoints must exist and be usable as
the ``neural`` bot and as the expert. Then the same run is SIGKILLed once its first shard is
on disk, run again unchanged, and must finish with the very shards of an uninterrupted run
(a shard is replayed from its seed) and no generation twice.
"""

import csv
import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from ..conftest import INSTALL_TRAIN, require

pytestmark = [pytest.mark.train, pytest.mark.slow]
require("torch", INSTALL_TRAIN)

from sly_scout_env.agents import make  # noqa: E402
from sly_scout_env.agents.training.exit import (  # noqa: E402
    LOG_COLUMNS,
    ExitConfig,
    ResumeError,
    expert_kwargs,
    expert_spec,
    run,
)
from sly_scout_env.netfile import load  # noqa: E402

from ..games import play_bots  # noqa: E402

TINY = ["--players", "2", "--iterations", "8", "--games", "4", "--shard-games", "1", "--gate-games", "2",
        "--hidden", "8", "--epochs", "1", "--temperature-moves", "2"]


def _command(out, generations=2, *extra):
    return [sys.executable, "-m", "sly_scout_env.agents", "exit", "sly", *TINY, "--generations", str(generations),
            "--out", str(out), *extra]


def _log(out):
    with open(os.path.join(out, "log.csv"), newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _shards(out, g):
    d = os.path.join(out, f"gen_{g:03d}")
    return {f: dict(np.load(os.path.join(d, f))) for f in sorted(os.listdir(d))
            if f.startswith("shard_") and f.endswith(".npz")}  # (not a temporary file a kill left)


def test_the_loop_runs_end_to_end_and_writes_usable_networks(tmp_path):
    out = tmp_path / "run"
    done = subprocess.run(_command(out), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    rows = _log(out)
    assert [r["generation"] for r in rows] == ["0", "1"]
    assert list(rows[0]) == list(LOG_COLUMNS)
    assert rows[0]["teacher"] == "plain"
    for r in rows:
        assert int(r["decisions"]) > 0 and int(r["gate_games"]) >= 2 and 0 <= float(r["gate_share"]) <= 1
    assert int(rows[1]["fit_samples"]) == int(rows[0]["decisions"]) + int(rows[1]["decisions"])  # the window
    assert "<svg" in (out / "curve.svg").read_text()
    shard = _shards(out, 0)["shard_000.npz"]
    n = len(shard["value"])
    assert shard["obs"].shape[0] == shard["mask"].shape[0] == shard["visits"].shape[0] == n > 0
    assert np.all((shard["value"] >= 0) & (shard["value"] <= 1))  # every decision got its outcome
    assert np.all(shard["visits"][shard["mask"] == 0] == 0)  # visits only on legal moves
    assert np.all(shard["visits"].sum(axis=1) == 8)  # the root's visits: one per iteration
    net = load(str(out / "gen_001" / "net.npz"))
    assert net.has_value and net.meta["trained"]["method"].startswith("expert iteration")
    assert net.meta["expert"] == {"iterations": 8, "guide_prior": True, "guide_value": True}  # --guide both
    path = str(out / "gen_001" / "net.npz")
    assert play_bots("sly", 2, {}, 1, [make("neural", path=path), make("ismcts", game="sly", iterations=8,
                                                                       guide="neural", guide_path=path)])
    best = json.loads((out / "best.json").read_text()) if (out / "best.json").exists() else None
    accepted = [r for r in rows if r["accepted"] == "True"]
    assert (best is None) == (not accepted)
    # the same command once more: nothing left to do, nothing redone
    again = subprocess.run(_command(out), capture_output=True, text=True, timeout=600)
    assert again.returncode == 0 and "shard" not in again.stdout and _log(out) == rows


def test_a_killed_run_continues_and_plays_the_same_games(tmp_path):
    whole, cut = tmp_path / "whole", tmp_path / "cut"
    assert subprocess.run(_command(whole, 1), capture_output=True, timeout=600).returncode == 0
    proc = subprocess.Popen(_command(cut, 1), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 300
    first = cut / "gen_000" / "shard_000.npz"
    while not first.exists() and proc.poll() is None and time.time() < deadline:
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert first.exists()
    assert "record.json" not in os.listdir(cut / "gen_000")  # killed before the generation ended
    done = subprocess.run(_command(cut, 1), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    a, b = _shards(whole, 0), _shards(cut, 0)
    assert list(a) == list(b)
    for name in a:
        for key in ("obs", "mask", "visits", "value", "seat"):
            np.testing.assert_array_equal(a[name][key], b[name][key])
    assert [r["generation"] for r in _log(cut)] == ["0"]


def test_other_settings_on_the_same_out_are_refused_in_one_line(tmp_path):
    out = tmp_path / "run"
    cfg = ExitConfig("sly", 2, iterations=8, games=1, gate_games=2, hidden=[8], epochs=1, generations=1,
                     out=str(out))
    run(cfg, log=lambda msg: None)
    with pytest.raises(ResumeError, match="iterations=8, not 9"):
        run(ExitConfig(**{**cfg.__dict__, "iterations": 9}), log=lambda msg: None)
    done = subprocess.run(_command(out, 1, "--window", "3"), capture_output=True, text=True, timeout=600)
    assert done.returncode != 0 and "holds a run with" in done.stderr and "Traceback" not in done.stderr


def test_the_puct_constant_reaches_the_experts_and_the_checkpoints(tmp_path):
    out = tmp_path / "run"
    cfg = ExitConfig("sly", 2, iterations=8, games=1, gate_games=2, hidden=[8], epochs=1, generations=1,
                     guide_c=2.5, out=str(out))
    assert "guide_c" not in expert_kwargs(cfg, None, selfplay=True)  # the plain search has no prior
    run(cfg, log=lambda msg: None)
    path = str(out / "gen_000" / "net.npz")
    assert expert_kwargs(cfg, path, selfplay=True)["guide_c"] == 2.5  # self-play
    assert ":guide_c=2.5" in expert_spec(cfg, path)  # the gate
    assert load(path).meta["expert"]["guide_c"] == 2.5  # expert:path=... plays with it
    bot = make("expert", game="sly", path=path)
    bot.reset(0, game="sly", num_players=2, seat=0, options={})
    assert bot.guide_c == 2.5
    untuned = ExitConfig(**{**cfg.__dict__, "guide_c": None, "out": str(tmp_path / "default")})
    assert "guide_c" not in expert_kwargs(untuned, path, selfplay=True)


@pytest.mark.parametrize("flags,message", [
    (["--guide", "rollout"], "invalid choice: 'rollout'"),
    (["--noise", "1.5"], "1.5"),
    (["--players", "6"], "--players 6 is not allowed for sly"),
    (["--guide-c", "0"], "guide_c=0.0 is not allowed"),
    (["--guide-c", "nan"], "guide_c=nan is not allowed"),
])
def test_bad_settings_are_refused_naming_the_value(tmp_path, flags, message):
    done = subprocess.run(_command(tmp_path / "x", 1, *flags), capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and message in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "x" / "gen_000").exists()


def test_each_decision_is_valued_at_the_end_of_its_round(tmp_path):
    # Scout's search values a position at the end of its round: every decision of one seat in
    # one round of one game gets that seat's reward there; the rewards of a round's seats are
    # those of the search's own measure (the squashed margin, value="score": they sum to 1 in 2p).
    from sly_scout_env.agents.training.exit import play_shard

    cfg = ExitConfig("scout", 2, iterations=6, games=2, temperature_moves=2, out=str(tmp_path))
    shard = play_shard(cfg, None, 0, 0, 2)
    assert set(shard["horizon"]) == {0, 1}  # 2 rounds a game (2 players)
    assert set(shard["game"]) == {0, 1}
    for g in (0, 1):
        for h in (0, 1):
            here = (shard["game"] == g) & (shard["horizon"] == h)
            by_seat = {int(s): set(shard["value"][here & (shard["seat"] == s)].tolist()) for s in (0, 1)}
            assert all(len(v) == 1 for v in by_seat.values()), by_seat
            assert sum(v.pop() for v in by_seat.values()) == pytest.approx(1.0, abs=1e-6)
