"""Many figures read together: the Benjamini–Hochberg correction, and the two numbers that say
whether a bootstrap verdict is a property of the data or of the resampling seed.

* :func:`benjamini_hochberg` turns the p-values of a family of tests (an atlas's cells) into
  BH-adjusted p-values (``q``), through :func:`scipy.stats.false_discovery_control`; a cell is
  significant at false-discovery rate ``α`` when its ``q < α``.
* :func:`bootstrap_p_value` is the two-sided p-value of "the difference is 0" read off a bootstrap
  distribution of the difference (the percentile interval inverted: ``p < 1 − confidence`` exactly
  when that interval leaves out 0, up to the ``+1`` of a Monte Carlo p-value).
* :func:`quantile_mc_error` is the Monte Carlo standard error of a percentile bound: how far the
  bound would move with another resampling seed at the same number of resamples.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["benjamini_hochberg", "bootstrap_p_value", "quantile_mc_error"]


def benjamini_hochberg(p_values: Sequence[float | None]) -> list[float | None]:
    """Benjamini–Hochberg adjusted p-values; ``None`` stays ``None`` and is not counted.

    Parameters
    ----------
    p_values : sequence of float or None
        One per test of the family; ``None`` (or NaN) for a cell without a test.

    Returns
    -------
    list of float or None
        Same length and order: ``q_i = min_{j ≥ i} (m / j) p_(j)`` over the ``m`` tests with a p-value,
        capped at 1 (:func:`scipy.stats.false_discovery_control`, ``method="bh"``).

    References
    ----------
    Benjamini & Hochberg (1995), "Controlling the false discovery rate", JRSS B 57(1):289–300, the
    step-up procedure of §3.

    Examples
    --------
    >>> benjamini_hochberg([0.01, 0.04, 0.03, None])
    [0.03, 0.04, 0.04, None]
    """
    from scipy.stats import false_discovery_control

    keep = [i for i, p in enumerate(p_values) if p is not None and np.isfinite(p)]
    out: list[float | None] = [None] * len(p_values)
    if not keep:
        return out
    q = false_discovery_control(np.array([p_values[i] for i in keep], dtype=np.float64), method="bh")
    for i, v in zip(keep, q, strict=True):
        out[i] = float(round(v, 15))
    return out


def bootstrap_p_value(values: np.ndarray, null: float = 0.0) -> float | None:
    """Two-sided p-value of ``null`` against a bootstrap distribution.

    Parameters
    ----------
    values : ndarray of shape (b,)
        Resampled statistics (non-finite ones are left out).
    null : float, default 0.0

    Returns
    -------
    float or None
        ``min(1, 2 · min(1 + #{v ≤ null}, 1 + #{v ≥ null}) / (1 + b))``; ``None`` without a finite value.
        Its smallest value is ``2 / (1 + b)``.

    References
    ----------
    Efron & Tibshirani (1993), *An Introduction to the Bootstrap*, §15.4 (the achieved significance
    level from a bootstrap distribution; the percentile interval inverted).

    Examples
    --------
    >>> bootstrap_p_value(np.array([0.1, 0.2, 0.3, -0.1]))
    0.8
    """
    v = np.asarray(values, dtype=np.float64)
    v = v[np.isfinite(v)]
    if v.size == 0:
        return None
    low = 1 + int(np.sum(v <= null))
    high = 1 + int(np.sum(v >= null))
    return float(min(1.0, 2.0 * min(low, high) / (1 + v.size)))


def quantile_mc_error(values: np.ndarray, confidence: float = 0.95) -> float | None:
    """Monte Carlo standard error of the percentile interval's bounds (the larger of the two), by
    :func:`geobias.stats.bootstrap.quantile_mcse` (order statistics around each bound).

    Parameters
    ----------
    values : ndarray of shape (b,)
    confidence : float, default 0.95

    Returns
    -------
    float or None
        ``None`` with fewer than 10 finite values.

    Examples
    --------
    >>> v = np.random.default_rng(0).normal(size=20_000)
    >>> 0.01 < quantile_mc_error(v) < 0.04  # ≈ 2.67 / √20,000 ≈ 0.019 for a standard normal
    True
    """
    from geobias.stats.bootstrap import quantile_mcse

    v = np.asarray(values, dtype=np.float64)
    v = v[np.isfinite(v)]
    if v.size < 10:
        return None
    return float(max(quantile_mcse(v, (1 - confidence) / 2), quantile_mcse(v, (1 + confidence) / 2)))
