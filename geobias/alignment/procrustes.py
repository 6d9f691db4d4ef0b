"""Supervised alignment: orthogonal Procrustes on a bilingual dictionary, with optional
refinement rounds on a dictionary re-induced from mutual CSLS nearest neighbours
(MUSE supervised mode, Conneau et al. 2018 §2–3)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from geobias.alignment.csls import CslsIndex, unit_rows
from geobias.alignment.dictionary import Dictionary, load_dictionary, resolve
from geobias.errors import InputError
from geobias.estimator import Estimator
from geobias.results import Result
from geobias.store import VectorStore


def procrustes(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Orthogonal ``W`` minimising ``||x W − y||_F`` (row convention).

    With ``U S Vᵀ = svd(yᵀ x)`` (MUSE: ``W = U Vᵀ`` mapping column vectors), the row-form map
    is ``Wᵀ = V Uᵀ``.

    Parameters
    ----------
    x, y : ndarray of shape (n_pairs, dim)
        Paired source and target rows.

    Returns
    -------
    ndarray of shape (dim, dim), float64, orthogonal.

    References
    ----------
    Schönemann (1966); Xing et al. (2015); Conneau et al. (2018), eq. 2.
    """
    m = np.asarray(y, dtype=np.float64).T @ np.asarray(x, dtype=np.float64)
    u, _, vt = np.linalg.svd(m)
    return (u @ vt).T


@dataclass(frozen=True)
class AlignmentResult(Result):
    """What an alignment fit used and found.

    Attributes
    ----------
    n_pairs : int
        Pairs in the seed dictionary.
    n_pairs_used : int
        Seed pairs with both words in vocabulary (used by the first Procrustes step).
    n_oov_pairs : int
        Seed pairs skipped because a word is out of vocabulary.
    oov_examples : list of (str, str)
    refinements : list of int
        Size of the induced dictionary of each refinement round.
    center : bool
    dictionary : str
    """

    n_pairs: int
    n_pairs_used: int
    n_oov_pairs: int
    oov_examples: list[tuple[str, str]]
    refinements: list[int]
    center: bool
    dictionary: str


class ProcrustesAligner(Estimator):
    """Map a source store into a target store's space by an orthogonal matrix.

    Parameters
    ----------
    refine : int, default 0
        Refinement rounds: re-induce the dictionary from mutual CSLS nearest neighbours among
        the ``max_rank`` first words of each store, then solve Procrustes again (MUSE).
    center : bool, default False
        Mean-centre the unit rows before the SVD (MUSE ``normalize_embeddings=renorm,center``);
        the fitted map is then affine: ``x ↦ (x̂ − μ_src) W + μ_tgt`` with ``x̂`` the unit row.
    csls_k : int, default 10
        Neighbourhood size of the CSLS penalties used to induce the refinement dictionary.
    max_rank : int, default 15000
        Words considered when inducing a dictionary (MUSE ``dico_max_rank``): the first
        ``max_rank`` rows of each store, i.e. the most frequent words of frequency-sorted files.

    Attributes
    ----------
    W_ : ndarray of shape (dim, dim), float64
        Orthogonal map (row vectors: aligned = unit(x) @ W_).
    mean_src_, mean_tgt_ : ndarray of shape (dim,)
        Zero vectors unless ``center``.
    result_ : AlignmentResult

    Notes
    -----
    Procrustes runs on unit-normalised rows, and :meth:`transform` returns unit-normalised,
    rotated rows (the norm carries no meaning for cosine retrieval; MUSE normalises too).

    References
    ----------
    Xing, Wang, Liu, Lin (2015), orthogonal transform; Conneau et al. (2018), ICLR, §2 eq. 2
    (Procrustes) and §2.2 (refinement: Procrustes on mutual CSLS nearest neighbours).
    """

    def __init__(self, *, refine: int = 0, center: bool = False, csls_k: int = 10, max_rank: int = 15000):
        self.refine = refine
        self.center = center
        self.csls_k = csls_k
        self.max_rank = max_rank

    def fit(self, src: VectorStore, tgt: VectorStore, dictionary) -> ProcrustesAligner:
        """Learn the map from ``dictionary`` (a :class:`Dictionary`, a path or ``"identical"``).

        Parameters
        ----------
        src, tgt : VectorStore
            Source and target stores of one dimension; only their unit rows are used.
        dictionary : Dictionary, path or "identical"
            ``(source, target)`` seed pairs; pairs with an out-of-vocabulary word are counted
            in ``result_`` and skipped.

        Returns
        -------
        ProcrustesAligner
            ``self``, fitted.

        Raises
        ------
        InputError
            Dimension mismatch, negative ``refine``, no usable pair.
        """
        if src.dim != tgt.dim:
            raise InputError(f"source dimension {src.dim} differs from target dimension {tgt.dim}")
        if self.refine < 0:
            raise InputError(f"refine must be ≥ 0; got {self.refine}")
        dico = load_dictionary(dictionary, src, tgt)
        res = resolve(dico, src, tgt)
        xs, ys = src.unit_vectors, tgt.unit_vectors
        if self.center:
            self.mean_src_ = xs.mean(axis=0, dtype=np.float64)
            self.mean_tgt_ = ys.mean(axis=0, dtype=np.float64)
        else:
            self.mean_src_ = np.zeros(src.dim)
            self.mean_tgt_ = np.zeros(src.dim)
        self.W_ = procrustes(xs[res.src_rows] - self.mean_src_, ys[res.tgt_rows] - self.mean_tgt_)
        sizes = []
        n_s, n_t = min(self.max_rank, len(src)), min(self.max_rank, len(tgt))
        for _ in range(self.refine):
            mapped = self._map(xs[:n_s])
            si, ti = mutual_csls_pairs(mapped, ys[:n_t], k=self.csls_k)
            if len(si) < 2:
                break
            sizes.append(len(si))
            self.W_ = procrustes(xs[si] - self.mean_src_, ys[ti] - self.mean_tgt_)
        self.result_ = AlignmentResult(
            n_pairs=res.n_pairs,
            n_pairs_used=len(res.src_rows),
            n_oov_pairs=res.n_oov_pairs,
            oov_examples=res.oov_examples,
            refinements=sizes,
            center=self.center,
            dictionary=dico.source,
        )
        return self

    def _map(self, unit: np.ndarray) -> np.ndarray:
        if not self.center:  # the means are zeros: x - 0 is x, one float64 pass fewer
            return (unit.astype(np.float64) @ self.W_).astype(np.float32)
        out = (unit - self.mean_src_) @ self.W_
        return (out + self.mean_tgt_).astype(np.float32)

    def transform(self, store: VectorStore) -> VectorStore:
        """A new store: ``store``'s unit rows mapped into the target space (input unchanged).

        Parameters
        ----------
        store : VectorStore
            Usually the ``src`` passed to :meth:`fit`.

        Returns
        -------
        VectorStore
            Same words and order; float32 rows ``unit(x) @ W_`` (plus the centring terms).

        Raises
        ------
        NotFittedError
            Before :meth:`fit`.
        InputError
            Dimension differs from the fitted map's.
        """
        self._check_fitted()
        if store.dim != self.W_.shape[0]:
            raise InputError(f"store dimension {store.dim} differs from the fitted map's {self.W_.shape[0]}")
        return store.with_vectors(self._map(store.unit_vectors), note="procrustes-aligned")


def mutual_csls_pairs(src: np.ndarray, tgt: np.ndarray, *, k: int = 10) -> tuple[np.ndarray, np.ndarray]:
    """Pairs (i, j) that are each other's CSLS nearest neighbour (MUSE ``S2T&T2S``).

    Parameters
    ----------
    src : ndarray of shape (n_src, dim)
        Mapped source vectors.
    tgt : ndarray of shape (n_tgt, dim)
        Target vectors.
    k : int, default 10
        CSLS neighbourhood size.

    Returns
    -------
    src_rows, tgt_rows : ndarray of shape (n_pairs,), int64
    """
    fwd = CslsIndex(src, tgt, k=k)
    _, s2t = fwd.search_rows(np.arange(len(src)), 1)
    _, t2s = fwd.reverse().search_rows(np.arange(len(tgt)), 1)
    s2t = s2t[:, 0]
    mutual = t2s[s2t, 0] == np.arange(len(src))
    rows = np.flatnonzero(mutual)
    return rows.astype(np.int64), s2t[rows].astype(np.int64)


__all__ = ["AlignmentResult", "Dictionary", "ProcrustesAligner", "mutual_csls_pairs", "procrustes", "unit_rows"]
