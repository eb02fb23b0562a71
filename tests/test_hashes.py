"""The same seed gives the same games as before: fingerprints against the saved ones.

``benchmarks/hashes.py`` fingerprints simulations, replays (moves and final state dicts)
and vector-env batches (observations, masks, rewards); ``benchmarks/hashes_quick.json``
holds its quick set as computed before the app layer was reorganised. A change that
alters a deal, a move, a score or an observation changes a fingerprint and fails here.
(The full set, arena records included, is checked with
``python benchmarks/hashes.py --check benchmarks/hashes.json``.)
"""

import importlib.util
import json
import pathlib

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.slow


def _hashes_module():
    spec = importlib.util.spec_from_file_location("bench_hashes", ROOT / "benchmarks" / "hashes.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_digest_sees_every_byte():
    h = _hashes_module()
    a = np.arange(10, dtype=np.int32)
    b = a.copy()
    b[7] = 70
    assert h._digest(a) == h._digest(a.copy()) and h._digest(a) != h._digest(b)
    assert h._digest(a) != h._digest(a.astype(np.int64))  # the dtype counts
    assert h._digest([1, {"x": 2}]) != h._digest([1, {"x": 3}])


def test_every_quick_fingerprint_is_as_saved():
    saved = json.loads((ROOT / "benchmarks" / "hashes_quick.json").read_text())
    now = _hashes_module().all_hashes(quick=True)
    assert set(now) == set(saved)
    assert {k: v for k, v in now.items() if saved[k] != v} == {}
