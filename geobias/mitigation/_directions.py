"""Gender directions for mitigation, through :mod:`geobias.directions`:
d_PCA (pair-centred PCA of definitional pairs, masculine positive), d_g (LDA on gendered nouns),
d_s = normalise(d_PCA − <d_PCA, d_g> d_g).

The fits yield the frozen :class:`~geobias.directions.GenderSubspace` that the mitigations
consume (``subspace.direction``, ``explained_variance_ratio``, ``cv_accuracy``)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from geobias.directions.subspace import GenderSubspace
from geobias.store import VectorStore


def semantic_direction(store: VectorStore, pairs: Sequence[tuple[str, str]]) -> GenderSubspace:
    """d_PCA: the subspace of the pair-centred definitional pairs, masculine positive.

    First principal components of the pair-centred definitional pairs (each pair (f, m) with
    c = (f + m)/2 gives rows f − c and m − c); pairs with a word out of vocabulary are skipped
    (``oov="ignore"``) and listed by :class:`geobias.directions.SemanticDirection`.

    Returns
    -------
    GenderSubspace
        ``direction`` (unit float32 of shape (dim,)) is d_PCA; ``explained_variance_ratio`` of
        every component kept (at most 10).

    References
    ----------
    Bolukbasi et al. (2016), §5 (gender subspace); Zhou et al. (2019), §3.1.
    """
    from geobias.directions import SemanticDirection

    return SemanticDirection(oov="ignore").fit(store, list(pairs)).subspace_


def grammatical_direction(store: VectorStore, masculine: Sequence[str], feminine: Sequence[str], *,
                          cross_validate: bool = True) -> GenderSubspace:
    """d_g: LDA (scikit-learn ``LinearDiscriminantAnalysis``) on grammatically masculine vs
    feminine nouns, ``random_state=0``, masculine positive; out-of-vocabulary nouns are skipped.

    Returns
    -------
    GenderSubspace
        One component: ``direction`` (unit float32 of shape (dim,)) is d_g; ``cv_accuracy`` its
        5-fold cross-validated accuracy (``None`` with ``cross_validate=False``: the same d_g
        without the five extra LDA fits).

    References
    ----------
    Zhou et al. (2019), §3.1 (grammatical gender direction).
    """
    from geobias.directions import GrammaticalDirection

    return GrammaticalDirection(cv=5, random_state=0, oov="ignore", cross_validate=cross_validate).fit(store, list(masculine), list(feminine)).subspace_


def orthogonal_semantic(d_pca: np.ndarray, d_g: np.ndarray) -> np.ndarray:
    """d_s = normalise(d_PCA − <d_PCA, d_g> d_g) (Zhou et al. 2019 §3.1), float64."""
    from geobias.directions import orthogonalize

    d = np.asarray(orthogonalize(d_pca, d_g), dtype=np.float64)
    return d / np.linalg.norm(d)
