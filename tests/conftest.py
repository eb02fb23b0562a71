"""Test session set-up: the markers, the optional dependencies, and the Numba kernels compiled
(or loaded from Numba's cache) once, up front.

Markers (``pytest -m "not slow"``: the inner loop, about a minute with ``-n 2``; ``make test``
runs everything):

``slow``     more than a few seconds each: reference-vs-engine on thousands of games, the
             notebooks, training runs, Ray, the browser, the release build.
``browser``  drives a real Chromium (``tests/web/test_browser.py``).
``ray``      needs Ray (``tests/ray/``).
``train``    needs the train extra (torch, Stable-Baselines3, sb3-contrib).

Optional dependencies: a test that needs one calls :func:`require` (or carries the ``train``,
``ray`` or ``browser`` marker, which requires that extra before the test runs). Missing, the
test is skipped with a reason naming the install command; under CI (``CI=true``) a missing
dependency fails the test instead, so that CI never passes by skipping.

Cold compilation of the kernels costs seconds; doing it once per test worker, before the
first test, keeps single tests' timings honest and the suite fast.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable

import numpy as np
import pytest

INSTALL_TRAIN = "pip install -e '.[train]' (torch, stable-baselines3, sb3-contrib)"
INSTALL_RAY = "pip install -e '.[ray]'"
INSTALL_WEB = "pip install -e '.[web]'"
INSTALL_NOTEBOOKS = "pip install -e '.[notebooks]'"
CHROMIUM = "/usr/bin/chromium"
INSTALL_BROWSER = (f"install Debian's `chromium` package (apt-get install -y chromium; the tests drive {CHROMIUM}) "
           "and Playwright (pip install -e '.[dev]')")

MARKERS = {
    "slow": "takes more than a few seconds (deselect with -m 'not slow')",
    "browser": "drives a real Chromium through Playwright (Debian's chromium package)",
    "ray": "needs Ray (the ray extra)",
    "train": "needs the train extra (torch, Stable-Baselines3, sb3-contrib)",
}


def chromium() -> str | None:
    """The path of Debian's Chromium, if installed (the browser tests drive it, no download)."""
    return CHROMIUM if os.path.exists(CHROMIUM) else None

# What each marker requires, checked before each of its tests runs.
REQUIRES: dict[str, tuple[tuple[str | Callable[[], bool], str], ...]] = {
    "train": (("torch", INSTALL_TRAIN), ("stable_baselines3", INSTALL_TRAIN), ("sb3_contrib", INSTALL_TRAIN)),
    "ray": (("ray", INSTALL_RAY),),
    "browser": ((chromium, INSTALL_BROWSER), ("playwright.sync_api", INSTALL_BROWSER)),
}


def in_ci() -> bool:
    return os.environ.get("CI") == "true"


def require(what: str | Callable[[], bool], hint: str):
    """The module ``what`` (imported), or, for a check, its result; when it is missing, skip
    the test (or the module, at import) with a reason naming ``hint``, the install command.
    Under ``CI=true`` the test fails instead: CI must run every test.

    ``what``: a module name (``"torch"``, ``"playwright.sync_api"``) or a function returning
    whether the dependency is there (its ``__name__`` names it in the message)."""
    if callable(what):
        found = what()
        name = what.__name__
        error = None
    else:
        name = what
        try:
            found = importlib.import_module(what)
            error = None
        except ImportError as e:
            found, error = None, e
    if found:
        return found
    reason = f"{name} is not installed ({hint})" + (f": {error}" if error else "")
    if in_ci():
        pytest.fail(f"CI=true and a dependency is missing: {reason}", pytrace=False)
    pytest.skip(reason, allow_module_level=True)


def pytest_configure(config):
    for name, text in MARKERS.items():
        config.addinivalue_line("markers", f"{name}: {text}")


def pytest_runtest_setup(item):
    for marker, needs in REQUIRES.items():
        if item.get_closest_marker(marker) is not None:
            for what, hint in needs:
                require(what, hint)


def _warm(env_module, **options):
    env = env_module.raw_env(**options)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(50):
        if env.terminations[env.agent_selection]:
            break
        env.step(int(rng.choice(np.flatnonzero(env.legal_action_mask()))))
        env.observe(env.agent_selection)
    env.state_dict()


@pytest.fixture(scope="session", autouse=True)
def warm_numba_kernels():
    from sly_scout_env import scout_v0, sly_v0

    _warm(scout_v0, num_players=2)
    _warm(scout_v0, num_players=4)
    _warm(sly_v0, num_players=3)
    yield
