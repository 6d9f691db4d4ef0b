"""Association metrics, the shared permutation test, and the metrics' declarations.

Each metric module declares itself (:mod:`geobias.metrics.declaration`) when imported; the lines
below import every in-tree metric, one line each, so that importing :mod:`geobias.metrics` makes
every declaration. :func:`check_metric` checks a declaration against the contract.
"""

# ruff: noqa: I001  (the declarations first, then the metric modules that make them)
from geobias.metrics.declaration import Bars, FigureSpec, Metric, declare, declared_metrics, get_metric

# The in-tree metrics: importing a module declares its metric (a new metric is one line here).
from geobias.metrics import weat as _weat  # noqa: F401
from geobias.metrics import mweat as _mweat  # noqa: F401
from geobias.metrics import ripa as _ripa  # noqa: F401
from geobias.metrics import rnd as _rnd  # noqa: F401
from geobias.metrics import rnsb as _rnsb  # noqa: F401
from geobias.metrics import ect as _ect  # noqa: F401
from geobias.metrics import mac as _mac  # noqa: F401
from geobias.metrics import seat as _seat  # noqa: F401

from geobias.metrics._result import AssociationResult, VariantResult
from geobias.metrics.checks import check_metric
from geobias.metrics.mweat import MweatResult, PairBias, mweat, word_bias
from geobias.metrics.weat import WeatResult, WordAssociation, association, weat
from geobias.stats.permutation import PermutationResult, permutation_test

__all__ = [
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
    "mweat",
    "permutation_test",
    "weat",
    "word_bias",
]
