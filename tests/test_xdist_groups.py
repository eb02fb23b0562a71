"""The suite's own assumption: ``make test``'s ``--dist loadgroup`` keeps an ``xdist_group`` on one worker.

The Ray tests (``tests/ray/conftest.py``) and the release build (``tests/test_release.py``) are
grouped so that two Ray instances or two builds never run side by side. A pytest/xdist pair
that drops the groups without a word (pytest 9.2 with xdist 3.8 does) would bring back those
races as rare CI failures; this check fails at once instead.
"""

from __future__ import annotations

import re
import subprocess
import sys

from .conftest import require

# Skipped without xdist (a plain `pytest` run needs no groups); under CI=true it fails instead.
require("xdist", "pip install -e '.[dev]' (pytest-xdist)")

MODULE = '''
import pytest

pytestmark = pytest.mark.xdist_group("together")

@pytest.mark.parametrize("i", range(6))
def test_grouped(i):
    pass

@pytest.mark.parametrize("i", range(6))
def test_free(i):
    pass
'''


def test_loadgroup_runs_a_group_on_one_worker(tmp_path):
    (tmp_path / "test_grouped.py").write_text(MODULE)
    proc = subprocess.run([sys.executable, "-m", "pytest", "-n", "2", "--dist", "loadgroup", "-v",
                           "-p", "no:cacheprovider", "--rootdir", str(tmp_path), str(tmp_path)],
                          cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    workers = re.findall(r"\[(gw\d+)\].*PASSED .*::test_grouped\[", proc.stdout)
    assert len(workers) == 6, proc.stdout[-2000:]
    assert len(set(workers)) == 1, f"the group ran on {sorted(set(workers))}: --dist loadgroup ignored it"
