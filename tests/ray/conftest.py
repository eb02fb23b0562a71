"""Ray test set-up: one real local Ray per test process, started on first use.

Every test here carries the ``ray`` marker (it needs the ray extra: skipped without it, a
failure under ``CI=true``; ``tests/conftest.py``), and a test that starts a Ray (the
``local_ray`` or ``cluster`` fixture) the ``slow`` marker too.

The cluster tests (test_cluster.py) need a Ray of their own (``ray.cluster_utils.Cluster``,
separate raylets): they shut this one down first and the fixture starts it again for
whoever needs it next.
"""

import sys

import pytest

STARTS_RAY = {"local_ray", "cluster"}


@pytest.fixture
def local_ray():
    import ray

    if not ray.is_initialized():
        # address="local": a new instance even if another test process runs one.
        ray.init(address="local", num_cpus=2, include_dashboard=False, object_store_memory=200 * 2**20,
                 log_to_driver=False)
    yield ray


@pytest.fixture(scope="session", autouse=True)
def _shutdown_ray_at_end():
    yield
    ray = sys.modules.get("ray")  # only a Ray some test imported (and never an import for this)
    if ray is not None and ray.is_initialized():
        ray.shutdown()


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "tests/ray/" in str(item.fspath).replace("\\", "/"):
            item.add_marker(pytest.mark.ray)
            if STARTS_RAY & set(getattr(item, "fixturenames", ())):
                item.add_marker(pytest.mark.slow)
            # All Ray tests in one test process (`make test` runs pytest with --dist loadgroup): two
            # Ray instances started side by side on a 2-core machine slow each other's workers so
            # much that cancellation and node-loss timings stop meaning anything.
            item.add_marker(pytest.mark.xdist_group("ray"))
