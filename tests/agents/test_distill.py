"""The distillation recipe (agents/training/distill.py, agents/training/distill_fit.py): collection, fit,
the command."""

import json
import os

import numpy as np
import pytest

from ..conftest import INSTALL_TRAIN, require

pytestmark = pytest.mark.train
torch = require("torch", INSTALL_TRAIN)

from sly_scout_env.agents.training.distill import DistillConfig, collect, load_data, run, take, teacher_seats  # noqa: E402
from sly_scout_env.agents.training.distill_fit import _batch_rows, _segment_log_softmax, _targets, feature_rows, fit  # noqa: E402
from sly_scout_env.games import get_game  # noqa: E402

FAST_TEACHER = "ismcts:iterations=24"


def test_teacher_seats_are_one_or_two():
    rng = np.random.default_rng(0)
    counts = {sum(teacher_seats(4, rng)) for _ in range(200)}
    assert counts == {1, 2}
    assert all(sum(teacher_seats(2, rng)) in (1, 2) for _ in range(50))


@pytest.fixture(scope="module")
def collected(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("collect") / "w.npz")
    # the decision cap ends it (a second or two); the time bound only guards a loaded machine
    stats = collect("scout", 3, seconds=900, seed=5, out=out, teacher=FAST_TEACHER, max_decisions=40)
    return out, stats


def test_collect_records_legal_moves_and_the_search_visits(collected):
    out, stats = collected
    data = load_data([out])
    assert stats["decisions"] == len(data["obs"]) >= 40
    off = data["offsets"]
    assert off[0] == 0 and off[-1] == len(data["ids"]) == len(data["visits"])
    size = get_game("scout").module("observation").observation_size(3)
    assert data["obs"].shape[1] == size
    for i in range(len(data["obs"])):
        ids, v = data["ids"][off[i]:off[i + 1]], data["visits"][off[i]:off[i + 1]]
        assert len(ids) >= 2 and np.all(np.diff(ids) > 0)  # decisions with a choice, ids ascending
        assert 0 < v.sum() <= 24  # the root's children share the 24 iterations
    # Every decision's observation is a real one: the flip phase's rows have exactly ids 0 and 1.
    phase = get_game("scout").module("observation").observation_slices(3)["phase"]
    flips = [i for i in range(len(data["obs"])) if data["obs"][i, phase][0] == 1]
    assert flips and all(list(data["ids"][off[i]:off[i + 1]]) == [0, 1] for i in flips)


def test_label_searches_sum_the_visits_of_independent_searches_of_one_game(tmp_path):
    """K = 2: the same games (the first search plays), each label the sum of two searches' visits."""
    one, two = str(tmp_path / "one.npz"), str(tmp_path / "two.npz")
    kw = dict(seconds=900, seed=6, teacher=FAST_TEACHER, max_decisions=15)  # the cap ends both
    collect("scout", 2, out=one, **kw)
    collect("scout", 2, out=two, label_searches=2, **kw)
    a, b = load_data([one]), load_data([two])
    assert np.array_equal(a["obs"], b["obs"]) and np.array_equal(a["ids"], b["ids"])  # the same positions
    off = b["offsets"]
    for i in range(len(off) - 1):
        va, vb = a["visits"][off[i]:off[i + 1]], b["visits"][off[i]:off[i + 1]]
        assert va.sum() < vb.sum() <= 48 and np.all(vb >= va)  # the first search's visits plus a second's
    assert not np.array_equal(b["visits"], 2 * a["visits"])  # the second search is another one


def test_take_and_load_keep_decisions_whole(collected):
    out, _ = collected
    data = load_data([out, out])
    n = len(data["obs"]) // 2
    assert np.array_equal(data["offsets"][n + 1:] - data["offsets"][n], data["offsets"][1:n + 1])
    part = take(data, 7)
    assert len(part["obs"]) == 7 and len(part["ids"]) == part["offsets"][-1] == data["offsets"][7]


def test_batch_rows_and_segment_softmax():
    off = np.array([0, 3, 5, 9])
    rows, seg = _batch_rows(off, np.array([2, 0]))
    assert rows.tolist() == [5, 6, 7, 8, 0, 1, 2] and seg.tolist() == [0, 0, 0, 0, 1, 1, 1]
    z = torch.tensor([1.0, 2.0, 3.0, 4.0, 0.5, -1.0, 2.0])
    lp = _segment_log_softmax(torch, z, torch.from_numpy(seg), 2)
    assert torch.allclose(lp[:4], torch.log_softmax(z[:4], 0)) and torch.allclose(lp[4:], torch.log_softmax(z[4:], 0))


def test_targets_sharpen_with_temperature():
    data = {"offsets": np.array([0, 2]), "visits": np.array([30.0, 10.0], np.float32)}
    t1 = _targets(data, 1.0)
    t05 = _targets(data, 0.5)
    assert np.allclose(t1, [0.75, 0.25]) and np.allclose(t05, [0.9, 0.1])


def test_fit_learns_a_rule_the_features_show():
    """Synthetic teacher: always the action with the larger feature 0 of its row: learnable, so
    the held-out agreement must become near perfect (an untrained net is at about one half)."""
    rng = np.random.default_rng(0)
    n, k = 600, 2
    rows = rng.normal(size=(n * k, 5)).astype(np.float32)
    visits = np.zeros(n * k, np.float32)
    for i in range(n):
        visits[i * k + int(np.argmax(rows[i * k:(i + 1) * k, 0]))] = 10
    data = {"offsets": np.arange(0, n * k + 1, k), "visits": visits}
    _, hist = fit(rows, data, hidden=[16], epochs=25, lr=3e-3, batch=64, log=lambda s: None)
    assert hist[-1]["val_agreement"] >= 0.9
    assert hist[-1]["train_loss"] < hist[0]["train_loss"]


def test_feature_rows_match_the_kernel(collected):
    out, _ = collected
    data = take(load_data([out]), 5)
    rows = feature_rows(data, "scout", 3)
    feat = get_game("scout").module("features")
    off = data["offsets"]
    for i in range(5):
        assert np.array_equal(rows[off[i]:off[i + 1]],
                              feat.features_of(data["obs"][i], data["ids"][off[i]:off[i + 1]], 3))


@pytest.mark.parametrize("bad, words", [
    (dict(players=7), "players=7"),
    (dict(game="sly", players=2), "no per-action features"),
    (dict(minutes=0), "minutes=0"),
    (dict(temperature=0), "temperature=0"),
    (dict(curve=[0.5]), "curve"),
    (dict(hidden=[]), "hidden"),
    (dict(teacher="nosuchbot"), "nosuchbot"),
    (dict(label_searches=0), "label_searches=0"),
    (dict(options={"rounds": 0}), "rounds"),
])
def test_config_errors_name_the_bad_value(bad, words):
    cfg = DistillConfig(**dict(dict(game="scout", players=2), **bad))
    with pytest.raises(ValueError, match=words):
        cfg.check()


def test_the_recipe_end_to_end_and_resume(tmp_path):
    """Both stages (the teacher plays, then the first fit plays and the teacher labels), the
    curve, the files; a second run collects nothing more and fits the same network."""
    out = str(tmp_path / "run")
    cfg = DistillConfig("scout", 2, minutes=2, decisions=40, workers=1, teacher=FAST_TEACHER, dagger=0.5, epochs=2,
                        curve=[0.5, 1.0], eval_games=4, eval_workers=1, out=out, options={"rounds": 1})
    summary = run(cfg, log=lambda s: None)
    stages = json.load(open(os.path.join(out, "collect.json")))
    assert set(stages) == {"teacher", "student"}
    # --decisions 40 with --dagger 0.5: the teacher stage stops after the game that reaches 20,
    # the student stage after the game that brings the total to 40
    assert stages["teacher"]["decisions"] >= 20 and stages["student"]["decisions"] >= 1
    assert stages["teacher"]["decisions"] + stages["student"]["decisions"] >= 40
    assert summary["decisions"] == stages["teacher"]["decisions"] + stages["student"]["decisions"]
    assert os.path.exists(os.path.join(out, "checkpoints", "teacher_stage.npz"))
    from sly_scout_env.netfile import load

    net = load(summary["final"])
    assert net.meta["inputs"] == "action_features" and net.meta["trained"]["decisions"] == summary["decisions"]
    evals = open(os.path.join(out, "eval.csv")).read().splitlines()
    assert len(evals) == 1 + 2 and evals[-1].split(",")[1] == "greedy"
    fits = open(os.path.join(out, "fit.csv")).read().splitlines()
    assert len(fits) == 1 + 2 * 2
    summary2 = run(cfg, log=lambda s: None)
    assert json.load(open(os.path.join(out, "collect.json"))) == stages
    a = load(summary2["final"])
    assert all(np.array_equal(x[0], y[0]) for x, y in zip(a.layers, net.layers))


def test_collect_resumes_from_the_first_record_format(tmp_path, collected):
    """A collect.json of the first format (one flat teacher stage) is read as the teacher stage."""
    from sly_scout_env.agents.training.distill import run_collect

    src, stats = collected
    os.makedirs(tmp_path / "data")
    with open(src, "rb") as f, open(tmp_path / "data" / "worker_00_0.npz", "wb") as g:
        g.write(f.read())
    flat = {"seconds": 120.0, "sessions": 1, "games": stats["games"], "decisions": stats["decisions"],
            "files": ["data/worker_00_0.npz"]}
    json.dump(flat, open(tmp_path / "collect.json", "w"))
    cfg = DistillConfig("scout", 3, minutes=2, teacher=FAST_TEACHER, out=str(tmp_path))
    state = run_collect(cfg, "teacher", 120.0, log=lambda s: None)
    assert state == flat


def test_the_command_line_refuses_bad_input_by_name():
    from sly_scout_env.agents.ui.cli import main

    with pytest.raises(SystemExit, match="--players 7 is not allowed for scout; allowed: 2, 3, 4, 5"):
        main(["distill", "scout", "--players", "7"])
    with pytest.raises(SystemExit, match="sly has no per-action features"):
        main(["distill", "sly", "--players", "2"])
    with pytest.raises(SystemExit, match="dagger=1.5 is not allowed"):
        main(["distill", "scout", "--players", "2", "--dagger", "1.5"])


def test_the_curve_flag_is_parsed_and_bad_curves_named(capsys):
    from sly_scout_env.agents.ui.cli import build_parser

    args = build_parser().parse_args(["distill", "scout", "--curve", "0.5,1"])
    assert args.curve == [0.5, 1.0]
    assert build_parser().parse_args(["distill", "scout"]).curve == [0.25, 0.5, 1.0]
    for bad, why in (("0.5,0.2,1", "increasing shares"), ("0.5", "ending at 1"), ("x", "not a comma-separated")):
        with pytest.raises(SystemExit):
            build_parser().parse_args(["distill", "scout", "--curve", bad])
        assert why in capsys.readouterr().err


def _children(pid: int) -> list[int]:
    """The live child processes of ``pid``, from /proc."""
    kids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue  # ended meanwhile
            if int(fields[1]) == pid and fields[0] != "Z":
                kids.append(int(entry))
    return kids


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads the process table from /proc")
def test_a_killed_distill_command_leaves_no_collector_running(tmp_path):
    """SIGKILL the real command while its pool worker collects: the worker notices its parent is
    gone, saves and ends after its game instead of collecting on to its own deadline."""
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "sly_scout_env.agents", "distill", "scout", "--players", "2", "--minutes", "60",
           "--teacher", FAST_TEACHER, "--workers", "1", "--option", "rounds=1", "--out", str(out)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    data = out / "data" / "teacher_00_0.npz"
    deadline = time.monotonic() + 600  # a loaded machine: the worker's imports and first 10 games
    try:
        while time.monotonic() < deadline and proc.poll() is None and not data.exists():
            time.sleep(0.1)
        assert proc.poll() is None, proc.stderr.read().decode()[-3000:]
        assert data.exists(), "no game saved in time"
        workers = [k for k in _children(proc.pid) if "spawn_main" in open(f"/proc/{k}/cmdline").read()]
        assert workers, "the pool worker is not a child of the command"
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait()
    stop = time.monotonic() + 300
    while time.monotonic() < stop and any(_alive(k) for k in workers):
        time.sleep(0.1)
    left = [k for k in workers if _alive(k)]
    for k in left:
        os.kill(k, signal.SIGKILL)
    assert not left, "the collector outlived the command"
    with np.load(data) as z:  # its last save is whole
        assert z["offsets"][-1] == z["ids"].size == z["visits"].size
