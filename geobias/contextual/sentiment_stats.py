"""The statistics of the sentiment-difference probe (Jentzsch & Turan 2022, Table 3): per-sample
bias sent(M) − sent(F), total and absolute bias over all and over non-zero samples, the Wilcoxon
signed-rank test, and Bonferroni across the conditions of one run."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from geobias.choices import ZeroMethod
from geobias.errors import InputError
from geobias.results import Result
from geobias.validation import check_choice

# --------------------------------------------------------------------------------------------
# statistics


@dataclass(frozen=True)
class BiasStats(Result):
    """Total/absolute bias over a set of samples (one column group of Table 3).

    Attributes
    ----------
    n : int
    total_bias : float
        mean of bias_i (eq. 3); NaN (null in JSON) when ``n`` is 0.
    absolute_bias : float
        mean of |bias_i| (eq. 4).
    std : float
        Standard deviation of bias_i, ddof=1 (NaN when n < 2).
    """

    n: int
    total_bias: float
    absolute_bias: float
    std: float


def _stats(d: np.ndarray) -> BiasStats:
    n = int(d.size)
    if n == 0:
        return BiasStats(0, float("nan"), float("nan"), float("nan"))
    return BiasStats(n, float(d.mean()), float(np.abs(d).mean()), float(d.std(ddof=1)) if n > 1 else float("nan"))


def stars(p: float | None) -> str:
    """Significance stars of the paper: * p < 0.05, ** p < 0.01, *** p < 0.001."""
    if p is None or not np.isfinite(p):
        return ""
    return "***" if p < 0.001 else "**" if p < 0.01 else "*" if p < 0.05 else ""


@dataclass(frozen=True)
class SentimentBias(Result):
    """Sentiment-difference bias of one condition (one row of Table 3).

    Attributes
    ----------
    scorer : str
        Model path/id or ``"vader"``.
    corpus : str
        Corpus label (file name, or ``eec-paired``).
    terms : str
        Term set (``pro``, ``weat``, ``all``; ``eec-persons`` for EEC's own pairs).
    n_samples : int
    n_negative, n_zero, n_positive : int
        Counts of bias_i < 0, = 0 (exactly), > 0.
    n_without_terms : int
        Texts holding no listed term (M = F = text; kept, so they count in N=0 and "all samples").
    all_samples, non_zero : BiasStats
        Over every sample; over the samples with bias ≠ 0.
    wilcoxon_statistic : float or None
    p_value : float or None
        Two-sided Wilcoxon signed-rank p of the paired sent(M), sent(F) with ``zero_method``;
        None when every difference is 0 (the test is undefined).
    p_bonferroni : float or None
        ``min(1, p · n_tests)``.
    significance : str
        Stars on ``p_bonferroni``.
    p_value_non_zero, p_bonferroni_non_zero : float or None
        The same test on the non-zero pairs only (the "non-zero samples" column). Even with
        ``zero_method="wilcox"`` it can differ from ``p_value``: with zeros present scipy's
        ``method="auto"`` uses the normal approximation, without them the exact distribution
        (n ≤ 50).
    zero_method : str
    mean_sent_male, mean_sent_female : float
        Mean sent(M), sent(F) over the samples that were scored: those whose two versions differ
        (:func:`sentiment_probe` does not score a text with M = F — its bias is 0 by construction).
    """

    scorer: str
    corpus: str
    terms: str
    n_samples: int
    n_negative: int
    n_zero: int
    n_positive: int
    n_without_terms: int
    all_samples: BiasStats
    non_zero: BiasStats
    wilcoxon_statistic: float | None
    p_value: float | None
    p_bonferroni: float | None
    significance: str
    p_value_non_zero: float | None
    p_bonferroni_non_zero: float | None
    zero_method: str
    mean_sent_male: float
    mean_sent_female: float


def bias_row(
    sent_male: np.ndarray,
    sent_female: np.ndarray,
    *,
    scorer: str = "",
    corpus: str = "",
    terms: str = "",
    n_without_terms: int = 0,
    zero_method: str = "wilcox",
    scored: np.ndarray | None = None,
) -> SentimentBias:
    """Table-3 statistics of paired scores (Bonferroni not yet applied: ``p_bonferroni = p``).

    Parameters
    ----------
    sent_male, sent_female : array-like of shape (n,), float
        sent(M_i), sent(F_i).
    zero_method : {"wilcox", "pratt", "zsplit"}, default "wilcox"
        Passed to ``scipy.stats.wilcoxon``.
    scored : array of bool of shape (n,), optional
        Which pairs hold real scores; the others must be equal placeholders (M = F, bias 0). Only
        ``mean_sent_male``/``mean_sent_female`` use it. Default: all.

    Raises
    ------
    InputError
        No samples, arrays of different lengths, non-finite scores, an unknown zero method.

    References
    ----------
    Jentzsch & Turan (2022), eq. 1–4 and Table 3.
    """
    from scipy.stats import wilcoxon

    check_choice("zero_method", zero_method, ZeroMethod)
    m = np.asarray(sent_male, dtype=np.float64)
    f = np.asarray(sent_female, dtype=np.float64)
    if m.shape != f.shape or m.ndim != 1:
        raise InputError(f"paired scores differ in shape: {m.shape} vs {f.shape}")
    if m.size == 0:
        raise InputError("no samples to measure")
    if not (np.isfinite(m).all() and np.isfinite(f).all()):
        raise InputError("a sentiment score is not finite")
    d = m - f
    sel = np.ones(d.size, dtype=bool) if scored is None else np.asarray(scored, dtype=bool)
    if sel.shape != d.shape or (d[~sel] != 0).any():
        raise InputError("unscored pairs must have equal placeholder scores")
    nz = d[d != 0]
    stat = p = p_nz = None
    if nz.size:
        res = wilcoxon(m, f, zero_method=zero_method, alternative="two-sided", method="auto")
        stat, p = float(res.statistic), float(res.pvalue)
        if not np.isfinite(p):
            stat = p = None
        keep = d != 0
        p_nz = float(wilcoxon(m[keep], f[keep], alternative="two-sided", method="auto").pvalue)
        if not np.isfinite(p_nz):
            p_nz = None
    return SentimentBias(
        scorer=scorer, corpus=corpus, terms=terms, n_samples=int(d.size),
        n_negative=int((d < 0).sum()), n_zero=int((d == 0).sum()), n_positive=int((d > 0).sum()),
        n_without_terms=int(n_without_terms), all_samples=_stats(d), non_zero=_stats(nz),
        wilcoxon_statistic=stat, p_value=p, p_bonferroni=p, significance=stars(p), p_value_non_zero=p_nz,
        p_bonferroni_non_zero=p_nz, zero_method=zero_method,
        mean_sent_male=float(m[sel].mean()) if sel.any() else float("nan"),
        mean_sent_female=float(f[sel].mean()) if sel.any() else float("nan"),
    )


def bonferroni(rows: Sequence[SentimentBias]) -> list[SentimentBias]:
    """Bonferroni across every row that has a p-value: p · k capped at 1, stars recomputed.

    ``k`` is the number of rows with a defined p-value (a condition whose differences are all 0
    tests nothing); the non-zero-samples p-values are corrected with the same ``k``.
    """
    from dataclasses import replace

    k = sum(r.p_value is not None for r in rows)
    out = []
    for r in rows:
        padj = None if r.p_value is None else min(1.0, r.p_value * k)
        pnz = None if r.p_value_non_zero is None else min(1.0, r.p_value_non_zero * k)
        out.append(replace(r, p_bonferroni=padj, significance=stars(padj), p_bonferroni_non_zero=pnz))
    return out
