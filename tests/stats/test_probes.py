"""What the erasure tables measure with (geobias.stats.probes, geobias.stats.summary): the mean and
its interval over seeds, the distortion of cosines, and probes trained across folds of pairs."""

from __future__ import annotations

import numpy as np
import pytest

from geobias.stats.probes import grouped_cv_predictions, mean_abs_dcos, probe_accuracy
from geobias.stats.summary import mean_ci
from geobias.store import VectorStore


def test_mean_ci():
    r = mean_ci([1.0, 2.0, 3.0])
    assert r["mean"] == pytest.approx(2.0)
    # t_{0.975, 2} = 4.3027, sd = 1, n = 3 → half-width 4.3027 / sqrt(3) = 2.4841
    assert r["ci_high"] - r["mean"] == pytest.approx(2.4841, abs=1e-4)
    assert r["values"] == [1.0, 2.0, 3.0]
    assert mean_ci([0.5])["ci_low"] == mean_ci([0.5])["ci_high"] == 0.5
    assert mean_ci([None, None])["mean"] is None
    assert mean_ci([None, 1.0, 3.0])["mean"] == pytest.approx(2.0)  # missing values skipped


def test_distortion_is_zero_for_rotations_and_positive_for_projections(rng):
    x = rng.standard_normal((300, 8))
    s = VectorStore([f"w{i}" for i in range(300)], x)
    q, _ = np.linalg.qr(rng.standard_normal((8, 8)))
    assert mean_abs_dcos(s, s.with_vectors(x @ q), n_pairs=2000) < 1e-6  # cosines are rotation-invariant
    p = np.eye(8)
    p[0, 0] = 0.0
    assert mean_abs_dcos(s, s.with_vectors(x @ p), n_pairs=2000) > 0.02


def test_distortion_reads_arrays_as_stores(rng):
    x = rng.standard_normal((50, 4))
    u = x / np.linalg.norm(x, axis=1, keepdims=True)
    s = VectorStore([f"w{i}" for i in range(50)], x)
    flat = u.copy()
    flat[:, 0] = 0.0
    assert mean_abs_dcos(s, s.with_vectors(flat), n_pairs=500, seed=3) == pytest.approx(
        mean_abs_dcos(u, flat / np.linalg.norm(flat, axis=1, keepdims=True), n_pairs=500, seed=3), abs=1e-6)


def test_probes_read_a_separable_label_and_keep_each_pair_in_one_fold(rng):
    n = 40
    y = np.repeat([0, 1], n // 2)
    x = rng.standard_normal((n, 3))
    x[:, 0] += 4 * (2 * y - 1)  # the label is the sign of axis 0
    assert probe_accuracy(x, y, x, y) == 1.0
    groups = np.arange(n) // 2  # two rows per group, same label
    assert np.array_equal(grouped_cv_predictions(x, x, y, groups, seed=1), y)
    # a pair whose two rows carry opposite labels on identical vectors: a fold that split it would
    # train on one row and test on its copy; kept together, every pair is predicted wholly unseen
    twin = np.repeat(rng.standard_normal((n // 2, 3)), 2, axis=0)
    flip = np.tile([0, 1], n // 2)
    pred = grouped_cv_predictions(twin, twin, flip, groups, seed=1)
    assert np.array_equal(pred[0::2], pred[1::2])  # one prediction per pair: both rows are the same vector
