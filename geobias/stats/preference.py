""""No preference" for scores that count pairwise choices (CrowS-Pairs, StereoSet).

A model that is shown two sentences (the more and the less stereotypical one) prefers one or the
other, or neither (a tie). CrowS-Pairs' metric score and StereoSet's SS count the preferences for the
stereotype; "no preference" means that each untied choice is a fair coin. The quantity that can
show it is the share of *untied* choices that go to the stereotype, whose no-preference value is
1/2 whatever the ties: the published scores count a tie against the stereotype, so with ties their
no-preference value is below 50 (:attr:`PreferenceTest.no_preference_score`).

:func:`sign_test` gives that share with its exact (Clopper–Pearson) interval and the exact
two-sided sign test of "no preference". The sign test is the exact permutation test of the choices
(each untied choice flipped with probability 1/2, a tie flipped into itself), its partitions counted
in closed form: ``p = min(1, 2 · P(Bin(n, 1/2) ≤ min(k, n − k)))`` over the ``n`` untied choices
(summed in integers up to :data:`EXACT_SUM_MAX` choices, from the incomplete beta function above),
``k`` of them for the stereotype (the two-sided rule of :func:`geobias.stats.permutation_test`, and
of ``scipy.stats.binomtest`` at 1/2, whose distribution is symmetric).

:func:`clustered_test` does the same for a score that averages per-cluster percentages (StereoSet's
SS averages its target terms'): the clusters are the sample, each cluster's net preference is
flipped in sign under no preference, and the interval resamples the clusters
(:func:`cluster_interval`). :func:`lms_icat_intervals` gives StereoSet's LMS the same interval, and
its ICAT, whose maximum at SS = 50 a bootstrap of ICAT cannot cover, an interval by projection
(:func:`icat_interval`).

References
----------
Clopper & Pearson (1934), Biometrika 26(4), 404–413 (the interval). Dixon & Mood (1946), "The
statistical sign test", JASA 41(236), 557–566. Nangia et al. (2020), EMNLP, §3 (CrowS-Pairs' metric
score: "50 = no preference" when no pair is neutral).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from geobias.errors import InputError
from geobias.results import Result

__all__ = ["ClusteredPreference", "PreferenceTest", "cluster_interval", "clustered_test", "icat_interval",
           "lms_icat_intervals", "sign_test"]


@dataclass(frozen=True)
class PreferenceTest(Result):
    """The untied choices' share for the stereotype, its interval and the sign test of 1/2.

    Attributes
    ----------
    n_for, n_against, n_ties : int
        Choices for the stereotype, against it, and ties.
    share : float or None
        ``n_for / (n_for + n_against)`` in percent (50 = no preference); ``None`` when every
        choice is a tie.
    share_ci : tuple of float or None
        Its Clopper–Pearson interval at ``confidence``, in percent (exact: it holds the true share
        in at least ``confidence`` of samples).
    p_value : float or None
        Exact two-sided sign test of "no preference"; ``None`` when every choice is a tie (no test).
    no_preference_score : float
        What a score that counts a tie against the stereotype (CrowS-Pairs' metric score) would be
        with no preference: ``50 · (n − n_ties) / n``, in percent.
    confidence : float
    """

    n_for: int
    n_against: int
    n_ties: int
    share: float | None
    share_ci: tuple[float, float] | None
    p_value: float | None
    no_preference_score: float
    confidence: float = 0.95


#: Up to this many untied choices the sign test's tail is summed exactly in integers (15 ms for
#: CrowS-Pairs' 1,508 pairs); above it, the regularised incomplete beta function (the exact sum grows
#: as n² digits: 2.6 s at 10,000, 128 s at 40,000).
EXACT_SUM_MAX = 3000


def _binomial_half_cdf(m: int, n: int) -> float:
    """``P(Bin(n, 1/2) <= m)``: an exact integer sum up to :data:`EXACT_SUM_MAX` trials, else
    ``I_{1/2}(n − m, m + 1)`` (``scipy.special.betainc``; Abramowitz & Stegun 26.5.24)."""
    if n <= EXACT_SUM_MAX:
        return sum(math.comb(n, i) for i in range(m + 1)) / 2**n
    from scipy.special import betainc

    return float(betainc(n - m, m + 1, 0.5))


def sign_test(n_for: int, n_against: int, n_ties: int = 0, *, confidence: float = 0.95) -> PreferenceTest:
    """The share of untied choices for the stereotype, its exact interval and the exact sign test.

    Parameters
    ----------
    n_for, n_against : int
        Untied choices for and against the stereotype (non-negative).
    n_ties : int, default 0
        Tied choices (left out of the share and the test; counted in ``no_preference_score``).
    confidence : float, default 0.95
        Level of the Clopper–Pearson interval, in (0, 1).

    Returns
    -------
    PreferenceTest

    Raises
    ------
    InputError
        A negative count, no choice at all, or ``confidence`` outside (0, 1).

    References
    ----------
    Clopper & Pearson (1934); Dixon & Mood (1946).

    Examples
    --------
    >>> t = sign_test(60, 40)
    >>> round(t.share, 1), round(t.p_value, 4), [round(b, 2) for b in t.share_ci]
    (60.0, 0.0569, [49.72, 69.67])
    >>> sign_test(5, 5, 10).no_preference_score   # a tie counts against the stereotype
    25.0
    """
    from geobias.stats.bootstrap import check_confidence
    from geobias.stats.permutation import _clopper_pearson

    counts = (n_for, n_against, n_ties)
    if any(isinstance(c, bool) or int(c) != c or c < 0 for c in counts):
        raise InputError(f"choice counts must be non-negative integers; got {counts}")
    check_confidence(confidence)
    n_for, n_against, n_ties = (int(c) for c in counts)
    untied = n_for + n_against
    total = untied + n_ties
    if total == 0:
        raise InputError("no choices to test")
    if untied == 0:
        return PreferenceTest(0, 0, n_ties, None, None, None, 0.0, confidence)
    low, high = _clopper_pearson(n_for, untied, confidence)
    tail = _binomial_half_cdf(min(n_for, n_against), untied)
    return PreferenceTest(n_for, n_against, n_ties, 100.0 * n_for / untied, (100.0 * low, 100.0 * high),
                          min(1.0, 2.0 * tail), 50.0 * untied / total, confidence)


@dataclass(frozen=True)
class ClusteredPreference(Result):
    """A mean over clusters of the percentage of each cluster's choices for the stereotype, with its
    interval over the clusters and the sign-flip test of "no preference" (:func:`clustered_test`).

    Attributes
    ----------
    estimate : float
        The mean over the clusters of their percentages for the stereotype (a tie counts against).
    interval : list of float or None
        Its 95 % interval over the clusters (:func:`cluster_interval`; ``[None, None]`` with one
        cluster, or clusters that all have the same percentage).
    no_preference : float
        The estimate's value with no preference: 50 less half the clusters' mean percentage of ties.
    p_value : float
        Two-sided sign-flip permutation test of "no preference".
    p_value_ci : list of float
        95 % Clopper–Pearson interval of the Monte-Carlo p-value (``[p, p]`` when exact).
    n_permutations : int
        Labellings evaluated: all ``2^clusters`` when exact, else the draws.
    """

    estimate: float
    interval: list
    no_preference: float
    p_value: float
    p_value_ci: list
    n_permutations: int


def clustered_test(pro, con, ties, *, n_permutations: int = 10_000, n_resamples: int = 1_000,
                   seed: int = 0) -> ClusteredPreference:
    """Interval and test of "no preference" for a mean over clusters of per-cluster percentages.

    Under no preference each cluster's net preference ``d_c = pro_c − con_c`` is symmetric about 0
    (each choice a fair coin, or clusters leaning both ways alike): each ``d_c`` is flipped in sign
    with probability 1/2 and the mean recomputed (:func:`geobias.stats.permutation_test`, paired,
    two-sided; exact when ``2^clusters <= n_permutations``). The interval resamples the clusters
    (:func:`cluster_interval`: the expanded percentile interval from 6 clusters, Student's t interval
    with 2 to 5, where no resampling interval can reach 95 %).

    Parameters
    ----------
    pro, con, ties : array-like of shape (C,)
        Per cluster, the percentage of its choices for the stereotype, against it, and tied (each
        row summing to 100).
    n_permutations : int, default 10_000
    n_resamples : int, default 1_000
    seed : int, default 0
        Seed of the permutation draws and of the bootstrap.

    Returns
    -------
    ClusteredPreference

    Raises
    ------
    InputError
        Arrays of different lengths, no cluster, or percentages outside [0, 100].

    References
    ----------
    Efron & Tibshirani (1993), §13 (percentile interval); Hesterberg (2015), "What teachers should
    know about the bootstrap", The American Statistician 69(4) (the expanded interval); Good (2005),
    *Permutation, Parametric and Bootstrap Tests of Hypotheses*, §3 (the sign-flip test of a paired
    design).

    Examples
    --------
    >>> t = clustered_test([200 / 3] * 4, [100 / 3] * 4, [0] * 4)   # 4 clusters: 16 labellings, exact
    >>> round(t.estimate, 2), t.n_permutations, t.p_value, t.no_preference
    (66.67, 16, 0.125, 50.0)
    """
    from geobias.stats.permutation import permutation_test

    pro, con, ties = (np.asarray(a, dtype=np.float64).ravel() for a in (pro, con, ties))
    n = len(pro)
    if n == 0 or len(con) != n or len(ties) != n:
        raise InputError(f"need the same number (at least 1) of clusters in pro, con and ties; got {len(pro)}, "
                         f"{len(con)}, {len(ties)}")
    if any(((a < 0) | (a > 100)).any() or not np.isfinite(a).all() for a in (pro, con, ties)):
        raise InputError("per-cluster percentages must be within [0, 100]")
    # swapping a cluster's pro and con flips the sign of its d_c: the paired test is the sign-flip test
    test = permutation_test(np.concatenate([pro, con]) / n, n, paired=True, alternative="two-sided",
                            n_permutations=n_permutations, seed=seed)
    interval = cluster_interval(pro, n_resamples=n_resamples, seed=seed, bounds=(0.0, 100.0))
    return ClusteredPreference(float(pro.mean()), interval, 50.0 - float(ties.mean()) / 2.0, test.p_value,
                               list(test.p_value_ci), test.n_permutations)


def cluster_interval(values, *, confidence: float = 0.95, n_resamples: int = 1_000, seed: int = 0,
                     bounds: tuple[float, float] | None = None) -> list:
    """Interval of a mean over clusters of per-cluster values: the clusters resampled, or Student's t
    interval where there are too few clusters for any resampling interval to reach the level.

    A percentile-type bootstrap interval of a mean lies within the clusters' range, and the range of
    C draws misses the centre of a symmetric population with probability ``2^(1 − C)`` (all C on one
    side), so with ``2^(1 − C) >= 1 − confidence`` (C ≤ 5 at 95 %, C ≤ 6 at 97.5 %) it cannot cover
    at its level: simulated StereoSet terms covered 47–51 % with 2 terms, 73–74 % with 3, 85–86 % with 4
    and 90–91 % with 5. There the interval is Student's, ``mean ± t_{(1+confidence)/2, C−1} · s / √C``
    (``s`` the standard deviation, ``ddof = 1``), which covered 93–95.5 % at 2 to 5 terms; above, the
    expanded percentile interval (:func:`geobias.stats.bootstrap.expanded_confidence`), which equals
    Student's for normal data and needs no normality. The interval :func:`clustered_test` gives, and
    StereoSet's LMS's (its target terms' percentages of related words winning).

    Parameters
    ----------
    values : array-like of float, shape (C,)
        One value per cluster (e.g. its percentage of choices for the stereotype).
    confidence : float, default 0.95
        Nominal level, in (0, 1).
    n_resamples : int, default 1_000
    seed : int, default 0
        Seed of the bootstrap: intervals of different values over the same clusters with one seed
        resample the same clusters.
    bounds : pair of float, optional
        The values' domain (``(0, 100)`` for percentages): Student's interval is clipped to it.

    Returns
    -------
    list of float or None
        ``[low, high]``, in the values' unit; ``[None, None]`` with fewer than 2 clusters, or when
        every cluster has the same value: no spread can be read from them, and ``[v, v]`` would claim
        a 95 % interval of width 0.

    Raises
    ------
    InputError
        ``n_resamples`` outside ``1..MAX_RESAMPLES`` or ``confidence`` outside (0, 1).

    References
    ----------
    Efron & Tibshirani (1993), §13; Hesterberg (2015), The American Statistician 69(4) (the expanded
    interval); Student (1908), Biometrika 6(1).

    Examples
    --------
    >>> low, high = cluster_interval([40.0, 55.0, 60.0, 45.0, 50.0, 52.0])   # 6 clusters: the bootstrap
    >>> low < 50.0 < high, cluster_interval([50.0]), cluster_interval([60.0, 60.0, 60.0])
    (True, [None, None], [None, None])
    >>> [round(b, 2) for b in cluster_interval([40.0, 60.0, 55.0])]          # 3 clusters: Student's t
    [25.81, 77.52]
    """
    from geobias.stats.bootstrap import bootstrap, check_confidence, check_resamples

    check_resamples(n_resamples)
    check_confidence(confidence)
    values = np.asarray(values, dtype=np.float64).ravel()
    n = len(values)
    if n < 2 or values.min() == values.max():  # one cluster, or no spread: nothing to read an interval from
        return [None, None]
    if 2.0 ** (1 - n) >= 1.0 - confidence:  # the clusters' range cannot hold the mean often enough
        from scipy.special import stdtrit

        half = float(stdtrit(n - 1, (1.0 + confidence) / 2.0)) * float(values.std(ddof=1)) / math.sqrt(n)
        low, high = float(values.mean()) - half, float(values.mean()) + half
        if bounds is not None:
            low, high = max(low, bounds[0]), min(high, bounds[1])
        return [low, high]
    boot = bootstrap(lambda idx: values[idx["clusters"]].mean(axis=1), {"clusters": n},
                     n_resamples=n_resamples, seed=seed, confidence=confidence, interval="expanded", units=n)
    return [boot.low, boot.high]


def icat_interval(lms_ci: list, ss_ci: list) -> list:
    """ICAT's interval from an interval of LMS and one of SS: the range of
    ICAT = LMS · min(SS, 100 − SS) / 50 over the rectangle they span.

    ICAT grows with LMS and with min(SS, 100 − SS), which peaks at SS = 50: its lower bound takes the
    lower LMS bound and the smaller of min(SS, 100 − SS) at SS's two bounds; its upper bound the upper
    LMS bound and 50 where SS's interval holds 50, else the larger of the two. Given two intervals
    that each cover at level 1 − α/2, ICAT's covers with probability at least 1 − α (Bonferroni), a
    kink at its peak notwithstanding; :func:`lms_icat_intervals` passes 97.5 % intervals for 95 %.

    Parameters
    ----------
    lms_ci, ss_ci : pair of float or None
        ``[low, high]`` in percent (0–100); ``[None, None]`` for none.

    Returns
    -------
    list of float or None
        ``[low, high]`` in ICAT's unit (0–100); ``[None, None]`` when either interval is missing.

    References
    ----------
    Nadeem, Bethke & Reddy (2021), §4 (ICAT). Casella & Berger (2002), *Statistical Inference*,
    §9.2.3 (intervals for functions of parameters) and Bonferroni's inequality, §1.2.

    Examples
    --------
    >>> icat_interval([80.0, 90.0], [45.0, 60.0])     # SS's interval holds 50: up to ICAT = LMS
    [64.0, 90.0]
    >>> icat_interval([80.0, 90.0], [60.0, 70.0])
    [48.0, 72.0]
    """
    if None in (*lms_ci, *ss_ci):
        return [None, None]
    (l_lo, l_hi), (s_lo, s_hi) = lms_ci, ss_ci
    edges = [min(s, 100.0 - s) for s in (s_lo, s_hi)]
    top = 50.0 if s_lo <= 50.0 <= s_hi else max(edges)
    return [l_lo * min(edges) / 50.0, l_hi * top / 50.0]


#: Fewest target terms for ICAT's interval: with 2, Student's 97.5 % intervals of LMS and SS (each
#: term's percentages of a few examples, piled against 0 or 100) held their truths too seldom for the
#: projection to keep its "at least 95 %": it held ICAT's in 85.5-87.5 % of simulated data sets
#: (2,000 per scenario), and in 95.9-97.8 % with 3 terms (docs/calibration.md).
ICAT_MIN_TERMS = 3


def lms_icat_intervals(related, pro, *, n_resamples: int = 1_000, seed: int = 0) -> dict:
    """StereoSet's LMS interval (95 %) and ICAT's (at least 95 %) from its target terms' percentages.

    LMS averages the terms' percentages of related words winning, SS their percentages for the
    stereotype: :func:`cluster_interval` over the terms gives LMS's 95 % interval, and LMS's and SS's
    97.5 % intervals (the same resamples: one seed) give ICAT's by :func:`icat_interval`.

    Parameters
    ----------
    related, pro : array-like of float, shape (T,)
        Per target term, the percentage of its (stereotype, unrelated) and (anti-stereotype,
        unrelated) comparisons the related word wins (its LMS), and of its examples whose
        stereotype wins (its SS).
    n_resamples : int, default 1_000
    seed : int, default 0

    Returns
    -------
    dict
        ``{"lms_ci": [low, high], "icat_ci": [low, high]}``, percentages; ``[None, None]`` with
        fewer than 2 terms (ICAT: 3, :data:`ICAT_MIN_TERMS`), or terms that all have the same value
        (ICAT: where LMS's or SS's is).

    Raises
    ------
    InputError
        ``related`` and ``pro`` of different lengths; ``n_resamples`` out of range.

    References
    ----------
    Nadeem, Bethke & Reddy (2021), §4; those of :func:`cluster_interval` and :func:`icat_interval`.

    Examples
    --------
    >>> got = lms_icat_intervals([90.0, 80.0, 85.0, 95.0], [50.0, 70.0, 60.0, 40.0])
    >>> got["lms_ci"][0] < 87.5 < got["lms_ci"][1], got["icat_ci"][1] <= 100.0
    (True, True)
    """
    related, pro = (np.asarray(a, dtype=np.float64).ravel() for a in (related, pro))
    if len(related) != len(pro):
        raise InputError(f"need one LMS and one SS percentage per target term; got {len(related)} and {len(pro)}")
    lms_ci = cluster_interval(related, n_resamples=n_resamples, seed=seed, bounds=(0.0, 100.0))
    if len(related) < ICAT_MIN_TERMS:
        return {"lms_ci": lms_ci, "icat_ci": [None, None]}
    wide = [cluster_interval(v, confidence=0.975, n_resamples=n_resamples, seed=seed, bounds=(0.0, 100.0))
            for v in (related, pro)]
    return {"lms_ci": lms_ci, "icat_ci": icat_interval(*wide)}
