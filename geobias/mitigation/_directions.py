"""Gender directions for mitigation, through :mod:`geobias.directions` (DESIGN.md):
d_PCA (pair-centred PCA of definitional pairs, masculine positive), d_g (LDA on gendered nouns),
d_s = normalise(d_PCA − <d_PCA, d_g> d_g)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from geobias.errors import InputError
from geobias.store import VectorStore


def merged_store(parts: Sequence[tuple[str, VectorStore, Sequence[str]]]) -> VectorStore:
    """One small store holding ``words`` of several stores, each prefixed (``"fr:"``, ``"en:"``).

    Words absent from their store are skipped. Used to fit a single direction on the
    definitional pairs of two aligned languages.
    """
    words, rows = [], []
    for prefix, store, ws in parts:
        for w in dict.fromkeys(ws):
            i = store.index.get(w)
            if i is not None:
                words.append(prefix + w)
                rows.append(store.vectors[i])
    if not words:
        raise InputError("no definitional word is in the vocabulary")
    return VectorStore(words, np.asarray(rows, dtype=np.float32))


def semantic_direction(store: VectorStore, pairs: Sequence[tuple[str, str]]) -> tuple[np.ndarray, list[float]]:
    """d_PCA (unit float64, masculine positive) and its explained-variance ratios."""
    from geobias.directions import SemanticDirection

    sd = SemanticDirection(oov="ignore").fit(store, list(pairs))
    return np.asarray(sd.direction_, dtype=np.float64), [float(v) for v in sd.explained_variance_ratio_]


def grammatical_direction(store: VectorStore, masculine: Sequence[str], feminine: Sequence[str]) -> tuple[np.ndarray, float]:
    """d_g (unit float64, masculine positive) and its 5-fold CV accuracy."""
    from geobias.directions import GrammaticalDirection

    gd = GrammaticalDirection(cv=5, random_state=0, oov="ignore").fit(store, list(masculine), list(feminine))
    return np.asarray(gd.direction_, dtype=np.float64), float(gd.cv_accuracy_)


def orthogonal_semantic(d_pca: np.ndarray, d_g: np.ndarray) -> np.ndarray:
    """d_s = normalise(d_PCA − <d_PCA, d_g> d_g) (Zhou et al. 2019 §3.1), float64."""
    from geobias.directions import orthogonalize

    d = np.asarray(orthogonalize(d_pca, d_g), dtype=np.float64)
    return d / np.linalg.norm(d)
