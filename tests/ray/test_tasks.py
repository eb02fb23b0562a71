"""Ray tasks on a real local Ray: same results as the local path, order, progress, cancel."""

import os
import subprocess
import sys
import time

import numpy as np
import pytest

from sly_scout_env.agents.evaluation.arena import run_arena
from sly_scout_env.ray_tasks import last_run, map_tasks
from sly_scout_env.simulation import simulate

ARRAYS = ("scores", "winners", "steps", "end_reason")


def _square_slow(x):
    time.sleep(0.05 * (x % 3))  # finish out of order
    return x * x


def _sleep_then_touch(arg):
    """Task 0 returns at once; the others wait (up to 30 s) for a "go" file, then touch
    "done<i>": a task that was not cancelled leaves its file, whatever the machine's load."""
    i, folder = arg
    if i:
        deadline = time.monotonic() + 30
        while not os.path.exists(os.path.join(folder, "go")) and time.monotonic() < deadline:
            time.sleep(0.05)
        open(os.path.join(folder, f"done{i}"), "w").close()
    return i


@pytest.mark.parametrize("game,players", [("scout", 3), ("sly", 2)])
def test_simulate_on_ray_equals_local(local_ray, game, players):
    seen = []
    local = simulate(game, 5000, players=players, seed=11, chunk_size=700, threads=1)
    remote = simulate(game, 5000, players=players, seed=11, chunk_size=700, ray=True, progress=seen.append)
    for k in ARRAYS:
        assert np.array_equal(local[k], remote[k]), k
    assert last_run()["tasks"] == 8  # ceil(5000 / 700) chunks, one task each
    assert seen == sorted(seen) and seen[-1] == 5000 and len(seen) == 8


def test_arena_on_ray_equals_local(local_ray):
    kw = dict(games=60, seed=5, progress=False)
    local = run_arena("sly", 3, ["random", "greedy"], workers=1, **kw)
    remote = run_arena("sly", 3, ["random", "greedy"], ray=True, **kw)
    assert remote.records == local.records and remote.to_dict() == local.to_dict()
    assert last_run()["items"] == local.deals


def test_map_tasks_order_and_batches(local_ray):
    arrived = []
    out = map_tasks(_square_slow, range(23), per_task=3, on_result=lambda i, r: arrived.append(i))
    assert out == [x * x for x in range(23)]
    assert sorted(arrived) == list(range(23))
    assert last_run()["tasks"] == 8
    # More tasks than the window in flight (8 for 2 CPUs): still every result, in order.
    assert map_tasks(_square_slow, range(40)) == [x * x for x in range(40)]


def test_interrupt_cancels_outstanding_tasks(local_ray, tmp_path, capsys):
    def interrupt(i, r):
        raise KeyboardInterrupt

    t0 = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        map_tasks(_sleep_then_touch, [(i, str(tmp_path)) for i in range(4)], on_result=interrupt)
    # The driver stops at once (the other tasks would wait 30 s for a "go" file) and
    # cancels the three outstanding tasks.
    assert time.monotonic() - t0 < 25
    assert "cancelled 3 outstanding Ray task(s)" in capsys.readouterr().err


def test_bad_address_is_a_value_error():
    with pytest.raises(ValueError, match="ray=3 is not allowed"):
        map_tasks(_square_slow, [1], address=3)


HIDE_RAY = "import sys; sys.modules['ray'] = None; "


@pytest.mark.parametrize("argv", [["simulate", "sly", "--games", "10", "--ray"],
                                  ["arena", "sly", "--agents", "random", "--games", "2", "--ray", "auto"]])
def test_missing_ray_names_the_extra(argv):
    code = HIDE_RAY + f"from sly_scout_env.agents.ui.cli import main; sys.exit(main({argv!r}))"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert p.returncode == 2
    assert 'pip install "sly-scout-env[ray]"' in p.stderr


def test_missing_ray_api_error():
    code = HIDE_RAY + "from sly_scout_env.simulation import simulate; simulate('sly', 10, ray=True)"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert p.returncode == 1 and "ImportError: Ray is not installed; install the ray extra" in p.stderr


def test_core_never_imports_ray():
    code = ("import sys, sly_scout_env, agents, sly_scout_env.simulation, sly_scout_env.agents.training.rllib; "
            "from sly_scout_env.agents.ui.cli import build_parser; build_parser(); "
            "print(sorted(m for m in sys.modules if m == 'ray' or m.startswith('ray.')))")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "[]"


def test_cli_simulate_and_arena_with_ray(local_ray, tmp_path, capsys):
    from sly_scout_env.agents.ui.cli import main

    base = ["simulate", "scout", "--players", "2", "--hands", "3000", "--seed", "4", "--no-progress"]
    assert main(base + ["--threads", "1", "--out", str(tmp_path / "local.npz")]) == 0
    assert main(base + ["--ray", "--out", str(tmp_path / "ray.npz")]) == 0
    out = capsys.readouterr().out
    assert "ray            1 task(s) on 1 node(s)" in out
    a, b = np.load(tmp_path / "local.npz"), np.load(tmp_path / "ray.npz")
    for k in ARRAYS:
        assert np.array_equal(a[k], b[k]), k
    arena = ["arena", "sly", "--players", "2", "--agents", "random,greedy", "--games", "40", "--no-progress"]
    assert main(arena + ["--workers", "1", "--json", str(tmp_path / "a.json")]) == 0
    assert main(arena + ["--ray", "--json", str(tmp_path / "b.json")]) == 0
    assert (tmp_path / "a.json").read_text() == (tmp_path / "b.json").read_text()


def test_cli_train_rllib_refuses_sb3_only_options(capsys):
    from sly_scout_env.agents.ui.cli import main

    with pytest.raises(SystemExit, match="--fast and --vec-env are SB3 options"):
        main(["train", "sly", "--players", "2", "--backend", "rllib", "--vec-env", "subproc"])
    with pytest.raises(SystemExit, match="opponent 'ismcts' reads the game state"):
        main(["train", "sly", "--players", "2", "--backend", "rllib", "--opponents", "ismcts"])


@pytest.mark.slow  # starts a Ray in a subprocess
def test_ctrl_c_cancels_outstanding_tasks(tmp_path):
    """A real SIGINT to a driver waiting on Ray: the outstanding tasks are cancelled."""
    import signal

    code = (
        "import ray, signal, sys\n"
        # A pytest-xdist worker ignores SIGINT, and children inherit that: restore Python's handler.
        "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
        "from sly_scout_env.ray_tasks import map_tasks\n"
        "from tests.ray.test_tasks import _sleep_then_touch\n"
        "ray.init(address='local', num_cpus=1, include_dashboard=False, log_to_driver=False)\n"
        "def first(i, r):\n"
        "    print('first result', flush=True)\n"
        f"map_tasks(_sleep_then_touch, [(i, {str(tmp_path)!r}) for i in range(4)], on_result=first)\n"
    )
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=dict(os.environ, PYTHONPATH=os.getcwd()))
    assert p.stdout.readline().strip() == "first result"
    time.sleep(0.5)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=240)  # generous: a loaded 2-core machine starts and stops Ray slowly
    assert p.returncode != 0 and "KeyboardInterrupt" in err
    assert "cancelled 3 outstanding Ray task(s)" in err
