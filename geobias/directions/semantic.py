"""Semantic gender direction ``d_PCA``: PCA on pair-centred definitional pairs."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from sklearn.decomposition import PCA

from geobias.choices import OOVPolicy
from geobias.directions._base import FittedAttributes
from geobias.directions.subspace import GenderSubspace
from geobias.errors import InputError, OutOfVocabularyError
from geobias.store import VectorStore
from geobias.validation import check_choice

ORIENTATION = "masculine positive: mean over pairs of <m - f, d> > 0"


def lookup_pairs(
    store: VectorStore, pairs: Sequence[Sequence[str]], *, oov: str, unit: bool, context: str
) -> tuple[list[tuple[str, str]], np.ndarray, np.ndarray, list[str]]:
    """Rows of (first, second) word pairs; a pair is kept only when both words are present.

    Returns
    -------
    kept : list of (str, str)
    first, second : ndarray of shape (len(kept), dim), float32
    missing : list of str
        Every missing word, in order (a pair with one missing form drops as a whole and its
        missing form is listed here).

    Raises
    ------
    OutOfVocabularyError
        ``oov="raise"`` and any word is missing.
    InputError
        No pair is usable.
    """
    check_choice("oov", oov, OOVPolicy)
    norm = [(str(p[0]), str(p[1])) for p in pairs]
    missing: list[str] = []
    kept: list[tuple[str, str]] = []
    for a, b in norm:
        miss = [w for w in dict.fromkeys((a, b)) if w not in store]
        missing.extend(w for w in miss if w not in missing)
        if not miss:
            kept.append((a, b))
    if missing and oov == "raise":
        raise OutOfVocabularyError(missing, context)
    if not kept:
        raise InputError(
            f"no usable pair {context}: "
            + ("the list is empty" if not norm else "all its words are out of vocabulary")
        )
    first = store.lookup([a for a, _ in kept], unit=unit).vectors
    second = store.lookup([b for _, b in kept], unit=unit).vectors
    return kept, first, second, missing


class SemanticDirection(FittedAttributes):
    """Semantic gender direction: first principal component of pair-centred definitional pairs.

    For each definitional pair (f, m) with centre ``c = (f + m) / 2`` the rows ``f − c`` and
    ``m − c`` enter a PCA (scikit-learn, full SVD). The first component, unit norm and
    oriented so that masculine words project positive, is ``d_PCA``.

    Parameters
    ----------
    n_components : int, default 10
        Components kept (capped at the number of rows and the dimension); the ratios of all
        kept components are reported.
    normalize : bool, default True
        Unit-normalise word vectors before centring.
    oov : {"raise", "ignore"}, default "raise"
        Out-of-vocabulary policy; ignored words are listed in ``missing_``.

    Attributes
    ----------
    direction_ : ndarray of shape (dim,), float32
        Unit vector, masculine positive.
    components_ : ndarray of shape (k, dim), float32
    explained_variance_ratio_ : ndarray of shape (k,), float64
    subspace_ : GenderSubspace
    pairs_ : list of (str, str)
        The (female, male) pairs used.
    missing_ : list of str

    References
    ----------
    Bolukbasi et al. (2016), NeurIPS, §5 (gender subspace by PCA of centred pairs).
    Zhou et al. (2019), EMNLP, §3 (``d_PCA``). Unlike the authors' notebook, the centre is
    ``(f + m) / 2`` and not ``f + m / 2``.
    """

    def __init__(self, n_components: int = 10, *, normalize: bool = True, oov: str = "raise"):
        self.n_components = n_components
        self.normalize = normalize
        self.oov = oov

    def fit(self, store: VectorStore, pairs: Sequence[Sequence[str]]) -> SemanticDirection:
        """Fit on definitional pairs.

        Parameters
        ----------
        store : VectorStore
        pairs : sequence of (female, male)

        Returns
        -------
        self

        Raises
        ------
        OutOfVocabularyError
            ``oov="raise"`` and a word is missing.
        InputError
            No usable pair, or ``n_components < 1``.
        """
        if int(self.n_components) < 1:
            raise InputError(f"n_components must be at least 1; got {self.n_components}")
        kept, fem, masc, missing = lookup_pairs(
            store, pairs, oov=self.oov, unit=self.normalize, context="in the definitional pairs"
        )
        f64, m64 = fem.astype(np.float64), masc.astype(np.float64)
        centre = (f64 + m64) / 2.0
        rows = np.concatenate([f64 - centre, m64 - centre])
        k = min(int(self.n_components), rows.shape[0], rows.shape[1])
        pca = PCA(n_components=k, svd_solver="full").fit(rows)
        components = pca.components_.copy()
        d = components[0] / np.linalg.norm(components[0])
        if float(np.mean((m64 - f64) @ d)) < 0:
            d = -d
        components[0] = d
        self.pairs_ = kept
        self.missing_ = missing
        self.components_ = components.astype(np.float32)
        self.direction_ = self.components_[0].copy()
        self.explained_variance_ratio_ = np.asarray(pca.explained_variance_ratio_, dtype=np.float64)
        self.subspace_ = GenderSubspace(
            components=self.components_,
            explained_variance_ratio=self.explained_variance_ratio_,
            source_words=tuple(w for pair in kept for w in pair),
            orientation=ORIENTATION,
        )
        return self

    def project(self, vectors: np.ndarray) -> np.ndarray:
        """Projection of vectors on ``direction_``: ndarray of shape (n,), float64."""
        self._check_fitted()
        return np.asarray(vectors, dtype=np.float64) @ self.direction_.astype(np.float64)
