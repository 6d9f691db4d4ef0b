"""Summaries of a quantity measured several times (over seeds, folds or resamples).

:func:`mean_ci` is the mean with its Student-t interval; :func:`seed_summary` chooses, by the
quantity's range, between that and the median with the min–max range (a bounded, skewed quantity
such as a p-value over five seeds).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["mean_ci", "seed_summary"]


def mean_ci(values: Sequence[float | None], level: float = 0.95,
            bounds: tuple[float, float] = (-np.inf, np.inf)) -> dict:
    """Mean and Student-t interval of the mean of ``values`` (``None`` entries skipped), kept inside ``bounds``.

    Returns
    -------
    dict
        ``{"mean", "median", "center", "ci_low", "ci_high", "interval", "clipped", "values"}`` with
        ``center = mean`` and ``interval = "t"``; the interval is ``[mean, mean]`` for one value and
        everything is ``None`` when no value is given. Where the t-interval crosses a bound it is cut
        there (``clipped`` is True): a quantity never has an interval outside its range.
    """
    from scipy import stats

    vals = [float(v) for v in values if v is not None and np.isfinite(v)]
    if not vals:
        return {"mean": None, "median": None, "center": None, "ci_low": None, "ci_high": None, "interval": "t",
                "clipped": False, "values": list(values)}
    m, med = float(np.mean(vals)), float(np.median(vals))
    half = 0.0
    if len(vals) >= 2:
        half = float(stats.t.ppf(0.5 + level / 2, len(vals) - 1) * np.std(vals, ddof=1) / np.sqrt(len(vals)))
    lo, hi = max(m - half, bounds[0]), min(m + half, bounds[1])
    return {"mean": m, "median": med, "center": m, "ci_low": lo, "ci_high": hi, "interval": "t",
            "clipped": (lo, hi) != (m - half, m + half), "values": list(values)}


def seed_summary(values: Sequence[float | None], bounds: tuple[float, float] = (-np.inf, np.inf),
                 level: float = 0.95) -> dict:
    """The summary over seeds of one quantity whose values lie in ``bounds``.

    Quantities in [0, 1] (p-values, accuracies, P@1: ``bounds`` within [0, 1]) get the median and the
    range (min–max) over seeds: a few seeds of a skewed quantity (p = 0.178, 0.215, 0.0002,
    0.0085, 0.0004) give a Student-t interval reaching below 0. Other quantities get the mean and
    the 95% Student-t interval of the mean, cut at the quantity's range (:func:`mean_ci`).

    Returns
    -------
    dict
        ``{"mean", "median", "center", "ci_low", "ci_high", "interval", "clipped", "values"}``;
        ``interval`` is ``"range"`` (``center`` = median, ``ci_low``/``ci_high`` = min/max) or ``"t"``
        (``center`` = mean).

    Examples
    --------
    >>> seed_summary([0.178, 0.215, 0.0002, 0.0085, 0.0004], (0.0, 1.0))["ci_low"]
    0.0002
    """
    low, high = bounds
    out = mean_ci(values, level, bounds)
    if low >= 0.0 and high <= 1.0 and out["mean"] is not None:
        vals = [float(v) for v in values if v is not None and np.isfinite(v)]
        out.update(center=out["median"], ci_low=min(vals), ci_high=max(vals), interval="range", clipped=False)
    return out
