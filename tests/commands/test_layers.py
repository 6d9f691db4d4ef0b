"""The rooms of geobias import downwards only (docs/architecture.md, "Layers").

The contracts of ``.importlinter`` are checked here as well as by ``make test``'s ``lint-imports``
step, so a change (or a merge) that imports upwards or closes a cycle fails a plain ``pytest``.
Function-local imports count: the graph is built from the source, not from what ran.
"""

from __future__ import annotations

import configparser
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CONFIG = REPO / ".importlinter"

pytest.importorskip("importlinter", reason="import-linter is in the dev extra (pip install -e '.[dev]')")
grimp = pytest.importorskip("grimp")


def test_import_contracts_are_kept():
    out = subprocess.run(
        [sys.executable, "-c", "from importlinter.cli import lint_imports_command; lint_imports_command()",
         "--no-cache", "--no-logo", str(CONFIG)],
        capture_output=True, text=True, cwd=REPO, env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "0 broken" in out.stdout


def _known_exceptions() -> set[tuple[str, str]]:
    """The imports the contracts ignore (``ignore_imports`` of the acyclic contract)."""
    parser = configparser.ConfigParser()
    parser.read(CONFIG, encoding="utf-8")
    lines = parser.get("importlinter:contract:acyclic", "ignore_imports", fallback="").splitlines()
    pairs = [line.split("->") for line in lines if line.strip()]
    return {(a.strip(), b.strip()) for a, b in pairs}


def _room(module: str) -> str:
    """``geobias.store.cache`` -> ``geobias.store``; the package's own ``__init__`` is ``geobias``."""
    return ".".join(module.split(".")[:2])


def _cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the directed graph ``edges`` (as its nodes, first repeated last), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        state[node] = 2
        path.pop()
        return None

    for node in sorted(edges):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_no_cycle_between_top_level_rooms():
    graph = grimp.build_graph("geobias", include_external_packages=False, cache_dir=None)
    origin = Path(importlib.util.find_spec("geobias").origin).resolve()
    assert origin.parents[1] == REPO, f"the graph is of {origin.parent}, not of this checkout's geobias"
    skip = _known_exceptions()
    edges: dict[str, set[str]] = {}
    where: dict[tuple[str, str], str] = {}
    for importer in graph.modules:
        for imported in graph.find_modules_directly_imported_by(importer):
            a, b = _room(importer), _room(imported)
            if a == b or (importer, imported) in skip:
                continue
            edges.setdefault(a, set()).add(b)
            where.setdefault((a, b), f"{importer} -> {imported}")
    cycle = _cycle(edges)
    assert cycle is None, "import cycle between rooms: " + "; ".join(
        where[(a, b)] for a, b in zip(cycle, cycle[1:], strict=False)
    )


def _dynamic_imports(path: Path) -> list[tuple[str, int]]:
    """``(function, line)`` of each import by a name read at run time in ``path``: a call of
    ``importlib.import_module`` or ``__import__``, or an entry point's ``load()``."""
    import ast

    found = []

    def visit(node, where: str) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            where = node.name
        if isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
            loads = name == "load" and isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "ep"
            if name in ("import_module", "__import__") or loads:
                found.append((where, node.lineno))
        for child in ast.iter_child_nodes(node):
            visit(child, where)

    visit(ast.parse(path.read_text(encoding="utf-8")), "<module>")
    return found


def test_no_import_by_a_name_read_at_run_time():
    """Every import of geobias is one the import graph shows (grimp builds it from the source), except
    the two documented ones: the plug-in entry points (``commands._load_plugins``) and a stored result's
    declared type (``results.result_type``)."""
    allowed = {("geobias/commands/__init__.py", "_load_plugins"), ("geobias/results.py", "result_type")}
    found = set()
    for path in sorted((REPO / "geobias").rglob("*.py")):
        rel = str(path.relative_to(REPO))
        found |= {(rel, fn) for fn, _ in _dynamic_imports(path)}
    assert {(p, f) for p, f in found if (p, f) not in allowed} == set()
    assert found == allowed  # both documented places are still found (the scan sees them)
