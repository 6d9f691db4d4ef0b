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
    try:
        from geobias.directions import SemanticDirection
    except ImportError:  # pragma: no cover - until geobias.directions is merged
        return _semantic_fallback(store, pairs)
    sd = SemanticDirection(oov="ignore").fit(store, list(pairs))
    return np.asarray(sd.direction_, dtype=np.float64), [float(v) for v in sd.explained_variance_ratio_]


def grammatical_direction(store: VectorStore, masculine: Sequence[str], feminine: Sequence[str]) -> tuple[np.ndarray, float]:
    """d_g (unit float64, masculine positive) and its 5-fold CV accuracy."""
    try:
        from geobias.directions import GrammaticalDirection
    except ImportError:  # pragma: no cover - until geobias.directions is merged
        return _grammatical_fallback(store, masculine, feminine)
    gd = GrammaticalDirection(cv=5, random_state=0, oov="ignore").fit(store, list(masculine), list(feminine))
    return np.asarray(gd.direction_, dtype=np.float64), float(gd.cv_accuracy_)


def orthogonal_semantic(d_pca: np.ndarray, d_g: np.ndarray) -> np.ndarray:
    """d_s = normalise(d_PCA − <d_PCA, d_g> d_g) (Zhou et al. 2019 §3.1)."""
    d_g = d_g / np.linalg.norm(d_g)
    v = d_pca - (d_pca @ d_g) * d_g
    n = np.linalg.norm(v)
    if n < 1e-8:
        raise InputError("the semantic and grammatical gender directions are parallel; d_s is undefined")
    return v / n


def _semantic_fallback(store, pairs):
    f = store.lookup([p[0] for p in pairs if p[0] in store and p[1] in store], unit=True).vectors
    m = store.lookup([p[1] for p in pairs if p[0] in store and p[1] in store], unit=True).vectors
    if len(f) == 0:
        raise InputError("no definitional pair is in the vocabulary")
    c = (f + m) / 2
    rows = np.concatenate([f - c, m - c]).astype(np.float64)
    _, s, vt = np.linalg.svd(rows - rows.mean(axis=0), full_matrices=False)
    d = vt[0]
    if np.mean((m - f) @ d) < 0:
        d = -d
    var = s**2
    return d, list(var / var.sum())


def _grammatical_fallback(store, masculine, feminine):
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

    m = store.lookup(masculine, oov="ignore", unit=True).vectors
    f = store.lookup(feminine, oov="ignore", unit=True).vectors
    n = min(len(m), len(f))
    if n < 2:
        raise InputError("too few gendered nouns in the vocabulary for the grammatical direction")
    x = np.concatenate([m[:n], f[:n]])
    y = np.r_[np.ones(n), np.zeros(n)]
    lda = LinearDiscriminantAnalysis().fit(x, y)
    d = lda.coef_[0] / np.linalg.norm(lda.coef_[0])
    return d.astype(np.float64), float(lda.score(x, y))
