"""Exact k-nearest inner products (``knn_ip``) and the thresholded top-k selection under it."""

from __future__ import annotations

import numpy as np
import pytest

from geobias.alignment.csls import SMALL_QUERY_BATCH, TOP_K_SAMPLE, knn_ip, top_k_desc


def _reference(sim: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Descending by value, ties by column: a full stable sort of every row."""
    order = np.lexsort((np.broadcast_to(np.arange(sim.shape[1]), sim.shape), -sim), axis=1)[:, :k]
    return np.take_along_axis(sim, order, 1), order


@pytest.mark.parametrize("n_cols", [7, TOP_K_SAMPLE, TOP_K_SAMPLE + 3, 3 * TOP_K_SAMPLE])
@pytest.mark.parametrize("k", [1, 5, 7])
def test_top_k_desc_is_a_full_sort_with_ties_by_column(n_cols, k):
    rng = np.random.default_rng(n_cols + k)
    # few distinct values: many ties, also across the sampled head and the rest of the row
    sim = rng.integers(0, 6, size=(9, n_cols)).astype(np.float32) / 4
    sim[0, -1] = 9.0  # the row's best lies beyond the sampled head
    sim[1] = -np.inf  # a row of equal values
    sim[1, n_cols // 2] = 0.0
    vals, cols = top_k_desc(sim, k)
    want_vals, want_cols = _reference(sim, k)
    np.testing.assert_array_equal(cols, want_cols)
    np.testing.assert_array_equal(vals, want_vals)
    assert vals.dtype == np.float32 and cols.dtype == np.int64
    assert cols[0, 0] == n_cols - 1


@pytest.mark.parametrize("n_queries", [1, SMALL_QUERY_BATCH - 1, SMALL_QUERY_BATCH + 1])
def test_knn_ip_matches_a_dense_sort_on_both_paths(n_queries):
    """The NumPy path (few queries) and the faiss path give the exact neighbours."""
    rng = np.random.default_rng(n_queries)
    base = rng.standard_normal((5000, 16)).astype(np.float32)
    queries = rng.standard_normal((n_queries, 16)).astype(np.float32)
    sims, rows = knn_ip(queries, base, 10)
    dense = queries.astype(np.float64) @ base.T.astype(np.float64)
    want = np.argsort(-dense, axis=1, kind="stable")[:, :10]
    np.testing.assert_array_equal(rows, want)  # no ties in continuous data
    np.testing.assert_allclose(sims, np.take_along_axis(dense, want, 1), atol=1e-4)
    assert np.all(np.diff(sims, axis=1) <= 0)
    few = rng.standard_normal((3, 16)).astype(np.float32)
    _, rows_all = knn_ip(few, base[:4], 10)  # k clipped to the base size
    assert rows_all.shape == (3, 4) and sorted(rows_all[0]) == [0, 1, 2, 3]
