"""Word similarity: correlation of cosine similarities with human ratings."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from scipy import stats

from geobias.errors import InputError
from geobias.io.atomic import read_text
from geobias.results import Result
from geobias.store import VectorStore


@dataclass(frozen=True)
class SimilarityResult(Result):
    """Pearson and Spearman correlation of cos(w1, w2) with the gold scores.

    Attributes
    ----------
    pearson, spearman : float
    n_pairs : int
        Pairs in the file.
    n_covered : int
        Pairs with both words in vocabulary (the correlations use these only).
    coverage : float
    missing : list of str
        Out-of-vocabulary words.
    """

    pearson: float
    spearman: float
    n_pairs: int
    n_covered: int
    coverage: float
    missing: list[str] = field(default_factory=list)


def read_similarity_file(path: str | os.PathLike) -> list[tuple[str, str, float]]:
    """Read ``word1 word2 score`` lines (tabs or spaces; blank and ``#`` lines skipped).

    Raises
    ------
    InputError
        Missing file, a directory, not UTF-8 (:func:`geobias.io.atomic.read_text`), a line without
        three fields or with a non-numeric or non-finite score (line named), or no pairs.
    """
    p = Path(path)
    rows = []
    for i, line in enumerate(read_text(p, what="similarity").splitlines(), 1):
        t = line.strip()
        if not t or t.startswith("#"):
            continue
        # tab-separated files may hold multi-word expressions (SemEval-2017: "Tierra Prometida")
        f = [x.strip() for x in t.split("\t")] if t.count("\t") == 2 else t.split()
        if len(f) != 3:
            raise InputError(f"{p}, line {i}: expected 'word1 word2 score', got {len(f)} fields")
        try:
            score = float(f[2])
        except ValueError:
            raise InputError(f"{p}, line {i}: score {f[2]!r} is not a number") from None
        if not np.isfinite(score):
            raise InputError(f"{p}, line {i}: score {f[2]!r} is not a finite number")
        rows.append((f[0], f[1], score))
    if not rows:
        raise InputError(f"{p}: no similarity pairs")
    return rows


def word_similarity(store: VectorStore, pairs: list[tuple[str, str, float]] | str | os.PathLike) -> SimilarityResult:
    """Pearson and Spearman correlation between cosine similarity and human scores.

    Parameters
    ----------
    store : VectorStore
    pairs : list of (str, str, float) or path
        ``(word1, word2, score)`` triples, or a file for :func:`read_similarity_file`.

    Returns
    -------
    SimilarityResult
        Correlations over the covered pairs only (cosine of unit-normalised rows, float64);
        the out-of-vocabulary words are listed.

    Raises
    ------
    InputError
        Fewer than 3 pairs in vocabulary; a malformed file.

    References
    ----------
    Zhou et al. (2019), §4.3 (word similarity as a utility measure after mitigation).
    """
    if not isinstance(pairs, list):
        pairs = read_similarity_file(pairs)
    covered = [(a, b, s) for a, b, s in pairs if a in store and b in store]
    missing = sorted({w for a, b, _ in pairs for w in (a, b) if w not in store})
    if len(covered) < 3:
        lang = f" {store.lang}" if store.lang else ""
        raise InputError(
            f"only {len(covered)} of {len(pairs)} similarity pairs have both words in the{lang} vocabulary; "
            "need at least 3"
        )
    u = store.unit_vectors
    ia = np.array([store.index[a] for a, _, _ in covered])
    ib = np.array([store.index[b] for _, b, _ in covered])
    cos = np.sum(u[ia].astype(np.float64) * u[ib], axis=1)
    gold = np.array([s for _, _, s in covered])
    return SimilarityResult(
        pearson=float(stats.pearsonr(cos, gold)[0]),
        spearman=float(stats.spearmanr(cos, gold)[0]),
        n_pairs=len(pairs),
        n_covered=len(covered),
        coverage=len(covered) / len(pairs),
        missing=missing,
    )
