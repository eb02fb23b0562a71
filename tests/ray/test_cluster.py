"""Two real raylets on one machine (``ray.cluster_utils.Cluster``): work spreads over
both nodes, results equal the local run, and a node lost mid-run changes nothing."""

import time

import numpy as np
import pytest

from sly_scout_env.agents.evaluation.arena import run_arena
from sly_scout_env.ray_tasks import last_run, map_tasks
from sly_scout_env.simulation import simulate

ARRAYS = ("scores", "winners", "steps", "end_reason")
# Detect a dead node within about a second instead of the default ~30 s.
FAST_FAILURE = {"health_check_initial_delay_ms": 0, "health_check_period_ms": 300,
                "health_check_failure_threshold": 3, "health_check_timeout_ms": 300}


@pytest.fixture(scope="module")
def cluster():  # one cluster for the module; the fault test (last) removes a node
    import ray
    from ray.cluster_utils import Cluster

    ray.shutdown()  # the local Ray of the other tests, if any
    c = Cluster(initialize_head=True, head_node_args={"num_cpus": 0, "include_dashboard": False,
                                                      "object_store_memory": 100 * 2**20,
                                                      "_system_config": FAST_FAILURE})
    workers = [c.add_node(num_cpus=1, object_store_memory=100 * 2**20) for _ in range(2)]
    c.wait_for_nodes()
    ray.init(address=c.address, log_to_driver=False)
    yield c, workers
    ray.shutdown()
    c.shutdown()


def test_two_nodes_simulate_and_arena_equal_local(cluster):
    local = simulate("scout", 6000, players=4, seed=2, chunk_size=500, threads=1)
    remote = simulate("scout", 6000, players=4, seed=2, chunk_size=500, ray=True)
    for k in ARRAYS:
        assert np.array_equal(local[k], remote[k]), k
    assert len(last_run()["nodes"]) == 2  # both worker nodes ran chunks (the head has no CPU)

    kw = dict(games=48, seed=9, progress=False)
    a_local = run_arena("sly", 2, ["random", "greedy"], workers=1, **kw)
    a_remote = run_arena("sly", 2, ["random", "greedy"], ray=True, **kw)
    assert a_remote.to_dict() == a_local.to_dict() and a_remote.records == a_local.records
    assert len(last_run()["nodes"]) == 2


def _log_start_then_sleep(arg):
    """Log the attempt; on the node ``hold`` never finish (until that node is killed), so an
    item seen running there is surely lost with it, however loaded the machine is."""
    i, log, hold = arg
    import ray

    node = ray.get_runtime_context().get_node_id()
    with open(log, "a") as f:  # one line per attempt: a retried item shows twice
        f.write(f"{i} {node}\n")
    if node == hold:
        time.sleep(600)
    time.sleep(0.2)
    return i * 10


def test_task_on_a_lost_node_is_retried(cluster, tmp_path):
    c, _ = cluster
    extra = c.add_node(num_cpus=1, object_store_memory=100 * 2**20)
    c.wait_for_nodes()
    log = str(tmp_path / "starts.txt")
    removed, finished = [], set()

    def started_on_extra():
        with open(log) as f:
            return {int(line.split()[0]) for line in f if line.split()[1] == extra.node_id}

    def arrived(i, r):
        finished.add(i)
        if removed:
            return
        for _ in range(600):  # wait until the extra node runs an item (it holds it), then kill it
            running = started_on_extra() - finished
            if running:
                c.remove_node(extra, allow_graceful=False)
                removed.extend(running)
                return
            time.sleep(0.1)

    out = map_tasks(_log_start_then_sleep, [(i, log, extra.node_id) for i in range(12)], on_result=arrived)
    assert removed and out == [i * 10 for i in range(12)]
    with open(log) as f:
        starts = [int(line.split()[0]) for line in f]
    assert sorted(set(starts)) == list(range(12))
    assert starts.count(removed[0]) == 2  # the item lost with its node ran again elsewhere


def test_node_lost_mid_run_gives_the_full_identical_result(cluster):
    c, workers = cluster
    local = simulate("sly", 40_000, players=3, seed=4, chunk_size=1000, threads=1)
    removed = []

    def progress(done):  # after the first finished chunk, kill a node with work in flight
        if not removed:
            c.remove_node(workers[0], allow_graceful=False)
            removed.append(done)

    remote = simulate("sly", 40_000, players=3, seed=4, chunk_size=1000, ray=True, progress=progress)
    assert removed
    for k in ARRAYS:
        assert np.array_equal(local[k], remote[k]), k
    assert last_run()["tasks"] == 40
