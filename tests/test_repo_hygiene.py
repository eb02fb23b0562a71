"""The repository cites only itself: no paths of the development machine, no rules files outside it.

The rules as implemented live in ``docs/scout_rules.md`` and ``docs/sly_rules.md``; code,
tests and docs cite those. A clone has nothing at the development machine's absolute
paths, so a citation of one is a dead link. The scanner reads every tracked text file
(``git ls-files``) and reports each hit as ``file:line``.

The forbidden patterns are built from pieces, so this file can be scanned like any other.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Text files the scan covers: by suffix, by exact name, and every file of the CI folder.
TEXT_SUFFIXES = (".py", ".md", ".ipynb", ".toml", ".cfg", ".txt", ".js", ".html", ".css",
                 ".json", ".yml", ".yaml", ".sh", ".ini")
TEXT_NAMES = ("Makefile", ".gitignore")
TEXT_DIRS = (".ci/",)

_WORK = "/" + "work" + "/"
_SHARED = "shared" + "/"
# (what it is, regex). The machine's work folder only as the start of a path, so a URL
# or a relative path that happens to contain a "work" folder is not a hit.
FORBIDDEN = (
    ("absolute path of the development machine", re.compile(r"(?<![\w.-])" + re.escape(_WORK))),
    ("rules file outside the repo", re.compile(re.escape(_SHARED + "rules"))),
    ("path outside the repo", re.compile(re.escape("../" + _SHARED[:-1]))),
)


def is_scanned(path: str) -> bool:
    """True if the tracked file ``path`` (relative, with ``/``) is a text file the scan reads."""
    name = path.rsplit("/", 1)[-1]
    return path.endswith(TEXT_SUFFIXES) or name in TEXT_NAMES or path.startswith(TEXT_DIRS)


def scan_text(name: str, text: str) -> list[str]:
    """Every forbidden citation in ``text``, as ``"name:line: what: the line"``."""
    hits = []
    for number, line in enumerate(text.splitlines(), start=1):
        for what, pattern in FORBIDDEN:
            if pattern.search(line):
                hits.append(f"{name}:{number}: {what}: {line.strip()[:120]}")
    return hits


def tracked_files() -> list[str]:
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        pytest.skip(f"not a git checkout ({e}): the scan needs the list of tracked files")
    return [p for p in out.decode().split("\0") if p]


def test_scanner_finds_forbidden_citations():
    fake = "\n".join((
        "a clean line about docs/scout_rules.md",
        "see " + _WORK + "shared/x.md",  # line 2: absolute path
        "written from ``" + _SHARED + "rules/sly.md``",  # line 3: rules file outside
        "import ../" + _SHARED + "DESIGN.md",  # line 4: path outside
        "https://example.org" + _WORK + "page and src" + _WORK + "x.py",  # URL / relative: fine
    ))
    hits = scan_text("fake.md", fake)
    assert [h.split(": ")[0] for h in hits] == ["fake.md:2", "fake.md:3", "fake.md:4"]
    assert "absolute path" in hits[0] and "rules file" in hits[1] and "outside the repo" in hits[2]
    assert scan_text("clean.md", "docs/sly_rules.md, Public knowledge\n") == []


def test_scanned_file_types():
    for path in ("sly_scout_env/games.py", "docs/bots.md", "notebooks/x.ipynb", "Makefile",
                 "pyproject.toml", ".ci/run", "web/static/app.js"):
        assert is_scanned(path), path
    for path in ("docs/curve.png", "runs/model.zip"):
        assert not is_scanned(path), path


def scanned_texts():
    """(path, text) of every tracked text file present in this working tree."""
    files = [p for p in tracked_files() if is_scanned(p)]
    # The scan must see the code, the tests and the docs, else it proves nothing.
    assert "sly_scout_env/games.py" in files and "docs/scout_rules.md" in files
    for path in files:
        full = ROOT / path
        if full.is_file():  # else tracked but deleted in this working tree
            yield path, full.read_text(encoding="utf-8", errors="replace")


def test_repo_cites_nothing_outside_itself():
    hits = [hit for path, text in scanned_texts() for hit in scan_text(path, text)]
    assert not hits, ("cite the repo's own docs (docs/scout_rules.md, docs/sly_rules.md), "
                      "not files outside it:\n" + "\n".join(hits))


def test_cited_docs_exist():
    # The citations that replace the outside rules files must not be dead links either.
    cited = re.compile(r"\bdocs/[\w-]+\.md\b")
    missing = [f"{path}:{number}: {m}"
               for path, text in scanned_texts()
               for number, line in enumerate(text.splitlines(), start=1)
               for m in cited.findall(line) if not (ROOT / m).is_file()]
    assert not missing, "cited docs that do not exist:\n" + "\n".join(missing)
