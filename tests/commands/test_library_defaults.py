"""Where a metric function of ``geobias.metrics`` and its command differ — a parameter's default;
their names are the same — the difference is one of those docs/library.md lists ("Library and
command defaults"), and every one listed there still exists. The old library names of the
permutation test's parameters still work, with a DeprecationWarning."""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

import pytest

from geobias.commands import get
from geobias.errors import InputError

DOCS = Path(__file__).resolve().parents[2] / "docs" / "library.md"
#: The command's name of a metric function's parameter, where they differ: none any more.
RENAMED: dict[str, str] = {}
#: The library's old names, still read with a DeprecationWarning.
DEPRECATED = {"n_permutations": "permutations", "method": "permutation_method"}
#: (command field, metric parameter): the differences docs/library.md explains.
EXPLAINED = {("bootstrap", "bootstrap"), ("bootstrap_seed", "bootstrap_seed"), ("oov", "oov"), ("variant", "variant")}
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


@pytest.mark.parametrize("name", ["weat", "mweat", "rnd"])
def test_the_permutation_parameters_have_the_commands_names_and_the_old_ones_still_work(name):
    from geobias.metrics.checks import toy_query, toy_store
    from geobias.query import WordQuery

    cmd = get(name)
    fn = getattr(importlib.import_module(cmd.result.rsplit(".", 1)[0]), name)
    params = inspect.signature(fn).parameters
    for old, new in DEPRECATED.items():
        assert new in params and new in cmd.params.model_fields and old not in params
    store, query = toy_store(), toy_query()
    if name == "mweat":  # MWEAT's query pairs the two forms
        query = WordQuery(query.X, query.Y, query.A, query.B, paired=True)
    new = fn(store, query, permutations=300, permutation_method="monte-carlo", seed=4)
    with pytest.warns(DeprecationWarning) as caught:
        old = fn(store, query, n_permutations=300, method="monte-carlo", seed=4)
    assert sorted(str(w.message).split("; ")[1].split("=")[0] for w in caught) == ["use permutation_method",
                                                                                   "use permutations"]
    assert old.p_value == new.p_value
    assert old.permutation.n_permutations == new.permutation.n_permutations == 300
    with pytest.raises(InputError, match="not both"):
        fn(store, query, permutations=300, n_permutations=300)
