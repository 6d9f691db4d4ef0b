"""Naive reference implementations the library is tested against (not part of geobias):
the dense CSLS matrix and the shuffle-per-draw permutation sampler."""

from __future__ import annotations

import numpy as np

from geobias.alignment.csls import unit_rows


def monte_carlo_partitions(rng: np.random.Generator, n: int, size: int) -> np.ndarray:
    """``size`` independent uniform random permutations of ``range(n)``.

    Each row is a true permutation (every index exactly once — no replacement); the first
    ``n_x`` entries of a row form the permuted group X.

    Returns
    -------
    ndarray of shape (size, n), intp
    """
    base = np.tile(np.arange(n, dtype=np.intp), (size, 1))
    return rng.permuted(base, axis=1, out=base)


def csls_dense(sources: np.ndarray, targets: np.ndarray, query_rows: np.ndarray, k: int = 10) -> np.ndarray:
    """Brute-force reference: the full CSLS matrix of ``query_rows`` × all targets (float64).

    Returns
    -------
    ndarray of shape (len(query_rows), n_tgt), float64
    """
    s = unit_rows(sources).astype(np.float64)
    t = unit_rows(targets).astype(np.float64)
    sim = s @ t.T
    kk = min(k, t.shape[0])
    r_t = -np.sort(-sim, axis=1)[:, :kk].mean(axis=1)
    r_s = -np.sort(-sim.T, axis=1)[:, : min(k, s.shape[0])].mean(axis=1)
    return 2 * sim[query_rows] - r_t[query_rows, None] - r_s[None, :]
