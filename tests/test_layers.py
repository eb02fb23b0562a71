"""Imports point down: the game layer (``sly_scout_env``) never imports the app layer
(``sly_scout_env.agents``, the repository's ``agents/`` folder), at import time or at call time.

Two checks, so that neither a module-level nor a function-level import slips through:

* an AST scan of every core module's source for an import of the app layer (any
  ``import``/``from`` statement anywhere in the file, inside functions too, and
  ``importlib.import_module`` calls with a literal name);
* every core module imported in a fresh interpreter with the app layer blocked
  (``sys.modules`` set to None for it), which fails on any import of it at import time.
"""

from __future__ import annotations

import ast
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
CORE = ROOT / "sly_scout_env"
APP = ("sly_scout_env.agents", "agents")


def core_modules() -> list[str]:
    """Every module of the game layer, as a dotted name (the app layer, installed beneath it, excluded)."""
    names = []
    for path in sorted(CORE.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names.append(".".join(parts))
    return names


def _imports_app(name: str | None) -> bool:
    return name is not None and any(name == a or name.startswith(a + ".") for a in APP)


def app_imports(source: str, module: str) -> list[int]:
    """Lines of ``source`` (the module ``module``) that import the app layer."""
    package = module if module.count(".") == 0 else module.rsplit(".", 1)[0]
    hits = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            hits += [node.lineno for a in node.names if _imports_app(a.name)]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                full = ".".join(base + ([node.module] if node.module else []))
                names = [full] + [f"{full}.{a.name}" for a in node.names]
            else:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            if any(_imports_app(n) for n in names):
                hits.append(node.lineno)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr == "import_module" and node.args and isinstance(node.args[0], ast.Constant)
              and _imports_app(str(node.args[0].value))):
            hits.append(node.lineno)
    return sorted(hits)


def test_the_scanner_finds_upward_imports():
    src = ("import numpy\n"
           "def f():\n    from sly_scout_env.agents.bots import registry\n"
           "from . import agents\n"
           "import agents.bots\n"
           "importlib.import_module('sly_scout_env.agents.ui.cli')\n"
           "from sly_scout_env import games\n")
    assert app_imports(src, "sly_scout_env.rllib") == [3, 4, 5, 6]
    assert app_imports("from .games import get_game\n", "sly_scout_env.cli") == []


def test_no_core_module_imports_the_app_layer_in_its_source():
    hits = []
    for module in core_modules():
        path = ROOT / (module.replace(".", "/") + ".py")
        if not path.exists():
            path = ROOT / module.replace(".", "/") / "__init__.py"
        hits += [f"{path.relative_to(ROOT)}:{n}" for n in app_imports(path.read_text(encoding="utf-8"), module)]
    assert not hits, "the game layer imports the app layer (imports point down): " + ", ".join(hits)


def test_every_core_module_imports_with_the_app_layer_blocked():
    # rllib needs the ray extra; it is imported too when Ray is there (make installs it).
    modules = core_modules()
    code = ("import sys, importlib\n"
            "for name in ('sly_scout_env.agents', 'agents'):\n"
            "    sys.modules[name] = None\n"  # None in sys.modules makes any import of it fail
            f"for m in {modules!r}:\n"
            "    importlib.import_module(m)\n"
            "print('ok', len(sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.startswith("ok"), out.stderr[-3000:]
