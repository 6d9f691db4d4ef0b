"""Cross-domain similarity local scaling (CSLS) retrieval through faiss, without the full
n_src × n_tgt similarity matrix.

CSLS (Conneau et al. 2018, eq. 6):

    CSLS(x, y) = 2 cos(x, y) − r_T(x) − r_S(y),

with r_T(x) the mean cosine of the (mapped) source vector x to its k nearest target vectors
and r_S(y) the mean cosine of the target vector y to its k nearest (mapped) source vectors.

Exact top-k retrieval needs r_S(y) only for targets that can reach a query's top k. We bound
r_S(y) from below by the mean cosine of y to k *actual* source vectors found by an approximate
faiss IVF index (the mean of any k cosines is at most the mean of the k largest), so
``2 cos(x, y) − LB(y)`` bounds the CSLS score from above. Candidates are the targets whose bound
reaches the k-th best exact score; r_S is computed exactly (brute force, faiss) for those only.
The ranking is exactly the brute-force CSLS ranking (a test checks it against a dense reference);
for small problems r_S is simply computed for every target.

Caches are explicit objects, each with its own lock, shared by the threads of a process (the
service's ``--quick-threads`` runs ``translate-eval`` from several): :class:`IvfCache` (IVF
indexes; a search holds the lock, since a cached index is updated in place for the next
matrix), :class:`PairMemory` (neighbour lists of recent pairs; read and written under its lock)
and the by-identity caches of fingerprints and unit checks. A result never depends on what
another thread computes meanwhile (a test compares threaded with single-threaded results).
"""

from __future__ import annotations

import hashlib
import os
import threading
import weakref
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from geobias.errors import InputError

#: Added to the upper bound so float32 rounding differences between faiss kernels can never
#: prune a true candidate (cosines of unit float32 vectors agree to ~1e-6).
BOUND_SLACK = 1e-4


def unit_rows(x: np.ndarray) -> np.ndarray:
    """Rows scaled to unit norm (float32, C-contiguous; zero rows stay zero).

    For raw arrays (mapped vectors, test matrices); a :class:`~geobias.store.VectorStore`
    already caches its ``unit_vectors``, which pass through here without a copy. An input that
    already is unit-normalised float32 C-contiguous is returned as is (no copy: a 200,000 × 300
    store is 240 MB); a read-only one (a store's rows) is checked once and remembered.
    """
    x = np.asarray(x, dtype=np.float32)
    if _UNIT_CHECKED.get(x):
        return x
    n = np.linalg.norm(x, axis=1, keepdims=True)
    if x.flags.c_contiguous and np.all((np.abs(n - 1) < 1e-5) | (n == 0)):
        _UNIT_CHECKED.put(x, True)  # a store's unit rows pass through here once per CSLS pair
        return x
    return np.ascontiguousarray(x / np.where(n > 0, n, 1.0), dtype=np.float32)


class _ByIdentity:
    """Values computed from the last ``size`` read-only arrays, found again by identity.

    Only arrays that cannot be written through themselves or any array they view (a store's
    rows; a memory map's buffer counts as read-only: stores open them read-only) are remembered,
    so a value cannot go stale; a weak reference checks that an id was not reused.
    """

    def __init__(self, size: int = 8):
        self.size = size
        self._items: OrderedDict[int, tuple[weakref.ref, Any]] = OrderedDict()
        self._lock = threading.Lock()

    @staticmethod
    def read_only(x: np.ndarray) -> bool:
        while isinstance(x, np.ndarray):
            if x.flags.writeable:
                return False
            x = x.base
        return True

    def get(self, x: np.ndarray) -> Any:
        """The value remembered for ``x``, or ``None``."""
        with self._lock:
            hit = self._items.get(id(x))
            if hit is None or hit[0]() is not x:
                return None
            self._items.move_to_end(id(x))
            return hit[1]

    def put(self, x: np.ndarray, value: Any) -> None:
        """Remember ``value`` for ``x`` when ``x`` is read-only (else do nothing)."""
        if self.read_only(x):
            with self._lock:
                self._items[id(x)] = (weakref.ref(x), value)
                while len(self._items) > self.size:
                    self._items.popitem(last=False)


#: Read-only unit matrices already checked by :func:`unit_rows`.
_UNIT_CHECKED = _ByIdentity()

#: Below this many queries :func:`knn_ip` uses a NumPy product and :func:`top_k_desc` per block
#: instead of faiss, whose brute-force search (faiss 1.15) was measured 4-7× slower for 32-256
#: queries here and 1.2-1.4× faster from 512 queries on (26,000 × 300 base).
SMALL_QUERY_BATCH = 512
#: Columns of a similarity block whose per-row k-th best is the threshold of :func:`top_k_desc`.
TOP_K_SAMPLE = 4096


def top_k_desc(sim: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` largest entries of each row of ``sim``, descending, ties by column.

    Exact: the k-th largest of each row among its first :data:`TOP_K_SAMPLE` columns is at most
    its k-th largest overall, so every entry of the true top k is at least that threshold. Only
    the entries reaching it (about ``k * n_cols / TOP_K_SAMPLE`` per row) are gathered and sorted
    — measured 4× faster than ``argpartition`` over whole rows of 26,000 columns.

    Parameters
    ----------
    sim : ndarray of shape (n_rows, n_cols), float, no NaN (−inf marks an excluded entry)
    k : int
        1 ≤ k ≤ n_cols.

    Returns
    -------
    vals : ndarray of shape (n_rows, k), dtype of ``sim``
    cols : ndarray of shape (n_rows, k), int64
    """
    n_rows, n = sim.shape
    m = min(n, max(TOP_K_SAMPLE, k))
    head = np.array(sim[:, :m])  # a copy: partitioned in place
    head.partition(m - k, axis=1)
    flat = np.flatnonzero(sim >= head[:, m - k, None])
    r, c = np.divmod(flat, n)
    v = sim.reshape(-1)[flat]
    order = np.lexsort((c, -v, r))
    r, c, v = r[order], c[order], v[order]
    at = np.searchsorted(r, np.arange(n_rows))[:, None] + np.arange(k)
    return v[at], c[at]


def knn_ip(queries: np.ndarray, base: np.ndarray, k: int, *, batch_size: int = 8192) -> tuple[np.ndarray, np.ndarray]:
    """Exact top-``k`` inner products of ``queries`` against ``base`` (brute force, batched).

    faiss for large batches; for fewer than :data:`SMALL_QUERY_BATCH` queries a NumPy matrix
    product and :func:`top_k_desc` in blocks of 512 queries (faster there).

    Parameters
    ----------
    queries : ndarray of shape (n_queries, dim), float32
    base : ndarray of shape (n_base, dim), float32
    k : int
        Clipped to ``n_base``.
    batch_size : int, default 8192
        Queries per faiss call (bounds the (batch × k) result buffers faiss allocates).

    Returns
    -------
    sims : ndarray of shape (n_queries, k), float32, descending (ties by row on the NumPy path)
    rows : ndarray of shape (n_queries, k), int64
    """
    import faiss

    k = min(k, base.shape[0])
    base = np.ascontiguousarray(base, dtype=np.float32)
    sims = np.empty((queries.shape[0], k), dtype=np.float32)
    rows = np.empty((queries.shape[0], k), dtype=np.int64)
    if 0 < queries.shape[0] < SMALL_QUERY_BATCH and 0 < k < base.shape[0]:
        for s in range(0, queries.shape[0], 512):
            sim = np.asarray(queries[s : s + 512], dtype=np.float32) @ base.T
            sims[s : s + len(sim)], rows[s : s + len(sim)] = top_k_desc(sim, k)
        return sims, rows
    for s in range(0, queries.shape[0], batch_size):
        q = np.ascontiguousarray(queries[s : s + batch_size], dtype=np.float32)
        sims[s : s + len(q)], rows[s : s + len(q)] = faiss.knn(q, base, k, metric=faiss.METRIC_INNER_PRODUCT)
    return sims, rows


def mean_knn_similarity(queries: np.ndarray, base: np.ndarray, k: int = 10) -> np.ndarray:
    """r(x): mean cosine of each (unit) query to its ``k`` nearest (unit) base rows.

    Parameters
    ----------
    queries : ndarray of shape (n_queries, dim), float32, unit rows
    base : ndarray of shape (n_base, dim), float32, unit rows
    k : int, default 10
        Clipped to ``n_base``.

    Returns
    -------
    ndarray of shape (n_queries,), float32
    """
    if len(queries) == 0:
        return np.zeros(0, dtype=np.float32)
    sims, _ = knn_ip(queries, base, k)
    return sims.mean(axis=1, dtype=np.float64).astype(np.float32)


class IvfCache:
    """Trained and filled IVF pruning indexes of this process, most recently used last (see
    :func:`_ivf_for`), with the lock that every lookup, update and search of them holds: a cached
    index is updated in place for another matrix of the same shape, so a search that ran beside
    that update would bound r with the other matrix's rows."""

    def __init__(self):
        self.items: OrderedDict[bytes, tuple[Any, np.ndarray]] = OrderedDict()
        self.lock = threading.RLock()

    def clear(self) -> None:
        with self.lock:
            self.items.clear()


#: The process's IVF indexes (see :class:`IvfCache`).
IVF_CACHE = IvfCache()
_IVF_CACHE = IVF_CACHE.items
#: How many IVF indexes :func:`_ivf_for` keeps (each holds one float32 copy of its sources).
IVF_CACHE_SIZE = 4
#: A cached index is updated in place (changed rows removed and re-added) instead of rebuilt
#: when at most this fraction of its rows changed.
IVF_UPDATE_FRACTION = 0.25
#: Counters for tests and benchmarks: indexes built, reused as they were, updated in place.
ivf_cache_stats = {"built": 0, "reused": 0, "updated": 0, "recentred": 0}


def row_fingerprints(x: np.ndarray, block: int = 2048) -> np.ndarray:
    """Per-row content fingerprints: 4 fixed random projections of each row, float64 (n, 4).

    Computed in float64 in blocks of 2,048 rows (one (block × d) · (d × 4) product each; small
    blocks reuse one buffer instead of page-faulting a fresh float64 copy: 3× faster; milliseconds
    for 200,000 × 300 rows; hashing the matrix bytes would be a much slower pass). A changed
    value changes its row's projections unless the change is below float64 rounding of the row
    (relative 1e-12 or so), which :data:`BOUND_SLACK` (1e-4) absorbs: an index reused for rows
    that differ that little still gives valid CSLS bounds. Read-only matrices (a store's rows)
    are fingerprinted once and remembered by identity (the last 8); the result is read-only.
    """
    out = _FINGERPRINTS.get(x)
    if out is not None:
        return out
    w = np.random.default_rng(20180214).standard_normal((x.shape[1], 4))
    out = np.empty((x.shape[0], 4), dtype=np.float64)
    for s in range(0, x.shape[0], block):
        out[s : s + block] = x[s : s + block].astype(np.float64) @ w
    out.flags.writeable = False
    _FINGERPRINTS.put(x, out)  # a read-only matrix (a store's rows) passes through once per use
    return out


#: Fingerprints of recent read-only matrices.
_FINGERPRINTS = _ByIdentity()


def content_key(x: np.ndarray, fingerprints: np.ndarray | None = None) -> bytes:
    """Content identity of a matrix: shape plus a hash of its :func:`row_fingerprints`."""
    fp = row_fingerprints(x) if fingerprints is None else fingerprints
    h = hashlib.blake2b(digest_size=16)
    h.update(np.asarray(x.shape, dtype=np.int64).tobytes())
    h.update(fp.tobytes())
    return h.digest()


def clear_ivf_cache() -> None:
    """Drop every cached IVF pruning index (frees their memory)."""
    IVF_CACHE.clear()


def _build_ivf(sources: np.ndarray, seed: int, centroids_from=None):
    import faiss

    n, d = sources.shape
    if centroids_from is not None:
        # Same shape as a cached index's sources (another mapping of the same store): reuse its
        # trained centroids and only assign the rows. Valid bounds whatever the clusters.
        quantizer = faiss.IndexFlatIP(d)
        quantizer.add(centroids_from.quantizer.reconstruct_n(0, centroids_from.nlist))
        index = faiss.IndexIVFFlat(quantizer, d, centroids_from.nlist, faiss.METRIC_INNER_PRODUCT)
        index.is_trained = True
        index.add(sources)
        return index
    # ~2 √n lists, each with ≥ 39 training points (faiss warns, on stdout, below that);
    # measured on the README's pair: 2 √n lists give the same bound as 4 √n at half the training
    nlist = int(max(1, min(4096, 2 * np.sqrt(n), n // 39)))
    quantizer = faiss.IndexFlatIP(d)
    index = faiss.IndexIVFFlat(quantizer, d, nlist, faiss.METRIC_INNER_PRODUCT)
    rng = np.random.default_rng(seed)
    n_train = min(n, 40 * nlist)
    train = sources[np.sort(rng.choice(n, n_train, replace=False))] if n_train < n else sources
    index.cp.seed = seed  # the bound is valid whatever the clusters; good ones make it tight
    index.cp.niter = 10  # measured: same number of exact r_S as faiss's default 25, training 2.5× cheaper
    index.train(np.ascontiguousarray(train))
    index.add(sources)
    return index


def _ivf_for(sources: np.ndarray, seed: int = 0):
    """The IVF pruning index over ``sources``, built once per content and reused.

    Keyed on :func:`content_key`: a store that did not change (the English side of most
    mitigation methods in ``geobias evaluate``) reuses its index, and one whose rows changed in
    at most :data:`IVF_UPDATE_FRACTION` of the places (a Shift that moves a few hundred words)
    gets those rows removed and re-added in the cached index instead of a new k-means. The
    lower bound stays valid for any clustering, so reuse never changes a CSLS ranking.

    A store of the same shape as a cached one but with many changed rows (the same vocabulary
    under another mapping, as each method of ``geobias evaluate`` produces) gets a new index
    that reuses the cached index's trained centroids instead of a new k-means ("recentred";
    ``GEOBIAS_CSLS_RETRAIN=1`` turns that off). ``GEOBIAS_CSLS_CACHE=0`` disables all reuse
    (the baseline of ``benchmarks/bench_csls.py``). The caller holds ``IVF_CACHE.lock`` until
    its search of the index is done.
    """
    import faiss

    if os.environ.get("GEOBIAS_CSLS_CACHE") == "0":  # the benchmark's no-reuse baseline
        ivf_cache_stats["built"] += 1
        return _build_ivf(sources, seed)
    fp = row_fingerprints(sources)
    key = content_key(sources, fp)
    hit = _IVF_CACHE.get(key)
    if hit is not None:
        _IVF_CACHE.move_to_end(key)
        ivf_cache_stats["reused"] += 1
        return hit[0]
    for old_key, (index, old_fp) in reversed(_IVF_CACHE.items()):
        if old_fp.shape != fp.shape or index.d != sources.shape[1]:
            continue
        changed = np.flatnonzero((old_fp != fp).any(axis=1))
        if len(changed) > IVF_UPDATE_FRACTION * len(fp):
            continue
        del _IVF_CACHE[old_key]
        if len(changed):
            ids = changed.astype(np.int64)
            index.remove_ids(faiss.IDSelectorArray(len(ids), faiss.swig_ptr(ids)))
            index.add_with_ids(np.ascontiguousarray(sources[changed]), ids)
        _IVF_CACHE[key] = (index, fp)
        ivf_cache_stats["updated"] += 1
        return index
    donor = None
    if os.environ.get("GEOBIAS_CSLS_RETRAIN") != "1":
        donor = next((ix for ix, ofp in reversed(_IVF_CACHE.values()) if ofp.shape == fp.shape
                      and ix.d == sources.shape[1]), None)
    index = _build_ivf(sources, seed, centroids_from=donor)
    ivf_cache_stats["built" if donor is None else "recentred"] += 1
    _IVF_CACHE[key] = (index, fp)
    while len(_IVF_CACHE) > IVF_CACHE_SIZE:
        _IVF_CACHE.popitem(last=False)
    return index


def _lower_bound_r(targets: np.ndarray, sources: np.ndarray, k: int, seed: int = 0):
    """Lower bound of r_S for every target: mean cosine to k sources found by a faiss IVF index.

    Missing neighbours (a probed list shorter than k) count as cosine −1, which keeps the bound
    valid. The index comes from :func:`_ivf_for` (cached per source content).

    Returns
    -------
    lb : ndarray of shape (n_targets,), float32
    rows : ndarray of shape (n_targets, k), int64
        The sources found (−1 where a list ran short): approximate neighbour lists.
    """
    with IVF_CACHE.lock:  # the index is not updated for another matrix while it is searched
        index = _ivf_for(sources, seed)
        index.nprobe = 8
        sims, rows = index.search(targets, k)
    sims = np.where(rows >= 0, sims, -1.0)
    return sims.mean(axis=1, dtype=np.float64).astype(np.float32), rows


#: Targets retrieved per query by the bound in one pass (see :meth:`CslsPair.search`); a query whose
#: candidates reach deeper gets a range search.
SEARCH_DEPTH = 64
#: Remembered neighbour lists of recent :class:`CslsPair` objects (most recent last), so that the
#: next pair over stores of the same shape (the next method of ``geobias evaluate``, the next
#: refinement step of Procrustes) starts from them: see :class:`CslsPair`.
class PairMemory:
    """Neighbour lists of recent :class:`CslsPair` objects, with the lock under which a new pair
    reads them (:meth:`CslsPair._recall`) and every pair writes its exact lists
    (:meth:`_Side.set_exact`): a pair of one thread never copies half-written lists of another's."""

    def __init__(self):
        self.pairs: OrderedDict[int, tuple[np.ndarray, np.ndarray, tuple]] = OrderedDict()
        self.lock = threading.RLock()

    def clear(self) -> None:
        with self.lock:
            self.pairs.clear()


#: The process's remembered pairs (see :class:`PairMemory`).
PAIR_MEMORY = PairMemory()
_MEMORY = PAIR_MEMORY.pairs
#: How many pairs :data:`_MEMORY` keeps (each holds 2 × n × k neighbour lists, no matrices).
MEMORY_SIZE = 4
#: Remembered exact lists are updated (cosines to the other side's changed rows only) instead of
#: recomputed when at most this fraction of the other side's rows changed.
MEMORY_UPDATE_FRACTION = 0.35
#: Remembered neighbour rows seed the lower bounds of a changed pair (instead of an IVF search)
#: when, on a sample of rows, the mean gap between the seeded bound and the exact r is at most this
#: (the IVF bound's gap on the README's French–English pair is ≈ 0.01).
SEED_GAP = 0.02
#: Counters for tests and benchmarks: rows whose exact lists were computed by brute force, updated
#: from a remembered list, carried over unchanged; lower bounds seeded from memory or by IVF.
memory_stats = {"brute": 0, "updated": 0, "carried": 0, "seeded": 0, "ivf": 0}


def clear_memory() -> None:
    """Forget every remembered pair (see :class:`CslsPair`)."""
    PAIR_MEMORY.clear()


class _Side:
    """What is known of one side's rows over the other side.

    ``rows``/``sims`` (n, k): the k best rows of the other side with their cosines, descending —
    exact where ``exact``, otherwise approximate rows (IVF or remembered) that only seed lower
    bounds. ``r`` (n,): exact r = mean of the k best cosines (NaN until known). ``lb``: the lower
    bound of r used for pruning (fixed once computed). ``updatable``: rows whose remembered exact
    list (``prev_rows``/``prev_sims``) is exact over the other side's unchanged rows.
    """

    def __init__(self, n: int, k: int):
        self.k = k
        self.rows = np.full((n, k), -1, dtype=np.int64)
        self.sims = np.full((n, k), -1.0, dtype=np.float32)
        self.exact = np.zeros(n, dtype=bool)
        self.r = np.full(n, np.nan, dtype=np.float32)
        self.lb: np.ndarray | None = None
        self.aug = None  # faiss index over [row, lb, 1] (see CslsPair._augmented)
        self.updatable = np.zeros(n, dtype=bool)
        self.prev_rows: np.ndarray | None = None
        self.prev_sims: np.ndarray | None = None

    def set_exact(self, rows: np.ndarray, nn_sims: np.ndarray, nn_rows: np.ndarray) -> None:
        r = nn_sims.mean(axis=1, dtype=np.float64).astype(np.float32)
        with PAIR_MEMORY.lock:  # a later pair of another thread may be copying these lists
            self.rows[rows] = nn_rows
            self.sims[rows] = nn_sims
            self.r[rows] = r
            self.exact[rows] = True
            self.updatable[rows] = False


class CslsPair:
    """Exact CSLS retrieval in both directions between two aligned matrices, sharing the work.

    CSLS from ``a`` to ``b`` needs r(y) for rows y of ``b`` (mean cosine to the k nearest rows of
    ``a``) and r(x) for the queries x of ``a`` (to the k nearest of ``b``); the other direction
    needs the same two quantities with the roles swapped. A pair keeps, for every row of each side
    whose r was computed, its exact k nearest rows of the other side: both directions, the cosine
    nearest neighbours (the first of those lists) and later pairs reuse them.

    Retrieval prunes with lower bounds of r (see the module docstring): the mean cosine to any k
    actual rows of the other side. They come from a faiss IVF index, or — when a pair over stores
    of the same shape was used recently (the next mitigation method of ``geobias evaluate``, the
    next Procrustes refinement step) — from that pair's neighbour rows, re-scored in the new
    space, if on a sample of rows they are about as tight (:data:`SEED_GAP`). The remembered pair
    also gives exact lists: a row that did not change keeps its exact list when the other side did
    not change, and when a few of the other side's rows changed (a Shift that moves a few thousand
    nouns) only the cosines to those rows are computed; the list is exact when its k-th best
    cosine is still at least the remembered k-th best (no unchanged row outside it can do
    better), otherwise the row is recomputed by brute force. Rows are matched by content
    (:func:`row_fingerprints`), so reuse never changes a result; ``GEOBIAS_CSLS_CACHE=0`` turns
    all reuse off.

    Parameters
    ----------
    a, b : ndarray of shape (n_a, dim), (n_b, dim)
        The two aligned matrices (unit-normalised here; float32).
    k : int, default 10
        Neighbourhood size of the CSLS penalties (Conneau et al. 2018 use 10).
    dense_below : int, default 50_000_000
        If ``n_a * n_b`` is at most this, r is computed exactly for every row of a side the first
        time it is a target (no bound, no pruning); both paths give the same ranking.

    Raises
    ------
    InputError
        ``k`` ≤ 0, or the two dimensions differ.

    References
    ----------
    Conneau, Lample, Ranzato, Denoyer, Jégou (2018). Word translation without parallel data.
    ICLR, §2.3 eq. 6 (CSLS).
    """

    def __init__(self, a: np.ndarray, b: np.ndarray, k: int = 10, dense_below: int = 50_000_000):
        if k <= 0:
            raise InputError(f"CSLS k must be positive; got {k}")
        a, b = unit_rows(a), unit_rows(b)
        if a.shape[1] != b.shape[1]:
            raise InputError(f"source dimension {a.shape[1]} differs from target dimension {b.shape[1]}")
        self.mats = (a, b)
        self.k = k
        self.dense_below = dense_below
        self.sides = (_Side(len(a), min(k, len(b))), _Side(len(b), min(k, len(a))))
        self.changed: list[np.ndarray | None] = [None, None]  # rows changed since the remembered pair
        self._seeds: list[np.ndarray | None] = [None, None]
        self.n_deeper_ = 0  # queries whose candidates needed a range search (see search)
        if os.environ.get("GEOBIAS_CSLS_CACHE") != "0" and min(len(a), len(b)) > 0:
            self._recall()

    # -- memory ---------------------------------------------------------------------------------
    def _recall(self) -> None:
        fa, fb = row_fingerprints(self.mats[0]), row_fingerprints(self.mats[1])
        with PAIR_MEMORY.lock:
            self._recall_locked(fa, fb)

    def _recall_locked(self, fa: np.ndarray, fb: np.ndarray) -> None:
        best = None
        for ma, mb, sides in reversed(_MEMORY.values()):
            for flip in (False, True):
                pa, pb = (mb, ma) if flip else (ma, mb)
                if pa.shape != fa.shape or pb.shape != fb.shape:
                    continue
                ps = sides[::-1] if flip else sides
                if ps[0].k != self.sides[0].k or ps[1].k != self.sides[1].k:
                    continue
                ca = np.flatnonzero((pa != fa).any(axis=1))
                cb = np.flatnonzero((pb != fb).any(axis=1))
                if best is None or len(ca) + len(cb) < len(best[0]) + len(best[1]):
                    best = (ca, cb, ps)
        for _, _, old_sides in _MEMORY.values():
            for old_side in old_sides:
                old_side.aug = None  # an earlier pair's flat index is never reused: free it
        _MEMORY[id(self)] = (fa, fb, self.sides)
        while len(_MEMORY) > MEMORY_SIZE:
            _MEMORY.popitem(last=False)
        if best is None:
            return
        changed = best[:2]
        self.changed = [changed[0], changed[1]]
        for j in (0, 1):
            prev, side = best[2][j], self.sides[j]
            self._seeds[j] = prev.rows.copy()
            unchanged = np.ones(len(side.exact), dtype=bool)
            unchanged[changed[j]] = False
            keep = prev.exact & unchanged
            if len(changed[1 - j]) == 0:
                side.rows[keep], side.sims[keep] = prev.rows[keep], prev.sims[keep]
                side.r[keep], side.exact[keep] = prev.r[keep], True
                memory_stats["carried"] += int(keep.sum())
            elif len(changed[1 - j]) <= MEMORY_UPDATE_FRACTION * len(self.mats[1 - j]):
                side.updatable = keep
                side.prev_rows, side.prev_sims = prev.rows.copy(), prev.sims.copy()

    # -- exact neighbour lists ------------------------------------------------------------------
    def ensure_exact(self, j: int, rows: np.ndarray) -> np.ndarray:
        """Make the exact r and k-NN lists of rows ``rows`` of side ``j`` known.

        Parameters
        ----------
        j : {0, 1}
            The side (0 = ``a``, 1 = ``b``).
        rows : ndarray of int, any shape
            Row indices of side ``j``; −1 entries are ignored.

        Returns
        -------
        ndarray of the shape of ``rows``, float32
            r of each row: its mean cosine to its k nearest rows of the other side.
        """
        side = self.sides[j]
        rows = np.asarray(rows, dtype=np.int64)
        todo = np.unique(rows[rows >= 0])
        todo = todo[~side.exact[todo]]
        if len(todo):
            upd = todo[side.updatable[todo]]
            failed = self._update(j, upd) if len(upd) else upd
            brute = np.union1d(todo[~side.updatable[todo] & ~side.exact[todo]], failed)
            if len(brute):
                sims, nn = knn_ip(self.mats[j][brute], self.mats[1 - j], side.k)
                side.set_exact(brute, sims, nn)
                memory_stats["brute"] += len(brute)
        return side.r[rows]

    def _update(self, j: int, rows: np.ndarray, block: int = 1024) -> np.ndarray:
        """Exact lists of unchanged rows from their remembered lists; returns rows that failed."""
        side, k = self.sides[j], self.sides[j].k
        changed = self.changed[1 - j]
        other = np.ascontiguousarray(self.mats[1 - j][changed])
        is_changed = np.zeros(len(self.mats[1 - j]), dtype=bool)
        is_changed[changed] = True
        k_new = min(k, len(changed))
        failed = []
        for s in range(0, len(rows), block):
            r = rows[s : s + block]
            prev_rows, prev_sims = side.prev_rows[r], side.prev_sims[r]
            kept = np.where(is_changed[prev_rows], -np.inf, prev_sims)
            # the k best of (kept ∪ changed rows) are among kept ∪ the k best changed rows
            new_sims, new_cols = top_k_desc(self.mats[j][r] @ other.T, k_new)
            allsims = np.concatenate([kept, new_sims], axis=1)
            allrows = np.concatenate([prev_rows, changed[new_cols]], axis=1)
            ts, top = top_k_desc(allsims, k)
            tr = np.take_along_axis(allrows, top, 1)
            # exact iff the k-th best is at least the remembered k-th best (every unchanged row
            # outside the remembered list is at most that)
            ok = ts[:, -1] >= prev_sims[:, -1]
            side.set_exact(r[ok], ts[ok].astype(np.float32), tr[ok])
            failed.append(r[~ok])
            memory_stats["updated"] += int(ok.sum())
        side.updatable[rows] = False
        return np.concatenate(failed) if failed else rows[:0]

    # -- lower bounds ---------------------------------------------------------------------------
    def _seeded_bound(self, j: int, rows: np.ndarray, block: int = 256) -> np.ndarray:
        """Mean cosine of rows ``rows`` of side ``j`` to their remembered rows, re-scored here
        (−1 for a missing one): a lower bound of r, float32 of shape (len(rows),)."""
        seeds, mine, other = self._seeds[j], self.mats[j], self.mats[1 - j]
        out = np.empty(len(rows), dtype=np.float32)
        for s in range(0, len(rows), block):  # blocks small enough for the gathered rows to stay in cache
            r = rows[s : s + block]
            sr = seeds[r]
            cos = np.matmul(other[np.maximum(sr, 0)], mine[r][:, :, None])[:, :, 0]
            out[s : s + block] = np.where(sr >= 0, cos, -1.0).mean(axis=1, dtype=np.float64)
        return out

    def lower_bound(self, j: int) -> np.ndarray:
        """Lower bound of r for every row of side ``j`` (exact r where already known).

        Returns
        -------
        ndarray of shape (n_j,), float32
            Fixed once computed: the mean cosine of each row to k actual rows of the other side
            (remembered rows re-scored, or those an IVF index finds), −1 for a missing one.
        """
        side = self.sides[j]
        if side.lb is not None:
            return side.lb
        n_j, n_o = len(self.mats[j]), len(self.mats[1 - j])
        if n_j * n_o <= self.dense_below or side.exact.all():
            self.ensure_exact(j, np.arange(n_j))
            side.lb = side.r.copy()
            return side.lb
        lb = None
        if self._seeds[j] is not None:
            rng = np.random.default_rng(0)
            sample = np.sort(rng.choice(n_j, min(n_j, 256), replace=False))
            gap = float(np.mean(self.ensure_exact(j, sample) - self._seeded_bound(j, sample)))
            if gap <= SEED_GAP:
                lb = np.empty(n_j, dtype=np.float32)
                todo = np.flatnonzero(~side.exact)  # exact rows keep their r as the bound
                lb[todo] = self._seeded_bound(j, todo)
                side.rows[todo] = self._seeds[j][todo]
                memory_stats["seeded"] += 1
        if lb is None:
            lb, approx = _lower_bound_r(self.mats[j], self.mats[1 - j], side.k)
            side.rows[~side.exact] = approx[~side.exact]
            memory_stats["ivf"] += 1
        side.lb = np.where(side.exact, side.r, lb).astype(np.float32)
        return side.lb

    # -- retrieval ------------------------------------------------------------------------------
    def nearest(self, j: int, rows: np.ndarray, topk: int) -> tuple[np.ndarray, np.ndarray]:
        """Cosine nearest neighbours of rows ``rows`` of side ``j`` among the other side's rows.

        Returns
        -------
        sims, rows : ndarrays of shape (len(rows), topk), float32 and int64, best first
            From the exact k-NN lists when ``topk <= k``, else by brute force.
        """
        side = self.sides[j]
        if topk > side.k:
            return knn_ip(self.mats[j][rows], self.mats[1 - j], topk)
        self.ensure_exact(j, rows)
        return side.sims[rows, :topk], side.rows[rows, :topk]

    def _augmented(self, t: int):
        """faiss index over [y, LB(y), 1] of side ``t``: [2x, −1, −τ]·[y, LB, 1] = 2cos − LB − τ."""
        side = self.sides[t]
        index = getattr(side, "aug", None)  # one read: a later pair of another thread may free it
        if index is None:
            import faiss

            targets, lb = self.mats[t], self.lower_bound(t)
            n, d = targets.shape
            aug = np.empty((n, d + 2), dtype=np.float32)
            aug[:, :d] = targets
            aug[:, d] = lb
            aug[:, d + 1] = 1.0
            index = faiss.IndexFlatIP(d + 2)
            index.add(aug)
            side.aug = index
        return index

    def search(self, j: int, queries: np.ndarray, r_queries: np.ndarray, topk: int) -> tuple[np.ndarray, np.ndarray]:
        """Top ``topk`` rows of side ``1 - j`` by CSLS for query vectors of side ``j``.

        ``queries`` are unit rows (n_q, dim) with their r over side ``1 - j`` in ``r_queries``.
        """
        t = 1 - j
        targets, side = self.mats[t], self.sides[t]
        nq, d = queries.shape
        topk = min(topk, len(targets))
        out_s = np.empty((nq, topk), dtype=np.float32)
        out_r = np.empty((nq, topk), dtype=np.int64)
        if nq == 0 or topk == 0:
            return out_s, out_r
        index = self._augmented(t)
        qa = np.zeros((nq, d + 2), dtype=np.float32)
        qa[:, :d] = 2.0 * queries
        qa[:, d] = -1.0
        # Step 1: the SEARCH_DEPTH best targets by the upper bound (one pass over the targets);
        # the exact scores of the topk best give tau, a lower bound of each query's topk-th best
        # exact score.
        depth = min(len(targets), max(topk, SEARCH_DEPTH))
        ub, cand = index.search(qa, depth)
        top = cand[:, :topk]
        self.ensure_exact(t, top)
        exact = 2.0 * np.einsum("qd,qkd->qk", queries, targets[top]) - side.r[top]
        threshold = exact.min(axis=1) - BOUND_SLACK
        # Step 2: every target whose upper bound reaches tau (2cos − LB ≥ tau − slack): among
        # the SEARCH_DEPTH found when the last of them is already below it, else by a range
        # search for that query.
        within = (ub >= threshold[:, None]) & (cand >= 0)
        deeper = np.flatnonzero(within[:, -1]) if depth < len(targets) else np.zeros(0, dtype=np.int64)
        within[deeper] = False
        qi, col = np.nonzero(within)
        qis, ris = [qi, np.repeat(np.arange(nq), topk)], [cand[qi, col], top.ravel()]
        if len(deeper):
            qd = qa[deeper]
            qd[:, d + 1] = -threshold[deeper]
            lims, _, more = index.range_search(qd, 0.0)
            qis.append(np.repeat(deeper, np.diff(lims).astype(np.int64)))
            ris.append(more.astype(np.int64))
        self.n_deeper_ += len(deeper)
        n_t = len(targets)
        key = np.unique(np.concatenate(qis) * n_t + np.concatenate(ris))  # query-major, rows ascending
        qi, rows = np.divmod(key, n_t)
        self.ensure_exact(t, rows)
        # final scores in float64: float32 kernels can swap two targets ~1e-7 apart
        score = np.empty(len(rows), dtype=np.float64)
        for s in range(0, len(rows), 65536):
            sl = slice(s, s + 65536)
            score[sl] = 2.0 * np.einsum("nd,nd->n", targets[rows[sl]].astype(np.float64),
                                        queries[qi[sl]].astype(np.float64)) - side.r[rows[sl]]
        order = np.lexsort((rows, -score, qi))
        qi, rows, score = qi[order], rows[order], score[order]
        at = np.searchsorted(qi, np.arange(nq))[:, None] + np.arange(topk)  # each query has ≥ topk
        out_r[:] = rows[at]
        out_s[:] = score[at] - r_queries[:, None]
        return out_s, out_r


@dataclass(eq=False)
class CslsIndex:
    """Exact CSLS retrieval of target rows for source queries (one direction of a :class:`CslsPair`).

    Parameters
    ----------
    sources : ndarray of shape (n_src, dim)
        Mapped source vectors (unit-normalised here).
    targets : ndarray of shape (n_tgt, dim)
        Target vectors (unit-normalised here).
    k : int, default 10
        Neighbourhood size of the CSLS penalties (Conneau et al. 2018 use 10).
    dense_below : int, default 50_000_000
        If ``n_src * n_tgt`` is at most this, r_S is computed exactly for every target;
        above it the bound-and-prune path is used (both give the same ranking).

    Attributes
    ----------
    pair : CslsPair
        The shared state; :meth:`reverse` is the other direction over the same pair.
    n_exact_r_ : int
        Targets whose r_S is known exactly so far (all of them on the dense path).

    Raises
    ------
    InputError
        ``k`` ≤ 0, or source and target dimensions differ.

    References
    ----------
    Conneau, Lample, Ranzato, Denoyer, Jégou (2018). Word translation without parallel data.
    ICLR, §2.3 eq. 6 (CSLS).
    """

    sources: np.ndarray
    targets: np.ndarray
    k: int = 10
    dense_below: int = 50_000_000
    pair: CslsPair | None = field(default=None, repr=False)
    side: int = 0

    def __post_init__(self):
        if self.pair is None:
            self.pair = CslsPair(self.sources, self.targets, k=self.k, dense_below=self.dense_below)
        self.sources = self.pair.mats[self.side]
        self.targets = self.pair.mats[1 - self.side]

    @property
    def n_exact_r_(self) -> int:
        return int(self.pair.sides[1 - self.side].exact.sum())

    def reverse(self) -> CslsIndex:
        """The other direction (targets → sources) over the same :class:`CslsPair`."""
        return CslsIndex(self.targets, self.sources, self.k, self.dense_below, pair=self.pair,
                         side=1 - self.side)

    def r_target(self, queries: np.ndarray) -> np.ndarray:
        """r_T(x) for (mapped) source query vectors: mean cosine to the k nearest targets.

        Parameters
        ----------
        queries : ndarray of shape (n_queries, dim)
            Unit-normalised here.

        Returns
        -------
        ndarray of shape (n_queries,), float32
        """
        return mean_knn_similarity(unit_rows(queries), self.targets, self.k)

    def search(self, queries: np.ndarray, topk: int = 10) -> tuple[np.ndarray, np.ndarray]:
        """Top-``topk`` targets by CSLS for each query vector.

        Parameters
        ----------
        queries : ndarray of shape (n_queries, dim)
            Mapped source vectors (unit-normalised here).
        topk : int, default 10

        Returns
        -------
        scores : ndarray of shape (n_queries, topk), float32
            CSLS scores, descending.
        rows : ndarray of shape (n_queries, topk), int64
            Target rows.
        """
        q = unit_rows(queries)
        return self.pair.search(self.side, q, self.r_target(q), topk)

    def search_rows(self, rows: np.ndarray, topk: int = 10) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`search` for source rows of the index (their r and neighbour lists are kept)."""
        rows = np.asarray(rows, dtype=np.int64)
        r_q = self.pair.ensure_exact(self.side, rows)
        return self.pair.search(self.side, self.sources[rows], r_q, topk)

    def nearest_rows(self, rows: np.ndarray, topk: int = 10) -> tuple[np.ndarray, np.ndarray]:
        """Cosine nearest targets of source rows: (sims, rows), each (n_rows, topk), descending."""
        return self.pair.nearest(self.side, np.asarray(rows, dtype=np.int64), topk)
