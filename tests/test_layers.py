"""Layers point one way (issue 31): no module imports a layer above its own.

The order, top to bottom, is ``cli`` → ``flow`` → ``report`` → ``runner`` → ``algorithms`` →
``learners`` → ``protocol`` → ``datasets``, with the package root and its shared modules
(``errors``, ``_yaml``, ``_dtypes``, ``_inline``, ``_kernel_cache``, ``__version__``) below
all. A module may import its own layer and any layer below it. Every ``import`` /
``from ... import`` of every module is read with :mod:`ast`, including those inside functions
(a lazy import is still a dependency) and under ``TYPE_CHECKING``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = "mcboost_cli"
PACKAGE_DIR = Path(__file__).resolve().parents[1] / PACKAGE

#: Layers from the top down; a module may import only its own layer and those after it.
LAYERS = ("cli", "flow", "report", "runner", "algorithms", "learners", "protocol", "datasets",
          "base")
#: The run flow (``runner.experiment``: plan, narrow, import, execute, render) lives with the
#: runner but composes it with the report layer, so it is a layer of its own above report:
#: only the CLI (and users' notebooks) call it, nothing below imports it.
FLOW_MODULES = {"mcboost_cli.runner.experiment"}
#: Modules directly in the package that every layer may use.
BASE_MODULES = {"errors", "_yaml", "_dtypes", "_inline", "_kernel_cache"}


def module_name(path: Path) -> str:
    """``mcboost_cli/report/tables.py`` -> ``mcboost_cli.report.tables`` (a package's
    ``__init__.py`` -> the package's name)."""
    parts = list(path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def layer_of(module: str) -> str:
    """The layer of a dotted module name inside the package."""
    parts = module.split(".")
    if module in FLOW_MODULES:
        return "flow"
    if len(parts) == 1 or parts[1] in BASE_MODULES:
        return "base"
    if parts[1] not in LAYERS:
        raise AssertionError(f"{module}: {parts[1]!r} is in no layer; add it to LAYERS "
                             "(top to bottom) in tests/test_layers.py")
    return parts[1]


def _known_modules() -> set[str]:
    return {module_name(p) for p in PACKAGE_DIR.rglob("*.py")}


def imported_modules(source: str, module: str, is_package: bool,
                     known: set[str]) -> list[tuple[int, str]]:
    """``(line, dotted name)`` of every package module that ``source`` imports.

    A relative import is resolved against ``module``; ``from X import name`` counts as an
    import of ``X.name`` when that is a module of the package (``from .. import algorithms``
    imports the algorithms layer), else of ``X`` (``from .. import __version__``).
    """
    package = module if is_package else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names
                      if alias.name.split(".")[0] == PACKAGE]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base_parts = package.split(".")
                if node.level > 1:
                    base_parts = base_parts[:-(node.level - 1)]
                base = ".".join(base_parts + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            if base.split(".")[0] != PACKAGE:
                continue
            for alias in node.names:
                target = f"{base}.{alias.name}"
                found.append((node.lineno, target if target in known else base))
    return found


def upward_imports(source: str, module: str, is_package: bool, known: set[str]) -> list[str]:
    """One line per import of ``source`` that points to a layer above ``module``'s."""
    own = LAYERS.index(layer_of(module))
    return [f"{module} (line {line}) imports {target}: {layer_of(module)} -> "
            f"{layer_of(target)} points up (order: {' -> '.join(LAYERS)})"
            for line, target in imported_modules(source, module, is_package, known)
            if LAYERS.index(layer_of(target)) < own]


def test_no_module_imports_a_layer_above_its_own():
    known = _known_modules()
    files = sorted(PACKAGE_DIR.rglob("*.py"))
    assert len(files) > 40 and "mcboost_cli.datasets.published" in known
    problems = []
    for path in files:
        problems += upward_imports(path.read_text(encoding="utf-8"), module_name(path),
                                   path.name == "__init__.py", known)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("module, is_package, source, upward", [
    # The import this test was written against (issue 31): config validation used report's
    # published numbers.
    ("mcboost_cli.runner.config", False, "def f():\n    from ..report.published import x\n",
     ["mcboost_cli.report.published"]),
    ("mcboost_cli.report.figures", False, "from ..runner.work import run_cell\n", []),
    ("mcboost_cli.learners.forest", False, "import mcboost_cli.algorithms.base\n",
     ["mcboost_cli.algorithms.base"]),
    ("mcboost_cli.algorithms.registry", False, "from .. import algorithms, errors\n", []),
    ("mcboost_cli.datasets", True, "from ..protocol import splits\n",
     ["mcboost_cli.protocol.splits"]),
    ("mcboost_cli.datasets", True, "from .published import load_published\n", []),
    ("mcboost_cli.protocol.noise", False, "from .. import cli\n", ["mcboost_cli.cli"]),
    ("mcboost_cli.errors", False, "from .datasets import catalog\n",
     ["mcboost_cli.datasets.catalog"]),
    ("mcboost_cli.cli", False, "from .report.tables import summarize\nimport numpy\n", []),
])
def test_the_check_resolves_imports_and_catches_upward_ones(module, is_package, source, upward):
    problems = upward_imports(source, module, is_package, _known_modules())
    assert [p.split(" imports ")[1].split(":")[0] for p in problems] == upward


def test_a_sub_package_outside_the_layers_is_named():
    with pytest.raises(AssertionError, match="'plugins' is in no layer"):
        layer_of("mcboost_cli.plugins.x")


def test_readme_layout_names_every_module():
    """README's Layout section lists every module of the package (so the map stays true)."""
    import re
    readme = (PACKAGE_DIR.parent / "README.md").read_text(encoding="utf-8")
    layout = readme[readme.index("## Layout"):readme.index("\n## ", readme.index("## Layout") + 1)]
    missing = [str(p.relative_to(PACKAGE_DIR.parent)) for p in sorted(PACKAGE_DIR.rglob("*.py"))
               if p.stem != "__init__" and not re.search(rf"\b{re.escape(p.stem)}\b", layout)]
    assert not missing, f"README's Layout section does not name: {', '.join(missing)}"
