"""The notebooks run end to end in small mode (SLY_SCOUT_SMALL=1), with checks on
what they print and plot. They are committed without outputs (checked here too)."""

import base64
from pathlib import Path

import pytest

from .conftest import INSTALL_NOTEBOOKS, require

nbformat = require("nbformat", INSTALL_NOTEBOOKS)
nbclient = require("nbclient", INSTALL_NOTEBOOKS)
require("ipykernel", INSTALL_NOTEBOOKS)
require("matplotlib", INSTALL_NOTEBOOKS)

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"

# notebook -> (texts its outputs must contain, minimum number of PNG figures)
EXPECTED = {
    "01_quickstart.ipynb": (["scout_v0: state_dict round trip OK", "sly_v0: state_dict round trip OK",
                             "QUICKSTART OK"], 0),
    "02_rollout_speed.ipynb": (["MEASURED", "AEC env"], 1),
    "03_compare_bots.ipynb": (["head-to-head", "BOTS COMPARED"], 3),
    "04_train_maskable_ppo.ipynb": (["vs random", "ppo vs random: win rate", "TRAINING NOTEBOOK OK"], 1),
    "05_learned_bots.ipynb": (["checkpoints", "neural vs greedy win share", "LEARNED BOTS OK"], 2),
    "06_expert_iteration.ipynb": (["generation 1:", "expert vs ismcts win share", "EXPERT ITERATION OK"], 1),
}


def _outputs(nb):
    texts, pngs, errors = [], 0, []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            if out.output_type == "stream":
                texts.append(out.text)
            elif out.output_type in ("execute_result", "display_data"):
                texts.append(out.get("data", {}).get("text/plain", ""))
                png = out.get("data", {}).get("image/png")
                if png:
                    assert base64.b64decode(png)[:8] == b"\x89PNG\r\n\x1a\n"
                    pngs += 1
            elif out.output_type == "error":
                errors.append(f"{out.ename}: {out.evalue}")
    return "\n".join(texts), pngs, errors


def test_every_notebook_is_checked_and_committed_without_outputs():
    assert sorted(p.name for p in NOTEBOOKS.glob("*.ipynb")) == sorted(EXPECTED)
    for name in EXPECTED:
        nb = nbformat.read(NOTEBOOKS / name, as_version=4)
        nbformat.validate(nb)
        for cell in nb.cells:
            if cell.cell_type == "code":
                assert cell.outputs == [] and cell.execution_count is None, f"{name} has outputs"


@pytest.mark.slow
@pytest.mark.train  # 04 trains a MaskablePPO, 05 plays the learned bots
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_notebook_runs_in_small_mode(name, monkeypatch):
    monkeypatch.setenv("SLY_SCOUT_SMALL", "1")
    monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    monkeypatch.setenv("OMP_NUM_THREADS", "1")  # torch in the kernel: one thread, shared machines
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    # "python3" is the kernel of the running interpreter (ipykernel's native kernel spec).
    client = nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                                     resources={"metadata": {"path": str(NOTEBOOKS)}})
    client.execute()
    text, pngs, errors = _outputs(nb)
    assert not errors, errors
    assert "small mode" in text
    wanted, min_pngs = EXPECTED[name]
    for w in wanted:
        assert w in text, f"{name}: {w!r} not in the outputs"
    assert pngs >= min_pngs, f"{name}: {pngs} figures, expected at least {min_pngs}"
