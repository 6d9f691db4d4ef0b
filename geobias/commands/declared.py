"""Commands for the declared metrics: every metric that reads WEAT's query (:data:`geobias.metrics.declaration.SETS`)
and has no hand-written command gets one here, made from its declaration.

Its parameters are the catalogue's query (:class:`geobias.commands.catalogue.QueryParams`: a
built-in test or your own four sets, the language's defaults, ``variant``, ``oov``, the store)
and, where the metric declares a resampling, the bootstrap over the words; its summary and help
are the declaration's; its result type, table and figure are the metric's. ``ect`` and ``mac``
are made here; a new metric module with one import line in :mod:`geobias.metrics` appears on every
front door the same way.
"""

from __future__ import annotations

import inspect

from geobias import metrics
from geobias._progress import ProgressArg
from geobias.commands._base import REGISTRY, command
from geobias.commands.catalogue import QueryParams

__all__ = ["NoBootstrapQueryParams", "metric_command", "register_declared"]


class NoBootstrapQueryParams(QueryParams):
    """The query of a declared metric that offers no bootstrap (its ``bootstrap`` is refused)."""

    def no_bootstrap_reason(self) -> str | None:
        return "this metric declares no resampling"


def metric_command(metric: metrics.Metric):
    """``run(params, *, progress=None)`` of a declared ``"sets"`` metric, registered under its name."""
    takes = inspect.signature(metric.function).parameters

    def run(p: QueryParams, *, progress: ProgressArg = None):
        query, variant = p.word_query()
        store = p.store(progress, query.words)
        kwargs = {"oov": p.oov, **({"variant": variant} if "variant" in takes else {})}
        if metric.resampling is None:
            return metric.function(store, query, **kwargs)
        return p.with_bootstrap_result(metric.function, store, query, **kwargs)

    run.__name__ = run.__qualname__ = metric.name.replace("-", "_")
    run.__doc__ = metric.summary + (f"\n\n{metric.description}" if metric.description else "")
    params = QueryParams if metric.resampling is not None else NoBootstrapQueryParams
    return command(metric.name, params, quick=True, result=metric.result_name)(run)


def register_declared() -> list[str]:
    """Make a command for every declared ``"sets"`` metric that has none yet; return their names.

    Run by :func:`geobias.commands.load` once every command module and the plug-ins are imported
    (a plug-in may declare a metric without writing a command): a metric with a hand-written command
    (``weat``, ``rnd``) keeps it, so this never runs on import alone.
    """
    made = []
    for metric in metrics.declared_metrics():
        if metric.query == metrics.declaration.SETS and metric.name not in REGISTRY:
            metric_command(metric)
            made.append(metric.name)
    return made
