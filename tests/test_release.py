"""The release artefacts: the wheel and the sdist hold the package, its data, and nothing else.

One installed import name: the wheel's top level is ``sly_scout_env`` (with the app layer as
``sly_scout_env.agents``) and its metadata, never a generic ``agents`` package; the shipped
checkpoints, the web table's static files and ``py.typed`` are in it, the tests are not.
A fresh venv with the wheel imports the bots, the CLI and the checkpoints from site-packages.
"""

from __future__ import annotations

import pathlib
import shutil
import subprocess
import sys
import tarfile
import zipfile

import pytest

from sly_scout_env.games import all_games

ROOT = pathlib.Path(__file__).resolve().parents[1]

# One worker builds for the whole module (the group; tests/test_xdist_groups.py checks groups hold).
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("release")]


def _source_copy(dest: pathlib.Path) -> pathlib.Path:
    """The repository's files (tracked and untracked, not ignored) copied to ``dest``.

    The build runs there, not in the work tree: setuptools rewrites ``sly_scout_env.egg-info``
    in the tree it builds, and two builds of one tree at once race on it (CI once got an sdist
    without ``pyproject.toml`` when pytest 9.2 let xdist split this module's group). The work
    tree's own egg-info, the editable install's, is left alone as well.
    Outside a git checkout the whole tree is copied, minus the venv and build outputs.
    """
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            cwd=ROOT, capture_output=True)
    if listed.returncode == 0 and listed.stdout:
        for rel in filter(None, listed.stdout.decode().split("\0")):
            src = ROOT / rel
            if src.is_file():
                (dest / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, dest / rel)
        return dest
    shutil.copytree(ROOT, dest, dirs_exist_ok=True, ignore=shutil.ignore_patterns(
        ".venv", ".git", "runs", "site", "build", "dist", "*.egg-info", "__pycache__", "*.nbi", "*.nbc"))
    return dest


@pytest.fixture(scope="module")
def dists(tmp_path_factory):
    out = tmp_path_factory.mktemp("dist")
    src = _source_copy(tmp_path_factory.mktemp("src"))
    # --no-isolation: build with this venv's setuptools (no download); the result is the same archive.
    proc = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(src)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    wheel = next(out.glob("*.whl"))
    sdist = next(out.glob("*.tar.gz"))
    return wheel, sdist


def _expected_data() -> list[str]:
    """Package data the wheel must hold: every shipped checkpoint and static file of the repo."""
    files = [f"{spec.package.replace('.', '/')}/checkpoints/{f.name}" for spec in all_games()
             for f in spec.checkpoint_files()]
    files += [f"sly_scout_env/agents/ui/web/static/{p.name}" for p in (ROOT / "agents/ui/web/static").iterdir()]
    return files + ["sly_scout_env/py.typed"]


def test_the_wheel_holds_one_top_level_name_and_the_package_data(dists):
    wheel, _ = dists
    names = zipfile.ZipFile(wheel).namelist()
    top = {n.split("/", 1)[0] for n in names}
    assert {t for t in top if not t.endswith(".dist-info")} == {"sly_scout_env"}, top
    assert not any(n.startswith("agents/") for n in names)
    missing = [f for f in _expected_data() if f not in names]
    assert not missing, missing
    assert len([n for n in names if n.endswith(".npz")]) >= 5
    assert not any(n.startswith("tests/") or "/tests/" in n or n.split("/")[-1].startswith("test_") for n in names)
    # Every module of the repo's two package trees is in the wheel (no room forgotten in pyproject.toml).
    modules = [f"sly_scout_env/{p.relative_to(ROOT / 'sly_scout_env')}" for p in (ROOT / "sly_scout_env").rglob("*.py")]
    modules += [f"sly_scout_env/agents/{p.relative_to(ROOT / 'agents')}" for p in (ROOT / "agents").rglob("*.py")]
    assert not [m for m in modules if m not in names]
    top_level = next(n for n in names if n.endswith("top_level.txt"))
    assert zipfile.ZipFile(wheel).read(top_level).decode().split() == ["sly_scout_env"]


def test_the_sdist_holds_the_sources_without_tests(dists):
    _, sdist = dists
    names = tarfile.open(sdist).getnames()
    rel = {n.split("/", 1)[1] for n in names if "/" in n}
    assert {"pyproject.toml", "README.md", "LICENSE", "agents/__init__.py", "sly_scout_env/__init__.py"} <= rel
    assert not any(r.startswith(("tests/", "benchmarks/", "notebooks/")) for r in rel)
    assert any(r.endswith("checkpoints/scout_2p.npz") for r in rel)


def test_the_wheel_in_a_fresh_venv_imports_the_bots_the_cli_and_the_checkpoints(dists, tmp_path):
    wheel, _ = dists
    venv = tmp_path / "venv"
    # The dependencies (numpy, numba, ...) come from this venv's site-packages, added as a plain path
    # (a .pth line: the .pth files there, the editable install's among them, are not run), while the
    # package itself comes only from the wheel (installed with --no-deps).
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    py = venv / "bin" / "python"
    site = subprocess.run([sys.executable, "-c", "import site; print(site.getsitepackages()[0])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    (pathlib.Path(subprocess.run([str(py), "-c", "import site; print(site.getsitepackages()[0])"],
                                 capture_output=True, text=True, check=True).stdout.strip())
     / "outer.pth").write_text(site + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "--quiet", "--no-deps", "--no-index",
                    str(wheel)], check=True)
    code = (
        "import sys, importlib.util\n"
        "import sly_scout_env, sly_scout_env.agents as a\n"
        "assert 'site-packages' in sly_scout_env.__file__ and 'site-packages' in a.__file__, "
        "(sly_scout_env.__file__, a.__file__)\n"
        "assert importlib.util.find_spec('agents') is None "
        "or 'site-packages' not in (importlib.util.find_spec('agents').origin or '')\n"
        "from sly_scout_env.agents.ui.cli import build_parser\n"
        "build_parser()\n"
        "from sly_scout_env.netfile import shipped\n"
        "print(len(shipped()), sorted(a.available()))\n"
    )
    # Run outside the repository, so that nothing is imported from the work tree.
    proc = subprocess.run([str(py), "-c", code], cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    count, *bots = proc.stdout.split(maxsplit=1)
    assert int(count) >= 5 and "ismcts" in bots[0] and "neural" in bots[0]
    cli = subprocess.run([str(venv / "bin" / "sly-scout"), "--help"], cwd=tmp_path, capture_output=True, text=True)
    assert cli.returncode == 0 and "simulate" in cli.stdout and "serve" in cli.stdout


def test_the_editable_install_serves_the_same_names():
    import sly_scout_env.agents as a
    from sly_scout_env.agents.ui.cli import main  # noqa: F401

    assert pathlib.Path(a.__file__).resolve() == ROOT / "agents" / "__init__.py"
    assert all(spec.checkpoint_files() or not (ROOT / spec.package.replace(".", "/") / "checkpoints").exists()
               for spec in all_games())
