"""Numeric helpers shared by the store, its cache and the vector file parsers (no geobias imports)."""

from __future__ import annotations

import numpy as np


def all_finite(a: np.ndarray) -> bool:
    """True when ``a`` (any shape, float) holds no NaN and no ±inf.

    Two reductions (NaN propagates into the maximum, ±inf shows in the maximum or the minimum),
    no temporary array; an empty array is finite. The one finiteness test of the store's rows
    (construction, the fast text parser, the cache's integrity checks).
    """
    return a.size == 0 or bool(np.isfinite(a.max()) and np.isfinite(a.min()))
