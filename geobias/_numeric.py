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


def quantiles(values: np.ndarray, q) -> np.ndarray:
    """``np.quantile(values, q)`` (its default ``method="linear"``) for a 1-D array, bit for bit.

    The same arithmetic as NumPy's: the virtual index ``(n - 1) q``, its floor and the next index
    (both ``n - 1`` at or above the last index), and the interpolation ``a + (b - a) γ``, or
    ``b - (b - a)(1 - γ)`` where ``γ ≥ 0.5``; a NaN anywhere makes every quantile NaN. It reads the
    order statistics from a sorted copy where NumPy partitions around them, which gives the same
    values but does not call ``np.unique`` (NumPy ≥ 2 then imports ``numpy.ma``, a tenth of a quick
    command's start-up). ``values`` is not modified.

    Parameters
    ----------
    values : numpy.ndarray, shape (n,), float
        The sample (n ≥ 1).
    q : float or sequence of float
        Probabilities in [0, 1].

    Returns
    -------
    numpy.ndarray, shape of ``q`` (a NumPy scalar for a scalar ``q``)
        The quantiles, in the dtype NumPy gives (``values``' for a Python float ``q``; else the
        promotion of ``values``' and ``q``'s).

    References
    ----------
    Hyndman, R. J. & Fan, Y. (1996). Sample quantiles in statistical packages. *The American
    Statistician* 50(4): 361–365 (definition 7, NumPy's "linear").

    Examples
    --------
    >>> x = np.array([3.0, 1.0, 2.0, 10.0])
    >>> quantiles(x, [0.025, 0.5, 0.975]).tolist() == np.quantile(x, [0.025, 0.5, 0.975]).tolist()
    True
    """
    a = np.sort(np.asarray(values))
    if a.ndim != 1 or a.size == 0:
        raise ValueError("quantiles needs a non-empty 1-D array")
    weak = type(q) in (int, float)  # NumPy's weak promotion of a Python number: the result keeps a's dtype
    q = np.asanyarray(q)
    n = a.size
    virtual = np.asanyarray((n - 1) * q)
    previous = np.floor(virtual, out=...)
    following = np.add(previous, 1, out=...)
    above = virtual >= n - 1  # at or past the last index: both neighbours are the maximum
    previous[above] = -1
    following[above] = -1
    below = virtual < 0
    previous[below] = 0
    following[below] = 0
    previous, following = previous.astype(np.intp), following.astype(np.intp)
    gamma = np.asanyarray(np.asanyarray(virtual - previous), dtype=virtual.dtype)
    gamma = float(gamma) if weak else gamma.reshape(virtual.shape)
    lo, hi = a[previous], a[following]
    diff = hi - lo
    out = np.add(lo, diff * gamma, out=...)
    np.subtract(hi, diff * (1 - gamma), out=out, where=gamma >= 0.5, casting="unsafe", dtype=type(out.dtype))
    if np.issubdtype(a.dtype, np.inexact) and np.isnan(a[-1]):  # NaN sorts last; NumPy then gives NaN throughout
        if out.ndim == 0:
            return a[-1]
        np.copyto(out, a[-1])
    return out[()] if out.ndim == 0 else out
