"""The shared permutation test: cross-checked against scipy.stats.permutation_test."""

from __future__ import annotations

import math

import numpy as np
import pytest
from _reference import monte_carlo_partitions
from scipy import stats

from geobias.errors import InputError
from geobias.stats.permutation import (
    n_partitions,
    permutation_test,
)


def _diff(x, y, axis=-1):
    return np.sum(x, axis=axis) - np.sum(y, axis=axis)


def _mweat(x, y, axis=-1):
    return np.abs(np.abs(np.sum(x, axis=axis)) - np.abs(np.sum(y, axis=axis)))


def _scipy_exact(x, y, statistic, alternative, paired=False):
    return stats.permutation_test(
        (x, y),
        statistic,
        permutation_type="samples" if paired else "independent",
        vectorized=True,
        n_resamples=np.inf,
        alternative=alternative,
    )


@pytest.mark.parametrize("alternative", ["greater", "less", "two-sided"])
@pytest.mark.parametrize("n_x,n_y", [(5, 5), (4, 7)])
def test_exact_difference_equals_scipy(rng, alternative, n_x, n_y):
    s = rng.normal(size=n_x + n_y)
    ours = permutation_test(s, n_x, statistic="difference", alternative=alternative, method="exact")
    ref = _scipy_exact(s[:n_x], s[n_x:], _diff, alternative)
    assert ours.exact and ours.n_permutations == math.comb(n_x + n_y, n_x)
    assert ours.statistic == pytest.approx(ref.statistic, rel=1e-12)
    # exact enumeration of the same partitions: the p-values are the same rational number
    assert ours.p_value == pytest.approx(ref.pvalue, abs=1e-12)
    assert ours.p_value_ci == (ours.p_value, ours.p_value) and ours.p_value_se == 0.0


def test_exact_mweat_statistic_equals_scipy(rng):
    s = rng.normal(loc=0.1, scale=0.2, size=12)
    ours = permutation_test(s, 6, statistic="mweat", method="exact")
    ref = _scipy_exact(s[:6], s[6:], _mweat, "greater")
    assert ours.p_value == pytest.approx(ref.pvalue, abs=1e-12)
    assert ours.statistic == pytest.approx(abs(abs(s[:6].sum()) - abs(s[6:].sum())), rel=1e-12)


@pytest.mark.parametrize("statistic,fn", [("difference", _diff), ("mweat", _mweat)])
def test_exact_paired_equals_scipy(rng, statistic, fn):
    s = rng.normal(loc=0.05, scale=0.2, size=16)  # 8 pairs: 256 labellings
    ours = permutation_test(s, 8, statistic=statistic, paired=True, method="exact")
    ref = _scipy_exact(s[:8], s[8:], fn, "greater", paired=True)
    assert ours.n_permutations == 2**8 == n_partitions(16, 8, paired=True)
    assert ours.p_value == pytest.approx(ref.pvalue, abs=1e-12)


def test_auto_chooses_exact_within_budget(rng):
    s = rng.normal(size=10)  # C(10, 5) = 252
    assert permutation_test(s, 5, n_permutations=252).exact
    assert not permutation_test(s, 5, n_permutations=251).exact


@pytest.mark.parametrize("statistic,paired", [("difference", False), ("mweat", False), ("mweat", True)])
def test_monte_carlo_close_to_exact(rng, statistic, paired):
    s = rng.normal(loc=0.02, scale=0.2, size=16)  # 12,870 partitions / 256 labellings
    exact = permutation_test(s, 8, statistic=statistic, paired=paired, method="exact")
    mc = permutation_test(
        s, 8, statistic=statistic, paired=paired, method="monte-carlo", n_permutations=20_000, seed=3
    )
    assert not mc.exact and mc.n_permutations == 20_000
    # 5 Monte-Carlo standard errors (+ the 1/(B+1) bias of the +1 correction)
    se = math.sqrt(exact.p_value * (1 - exact.p_value) / 20_000)
    assert abs(mc.p_value - exact.p_value) <= 5 * se + 1 / 20_001
    assert mc.p_value_ci[0] <= exact.p_value + 1e-3 and exact.p_value - 1e-3 <= mc.p_value_ci[1]


def test_monte_carlo_matches_scipy_monte_carlo_within_tolerance(rng):
    s = rng.normal(loc=0.03, scale=0.1, size=60)
    ours = permutation_test(s, 30, statistic="difference", alternative="two-sided", n_permutations=20_000)
    ref = stats.permutation_test(
        (s[:30], s[30:]), _diff, vectorized=True, n_resamples=20_000, alternative="two-sided", rng=1
    )
    # two independent Monte-Carlo estimates: difference within 5 combined standard errors
    se = math.sqrt(2 * ref.pvalue * (1 - ref.pvalue) / 20_000) * 2
    assert abs(ours.p_value - ref.pvalue) <= 5 * se + 1e-4


def test_each_draw_is_a_true_permutation():
    perms = monte_carlo_partitions(np.random.default_rng(0), 116, 2_000)
    assert perms.shape == (2_000, 116)
    assert (np.sort(perms, axis=1) == np.arange(116)).all()  # no replacement within a draw
    assert len({tuple(r) for r in perms[:, :58]}) == 2_000  # and the draws differ
    # each item lands in group X about half the time (uniform partitions)
    share = (perms[:, :58] == 0).any(axis=1).mean()
    assert abs(share - 0.5) < 0.05  # binomial sd = 0.011 for 2,000 draws


def test_same_seed_same_p_and_seed_reported(rng):
    s = rng.normal(size=40)
    a = permutation_test(s, 20, n_permutations=5_000, seed=11)
    b = permutation_test(s, 20, n_permutations=5_000, seed=11)
    c = permutation_test(s, 20, n_permutations=5_000, seed=12)
    assert a == b and a.seed == 11
    assert c.p_value != a.p_value or c.p_value_ci != a.p_value_ci
    fresh = permutation_test(s, 20, n_permutations=100, seed=None)
    assert isinstance(fresh.seed, int)
    again = permutation_test(s, 20, n_permutations=100, seed=fresh.seed)
    assert again.p_value == fresh.p_value


def test_p_never_zero_and_ci_contains_p():
    s = np.concatenate([np.full(30, 1.0), np.full(30, -1.0)]) + np.linspace(0, 1e-3, 60)
    r = permutation_test(s, 30, n_permutations=1_000, seed=0)
    assert r.p_value == pytest.approx(1 / 1_001)  # observed partition is the most extreme
    assert r.p_value_ci[0] <= r.p_value <= r.p_value_ci[1]
    assert 0 < r.p_value_ci[0] and r.p_value_ci[1] < 0.01
    for seed in range(5):
        r = permutation_test(np.random.default_rng(seed).normal(size=30), 15, n_permutations=500, seed=seed)
        assert 0 < r.p_value <= 1
        assert r.p_value_ci[0] <= r.p_value <= r.p_value_ci[1]
        assert r.p_value_se == pytest.approx(math.sqrt(r.p_value * (1 - r.p_value) / 500))


def test_clopper_pearson_matches_binomtest():
    s = np.random.default_rng(5).normal(size=50)
    r = permutation_test(s, 25, n_permutations=999, seed=0)
    k = round(r.p_value * 1000)
    ci = stats.binomtest(k, 1000).proportion_ci(0.95, method="exact")
    assert r.p_value_ci == pytest.approx((ci.low, ci.high), rel=1e-9)


@pytest.mark.parametrize("bad", [0, -5])
def test_non_positive_permutations_is_input_error(bad):
    with pytest.raises(InputError, match="positive"):
        permutation_test(np.arange(6.0), 3, n_permutations=bad)


def test_bad_inputs():
    with pytest.raises(InputError):
        permutation_test(np.arange(6.0), 0)
    with pytest.raises(InputError):
        permutation_test(np.array([1.0, np.nan, 2.0]), 1)
    with pytest.raises(InputError):
        permutation_test(np.arange(7.0), 3, paired=True)
    with pytest.raises(InputError, match="alternative"):
        permutation_test(np.arange(6.0), 3, alternative="bigger")


def test_selection_sampling_draws_uniform_subsets_of_exact_size():
    """Scores 2**i encode each drawn subset in its sum: every draw has exactly n_x members, and
    the 120 subsets of 3 of 10 items come up uniformly (chi-square, 119 dof)."""
    from math import comb

    from scipy.stats import chisquare

    from geobias.stats.permutation import _selection_sums

    n, n_x, size = 10, 3, 240_000
    sums = _selection_sums(2.0 ** np.arange(n), n_x, np.random.default_rng(5), size).astype(np.int64)
    assert all(bin(v).count("1") == n_x for v in np.unique(sums))
    codes, counts = np.unique(sums, return_counts=True)
    assert len(codes) == comb(n, n_x)
    assert chisquare(counts).pvalue > 1e-3
    # every item is in X with probability n_x / n
    member = ((sums[:, None] >> np.arange(n)) & 1).mean(axis=0)
    np.testing.assert_allclose(member, n_x / n, atol=0.005)


def test_monte_carlo_p_value_is_reproducible_for_a_seed():
    s = np.random.default_rng(0).normal(size=116)
    a = permutation_test(s, 58, statistic="mweat", n_permutations=30_000, seed=3)
    b = permutation_test(s, 58, statistic="mweat", n_permutations=30_000, seed=3)
    c = permutation_test(s, 58, statistic="mweat", n_permutations=30_000, seed=4)
    assert a.p_value == b.p_value and a.p_value != c.p_value


def test_pure_python_beta_inverse_matches_scipy():
    from scipy.special import betaincinv as ref

    from geobias.stats._betainc import betaincinv

    for n in (10, 1001, 100_001, 1_000_001):
        for k in sorted({1, 2, n // 100 + 1, n // 2, n - 1}):
            for a, b, q in ((k, n - k + 1, 0.025), (k + 1, n - k, 0.975)):
                assert betaincinv(a, b, q) == pytest.approx(ref(a, b, q), rel=1e-8)
