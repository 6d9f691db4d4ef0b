"""Association metrics, the shared permutation test, and the metrics' declarations.

Each metric module declares itself (:mod:`geobias.metrics.declaration`) when imported.
:func:`load_metrics` imports every in-tree metric module, one line each, and the declaration
lookups (:func:`declared_metrics`, and :func:`get_metric` for a name not yet declared) call it
first, so every in-tree metric is always listed. Importing this package loads only WEAT and MWEAT
(their functions share their modules' names, so they are bound here: a first import of the
submodule would otherwise leave the module under that name); the other metrics, and
:func:`check_metric`, are imported on first use (PEP 562), so a command that runs one metric does
not pay for the others.

Examples
--------
>>> import geobias.metrics as metrics
>>> [m.name for m in metrics.declared_metrics()][:4]
['weat', 'mweat', 'ripa', 'rnd']
>>> metrics.check_metric.__module__
'geobias.metrics.checks'
"""

from __future__ import annotations

# ruff: noqa: I001  (the declarations first, then the metric modules that make them)
from geobias.metrics.declaration import Bars, FigureSpec, Metric, declare, declared_metrics, get_metric

from geobias.metrics._result import AssociationResult, VariantResult
from geobias.metrics.weat import WeatResult, WordAssociation, association, weat
from geobias.metrics.mweat import MweatResult, PairBias, mweat, word_bias
from geobias.stats.permutation import PermutationResult, permutation_test

#: The in-tree metrics' names (each the name of its module), in the order they are listed.
IN_TREE = ("weat", "mweat", "ripa", "rnd", "rnsb", "ect", "mac", "seat")

__all__ = [
    "IN_TREE",
    "AssociationResult",
    "Bars",
    "FigureSpec",
    "Metric",
    "MweatResult",
    "PairBias",
    "PermutationResult",
    "VariantResult",
    "WeatResult",
    "WordAssociation",
    "association",
    "check_metric",
    "declare",
    "declared_metrics",
    "get_metric",
    "load_metrics",
    "mweat",
    "permutation_test",
    "weat",
    "word_bias",
]


def load_metrics() -> None:
    """Import every in-tree metric module: importing a module declares its metric (a new metric is
    one line here and one name in :data:`IN_TREE`). Cheap once done."""
    import geobias.metrics.ripa
    import geobias.metrics.rnd
    import geobias.metrics.rnsb
    import geobias.metrics.ect
    import geobias.metrics.mac
    import geobias.metrics.seat  # noqa: F401  (`import a.b`, not `from a import b`: no __getattr__ lookup)


def __getattr__(name: str):
    """:func:`check_metric`, and the metric modules not imported yet (``geobias.metrics.rnd``),
    imported on first use (explicit imports, so the import graph shows them)."""
    if name == "check_metric":
        from geobias.metrics.checks import check_metric as value
    elif name in IN_TREE:
        import sys

        load_metrics()
        value = sys.modules[f"{__name__}.{name}"]
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
