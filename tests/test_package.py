"""The package: PettingZoo registry entries, lazy imports."""

import subprocess
import sys

import pettingzoo

import sly_scout_env


def test_both_envs_are_in_pettingzoos_registry():
    for env_id, players in (("sly_scout_env/scout-v0", 3), ("sly_scout_env/sly-v0", 2)):
        assert env_id in pettingzoo.aec_registry
        env = pettingzoo.make("aec", env_id, num_players=players)
        env.reset(seed=0)
        assert len(env.agents) == players
        assert env.unwrapped.metadata["name"] == env_id.split("/")[1].replace("-", "_")
        env.close()


def test_importing_the_package_loads_no_env_and_no_numba():
    code = "import sys, sly_scout_env; print('numba' in sys.modules, 'sly_scout_env.scout.rules' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "False"]
    assert sly_scout_env.__version__


def test_package_metadata_uses_the_spdx_license_string():
    import pathlib
    import tomllib

    meta = tomllib.loads((pathlib.Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())
    # A table ({text = ...}) is deprecated by setuptools and warns on every install.
    assert meta["project"]["license"] == "MIT"
    assert any(r.startswith("setuptools>=7") or r.startswith("setuptools>=8") for r in meta["build-system"]["requires"])


def test_only_the_tested_python_is_claimed():
    import pathlib
    import tomllib

    meta = tomllib.loads((pathlib.Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())["project"]
    this = f"{sys.version_info.major}.{sys.version_info.minor}"
    claimed = [c.rsplit(" :: ", 1)[1] for c in meta["classifiers"]
               if c.startswith("Programming Language :: Python :: 3.")]
    assert claimed == [this], (claimed, this)
    assert meta["requires-python"] == f">={this}"


def test_the_version_is_stated_once():
    import pathlib
    import tomllib

    root = pathlib.Path(__file__).resolve().parents[1]
    meta = tomllib.loads((root / "pyproject.toml").read_text())
    assert "version" not in meta["project"] and "version" in meta["project"]["dynamic"]
    assert meta["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "sly_scout_env.__version__"}
    from importlib.metadata import version

    assert version("sly-scout-env") == sly_scout_env.__version__
