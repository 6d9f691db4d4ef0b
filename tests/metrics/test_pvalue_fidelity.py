"""Honest p-values: Monte-Carlo calibration against exact values, MWEAT's ceiling and its tie
handling, and the companion difference statistic."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from geobias.metrics import mweat
from geobias.query import WordQuery
from geobias.stats.permutation import permutation_test
from geobias.store import VectorStore


def _exact_p(scores, n_x, stat) -> float:
    """Brute force, independent of geobias: share of partitions with stat >= observed (with a
    relative tolerance for float rounding)."""
    s = np.asarray(scores, dtype=np.float64)
    total = s.sum()
    obs = stat(s[:n_x].sum(), total - s[:n_x].sum())
    hits = n = 0
    for idx in itertools.combinations(range(len(s)), n_x):
        sx = s[list(idx)].sum()
        v = stat(sx, total - sx)
        hits += v >= obs - 1e-9 * max(1.0, np.abs(s).sum())
        n += 1
    return hits / n


def _mweat_stat(x, y):
    return abs(abs(x) - abs(y))


@pytest.mark.parametrize("statistic,fn", [("difference", lambda x, y: x - y), ("mweat", _mweat_stat)])
def test_monte_carlo_p_is_calibrated_over_seeds(statistic, fn):
    """Over 200 seeds the z-scores (p_MC − p_exact) / SE look standard normal: no seed is
    special and the reported standard error is right (deterministic: fixed seeds)."""
    s = np.r_[np.linspace(-1, 1, 7) + 0.4, 1.1 * np.linspace(-1, 1, 7)]  # a moderate effect
    p_ref = _exact_p(s, 7, fn)
    assert 0.02 < p_ref < 0.5  # a p-value where the MC error is visible
    z = []
    for seed in range(200):
        r = permutation_test(s, 7, statistic=statistic, n_permutations=2000, seed=seed, method="monte-carlo")
        assert r.p_value_ci[0] <= r.p_value <= r.p_value_ci[1]
        z.append((r.p_value - p_ref) / r.p_value_se)
    z = np.asarray(z)
    # mean: SE of the mean of 200 N(0,1) is 0.07 (the +1 of (1+k)/(1+B) adds ~0.02)
    assert abs(z.mean()) < 0.3
    assert 0.8 < z.std(ddof=1) < 1.2
    assert np.mean(np.abs(z) > 1.96) < 0.1  # ~5% expected


def test_mweat_ties_at_the_ceiling_are_counted():
    """When the group sums have opposite signs the MWEAT statistic sits at its ceiling |T|, and
    every re-partition with opposite-sign sums ties it mathematically. Exact rational arithmetic
    gives the p-value; the shared test (with its tie tolerance) must reproduce it, although
    float sums of the tied partitions differ in the last bits."""
    s = [0.1, 0.7, 0.2, 0.3, 0.6, 0.1, -0.3, -0.9, -0.2, -0.4, -0.1, -0.6]  # Σ X = 2.0 > 0 > Σ Y = −2.5
    fr = [Fraction(str(v)) for v in s]
    total = sum(fr)
    obs = abs(abs(sum(fr[:6])) - abs(sum(fr[6:])))
    assert obs == abs(total)  # at the ceiling
    ties = ge = n = 0
    naive = 0
    sf = np.asarray(s)
    obs_float = abs(abs(sf[:6].sum()) - abs(sf[6:].sum()))
    for idx in itertools.combinations(range(12), 6):
        sx = sum(fr[i] for i in idx)
        v = abs(abs(sx) - abs(total - sx))
        ge += v >= obs
        ties += v == obs
        n += 1
        x = sf[list(idx)].sum()
        naive += abs(abs(x) - abs(sf.sum() - x)) >= obs_float
    p_exact = ge / n
    r = permutation_test(s, 6, statistic="mweat", method="exact")
    assert r.p_value == pytest.approx(p_exact, abs=1e-12)
    assert ties == ge  # nothing exceeds the ceiling: the p-value is all ties
    assert naive != ge  # a plain float >= gets this case wrong: the tolerance is what decides


def test_mweat_companion_difference_and_effect_size():
    """Ours beside eq. 1: Σ_X s − Σ_Y s with its permutation p (same partitions) and the
    Caliskan effect size on the MWEAT sets, checked against a direct computation."""
    rng = np.random.default_rng(3)
    dim = 10
    words = [f"m{i}" for i in range(6)] + [f"f{i}" for i in range(6)] + ["he", "him", "she", "her"]
    vec = rng.normal(size=(len(words), dim))
    vec[:6, 0] += 1.0  # masculine forms lean to the male attribute words
    vec[12:14, 0] += 2.0
    store = VectorStore(words, vec)
    occ = [(f"f{i}", f"m{i}", "") for i in range(6)]
    r = mweat(store, WordQuery.two_form(occ, ["he", "him"], ["she", "her"]), permutations=10_000, seed=0)
    u = vec / np.linalg.norm(vec, axis=1, keepdims=True)
    w = u[12:14].mean(0) - u[14:16].mean(0)
    s = u[:12] @ w
    assert r.difference == pytest.approx(s[:6].sum() - s[6:].sum(), abs=1e-6)
    assert r.effect_size == pytest.approx((s[:6].mean() - s[6:].mean()) / s.std(ddof=1), abs=1e-6)
    exact = permutation_test(s, 6, statistic="difference", method="exact").p_value  # C(12,6) = 924 ≤ budget
    assert r.difference_p_value == pytest.approx(exact, abs=1e-6)
    assert r.statistic == pytest.approx(abs(abs(s[:6].sum()) - abs(s[6:].sum())), abs=1e-6)
    # eq. 1's ceiling: | |Σ_X| − |Σ_Y| | <= |Σ_X + Σ_Y|
    assert r.statistic <= abs(s.sum()) + 1e-9
