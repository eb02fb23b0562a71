"""Ray test set-up: one real local Ray per test process, started on first use.

The cluster tests (test_cluster.py) need a Ray of their own (``ray.cluster_utils.Cluster``,
separate raylets): they shut this one down first and the fixture starts it again for
whoever needs it next.
"""

import pytest


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
    import ray

    ray.shutdown()


def pytest_collection_modifyitems(config, items):
    # All Ray tests in one test process (`make test` runs pytest with --dist loadgroup): two
    # Ray instances started side by side on a 2-core machine slow each other's workers so
    # much that cancellation and node-loss timings stop meaning anything.
    for item in items:
        if "tests/ray/" in str(item.fspath).replace("\\", "/"):
            item.add_marker(pytest.mark.xdist_group("ray"))
