"""benchmarks/scorer_inputs.py: the scorer fitted with and without the observation (a tiny run)."""

import json
import os

import numpy as np
import pytest

from ..conftest import INSTALL_TRAIN, require

pytestmark = pytest.mark.train
require("torch", INSTALL_TRAIN)

from benchmarks.scorer_inputs import fit, main  # noqa: E402
from sly_scout_env.agents.training.distill import collect, load_data  # noqa: E402
from sly_scout_env.agents.training.distill_fit import feature_rows  # noqa: E402
from sly_scout_env.agents.training.distill_fit import fit as distill_fit  # noqa: E402


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    """A distill-shaped directory: config.json and one data file of 60 real teacher decisions."""
    out = tmp_path_factory.mktemp("run")
    os.makedirs(out / "data")
    collect("scout", 2, seconds=900, seed=3, out=str(out / "data" / "teacher_00_0.npz"),
            teacher="ismcts:iterations=24", max_decisions=60)
    cfg = {"game": "scout", "players": 2, "hidden": [8, 8], "epochs": 2, "learning_rate": 1e-3, "batch_size": 16,
           "temperature": 0.2, "seed": 4}
    (out / "config.json").write_text(json.dumps(cfg))
    return out


def test_rows_only_is_the_distill_fit_epoch_by_epoch(run_dir):
    """Without the embedding it is the shipped recipe: the same losses and agreement as distill_fit.fit."""
    data = load_data([str(run_dir / "data" / "teacher_00_0.npz")])
    rows = feature_rows(data, "scout", 2)
    kw = dict(hidden=(8, 8), epochs=2, lr=1e-3, batch=16, temperature=0.2, seed=4)
    mine = fit(rows, data, log=lambda s: None, **kw)
    _, ref = distill_fit(rows, data, log=lambda s: None, **kw)
    for a, b in zip(mine, ref):
        for key in ("train_loss", "val_loss", "val_agreement"):
            assert a[key] == pytest.approx(b[key], rel=1e-5, abs=1e-7), key
    assert len(mine) == 2


def test_the_observation_changes_the_fit(run_dir):
    data = load_data([str(run_dir / "data" / "teacher_00_0.npz")])
    rows = feature_rows(data, "scout", 2)
    kw = dict(hidden=(8, 8), epochs=2, batch=16, seed=4, log=lambda s: None)
    plain, ctx = fit(rows, data, **kw), fit(rows, data, embedding=4, **kw)
    assert all(np.isfinite(r["val_loss"]) and 0 <= r["val_agreement"] <= 1 for r in ctx)
    assert ctx[-1]["train_loss"] != plain[-1]["train_loss"]


def test_main_prints_both_rows_and_refuses_bad_input(run_dir, capsys, tmp_path):
    assert main([str(run_dir), "--embedding", "4", "--epochs", "1"]) == 0
    out = capsys.readouterr().out
    assert "| rows only |" in out and "| rows and observation (4) |" in out
    with pytest.raises(SystemExit):
        main([str(run_dir), "--embedding", "0"])
    assert "--embedding 0 is not allowed" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main([str(tmp_path)])
    assert "is not a sly-scout distill directory" in capsys.readouterr().err
