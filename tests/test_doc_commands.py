"""Every ``sly-scout`` command written in the README and the docs parses with today's parser.

A command shown to a user (a line of a fenced code block that starts with ``sly-scout``)
must name a sub-command and flags that exist: each one is parsed by
``sly_scout_env.agents.ui.cli.build_parser`` (parsing only; the commands' behaviour has
tests of its own). Usage synopses (``[--players 2..5]``, ``GAME``, ``A,B,...``) are not
commands and are passed over.
"""

from __future__ import annotations

import pathlib
import re
import shlex

import pytest

from sly_scout_env.agents.ui.cli import build_parser

ROOT = pathlib.Path(__file__).resolve().parents[1]
PLACEHOLDER = re.compile(r"^[A-Z][A-Z0-9_]*(?:[=,:.][A-Z0-9_.,:=]*)?$|\.\.\.|\[|\]|\||<|>")


def doc_commands(text: str) -> list[str]:
    """The ``sly-scout`` command lines of the fenced code blocks in ``text`` (comments stripped)."""
    out, fenced = [], False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            continue
        line = line.strip()
        for prefix in ("$ ", ".venv/bin/"):
            if line.startswith(prefix):
                line = line[len(prefix):]
        if not line.startswith("sly-scout "):
            continue
        line = line.split(" #", 1)[0].strip()
        if line.endswith("\\"):
            continue  # a continued line: the synopsis style of long examples
        out.append(line)
    return out


def is_synopsis(command: str) -> bool:
    return any(PLACEHOLDER.search(tok) for tok in shlex.split(command)[1:])


def test_the_extractor_reads_fenced_commands_only():
    text = "sly-scout x\n```\nsly-scout arena scout --games 4   # comment\n$ sly-scout demo\nls\n```\n"
    assert doc_commands(text) == ["sly-scout arena scout --games 4", "sly-scout demo"]
    assert is_synopsis("sly-scout arena GAME --players N") and is_synopsis("sly-scout demo [--seed S]")
    assert not is_synopsis("sly-scout arena scout --agents random,greedy --games 40")


def _all_commands() -> list[tuple[str, str]]:
    pages = [ROOT / "README.md"] + sorted((ROOT / "docs").rglob("*.md"))
    found = []
    for page in pages:
        for cmd in doc_commands(page.read_text(encoding="utf-8")):
            if not is_synopsis(cmd):
                found.append((str(page.relative_to(ROOT)), cmd))
    return found


COMMANDS = _all_commands()


def test_the_docs_show_commands():
    assert len(COMMANDS) >= 10


@pytest.mark.parametrize("page,command", COMMANDS, ids=[f"{p}:{c[:60]}" for p, c in COMMANDS])
def test_a_documented_command_parses(page, command, capsys):
    argv = shlex.split(command)[1:]
    try:
        build_parser().parse_args(argv)
    except SystemExit as exc:
        if exc.code not in (0, None):  # --help exits 0
            pytest.fail(f"{page}: `{command}` does not parse: {capsys.readouterr().err.strip()}")
