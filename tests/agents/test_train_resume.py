"""Resuming ``sly-scout train``: a killed run continues from its resume checkpoint (OUT/resume).

Two ways of stopping a run part way: in-process, a ``log`` function that raises at an
evaluation (after the last resume checkpoint, so rows past it are already in the CSV logs),
and the real command in a subprocess, killed with SIGKILL once a checkpoint past step 0 is
on disk. Each is then run again, unchanged, and must continue, not start over.
"""

import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from ..conftest import INSTALL_TRAIN, require

pytestmark = [pytest.mark.train, pytest.mark.slow]
require("sb3_contrib", INSTALL_TRAIN)
require("torch", INSTALL_TRAIN)

from sly_scout_env.agents.bots.ppo import FrozenPolicy  # noqa: E402
from sly_scout_env.agents.training.ppo import ResumeError, TrainConfig, train  # noqa: E402


class _Killed(Exception):
    pass


def _read_csv(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _state(out):
    with open(os.path.join(out, "resume", "state.json"), encoding="utf-8") as f:
        return json.load(f)


def _config(out, **changes):
    # Rollouts of 2 envs x 64 steps = 128 steps; snapshots every 256, evaluations at 480 and 960.
    kw = dict(game="sly", players=2, timesteps=1280, seed=3, out=str(out), eval_every=480, snapshot_every=256,
              eval_games=8, eval_opponents=["random"], n_envs=2, n_steps=64, batch_size=64, n_epochs=1,
              net_arch=[8])
    kw.update(changes)
    return TrainConfig(**kw)


def _logger(lines, stop_at=None):
    def log(msg):
        lines.append(msg)
        if stop_at is not None and msg.startswith("  t=") and int(msg.split("=")[1].split()[0]) >= stop_at:
            raise _Killed(msg)
    return log


def _final_weights(out):
    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(os.path.join(out, "final.zip"), device="cpu")
    policy = FrozenPolicy.from_sb3(model)
    return model.num_timesteps, [a for w, b in policy.layers + [policy.head] for a in (w, b)]


def test_interrupted_run_resumes_from_its_checkpoint(tmp_path):
    out = tmp_path / "run"
    first: list = []
    with pytest.raises(_Killed):
        train(_config(out), log=_logger(first, stop_at=960))  # "killed" during the evaluation at step 960
    state = _state(out)
    done = state["timesteps"]
    assert not state["finished"] and 0 < done < 960
    # Rows past the checkpoint were logged before the kill: the resumed run must drop them, not repeat them.
    assert int(_read_csv(out / "progress.csv")[-1]["timesteps"]) > done
    assert int(_read_csv(out / "eval.csv")[-1]["timesteps"]) == 960
    kept_progress = [r for r in _read_csv(out / "progress.csv") if int(r["timesteps"]) <= done]
    shutil.copytree(out, tmp_path / "copy")

    second: list = []
    result = train(_config(out), log=_logger(second))
    assert f"resuming the run in {out} from step {done} of 1280" in second[0], second
    assert not any(line.startswith("  t=        0") for line in second), second  # no second untrained evaluation
    assert not result.get("already_finished")

    progress = _read_csv(out / "progress.csv")
    steps = [int(r["timesteps"]) for r in progress]
    assert steps == list(range(128, 1281, 128))  # every rollout once: none lost, none repeated
    assert progress[: len(kept_progress)] == kept_progress  # the rows before the checkpoint are untouched
    episodes = [int(r["episodes"]) for r in progress]
    assert episodes == sorted(set(episodes))  # the episode counter went on from the checkpoint
    pool = [int(r["pool_size"]) for r in progress]
    assert pool == [min(10, s // 256) for s in steps]  # the pool of snapshots was restored, then grew
    evals = _read_csv(out / "eval.csv")
    assert [(int(r["timesteps"]), r["opponent"]) for r in evals] == [(t, "random") for t in (0, 480, 960, 1280)]
    assert evals[-1]["checkpoint"] == "final.zip"
    assert os.path.isfile(out / "final.zip") and os.path.isfile(out / "final.npz")
    timesteps, weights = _final_weights(out)
    assert timesteps == 1280
    state = _state(out)
    assert state["finished"] and state["timesteps"] == 1280
    assert sorted(os.listdir(out / "resume")) == ["model_000001280.zip", "state.json", "state_000001280.npz"]

    # Resuming from the same checkpoint again continues the same way: deterministic given the checkpoint.
    train(_config(tmp_path / "copy"), log=lambda *a: None)
    again = _final_weights(tmp_path / "copy")[1]
    for a, b in zip(weights, again):
        np.testing.assert_array_equal(a, b)

    # A finished run is not run again.
    stamp = [os.stat(out / name).st_mtime_ns for name in ("final.zip", "progress.csv", "eval.csv")]
    third: list = []
    result = train(_config(out), log=_logger(third))
    assert result["already_finished"] and result["final"] == str(out / "final.zip")
    assert len(third) == 1 and "already finished: step 1280 of 1280" in third[0]
    assert [r["win_rate"] for r in result["eval"]] == [float(evals[-1]["win_rate"])]
    assert [os.stat(out / name).st_mtime_ns for name in ("final.zip", "progress.csv", "eval.csv")] == stamp

    # Another command on the same directory is refused, naming what differs; a free setting is not a difference.
    with pytest.raises(ResumeError, match=r"seed: 3 there, 4 now; timesteps: 1280 there, 2000 now\. Give a new --out"):
        train(_config(out, seed=4, timesteps=2000), log=lambda *a: None)
    assert train(_config(out, eval_workers=2), log=lambda *a: None)["already_finished"]


def test_killed_command_resumes_when_run_again(tmp_path):
    """The real command, SIGKILLed part way, then the same command again."""
    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "sly_scout_env.agents", "train", "sly", "--players", "2", "--timesteps", "12000",
           "--n-envs", "2", "--n-steps", "64", "--batch-size", "64", "--net-arch", "8", "--eval-every", "4000",
           "--eval-games", "4", "--eval-opponents", "random", "--snapshot-every", "1000", "--out", str(out)]
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    state_path = out / "resume" / "state.json"
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            if state_path.exists() and _state(out)["timesteps"] >= 2000:
                break
            time.sleep(0.02)
        assert proc.poll() is None, proc.stderr.read().decode()[-3000:]  # still running: kill it part way
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait()
    assert not os.path.exists(out / "final.zip")
    done = _state(out)["timesteps"]
    assert 2000 <= done < 12000

    res = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)
    assert res.returncode == 0, res.stderr[-3000:]
    assert f"resuming the run in {out} from step {done} of 12000" in res.stdout, res.stdout
    assert "t=        0" not in res.stdout
    steps = [int(r["timesteps"]) for r in _read_csv(out / "progress.csv")]
    assert steps == list(range(128, 12033, 128))  # 12000 rounded up to whole rollouts, each once
    evals = [int(r["timesteps"]) for r in _read_csv(out / "eval.csv")]
    assert evals == [0, 4000, 8000, 12032]
    assert _final_weights(out)[0] == 12032 and _state(out)["finished"]

    res = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)
    assert res.returncode == 0 and "already finished: step 12032 of 12000" in res.stdout, res.stdout + res.stderr

    # The same --out with other settings: one line naming what differs, no traceback.
    other = [c if c != "12000" else "13000" for c in cmd]
    res = subprocess.run(other, capture_output=True, text=True, env=env, timeout=120)
    assert res.returncode != 0 and "Traceback" not in res.stderr, res.stderr[-3000:]
    assert res.stderr.startswith(f"sly-scout train: {out} holds a run"), res.stderr[-3000:]
    assert "timesteps: 12000 there, 13000 now" in res.stderr and len(res.stderr.strip().splitlines()) == 1
