"""Independent chunks of work as Ray tasks: ordered results, retries, progress, Ctrl-C.

    from sly_scout_env.ray_tasks import map_tasks
    results = map_tasks(fn, items, address=None, per_task=4, on_result=callback)

This is what ``simulate(..., ray=...)`` (chunks of games) and ``run_arena(..., ray=...)``
(deals) run on; see docs/ray.md. Ray is an optional extra (``pip install
"sly-scout-env[ray]"``): this module imports it inside its functions, so importing the
package never loads Ray, and a missing Ray is a clear error naming the extra.

Why the results are exactly the local run's: every item is a pure function of its
arguments (a chunk of games is dealt from its own seed words, a deal from its own
seed), so it does not matter which node or worker runs it, or how often.

Fault tolerance: a task is retried by Ray (``max_retries``) when its worker or node
dies; a result is copied into the driver as soon as its task finishes (``ray.get``),
so a node that leaves later cannot take a finished result with it (and one that leaves
between the finish and the copy is rebuilt by Ray's lineage reconstruction).
Ctrl-C (or any error) cancels every outstanding task (``ray.cancel(force=True)``:
compiled code cannot be interrupted politely) before the exception propagates.
"""

from __future__ import annotations

import sys
from collections import Counter

from .checks import check_int

EXTRA_HINT = ('Ray is not installed; install the ray extra: pip install "sly-scout-env[ray]" '
              "(or `make`, which installs it)")

# What the last map_tasks call did (tasks, items, which nodes ran them): the CLI prints
# it, and the cluster tests check that work was spread over the nodes.
_LAST_RUN: dict = {}


def import_ray():
    """The ``ray`` module; ImportError naming the ``ray`` extra when it is missing."""
    try:
        import ray
    except ImportError as exc:
        raise ImportError(EXTRA_HINT) from exc
    return ray


def resolve_address(address):
    """``True``/``None`` -> None (Ray's own lookup: ``RAY_ADDRESS``, a running local
    cluster, else a new local one); ``"auto"`` or ``"HOST:PORT"`` as given."""
    if address is None or address is True:
        return None
    if isinstance(address, str) and address.strip():
        return address.strip()
    raise ValueError(f"ray={address!r} is not allowed; allowed values: True (connect or start a local Ray), "
                     "'auto' (a running cluster) or 'HOST:PORT' (a cluster's head)")


def init_ray(address=None):
    """Connect to (or start) Ray once per process; returns the ``ray`` module.

    An already initialised Ray (a test session, a user's own ``ray.init``) is reused
    whatever ``address`` says.
    """
    ray = import_ray()
    address = resolve_address(address)
    if not ray.is_initialized():
        ray.init(address=address, log_to_driver=True)
    return ray


def last_run() -> dict:
    """What the last :func:`map_tasks` did: ``tasks``, ``items``, ``nodes`` (node id -> tasks)."""
    return dict(_LAST_RUN)


def _run_batch(fn, items: list):
    import ray

    return ray.get_runtime_context().get_node_id(), [fn(x) for x in items]


def map_tasks(fn, items, *, address=None, per_task: int = 1, on_result=None, max_retries: int = 5,
              num_cpus: float = 1) -> list:
    """``[fn(x) for x in items]``, computed as Ray tasks of ``per_task`` items each.

    ``fn`` must be importable by the workers (a module-level function of an installed
    module). ``on_result(index, result)`` is called in the driver as each item's result
    arrives (completion order, for progress bars); the returned list is in item order.
    """
    per_task = check_int("per_task", per_task, 1)
    max_retries = check_int("max_retries", max_retries, 0)
    ray = init_ray(address)
    items = list(items)
    # SPREAD: without it Ray packs short tasks onto the first node with a warm worker, and a
    # second node whose worker is still starting may get nothing at all.
    remote = ray.remote(_run_batch).options(num_cpus=num_cpus, max_retries=max_retries, retry_exceptions=False,
                                            scheduling_strategy="SPREAD")
    starts = iter(range(0, len(items), per_task))
    pending: dict = {}

    def submit() -> None:
        lo = next(starts, None)
        if lo is not None:
            pending[remote.remote(fn, items[lo:lo + per_task])] = lo

    # A window of tasks in flight (a few per CPU of the cluster) keeps every worker busy
    # while the driver holds a bounded number of references, whatever the item count.
    for _ in range(max(8, 4 * int(ray.cluster_resources().get("CPU", 1)))):
        submit()
    results: list = [None] * len(items)
    nodes: Counter = Counter()
    _LAST_RUN.clear()
    _LAST_RUN.update(tasks=-(-len(items) // per_task), items=len(items), nodes=nodes)
    try:
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            for ref in done:
                lo = pending.pop(ref)
                node, batch = ray.get(ref)
                nodes[node] += 1
                for k, r in enumerate(batch):
                    results[lo + k] = r
                    if on_result is not None:
                        on_result(lo + k, r)
                submit()
    except BaseException:  # Ctrl-C, a failed task, a failing callback: stop the rest
        for ref in pending:
            ray.cancel(ref, force=True)
        if pending:
            print(f"cancelled {len(pending)} outstanding Ray task(s)", file=sys.stderr)
        raise
    return results


def add_ray_option(parser, what: str) -> None:
    """Add ``--ray [ADDRESS]`` to a sub-command's parser (``what``: what runs as tasks).

    A missing Ray is a usage error naming the extra, raised while parsing."""
    import argparse
    import importlib.util

    class RayOption(argparse.Action):
        def __call__(self, parser, namespace, values, option_string=None):
            if importlib.util.find_spec("ray") is None:
                parser.error(f"{option_string}: {EXTRA_HINT}")
            setattr(namespace, self.dest, values)

    parser.add_argument(
        "--ray", nargs="?", const=True, default=None, action=RayOption, metavar="ADDRESS",
        help=f"run {what} as Ray tasks: on the cluster at ADDRESS ('auto' or HOST:PORT), or without ADDRESS "
        "on RAY_ADDRESS / a running local cluster / a new local Ray (same results as without --ray; docs/ray.md)",
    )
