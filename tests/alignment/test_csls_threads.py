"""CSLS from several threads at once (the service's ``--quick-threads`` serves translate-eval so):
the process-wide caches (IVF indexes updated in place, remembered neighbour lists) are shared
under their locks, and every threaded result equals the single-threaded one."""

from __future__ import annotations

import threading

import numpy as np

from geobias.alignment import csls
from geobias.alignment.csls import CslsIndex


def _variants(n=1200, d=24):
    """Matrices of one shape that the caches relate: a base pair, a Shift of some rows (the IVF
    index is updated in place for it), a rotation (recentred) and an unrelated pair."""
    rng = np.random.default_rng(11)
    c = rng.normal(size=(40, d))
    s = (c[rng.integers(0, 40, n)] + 0.7 * rng.normal(size=(n, d))).astype(np.float32)
    t = (s + 0.2 * rng.normal(size=(n, d))).astype(np.float32)
    moved = s.copy()
    moved[100:250] += 0.5 * rng.normal(size=(150, d)).astype(np.float32)
    q, _ = np.linalg.qr(np.eye(d) + 0.05 * rng.normal(size=(d, d)))
    other = rng.normal(size=(n, d)).astype(np.float32)
    return [(s, t), (moved, t), ((s @ q).astype(np.float32), t), (other, t), (t, moved)]


def _run(pair, rows):
    s, t = pair
    index = CslsIndex(s, t, k=10, dense_below=0)  # the pruned path: IVF bounds and memory in use
    scores, got = index.search(s[rows], 5)
    back_scores, back = index.reverse().search_rows(rows, 5)
    return got, scores, back, back_scores


def test_threaded_csls_equals_single_threaded():
    variants = _variants()
    rows = np.arange(0, 1200, 7)
    csls.clear_memory()
    csls.clear_ivf_cache()
    expected = [_run(v, rows) for v in variants]  # one thread, caches cold then warm
    csls.clear_memory()
    csls.clear_ivf_cache()
    results: dict[tuple[int, int], tuple] = {}
    errors: list[BaseException] = []
    start = threading.Barrier(4)

    def worker(w: int) -> None:
        try:
            start.wait()
            for r in range(3):
                order = variants[w % len(variants):] + variants[:w % len(variants)]  # each thread its own order
                for i, v in enumerate(order):
                    results[(w, r * 100 + (i + w) % len(variants))] = _run(v, rows)
        except BaseException as exc:  # noqa: BLE001 - reported below with the thread's results
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(w,)) for w in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors, errors
    assert len(results) == 4 * 3 * len(variants)
    for (_, key), (got, scores, back, back_scores) in results.items():
        want = expected[key % 100]
        _same_ranking(got, scores, want[0], want[1])
        _same_ranking(back, back_scores, want[2], want[3])


def _same_ranking(got, scores, want, want_scores):
    """The same rows in the same order, and the same scores to float32 rounding of the faiss
    kernels (1e-5); rows may differ only where two scores tie within that rounding."""
    np.testing.assert_allclose(scores, want_scores, atol=1e-5)
    differ = got != want
    assert not differ.any() or np.all(np.abs(scores - want_scores)[differ] < 1e-5) and np.all(
        np.isclose(scores[differ], want_scores[differ], atol=1e-5)), np.argwhere(differ)[:5]
