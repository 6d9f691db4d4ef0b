"""Wilcoxon signed-rank test with the effect size r = Z / sqrt(N) (Rosenthal)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from geobias.errors import InputError
from geobias.results import Result


@dataclass(frozen=True)
class WilcoxonResult(Result):
    """Paired two-sided Wilcoxon signed-rank test of x − y.

    Attributes
    ----------
    statistic : float
        scipy's W = min(T+, T−) (sum of ranks of the positive / negative differences).
    p_value : float
        Two-sided, normal approximation with tie correction, no continuity correction.
    z : float
        Signed standard score of T+ (positive when x tends to exceed y).
    r : float
        Effect size z / sqrt(n) (Rosenthal 1991), NOT W / sqrt(n).
    n : int
        Pairs with a non-zero difference (zeros are dropped, ``zero_method="wilcox"``).
    n_zero : int
        Pairs dropped because their difference is exactly 0.
    mean_difference : float
        Mean of x − y over all pairs.
    """

    statistic: float
    p_value: float
    z: float
    r: float
    n: int
    n_zero: int
    mean_difference: float


def wilcoxon_signed_rank(x, y) -> WilcoxonResult:
    """Two-sided Wilcoxon signed-rank test on paired samples with effect size r = Z/√N.

    Parameters
    ----------
    x, y : array-like of shape (n_pairs,)
        Paired observations.

    Returns
    -------
    WilcoxonResult

    Raises
    ------
    InputError
        Different lengths, or fewer than one non-zero difference.

    Notes
    -----
    Z is computed from the normal approximation of T+ (mean n(n+1)/4, variance
    n(n+1)(2n+1)/24 minus the tie correction Σ(t³−t)/48); |Z| equals scipy's ``zstatistic`` with
    ``method="approx"`` and the p-value is scipy's. Bartl et al. (2020) report W/√N instead, which
    is not an effect size.

    References
    ----------
    Rosenthal, R. (1991). Meta-analytic procedures for social research, p. 19.
    Bartl, Nissim, Gatt (2020). Unmasking Contextual Stereotypes. GeBNLP, §4.
    """
    from scipy.stats import rankdata, wilcoxon

    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 1:
        raise InputError(f"paired samples must have the same length; got {x.shape} and {y.shape}")
    d = x - y
    nz = d[d != 0]
    n = int(nz.size)
    if n == 0:
        raise InputError("all paired differences are zero: the signed-rank test is undefined")
    ranks = rankdata(np.abs(nz))
    t_plus = float(ranks[nz > 0].sum())
    _, counts = np.unique(np.abs(nz), return_counts=True)
    var = n * (n + 1) * (2 * n + 1) / 24.0 - float((counts**3 - counts).sum()) / 48.0
    z = (t_plus - n * (n + 1) / 4.0) / math.sqrt(var) if var > 0 else 0.0
    res = wilcoxon(x, y, zero_method="wilcox", correction=False, method="approx")
    return WilcoxonResult(
        statistic=float(res.statistic),
        p_value=float(res.pvalue),
        z=float(z),
        r=float(z / math.sqrt(n)),
        n=n,
        n_zero=int(d.size - n),
        mean_difference=float(d.mean()),
    )
