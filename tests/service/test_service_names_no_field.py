"""The service reads what a field *is* (its kind, :mod:`geobias.commands._kinds`) and what a command
declares (its outputs, whether it is quick or a job), never what either is called: no string literal
in ``geobias/service`` is a field name of a registered parameter model (or one of its aliases), or
a command's name or job kind.

A few words are the service's own vocabulary and happen to spell a field's name too; they are
listed here with where they come from, and no other field name may appear."""

from __future__ import annotations

import ast
import re
from collections import Counter
from pathlib import Path

from pydantic import AliasChoices

from geobias.commands import commands

SERVICE = Path(__file__).resolve().parents[2] / "geobias" / "service"

#: The service's own words that also spell a field name, and what they name there.
OWN_WORDS = {
    "name": "a store row's and a route parameter's name (GET /stores, /stores/{name})",
    "lang": "a store row's language and the language query parameter of the store routes",
    "format": "the OpenAPI keyword (binary uploads) and an uploaded store's recorded format",
    "method": "the HTTP method of the ASGI scope",
    "methods": "the HTTP methods of a route",
    "store": "an Output kind (a job publishes a store) and the web form's store select",
    "config": "the quick worker's state: its ServiceConfig",
    "compare": "the page that compares two runs (/compare)",
    "A": "the compare page's column of the first run",
    "B": "the compare page's column of the second run",
}


def _field_names() -> set[str]:
    names: set[str] = set()
    for c in commands():
        for field, info in c.params.model_fields.items():
            names.add(field)
            alias = info.validation_alias
            if isinstance(alias, AliasChoices):
                names |= {a for a in alias.choices if isinstance(a, str)}
            elif isinstance(alias, str):
                names.add(alias)
    return names


def _literals(path: Path):
    """``(line, text)`` of each string literal of ``path`` that is not a docstring."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and n.body and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            yield node.lineno, node.value


def test_no_field_name_literals_in_the_service():
    fields = _field_names()
    assert {"targets_x", "permutations", "vectors", "engine", "dictionary"} <= fields  # the check sees the models
    found = Counter()
    where = []
    for path in sorted(SERVICE.rglob("*.py")):
        for line, text in _literals(path):
            if text in fields and text not in OWN_WORDS:
                found[text] += 1
                where.append(f"{path.relative_to(SERVICE)}:{line} {text!r}")
    assert not found, f"{sum(found.values())} field-name literals in geobias/service: {where}"


def test_own_words_are_still_needed():
    """Every allowed word is still a field name somewhere (else it has no reason to be listed)."""
    assert set(OWN_WORDS) <= _field_names()


def test_no_command_name_literals_in_the_service():
    names = {c.name for c in commands()} | {c.kind for c in commands()}
    assert {"mweat", "probe-becpro", "vectors pool"} <= names
    where = [f"{path.relative_to(SERVICE)}:{line} {text!r}" for path in sorted(SERVICE.rglob("*.py"))
             for line, text in _literals(path) if text in names]
    assert not where, f"command names in geobias/service: {where}"
    branch = re.compile(r"\b(cmd|c|command)\.(name|kind)\s*[!=]=\s*['\"]")  # cmd.name == "mweat"
    assert not [p for p in SERVICE.rglob("*.py") if branch.search(p.read_text(encoding="utf-8"))]
