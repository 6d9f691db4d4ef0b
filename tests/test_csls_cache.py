"""The IVF pruning index of CSLS is built once per source content and reused: an unchanged store
reuses it, a store with a few moved rows updates it in place, and the CSLS ranking is the
brute-force one in every case."""

from __future__ import annotations

import numpy as np

from geobias.alignment import csls
from geobias.alignment.csls import CslsIndex, csls_dense


def _pair(seed=0, n=1000, d=24):
    rng = np.random.default_rng(seed)
    c = rng.normal(size=(40, d))
    s = (c[rng.integers(0, 40, n)] + 0.7 * rng.normal(size=(n, d))).astype(np.float32)
    t = (s + 0.2 * rng.normal(size=(n, d))).astype(np.float32)
    return s, t


def _check(s, t, rows):
    index = CslsIndex(s, t, k=10, dense_below=0)
    _, got = index.search(s[rows], 5)
    dense = csls_dense(s, t, rows, k=10)
    want = np.argsort(-dense, axis=1, kind="stable")[:, :5]
    np.testing.assert_array_equal(got[:, 0], want[:, 0])
    np.testing.assert_allclose(np.take_along_axis(dense, got, 1), np.take_along_axis(dense, want, 1), atol=1e-5)


def test_index_reused_and_updated_without_changing_rankings():
    csls.clear_ivf_cache()
    before = dict(csls.ivf_cache_stats)
    s, t = _pair()
    rows = np.arange(0, 1000, 40)
    _check(s, t, rows)
    _check(s.copy(), t, rows)  # same content, another array: reused
    moved = s.copy()
    moved[100:160] += 0.5  # a Shift of 60 words
    _check(moved, t, rows)
    other, _ = _pair(seed=1)  # unrelated content: built anew
    _check(other, t, rows)
    delta = {k: csls.ivf_cache_stats[k] - before[k] for k in before}
    assert delta == {"built": 1, "reused": 1, "updated": 1, "recentred": 1}


def test_fingerprints_see_a_single_changed_value():
    s, _ = _pair()
    t = s.copy()
    t[777, 3] = np.nextafter(t[777, 3], np.float32(9))
    assert csls.content_key(s) != csls.content_key(t)
    changed = np.flatnonzero((csls.row_fingerprints(s) != csls.row_fingerprints(t)).any(axis=1))
    assert changed.tolist() == [777]
