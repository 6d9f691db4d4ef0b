"""The API reference covers what the docs use (issue 45): every public ``geobias`` object that a
Python code block of ``docs/*.md`` or a code cell of ``docs/examples/*.ipynb`` imports or calls is
rendered in ``docs/api.md`` (a ``::: path`` line), under its own path or a path to the same object."""

from __future__ import annotations

import ast
import importlib
import json
import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"
FENCE = re.compile(r"```python\n(.*?)```", re.S)


def _code_blocks() -> list[tuple[str, str]]:
    blocks = []
    for page in sorted(DOCS.glob("*.md")):
        blocks += [(page.name, b) for b in FENCE.findall(page.read_text(encoding="utf-8"))]
    for nb in sorted((DOCS / "examples").glob("*.ipynb")):
        cells = json.loads(nb.read_text(encoding="utf-8"))["cells"]
        blocks += [(nb.name, "".join(c["source"])) for c in cells if c["cell_type"] == "code"]
    return blocks


def _resolve(path: str):
    """The object at a dotted path, reached from ``geobias`` by attributes once the longest
    importable prefix is imported (``geobias.metrics.mweat`` is the function the package exports)."""
    parts = path.split(".")
    for i in range(len(parts), 0, -1):
        try:
            importlib.import_module(".".join(parts[:i]))
            break
        except ImportError:
            continue
    obj = importlib.import_module(parts[0])
    for name in parts[1:]:
        obj = getattr(obj, name)
    return obj


def _resolve_documented(path: str):
    """The object a ``::: path`` line renders (mkdocstrings: the longest module prefix, then attributes)."""
    parts = path.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for name in parts[i:]:
            obj = getattr(obj, name)
        return obj
    raise ImportError(path)


def _uses(code: str) -> set[str]:
    """Dotted ``geobias`` paths a code block imports or reaches through an imported name."""
    code = "\n".join(line for line in code.splitlines() if not line.lstrip().startswith(("%", "!")))
    tree = ast.parse(code)
    names: dict[str, str] = {}
    used: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "geobias":
            for a in node.names:
                names[a.asname or a.name] = f"{node.module}.{a.name}"
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == "geobias":
                    names[a.asname or a.name.split(".")[0]] = a.name if a.asname else "geobias"
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            chain, cur = [], node
            while isinstance(cur, ast.Attribute):
                chain.append(cur.attr)
                cur = cur.value
            if isinstance(cur, ast.Name) and cur.id in names:
                used.add(".".join([names[cur.id], *reversed(chain)]))
    used |= set(names.values())
    return used


def _public_objects(paths: set[str]) -> set[str]:
    """The paths that name a public object (not a module, not private, not an attribute of a
    documented object such as a result's field)."""
    import inspect

    out = set()
    for path in paths:
        if any(p.startswith("_") for p in path.split(".")):
            continue
        try:
            obj = _resolve(path)
        except (ImportError, AttributeError):
            continue  # an attribute of an instance (a result's field): not an object of its own
        if inspect.ismodule(obj):
            continue
        parent = _resolve(path.rsplit(".", 1)[0])
        if not inspect.ismodule(parent):
            continue  # a method or attribute of a documented class
        out.add(path)
    return out


def _documented() -> list:
    paths = re.findall(r"^::: ([\w.]+)", (DOCS / "api.md").read_text(encoding="utf-8"), re.M)
    return [_resolve_documented(p) for p in paths]


def test_every_object_the_docs_use_is_in_the_reference():
    used = set()
    for _, code in _code_blocks():
        used |= _uses(code)
    objects = _public_objects(used)
    # the scan finds what the docs use (so the test can fail): the word lists' readers among them
    assert {"geobias.wordlists.attribute_words", "geobias.wordlists.occupations", "geobias.commands.run"} <= objects
    documented = _documented()
    missing = sorted(p for p in objects if not any(_resolve(p) is d for d in documented))
    assert not missing, f"used in docs/ but not in docs/api.md: {missing}"


@pytest.mark.parametrize("code,expected", [
    ("from geobias import wordlists\nwordlists.attribute_words('fr')", {"geobias.wordlists",
                                                                         "geobias.wordlists.attribute_words"}),
    ("from geobias.mitigation.runner import mitigate as m\nm(1)", {"geobias.mitigation.runner.mitigate"}),
])
def test_the_scan_reads_imports_and_attribute_uses(code, expected):
    assert _uses(code) == expected
