"""The vector store: one vocabulary, one read-only float32 matrix (gensim ``KeyedVectors`` idea).

Everything downstream (directions, metrics, alignment, mitigation, export) reads a
:class:`VectorStore` and mitigation returns a *new* one; no code path writes into a store.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal, get_args

import numpy as np

from geobias.errors import InputError, OutOfVocabularyError

OOVPolicy = Literal["raise", "ignore"]
Similarity = Literal["cosine", "dot"]


def check_choice(name: str, value: str, literal: Any) -> str:
    """Validate ``value`` against the choices of a ``Literal`` type.

    Raises
    ------
    InputError
        Listing the valid choices (STYLE.md §4).
    """
    choices = get_args(literal)
    if value not in choices:
        raise InputError(f"{name} must be one of {', '.join(map(repr, choices))}; got {value!r}")
    return value


@dataclass(frozen=True)
class Lookup:
    """Result of :meth:`VectorStore.lookup`.

    Attributes
    ----------
    words : list of str
        The words found, in request order.
    vectors : ndarray of shape (len(words), dim), float32
        Their rows (unit-normalised when asked).
    missing : list of str
        The requested words not in the vocabulary, in request order.
    """

    words: list[str]
    vectors: np.ndarray
    missing: list[str] = field(default_factory=list)


class VectorStore:
    """Words and their vectors: ``words`` list, ``index`` dict, one read-only float32 matrix.

    Parameters
    ----------
    words : sequence of str, length n_words
        The vocabulary, in file order. Duplicates are an error.
    vectors : array-like of shape (n_words, dim)
        Converted to a C-contiguous float32 array and made read-only (a copy is taken when the
        input is writeable, so the caller's array is never aliased mutably).
    lang : str, optional
        ISO 639-1 language code (``"en"``, ``"es"``, ``"fr"``, ``"de"``) or ``None``.
    provenance : dict, optional
        Free-form JSON-able description of where the vectors came from (source name, file,
        sha256, transformations applied).
    check_finite : bool, default True
        Reject NaN/inf rows. Only :func:`~geobias.store.load_store` turns it off: a cache holds
        rows that were checked when it was written, and skipping the scan keeps the memory-mapped
        reload from touching every page.

    Raises
    ------
    InputError
        Empty vocabulary, length mismatch, non-2-D matrix, duplicate words, NaN/inf rows.

    Notes
    -----
    ``word in store`` is membership in *this* vocabulary only (unlike fastText, whose subword
    ``in`` is always true). Cosine similarity uses :attr:`unit_vectors` (float32, computed once
    and cached; a zero row stays zero).
    """

    def __init__(
        self,
        words: Sequence[str],
        vectors: Any,
        *,
        lang: str | None = None,
        provenance: dict[str, Any] | None = None,
        check_finite: bool = True,
    ):
        words = list(words)
        matrix = np.asarray(vectors)
        if matrix.ndim != 2:
            raise InputError(f"vectors must be a 2-D array (n_words, dim); got shape {matrix.shape}")
        if len(words) == 0 or matrix.shape[0] == 0:
            raise InputError("the vector store is empty (no words)")
        if matrix.shape[0] != len(words):
            raise InputError(
                f"{len(words)} words but {matrix.shape[0]} vector rows; they must match"
            )
        if matrix.shape[1] == 0:
            raise InputError("vectors have dimension 0")
        if matrix.dtype != np.float32 or not matrix.flags.c_contiguous or matrix.flags.writeable:
            matrix = np.array(matrix, dtype=np.float32, order="C", copy=True)
        # Fast path: a row sum in float64 is non-finite iff the row holds NaN/inf (300 finite
        # float32 values cannot overflow float64); only then find the rows exactly.
        if check_finite and not np.isfinite(matrix.sum(axis=1, dtype=np.float64)).all():
            finite = np.isfinite(matrix).all(axis=1)
            bad = [words[i] for i in np.flatnonzero(~finite)[:5]]
            raise InputError(
                f"{int((~finite).sum())} vector row(s) contain NaN or inf, e.g. {', '.join(map(repr, bad))}"
            )
        # Vectorised index build (C-level dict/zip); the per-word loop runs only to explain a problem.
        try:
            index: dict[str, int] = dict(zip(words, range(len(words)), strict=True))
            clean = len(index) == len(words) and "" not in index and all(type(w) is str for w in words)
        except TypeError:  # an unhashable "word"
            clean = False
        if not clean:
            seen: dict[str, int] = {}
            for i, w in enumerate(words):
                if not isinstance(w, str) or not w:  # checked before hashing it
                    raise InputError(f"word #{i + 1} is empty or not a string: {w!r}")
                if w in seen:
                    raise InputError(f"duplicate word {w!r} at rows {seen[w] + 1} and {i + 1}")
                seen[w] = i
            index = seen
        matrix.flags.writeable = False
        self._words = words
        self._index = index
        self._vectors = matrix
        self.lang = lang
        self.provenance: dict[str, Any] = dict(provenance or {})

    # ------------------------------------------------------------------ basic protocol
    @property
    def words(self) -> list[str]:
        """list of str: the vocabulary in row order (a copy; the store is immutable)."""
        return list(self._words)

    @property
    def index(self) -> dict[str, int]:
        """dict: word → row (read it, do not modify it)."""
        return self._index

    @property
    def vectors(self) -> np.ndarray:
        """ndarray of shape (n_words, dim), float32, C-contiguous, read-only."""
        return self._vectors

    @property
    def dim(self) -> int:
        """int: vector dimension."""
        return int(self._vectors.shape[1])

    def __len__(self) -> int:
        return len(self._words)

    def __contains__(self, word: object) -> bool:
        return word in self._index

    def __iter__(self):
        return iter(self._words)

    def __repr__(self) -> str:
        src = self.provenance.get("source") or self.provenance.get("path") or "in-memory"
        return f"VectorStore({len(self)} words × {self.dim}, lang={self.lang!r}, source={src!r})"

    def __getitem__(self, key: str | Sequence[str]) -> np.ndarray:
        """``store["word"]`` → 1-D row; ``store[["a", "b"]]`` → 2-D rows (raw vectors).

        Raises
        ------
        OutOfVocabularyError
            Any requested word is missing.
        """
        if isinstance(key, str):
            try:
                return self._vectors[self._index[key]]
            except KeyError:
                raise OutOfVocabularyError([key], hint=None) from None
        return self.lookup(list(key), oov="raise").vectors

    # ------------------------------------------------------------------ derived views
    @cached_property
    def norms(self) -> np.ndarray:
        """ndarray of shape (n_words,), float32: Euclidean norm of each row (cached)."""
        norms = np.linalg.norm(self._vectors, axis=1).astype(np.float32)
        norms.flags.writeable = False
        return norms

    @cached_property
    def unit_vectors(self) -> np.ndarray:
        """ndarray of shape (n_words, dim), float32, read-only: rows scaled to unit norm.

        Zero rows stay zero. Computed once per store and cached.
        """
        norms = self.norms
        safe = np.where(norms > 0, norms, 1.0).astype(np.float32)
        unit = np.ascontiguousarray(self._vectors / safe[:, None], dtype=np.float32)
        unit.flags.writeable = False
        return unit

    def normalized(self) -> VectorStore:
        """Return a new store whose rows are unit-normalised (this store is unchanged)."""
        return self.with_vectors(self.unit_vectors, note="unit-normalised")

    def with_vectors(self, vectors: Any, *, note: str | None = None) -> VectorStore:
        """Return a new store with the same words, language and provenance but new rows.

        Parameters
        ----------
        vectors : array-like of shape (n_words, dim')
        note : str, optional
            Appended to ``provenance["transforms"]`` (e.g. ``"hybrid-ori"``).
        """
        prov = dict(self.provenance)
        if note:
            prov["transforms"] = [*prov.get("transforms", []), note]
        return VectorStore(self._words, vectors, lang=self.lang, provenance=prov)

    # ------------------------------------------------------------------ lookups
    def lookup(
        self,
        words: Iterable[str],
        *,
        oov: OOVPolicy = "raise",
        unit: bool = False,
        context: str = "",
    ) -> Lookup:
        """Rows of ``words`` with an explicit out-of-vocabulary policy (STYLE.md §5).

        Parameters
        ----------
        words : iterable of str
        oov : {"raise", "ignore"}, default "raise"
            ``"ignore"`` skips missing words and lists them in :attr:`Lookup.missing`.
        unit : bool, default False
            Return unit-normalised rows.
        context : str
            Named in the error message (e.g. ``"in attribute list A"``).

        Returns
        -------
        Lookup

        Raises
        ------
        OutOfVocabularyError
            ``oov="raise"`` and any word is missing.
        """
        check_choice("oov", oov, OOVPolicy)
        words = list(words)
        found, rows, missing = [], [], []
        for w in words:
            i = self._index.get(w)
            if i is None:
                missing.append(w)
            else:
                found.append(w)
                rows.append(i)
        if missing and oov == "raise":
            raise OutOfVocabularyError(missing, context)
        source = self.unit_vectors if unit else self._vectors
        return Lookup(found, source[np.asarray(rows, dtype=np.int64)], missing)

    def subset(self, words: Iterable[str], *, oov: OOVPolicy = "raise") -> VectorStore:
        """New store restricted to ``words`` (in the given order)."""
        lk = self.lookup(words, oov=oov)
        prov = dict(self.provenance, subset=len(lk.words))
        return VectorStore(lk.words, lk.vectors, lang=self.lang, provenance=prov)

    def head(self, limit: int) -> VectorStore:
        """New store with the first ``limit`` words (file order is usually frequency order).

        Raises
        ------
        InputError
            ``limit <= 0``.
        """
        if limit <= 0:
            raise InputError(f"limit must be positive; got {limit}")
        if limit >= len(self):
            return self
        prov = dict(self.provenance, limit=limit)
        return VectorStore(self._words[:limit], self._vectors[:limit], lang=self.lang, provenance=prov)

    # ------------------------------------------------------------------ neighbours
    @cached_property
    def _faiss_index(self):
        import faiss

        index = faiss.IndexFlatIP(self.dim)
        index.add(np.ascontiguousarray(self.unit_vectors))
        return index

    def nearest(
        self, queries: np.ndarray, k: int = 10
    ) -> tuple[np.ndarray, np.ndarray]:
        """Exact cosine nearest neighbours of query vectors through a faiss inner-product index.

        Parameters
        ----------
        queries : ndarray of shape (n_queries, dim) or (dim,)
            Raw query vectors; they are unit-normalised here.
        k : int, default 10

        Returns
        -------
        similarities : ndarray of shape (n_queries, min(k, n_words)), float32
            Cosine similarities, best first.
        rows : ndarray of shape (n_queries, min(k, n_words)), int64

        Raises
        ------
        InputError
            ``k <= 0``, or a query dimension other than :attr:`dim`.
        """
        if k <= 0:
            raise InputError(f"k must be positive; got {k}")
        q = np.atleast_2d(np.asarray(queries, dtype=np.float32))
        if q.shape[1] != self.dim:
            raise InputError(f"query dimension {q.shape[1]} does not match the store's {self.dim}")
        n = np.linalg.norm(q, axis=1, keepdims=True)
        q = np.ascontiguousarray(q / np.where(n > 0, n, 1.0), dtype=np.float32)
        return self._faiss_index.search(q, min(k, len(self)))

    def most_similar(self, word: str, k: int = 10) -> list[tuple[str, float]]:
        """The ``k`` nearest words to ``word`` by cosine similarity, the word itself excluded.

        Raises
        ------
        OutOfVocabularyError
            ``word`` is not in the store.
        """
        sims, rows = self.nearest(self[word], k + 1)
        out = [
            (self._words[r], float(s))
            for s, r in zip(sims[0], rows[0], strict=True)
            if r >= 0 and self._words[r] != word
        ]
        return out[:k]

    # ------------------------------------------------------------------ interop
    def to_keyedvectors(self):
        """Return a gensim ``KeyedVectors`` holding a copy of the rows, in the same order."""
        from gensim.models import KeyedVectors

        kv = KeyedVectors(self.dim, dtype=np.float32)
        kv.add_vectors(self._words, np.array(self._vectors))
        return kv

    @classmethod
    def from_keyedvectors(cls, kv, *, lang: str | None = None, provenance: dict | None = None) -> VectorStore:
        """Build a store from a gensim ``KeyedVectors`` (rows copied)."""
        return cls(list(kv.index_to_key), kv.vectors, lang=lang, provenance=provenance)

    def similarity(self, a: str, b: str) -> float:
        """Cosine similarity of two words."""
        return float(self.unit_vectors[self._index_or_raise(a)] @ self.unit_vectors[self._index_or_raise(b)])

    def _index_or_raise(self, word: str) -> int:
        try:
            return self._index[word]
        except KeyError:
            raise OutOfVocabularyError([word], hint=None) from None

    def summary(self) -> dict[str, Any]:
        """JSON-able description: size, dimension, language, provenance, mean norm."""
        return {
            "n_words": len(self),
            "dim": self.dim,
            "lang": self.lang,
            "mean_norm": float(self.norms.mean()) if len(self) else math.nan,
            "provenance": self.provenance,
        }
