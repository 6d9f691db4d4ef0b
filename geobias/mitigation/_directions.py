"""Gender directions for mitigation, through :mod:`geobias.directions` (DESIGN.md):
d_PCA (pair-centred PCA of definitional pairs, masculine positive), d_g (LDA on gendered nouns),
d_s = normalise(d_PCA − <d_PCA, d_g> d_g)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from geobias.store import VectorStore


def semantic_direction(store: VectorStore, pairs: Sequence[tuple[str, str]]) -> tuple[np.ndarray, list[float]]:
    """d_PCA (unit float64 of shape (dim,), masculine positive) and its explained-variance ratios.

    First principal component of the pair-centred definitional pairs (each pair (f, m) with
    c = (f + m)/2 gives rows f − c and m − c); pairs with a word out of vocabulary are skipped
    (``oov="ignore"``) and listed by :class:`geobias.directions.SemanticDirection`.

    References
    ----------
    Bolukbasi et al. (2016), §5 (gender subspace); Zhou et al. (2019), §3.1.
    """
    from geobias.directions import SemanticDirection

    sd = SemanticDirection(oov="ignore").fit(store, list(pairs))
    return np.asarray(sd.direction_, dtype=np.float64), [float(v) for v in sd.explained_variance_ratio_]


def grammatical_direction(store: VectorStore, masculine: Sequence[str], feminine: Sequence[str]) -> tuple[np.ndarray, float]:
    """d_g (unit float64 of shape (dim,), masculine positive) and its 5-fold CV accuracy.

    LDA (scikit-learn ``LinearDiscriminantAnalysis``) on grammatically masculine vs feminine
    nouns, ``random_state=0``; out-of-vocabulary nouns are skipped.

    References
    ----------
    Zhou et al. (2019), §3.1 (grammatical gender direction).
    """
    from geobias.directions import GrammaticalDirection

    gd = GrammaticalDirection(cv=5, random_state=0, oov="ignore").fit(store, list(masculine), list(feminine))
    return np.asarray(gd.direction_, dtype=np.float64), float(gd.cv_accuracy_)


def orthogonal_semantic(d_pca: np.ndarray, d_g: np.ndarray) -> np.ndarray:
    """d_s = normalise(d_PCA − <d_PCA, d_g> d_g) (Zhou et al. 2019 §3.1), float64."""
    from geobias.directions import orthogonalize

    d = np.asarray(orthogonalize(d_pca, d_g), dtype=np.float64)
    return d / np.linalg.norm(d)
