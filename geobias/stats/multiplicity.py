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
* :func:`monte_carlo_p_interval` and :func:`bootstrap_p_interval` give the range in which a Monte
  Carlo p-value's limit (the p of infinitely many draws) lies, and :func:`decide` reads a family's
  Benjamini–Hochberg verdicts off those ranges: "differs" or "does not differ" only where every p in
  the ranges agrees, else "undecided" at this number of draws. Two seeds then cannot give
  contradictory verdicts unless a range misses its limit (probability ``1 − MC_CONFIDENCE`` each).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["DIFFERS", "MC_CONFIDENCE", "NOT_DIFFERENT", "UNDECIDED", "benjamini_hochberg", "bootstrap_p_interval",
           "bootstrap_p_value", "decide", "monte_carlo_p_interval", "quantile_mc_error"]

#: Confidence of the Monte Carlo range of each p (Clopper–Pearson): about 3.3 standard errors on each side.
MC_CONFIDENCE = 0.999

#: The three verdicts of :func:`decide`.
DIFFERS, NOT_DIFFERENT, UNDECIDED = "differs", "does not differ", "undecided"


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


def monte_carlo_p_interval(k: int, n: int, *, factor: float = 1.0,
                           confidence: float = MC_CONFIDENCE) -> tuple[float, float]:
    """Where the limit of a Monte Carlo p-value lies: the Clopper–Pearson interval of a tail share.

    Parameters
    ----------
    k : int
        Draws in the tail (``0 ≤ k ≤ n``), the observed one included where the p counts it.
    n : int
        Draws (``n ≥ 1``).
    factor : float, default 1.0
        2 for a two-sided p read as twice the smaller tail.
    confidence : float, default :data:`MC_CONFIDENCE`

    Returns
    -------
    (float, float)
        ``factor`` × the interval of ``k / n``, capped at 1.

    References
    ----------
    Clopper & Pearson (1934), Biometrika 26(4):404–413.

    Examples
    --------
    >>> low, high = monte_carlo_p_interval(100, 10_000)   # p = 0.01 from 10,000 draws
    >>> bool(0.0065 < low < 0.0075 and 0.0130 < high < 0.0140)
    True
    """
    from geobias.stats._betainc import betaincinv

    if not 0 <= k <= n or n < 1:
        raise ValueError(f"need 0 <= k <= n and n >= 1, got k={k}, n={n}")
    a = (1.0 - confidence) / 2.0
    low = 0.0 if k == 0 else float(betaincinv(k, n - k + 1, a))
    high = 1.0 if k == n else float(betaincinv(k + 1, n - k, 1.0 - a))
    return min(1.0, factor * low), min(1.0, factor * high)


def bootstrap_p_interval(values: np.ndarray, null: float = 0.0, *, shift: float = 0.0,
                         confidence: float = MC_CONFIDENCE) -> tuple[float, float] | None:
    """Where the limit of ``bootstrap_p_value`` lies, over resampling seeds.

    The p counts the resamples on the smaller side of ``null``; that count is binomial, so its
    Clopper–Pearson interval bounds the p of infinitely many resamples. ``shift`` adds randomness
    that all resamples share (a null drawn once per run, such as random directions): the values may
    sit anywhere within ``± shift`` of where they are, and the interval covers every such position.

    Parameters
    ----------
    values : ndarray of shape (b,)
        Resampled differences (non-finite ones are left out).
    null : float, default 0.0
    shift : float, default 0.0
        Half-width of the shared offset, in the unit of ``values`` (≥ 0).
    confidence : float, default ``MC_CONFIDENCE``

    Returns
    -------
    (float, float) or None
        ``None`` without a finite value. The interval holds ``bootstrap_p_value`` of the values
        (with ``shift`` 0).

    References
    ----------
    Efron & Tibshirani (1993), *An Introduction to the Bootstrap*, §15.4; Clopper & Pearson (1934).

    Examples
    --------
    >>> v = np.random.default_rng(0).normal(2.5, 1.0, size=20_000)
    >>> low, high = bootstrap_p_interval(v)
    >>> bool(low < bootstrap_p_value(v) < high)
    True
    """
    v = np.asarray(values, dtype=np.float64)
    v = v[np.isfinite(v)]
    if v.size == 0:
        return None
    if shift < 0:
        raise ValueError(f"shift must be >= 0, got {shift}")
    counts = []
    for delta in (-shift, 0.0, shift):
        counts.append(min(int(np.sum(v + delta <= null)), int(np.sum(v + delta >= null))))
    n = int(v.size)
    k_low, k_high = min(counts), max(counts)
    if shift > 0 and abs(float(np.median(v)) - null) <= shift:  # the median can sit on the null: p up to 1
        k_high = n // 2
    # the p counts the observed resample too: (1 + k) / (1 + n) per side
    low = monte_carlo_p_interval(k_low + 1, n + 1, factor=2.0, confidence=confidence)[0]
    high = monte_carlo_p_interval(k_high + 1, n + 1, factor=2.0, confidence=confidence)[1]
    return low, high


def decide(p_values: Sequence[float | None], intervals: Sequence[tuple[float, float] | None], *,
           alpha: float = 0.05) -> list[str | None]:
    """Benjamini–Hochberg verdicts that another Monte Carlo seed cannot contradict.

    BH's adjusted p-values only grow when any p grows, so with every p's limit inside its interval
    the limit's verdict is "differs" when BH on the intervals' upper ends is below ``alpha``, "does
    not differ" when BH on their lower ends is not, and otherwise the draws did not decide it.

    Parameters
    ----------
    p_values : sequence of float or None
        The family's p-values (``None``: no test, not counted).
    intervals : sequence of (float, float) or None
        Each p's Monte Carlo interval (``None``: the p is exact, its interval is the p itself).
    alpha : float, default 0.05

    Returns
    -------
    list of str or None
        ``DIFFERS``, ``NOT_DIFFERENT`` or ``UNDECIDED`` per test, ``None`` where there
        is no p.

    References
    ----------
    Benjamini & Hochberg (1995), JRSS B 57(1):289–300.

    Examples
    --------
    >>> decide([0.001, 0.04, 0.5], [(0.0005, 0.002), (0.03, 0.06), None])
    ['differs', 'undecided', 'does not differ']
    """
    if len(p_values) != len(intervals):
        raise ValueError("one interval per p-value")
    have = [p is not None and np.isfinite(p) for p in p_values]
    lows = [None if not h else (p if iv is None else min(p, iv[0])) for p, iv, h in zip(p_values, intervals, have, strict=True)]
    highs = [None if not h else (p if iv is None else max(p, iv[1])) for p, iv, h in zip(p_values, intervals, have, strict=True)]
    q_low, q_high = benjamini_hochberg(lows), benjamini_hochberg(highs)
    out: list[str | None] = []
    for h, ql, qh in zip(have, q_low, q_high, strict=True):
        if not h:
            out.append(None)
        elif qh < alpha:
            out.append(DIFFERS)
        elif ql >= alpha:
            out.append(NOT_DIFFERENT)
        else:
            out.append(UNDECIDED)
    return out
