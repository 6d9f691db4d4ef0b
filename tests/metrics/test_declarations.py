"""Every in-tree metric declares itself and keeps its contract (geobias.metrics.check_metric); the
bootstrap and the report read the declarations, not the metrics' names."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

import geobias.metrics as metrics
from geobias.errors import InputError
from geobias.metrics import bootstrap as mb
from geobias.metrics.checks import MetricContractError, toy_query, toy_store
from geobias.metrics.declaration import Bars, FigureSpec, Metric

IN_TREE = ["weat", "mweat", "ripa", "rnd", "rnsb", "ect", "mac", "seat"]


def test_every_in_tree_metric_is_declared_once():
    assert [m.name for m in metrics.declared_metrics()][:len(IN_TREE)] == IN_TREE


@pytest.mark.parametrize("name", IN_TREE)
def test_every_in_tree_metric_keeps_the_contract(name):
    metrics.check_metric(name)


def test_mweat_keeps_it_on_a_two_form_query():
    from geobias.query import WordQuery

    store = toy_store()
    w = store.words
    query = WordQuery(w[:6], w[6:12], w[12:18], w[18:24], paired=True)
    metrics.check_metric("mweat", store, query, permutations=200)


def test_the_bootstrap_follows_the_declaration_not_a_name():
    """A resampling declared under a new name is what bootstrap_query runs, with its declared note."""
    ect = metrics.get_metric("ect")
    seen = {}

    def resampling(rows, *, variant="english", quantity=None):
        seen["variant"] = variant
        return ect.resampling(rows, variant=variant, quantity=None)

    toy = dataclasses.replace(ect, name="ect-copy", quantities=("ect",), resampling=resampling,
                              notes={"ect": "a declared note"})
    metrics.declare(toy)
    try:
        rows = toy_query().resolve(toy_store())
        got = mb.bootstrap_query(rows, "ect-copy", variant="grammatical", n_resamples=50, seed=1)
        want = mb.bootstrap_query(rows, "ect", variant="grammatical", n_resamples=50, seed=1)
        assert seen == {"variant": "grammatical"}
        assert (got.low, got.high, got.estimate) == (want.low, want.high, want.estimate)
        assert got.note == "a declared note"  # no calibration of "ect-copy": no small-set note either
        assert want.note == mb.interval_note("ect", "ect", want.set_sizes)
        assert want.note.startswith(mb.non_negative_note("ect", "ect")) and "fewer than any calibrated" in want.note
        assert "ect-copy" in mb.bootstrappable() and mb.quantities()["ect-copy"] == ("ect",)
    finally:
        from geobias.metrics import declaration

        declaration._METRICS.pop("ect-copy")


def test_unknown_metric_or_quantity_is_one_clear_error():
    rows = toy_query().resolve(toy_store())
    with pytest.raises(InputError, match="no metric 'nope'; one of"):
        mb.bootstrap_query(rows, "nope")
    with pytest.raises(InputError, match="ect resamples one of ect, not 'mean'"):
        mb.bootstrap_query(rows, "ect", quantity="mean")


def test_the_bootstrap_module_names_no_metric_in_its_code():
    """The switch on names is gone: bootstrap_query's body names no metric."""
    body = inspect.getsource(mb.bootstrap_query).split('"""')[2]
    for name in IN_TREE:
        assert f'"{name}"' not in body


def test_a_broken_declaration_is_named():
    ect = metrics.get_metric("ect")
    with pytest.raises(MetricContractError, match="no summary"):
        metrics.check_metric(dataclasses.replace(ect, summary=""))
    with pytest.raises(MetricContractError, match="notes for quantities it does not resample"):
        metrics.check_metric(dataclasses.replace(ect, notes={"rho": "x"}))
    with pytest.raises(MetricContractError, match="not its first quantity"):
        metrics.check_metric(dataclasses.replace(ect, quantities=("other", "ect")))
    bad = FigureSpec("bad", lambda data: Bars(["a", "b"], [1.0], "t", "x"))
    with pytest.raises(MetricContractError, match="differ in number"):
        metrics.check_metric(dataclasses.replace(ect, figure=bad))
    with pytest.raises(InputError, match="already declared"):
        metrics.declare(dataclasses.replace(ect, result=metrics.WeatResult))
    with pytest.raises(InputError, match="no quantity"):
        metrics.declare(Metric("x", ect.function, ect.result, "sets", resampling=ect.resampling))
