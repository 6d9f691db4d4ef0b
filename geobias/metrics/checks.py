"""The contract of a declared metric, checked as scikit-learn's ``check_estimator`` checks an estimator.

:func:`check_metric` is for metric authors (in the tree and in plug-ins): a test of a new metric
calls it once. The in-tree metrics are checked by ``tests/metrics/test_declarations.py``.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import math
from typing import Any, get_args

import numpy as np

from geobias.errors import InputError
from geobias.metrics.bootstrap import bootstrap_query, interval_note
from geobias.metrics.declaration import Bars, FigureSpec, Metric, QueryShape, get_metric
from geobias.results import Result

__all__ = ["MetricContractError", "check_metric", "toy_query", "toy_store"]


class MetricContractError(InputError):
    """A declared metric breaks its contract (the message says which part)."""


def toy_store(n_words: int = 24, dim: int = 16, seed: int = 0):
    """A small random store, words ``w0`` … ``w{n_words − 1}`` (float32, seeded): the store
    :func:`check_metric` runs a metric on.

    >>> toy_store().vectors.shape
    (24, 16)
    """
    from geobias.store import VectorStore

    rng = np.random.default_rng(seed)
    return VectorStore([f"w{i}" for i in range(n_words)], rng.standard_normal((n_words, dim)).astype(np.float32))


def toy_query(size: int = 6):
    """X, Y, A and B of ``size`` words each over :func:`toy_store`'s words (X and Y paired by position,
    so the query reads in both variants).

    >>> q = toy_query(); len(q.X), q.A[0]
    (6, 'w12')
    """
    from geobias.query import WordQuery

    w = [f"w{i}" for i in range(4 * size)]
    return WordQuery(w[:size], w[size:2 * size], w[2 * size:3 * size], w[3 * size:])


def _fail(metric: Metric, what: str) -> None:
    raise MetricContractError(f"metric {metric.name!r}: {what}")


def _check_declaration(m: Metric) -> None:
    if not (isinstance(m.name, str) and m.name and m.name == m.name.strip().lower() and " " not in m.name):
        _fail(m, "its name is one lower-case word (hyphens allowed)")
    if not callable(m.function):
        _fail(m, "its function is not callable")
    if not (isinstance(m.result, type) and issubclass(m.result, Result) and dataclasses.is_dataclass(m.result)):
        _fail(m, "its result is not a Result dataclass (geobias.results.Result)")
    if not m.result.__dataclass_params__.frozen:
        _fail(m, "its result dataclass is not frozen")
    if m.query not in get_args(QueryShape):
        _fail(m, f"query {m.query!r} is not one of {', '.join(get_args(QueryShape))}")
    if not (isinstance(m.summary, str) and m.summary.strip()):
        _fail(m, "it has no summary")
    if len(set(m.quantities)) != len(m.quantities):
        _fail(m, "a quantity is listed twice")
    if set(m.notes) - set(m.quantities):
        _fail(m, f"notes for quantities it does not resample: {sorted(set(m.notes) - set(m.quantities))}")
    if m.resampling is not None:
        if not m.sets:
            _fail(m, "it declares a resampling but not the sets it resamples")
        params = inspect.signature(m.function).parameters
        if not {"bootstrap", "bootstrap_seed"} <= set(params):
            _fail(m, "it declares a resampling but its function takes no bootstrap and bootstrap_seed")
        names = {f.name for f in dataclasses.fields(m.result)}
        if not {"bootstrap", "bootstrap_note"} <= names:
            _fail(m, "it declares a resampling but its result has no bootstrap and bootstrap_note fields")
    if m.figure is not None and not isinstance(m.figure, FigureSpec):
        _fail(m, "its figure is not a FigureSpec")


def _check_json(m: Metric, result: Any) -> dict[str, Any]:
    data = result.to_dict()
    try:
        text = json.dumps(data, allow_nan=False)
    except (TypeError, ValueError) as exc:
        _fail(m, f"its result's JSON form is not JSON ({exc})")
    again = type(result).from_dict(json.loads(text)).to_dict()
    if json.dumps(again, sort_keys=True) != json.dumps(data, sort_keys=True):
        _fail(m, "its result does not survive to_dict → from_dict → to_dict")
    return data


def _check_figure(m: Metric, data: dict[str, Any]) -> None:
    if m.figure is None:
        return
    drawn = m.figure.draw(data)
    if drawn is None:
        return
    if isinstance(drawn, Bars):
        if len(drawn.labels) != len(drawn.values) or (drawn.colours is not None
                                                      and len(drawn.colours) != len(drawn.values)):
            _fail(m, "its figure's bars, labels and colours differ in number")
        if not all(isinstance(v, (int, float)) and math.isfinite(v) for v in drawn.values):
            _fail(m, "its figure has a bar that is not a finite number")
        return
    if type(drawn).__name__ != "Figure":
        _fail(m, f"its figure's draw returned {type(drawn).__name__}, not Bars, a matplotlib Figure or None")


def _check_bootstrap(m: Metric, store: Any, query: Any, kwargs: dict[str, Any], rows: Any) -> None:
    first = m.function(store, query, **kwargs, bootstrap=50, bootstrap_seed=3)
    boot = first.bootstrap
    if boot is None:
        _fail(m, "bootstrap=50 gave no interval")
    if boot.quantity != m.quantities[0]:
        _fail(m, f"its bootstrap resampled {boot.quantity!r}, not its first quantity {m.quantities[0]!r}")
    if set(boot.set_sizes) != set(m.sets):
        _fail(m, f"its bootstrap resampled the sets {sorted(boot.set_sizes)}, not the declared {sorted(m.sets)}")
    if m.function(store, query, **kwargs, bootstrap=50, bootstrap_seed=3).bootstrap != boot:
        _fail(m, "the same bootstrap_seed gave another interval")
    options = {k: v for k, v in kwargs.items() if k in ("variant", "unit", "C")}
    # a metric may ask for the bootstrap's test of 0 too (RND, where it is the p-value)
    if rows is not None and bootstrap_query(rows, m.name, n_resamples=50, seed=3, test_zero=boot.p_value is not None,
                                            **options) != boot:
        _fail(m, "its result's bootstrap is not bootstrap_query's on the same rows")
    for quantity in m.quantities:
        other = bootstrap_query(rows, m.name, quantity=quantity, n_resamples=20, seed=0, **options) if rows is not None else None
        if other is not None and (other.quantity != quantity
                                  or other.note != interval_note(m.name, quantity, other.set_sizes)):
            _fail(m, f"bootstrap_query(quantity={quantity!r}) did not resample it with its declared note")


def check_metric(metric: Metric | str, store: Any = None, query: Any = None, **kwargs: Any) -> None:
    """Check a declared metric against the contract; raise on the first breach, return ``None``.

    The declaration itself (name, function, a frozen :class:`~geobias.results.Result` type, query
    shape, summary, quantities and their notes, a bootstrap where a resampling is declared); then,
    on ``store`` and ``query`` (default for a ``"sets"`` metric: :func:`toy_store` and
    :func:`toy_query`, run in each variant its function takes), that the function returns its
    result type, that the result survives JSON and ``from_dict``, that its bootstrap resamples the
    declared sets and first quantity reproducibly and equals
    :func:`~geobias.metrics.bootstrap.bootstrap_query` on the same rows, that every declared
    quantity resamples with its note, and that the figure draws (bars as many as labels, finite).

    Parameters
    ----------
    metric : Metric or str
        A declaration, or a declared metric's name.
    store : VectorStore, optional
    query : WordQuery, optional
        What to run it on; needed for metrics whose query is not ``"sets"`` (without them only the
        declaration is checked).
    **kwargs
        Further keyword arguments of the metric's function (e.g. ``permutations=50``).

    Raises
    ------
    MetricContractError
        The first breach found, naming the metric and what is wrong.

    Examples
    --------
    >>> check_metric("ect")
    >>> check_metric("mweat")  # a two-form query is not built for you: the declaration alone
    """
    m = get_metric(metric) if isinstance(metric, str) else metric
    if not isinstance(m, Metric):
        raise MetricContractError(f"check_metric takes a Metric or a declared name, not {type(m).__name__}")
    _check_declaration(m)
    if store is None and query is None and m.query != "sets":
        return
    store = toy_store() if store is None else store
    query = toy_query() if query is None else query
    params = inspect.signature(m.function).parameters
    variants = [None]
    if "variant" in params and "variant" not in kwargs:
        variants = ["english", "grammatical"]
    for variant in variants:
        call = dict(kwargs) if variant is None else {**kwargs, "variant": variant}
        result = m.function(store, query, **call)
        if not isinstance(result, m.result):
            _fail(m, f"its function returned {type(result).__name__}, not {m.result.__name__}")
        data = _check_json(m, result)
        _check_figure(m, data)
        if m.resampling is not None:
            rows = None
            if m.query == "sets":
                from geobias.metrics._query import query_rows

                rows = query_rows(store, query, variant=variant or "english", oov=call.get("oov", "raise"))
            _check_bootstrap(m, store, query, call, rows)
