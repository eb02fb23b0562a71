"""The documentation: the site builds cleanly, the README stays a front page, no tracker references.

* ``mkdocs build --strict`` (``mkdocs.yml``) must pass: no broken link or anchor between
  pages, every page of ``docs/`` in the navigation, every API page's module found by
  mkdocstrings. The built site must hold the pages a reader starts from.
* The README is the front page, at most 10 KB; the reference lives in ``docs/``.
* The pages say what a thing does and how it was measured, never "issue 11" or "#11":
  an internal tracker number means nothing to a reader of the repository.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

README_LIMIT = 10_240  # bytes

# (what it is, regex). Built so that this file's own docstring does not match them.
TRACKER_PATTERNS = (
    ("issue number", re.compile(r"(?i)\bissues?[\s_-]*#?\d+")),
    ("tracker reference", re.compile(r"(?<![\w&#/])#\d+\b")),
    ("the tracker's issue", re.compile(r"(?i)\bthe issue(?:'s|:|\s+asks|\s+was filed)")),
)


def tracker_references(name: str, text: str) -> list[str]:
    """Every line of ``text`` with an internal tracker reference, as ``"name:line: what: the line"``."""
    hits = []
    for number, line in enumerate(text.splitlines(), start=1):
        for what, pattern in TRACKER_PATTERNS:
            if pattern.search(line):
                hits.append(f"{name}:{number}: {what}: {line.strip()[:120]}")
                break  # one hit per line
    return hits


def doc_pages() -> list[Path]:
    """The README, the changelog and every page of docs/."""
    pages = [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").rglob("*.md"))]
    assert len(pages) > 10 and all(p.is_file() for p in pages)
    return pages


def test_the_scanner_finds_tracker_references():
    fake = "\n".join((
        "a clean line: the arena plays 300 games (seed 2), 95% intervals over deals",
        "meets the " + "issue 11 target",  # line 2
        "see " + "#12 for the details",  # line 3
        "the " + "issue's budget of 45 minutes",  # line 4
        "fixed in " + "Issue #9",  # line 5
        "[link](training.md#what-was-tried-for-scout-" + "issue-11)",  # line 6
        "an anchor training.md#results, an entity &#39;, a colour a#1, seat 3 of 4",  # fine
    ))
    hits = tracker_references("fake.md", fake)
    assert [h.split(": ")[0] for h in hits] == ["fake.md:2", "fake.md:3", "fake.md:4", "fake.md:5", "fake.md:6"]
    assert "issue number" in hits[0] and "tracker reference" in hits[1] and "the tracker's issue" in hits[2]
    assert tracker_references("clean.md", "The targets: 0.75 against greedy, measured on 500 deals.\n") == []


def test_no_page_cites_the_tracker():
    hits = [hit for page in doc_pages()
            for hit in tracker_references(str(page.relative_to(ROOT)), page.read_text(encoding="utf-8"))]
    assert not hits, ("say what a thing does and how it was measured, not its tracker number:\n"
                      + "\n".join(hits))


def test_the_readme_is_a_front_page():
    size = (ROOT / "README.md").stat().st_size
    assert size <= README_LIMIT, f"README.md is {size:,} bytes (at most {README_LIMIT:,}): move reference to docs/"
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    for needed in ("make run", "make test", "<!-- BENCHMARK_TABLE start", "<!-- BENCHMARK_TABLE end -->"):
        assert needed in text, needed


def test_the_site_builds_strictly(tmp_path):
    site = tmp_path / "site"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(site)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"mkdocs build --strict failed:\n{done.stdout}\n{done.stderr}"
    for page in ("index.html", "cli/index.html", "architecture/index.html", "strength/index.html",
                 "experiments/index.html", "benchmark-results/index.html", "changelog/index.html",
                 "api/games/index.html", "api/testing/index.html", "api/bots/index.html"):
        assert (site / page).is_file(), page
    # The API reference is read from the docstrings, and the snippets are pulled in.
    assert "get_game" in (site / "api/games/index.html").read_text(encoding="utf-8")
    assert "make_from_spec" in (site / "api/bots/index.html").read_text(encoding="utf-8")
    assert "in-kernel units/s" in (site / "benchmark-results/index.html").read_text(encoding="utf-8")
    assert "Unreleased" in (site / "changelog/index.html").read_text(encoding="utf-8")
