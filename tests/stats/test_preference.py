"""The test of "no preference" for pairwise choices (CrowS-Pairs, StereoSet): the exact sign test and
the Clopper–Pearson interval of the untied share equal SciPy's, and the sign test is the exact
permutation test of the choices."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from geobias.errors import InputError
from geobias.stats import permutation_test
from geobias.stats.preference import sign_test


@pytest.mark.parametrize(("n_for", "n_against"), [(0, 1), (1, 0), (3, 7), (5, 5), (60, 40), (131, 131), (140, 107),
                                                  (700, 808), (0, 262)])
def test_equals_scipys_binomial_test_and_exact_interval(n_for, n_against):
    from scipy.stats import binomtest

    got = sign_test(n_for, n_against, 7)
    ref = binomtest(n_for, n_for + n_against, 0.5)
    assert got.p_value == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-300)
    ci = ref.proportion_ci(0.95, method="exact")
    assert got.share_ci[0] == pytest.approx(100 * ci.low, abs=1e-7)
    assert got.share_ci[1] == pytest.approx(100 * ci.high, abs=1e-7)
    assert got.share == pytest.approx(100 * n_for / (n_for + n_against))


def test_large_samples_use_the_incomplete_beta_function_and_agree():
    """Above EXACT_SUM_MAX untied choices the tail comes from the incomplete beta function (the
    integer sum grows too slow): the same p as SciPy's binomial test on either side of the switch."""
    from scipy.stats import binomtest

    from geobias.stats.preference import EXACT_SUM_MAX

    for n in (EXACT_SUM_MAX, EXACT_SUM_MAX + 1, 200_000):
        for k in (n // 2 - 40, n // 2 + 3):
            assert sign_test(k, n - k).p_value == pytest.approx(binomtest(k, n).pvalue, rel=1e-9)


def test_is_the_exact_permutation_test_of_the_choices():
    """Flipping each choice (a tie into itself) over every labelling gives the same p: the sign test
    counts the permutation test's partitions in closed form."""
    rng = np.random.default_rng(3)
    for _ in range(5):
        choice = rng.choice([1, -1, 0], size=12, p=[0.5, 0.35, 0.15])  # for, against, tie
        pro, con = (choice == 1).astype(float), (choice == -1).astype(float)
        perm = permutation_test(np.concatenate([pro, con]), 12, paired=True, alternative="two-sided", method="exact")
        got = sign_test(int(pro.sum()), int(con.sum()), int((choice == 0).sum()))
        assert perm.exact and got.p_value == pytest.approx(perm.p_value, rel=1e-12)


def test_ties_move_the_no_preference_score_not_the_share():
    t = sign_test(30, 30, 40)
    assert t.share == 50.0 and t.p_value == 1.0
    assert t.no_preference_score == pytest.approx(30.0)  # a tie never counts for the stereotype
    # brute force: the metric score's mean over every fair-coin outcome of the 60 untied pairs
    n = 6
    scores = [100 * sum(c) / (n + 4) for c in itertools.product((0, 1), repeat=n)]
    assert sign_test(3, 3, 4).no_preference_score == pytest.approx(np.mean(scores))


def test_every_choice_tied_gives_no_test_and_bad_counts_one_error():
    t = sign_test(0, 0, 5)
    assert t.share is None and t.share_ci is None and t.p_value is None and t.no_preference_score == 0.0
    for bad in ((-1, 2, 0), (1.5, 2, 0), (True, 2, 0)):
        with pytest.raises(InputError, match="non-negative integers"):
            sign_test(*bad)
    with pytest.raises(InputError, match="no choices"):
        sign_test(0, 0, 0)
    with pytest.raises(InputError, match="confidence"):
        sign_test(1, 1, confidence=1.0)


def test_clustered_test_refuses_mismatched_or_impossible_percentages():
    from geobias.stats.preference import clustered_test

    with pytest.raises(InputError, match="same number"):
        clustered_test([50, 60], [50], [0, 0])
    with pytest.raises(InputError, match="within"):
        clustered_test([150, 60], [0, 40], [0, 0])
    one = clustered_test([100.0], [0.0], [0.0])  # one cluster: the only other labelling flips it
    assert one.interval == [None, None] and one.n_permutations == 2 and one.p_value == 1.0


@pytest.mark.parametrize("n", [2, 5, 6, 40])
def test_cluster_interval_gives_none_when_the_clusters_have_no_spread(n):
    """Identical values (e.g. each of a few StereoSet terms at 2 of 3 examples) give no spread to read
    an interval from: no interval, not a 95 % one of width 0, on Student's branch and the bootstrap's;
    the test of no preference still runs, and a little spread gives an interval again."""
    from geobias.stats.preference import cluster_interval, clustered_test

    same = [200.0 / 3.0] * n
    assert cluster_interval(same, bounds=(0.0, 100.0)) == [None, None]
    assert cluster_interval(same, confidence=0.975) == [None, None]
    tested = clustered_test(same, [100.0 / 3.0] * n, [0.0] * n)
    assert tested.interval == [None, None] and tested.estimate == pytest.approx(200.0 / 3.0)
    if n <= 13:  # every labelling enumerated: only the all-positive and all-negative ones reach the mean
        assert tested.p_value == pytest.approx(2.0 ** (1 - n))
    else:
        assert tested.p_value < 1e-3
    low, high = cluster_interval([*same[:-1], 100.0 / 3.0], bounds=(0.0, 100.0))
    assert low < high


@pytest.mark.parametrize(("n", "confidence", "method"), [(2, 0.95, "t"), (5, 0.95, "t"), (6, 0.95, "bootstrap"),
                                                        (6, 0.975, "t"), (7, 0.975, "bootstrap")])
def test_cluster_interval_is_students_where_the_clusters_range_cannot_reach_the_level(n, confidence, method):
    """With 2^(1 − C) ≥ 1 − confidence clusters, Student's t interval (scipy's), clipped to the bounds;
    above, the expanded percentile bootstrap over the clusters."""
    from scipy import stats

    from geobias.stats.bootstrap import bootstrap
    from geobias.stats.preference import cluster_interval

    values = np.random.default_rng(n).uniform(20.0, 70.0, size=n)
    got = cluster_interval(values, confidence=confidence, n_resamples=500, seed=3)
    if method == "t":
        want = stats.t.interval(confidence, n - 1, loc=values.mean(), scale=stats.sem(values))
        assert got == pytest.approx([max(want[0], 0.0), min(want[1], 100.0)])
        shift = values.mean() - 1.0  # a mean of 1 %: Student's lower bound falls below 0
        near_edge = cluster_interval(values - shift, confidence=confidence, bounds=(0.0, 100.0))
        assert near_edge[0] == 0.0 and near_edge[1] == pytest.approx(want[1] - shift)
    else:
        boot = bootstrap(lambda idx: values[idx["clusters"]].mean(axis=1), {"clusters": n}, n_resamples=500, seed=3,
                         confidence=confidence, interval="expanded", units=n)
        assert got == [boot.low, boot.high]


def test_few_clusters_cover_with_students_interval_where_the_bootstrap_could_not():
    """Simulated StereoSet terms (3–10 examples, each term's share of the stereotype drawn about 1/2):
    with 2 to 5 terms the interval covers the truth near 95 %; with 3 terms a percentile bootstrap,
    which cannot leave the terms' range, covers far less (the range of 3 terms misses the centre
    whenever all 3 fall on one side of it)."""
    from geobias.stats.bootstrap import bootstrap
    from geobias.stats.preference import cluster_interval

    rng = np.random.default_rng(0)
    for n in (2, 3, 4, 5):
        ours, boot = [], []
        for _ in range(600):
            examples = rng.integers(3, 11, size=n)
            share = 100.0 * rng.binomial(examples, np.clip(0.5 + 0.15 * rng.standard_normal(n), 0.02, 0.98)) / examples
            low, high = cluster_interval(share, bounds=(0.0, 100.0))
            ours.append(low is not None and low <= 50.0 <= high)  # no interval (identical shares) is a miss
            if n == 3:
                b = bootstrap(lambda idx, s=share: s[idx["c"]].mean(axis=1), {"c": n}, n_resamples=200, seed=1,
                              interval="expanded", units=n)
                boot.append(b.low <= 50.0 <= b.high)
        assert 0.92 <= np.mean(ours) <= 0.985, (n, np.mean(ours))
        if n == 3:
            assert np.mean(boot) <= 0.86 and np.mean(ours) - np.mean(boot) >= 0.08, (np.mean(boot), np.mean(ours))


def test_cluster_interval_refuses_bad_settings_whichever_interval_it_reads():
    """Student's branch (3 clusters) checks the resamples and the level as the bootstrap's does."""
    from geobias.stats.preference import cluster_interval

    for values in ([40.0, 50.0, 60.0], [40.0, 50.0, 60.0, 45.0, 55.0, 52.0]):
        with pytest.raises(InputError, match="at least 1"):
            cluster_interval(values, n_resamples=0)
        with pytest.raises(InputError, match="between 0 and 1"):
            cluster_interval(values, confidence=1.5)


def test_icat_has_no_interval_below_three_terms_where_its_range_fell_short_of_95():
    """With 2 terms the 97.5 % intervals of LMS and SS held too seldom for ICAT's range to keep "at
    least 95 %" (85.5-87.5 % in simulation): no ICAT interval there; LMS's is still given."""
    from geobias.stats.preference import ICAT_MIN_TERMS, lms_icat_intervals

    two = lms_icat_intervals([80.0, 95.0], [40.0, 70.0])
    assert ICAT_MIN_TERMS == 3 and two["icat_ci"] == [None, None] and two["lms_ci"][0] < 87.5 < two["lms_ci"][1]
    three = lms_icat_intervals([80.0, 95.0, 90.0], [40.0, 70.0, 55.0])
    assert None not in three["icat_ci"] and three["icat_ci"][0] < three["icat_ci"][1]
