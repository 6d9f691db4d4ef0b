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


def legacy_seed(seed: int) -> int:
    """``seed`` as scikit-learn's ``random_state`` accepts it (NumPy's legacy ``RandomState``:
    0 ≤ seed < 2**32). Seeds in that range pass unchanged (same folds as before); a larger one
    (our seeds go up to 2**63 - 1) is mapped by NumPy's ``SeedSequence`` to a 32-bit one.

    >>> legacy_seed(7), legacy_seed(2**63 - 1) < 2**32
    (7, True)
    """
    seed = int(seed)
    if 0 <= seed < 2**32:
        return seed
    return int(np.random.SeedSequence(abs(seed)).generate_state(1)[0])
