"""Where a metric function of ``geobias.metrics`` and its command differ — a parameter's name or
its default — the difference is one of those docs/library.md lists ("Library and command
defaults"), and every one listed there still exists."""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

import pytest

from geobias.commands import get

DOCS = Path(__file__).resolve().parents[2] / "docs" / "library.md"
#: The command's name of a metric function's parameter, where they differ.
RENAMED = {"permutations": "n_permutations", "permutation_method": "method"}
#: (command field, metric parameter): the differences docs/library.md explains.
EXPLAINED = {("permutations", "n_permutations"), ("permutation_method", "method"), ("bootstrap", "bootstrap"),
             ("bootstrap_seed", "bootstrap_seed"), ("oov", "oov"), ("variant", "variant")}
METRICS = ("weat", "mweat", "ripa", "rnd", "rnsb", "ect", "mac")


def _differences(name: str) -> set[tuple[str, str]]:
    cmd = get(name)
    fn = getattr(importlib.import_module(cmd.result.rsplit(".", 1)[0]), name)
    params = inspect.signature(fn).parameters
    found = set()
    for field, info in cmd.params.model_fields.items():
        lib = RENAMED.get(field, field)
        if lib not in params:
            continue
        if lib != field or params[lib].default != info.get_default(call_default_factory=True):
            found.add((field, lib))
    return found


@pytest.mark.parametrize("name", METRICS)
def test_every_difference_is_explained(name):
    assert _differences(name) <= EXPLAINED, name


def test_every_explained_difference_exists_and_is_in_the_docs():
    found = set().union(*(_differences(n) for n in METRICS))
    assert found == EXPLAINED
    section = DOCS.read_text(encoding="utf-8").split("## Library and command defaults")[1].split("\n## ")[0]
    for field, lib in EXPLAINED:
        assert f"`{field}`" in section or field.replace("_", " ") in section, field
        assert f"`{lib}`" in section, lib
