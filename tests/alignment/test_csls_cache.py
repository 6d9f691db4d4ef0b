"""The IVF pruning index of CSLS is built once per source content and reused: an unchanged store
reuses it, a store with a few moved rows updates it in place, and the CSLS ranking is the
brute-force one in every case."""

from __future__ import annotations

import numpy as np
from _reference import csls_dense

from geobias.alignment import csls
from geobias.alignment.csls import CslsIndex


def _pair(seed=0, n=1000, d=24):
    rng = np.random.default_rng(seed)
    c = rng.normal(size=(40, d))
    s = (c[rng.integers(0, 40, n)] + 0.7 * rng.normal(size=(n, d))).astype(np.float32)
    t = (s + 0.2 * rng.normal(size=(n, d))).astype(np.float32)
    return s, t


def _check(s, t, rows, *, forget=True):
    if forget:  # the IVF cache alone, without the remembered lists of the previous pair
        csls.clear_memory()
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


def _both_directions(s, t, rows, trows):
    """CslsIndex and its reverse against the dense reference, through the row API."""
    fwd = CslsIndex(s, t, k=10, dense_below=0)
    for index, q, a, b in ((fwd, rows, s, t), (fwd.reverse(), trows, t, s)):
        _, got = index.search_rows(q, 5)
        dense = csls_dense(a, b, q, k=10)
        want = np.argsort(-dense, axis=1, kind="stable")[:, :5]
        np.testing.assert_array_equal(got[:, 0], want[:, 0])
        np.testing.assert_allclose(np.take_along_axis(dense, got, 1), np.take_along_axis(dense, want, 1),
                                   atol=1e-5)
        sims, nn = index.nearest_rows(q, 5)  # cosine NN from the same exact lists
        cos = a[q] @ b.T / np.linalg.norm(a[q], axis=1)[:, None] / np.linalg.norm(b, axis=1)[None, :]
        np.testing.assert_array_equal(nn[:, 0], cos.argmax(axis=1))
        np.testing.assert_allclose(sims, -np.sort(-cos, axis=1)[:, :5], atol=1e-5)
    return fwd


def test_remembered_lists_give_the_bruteforce_ranking_for_every_kind_of_change():
    csls.clear_memory()
    s, t = _pair(seed=2, n=1500)
    rows, trows = np.arange(0, 1500, 9), np.arange(3, 1500, 11)

    def delta(fn):
        before = dict(csls.memory_stats)
        fn()
        return {k: csls.memory_stats[k] - before[k] for k in before}

    first = delta(lambda: _both_directions(s, t, rows, trows))
    assert first["ivf"] == 2 and first["seeded"] == 0 and first["carried"] == 0
    moved = s.copy()
    moved[200:500] += 0.3 * np.random.default_rng(3).normal(size=(300, s.shape[1])).astype(np.float32)
    shift = delta(lambda: _both_directions(moved, t, rows, trows))  # a Shift of 300 source rows
    assert shift["ivf"] == 0 and shift["seeded"] == 2
    assert shift["carried"] > 0 and shift["updated"] > 0  # target lists carried, source lists updated
    q, _ = np.linalg.qr(np.eye(s.shape[1]) + 0.05 * np.random.default_rng(4).normal(size=(s.shape[1],) * 2))
    rot = delta(lambda: _both_directions(moved @ q.astype(np.float32), t, rows, trows))  # every row moved
    assert rot["carried"] == 0 and rot["updated"] == 0
    unrelated, t2 = _pair(seed=5, n=1500)
    rnd = delta(lambda: _both_directions(unrelated, t2, rows, trows))  # same shape, other content
    assert rnd["ivf"] == 2 and rnd["seeded"] == 0  # remembered rows rejected as seeds


def test_queries_whose_candidates_go_deeper_get_a_range_search(monkeypatch):
    """With a search depth of topk, queries whose bound admits more targets than the first pass
    found get a range search; the ranking is still the brute-force one (also without reuse)."""
    s, t = _pair(seed=3)
    rows = np.arange(0, 1000, 25)
    dense = csls_dense(s, t, rows, k=10)
    want = np.argsort(-dense, axis=1, kind="stable")[:, :5]
    for cache in ("1", "0"):
        monkeypatch.setenv("GEOBIAS_CSLS_CACHE", cache)
        monkeypatch.setattr(csls, "SEARCH_DEPTH", 5)
        csls.clear_memory()
        index = CslsIndex(s, t, k=10, dense_below=0)
        scores, got = index.search(s[rows], 5)
        assert index.pair.n_deeper_ > len(rows) // 2
        np.testing.assert_array_equal(got[:, 0], want[:, 0])
        np.testing.assert_allclose(np.take_along_axis(dense, got, 1), np.take_along_axis(dense, want, 1), atol=1e-5)
        assert np.all(np.diff(scores, axis=1) <= 0)
