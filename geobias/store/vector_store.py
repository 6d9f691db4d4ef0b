"""The vector store: one vocabulary, one read-only float32 matrix (gensim ``KeyedVectors`` idea).

Everything downstream (directions, metrics, alignment, mitigation, export) reads a
:class:`VectorStore` and mitigation returns a *new* one; no code path writes into a store.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from geobias._numeric import all_finite
from geobias.choices import Approx, OOVPolicy
from geobias.errors import InputError, OutOfVocabularyError
from geobias.validation import check_choice

#: Rows normalised / searched at a time on the blockwise paths (~77 MB of 300-d float32).
BLOCK_ROWS = 1 << 16
#: Above this matrix size (bytes) exact neighbour search runs block by block over the rows
#: (normalised per block) instead of over a cached normalised copy (:attr:`VectorStore.unit_vectors`).
LARGE_BYTES = 1 << 30
#: Inverted lists probed by ``nearest(..., approx="ivf")``.
IVF_NPROBE = 32


def _topk_order(sims: np.ndarray, rows: np.ndarray, k: int) -> np.ndarray:
    """Per query, the positions of the ``k`` best (similarity descending, then row ascending)."""
    return np.stack([np.lexsort((r, -s))[:k] for s, r in zip(sims, rows, strict=True)])


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
        matrix = self._checked_rows(matrix, words, check_finite)
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
        self._init_common(lang, provenance)

    @staticmethod
    def _checked_rows(matrix: np.ndarray, words: Sequence[str], check_finite: bool) -> np.ndarray:
        """``matrix`` (2-D, one row per word) as a read-only-to-be float32 C array (a copy unless
        it already is one and is read-only); raises InputError on dimension 0 or a NaN/inf row."""
        if matrix.shape[1] == 0:
            raise InputError("vectors have dimension 0")
        if matrix.dtype != np.float32 or not matrix.flags.c_contiguous or matrix.flags.writeable:
            matrix = np.array(matrix, dtype=np.float32, order="C", copy=True)
        # fast path over the whole matrix; the rows are found only when one is bad
        if check_finite and not all_finite(matrix):
            finite = np.isfinite(matrix).all(axis=1)
            bad = [words[i] for i in np.flatnonzero(~finite)[:5]]
            raise InputError(
                f"{int((~finite).sum())} vector row(s) contain NaN or inf, e.g. {', '.join(map(repr, bad))}"
            )
        return matrix

    def _init_common(self, lang, provenance) -> None:
        self.lang = lang
        self.provenance: dict[str, Any] = dict(provenance or {})

    @classmethod
    def _trusted_lazy(cls, load_words, vectors: np.ndarray, *, lang=None, provenance=None) -> VectorStore:
        """A store over already-validated rows whose vocabulary is read on first use.

        For :func:`~geobias.store.load_store`: the words and rows were checked (no duplicates, no
        empty word, finite rows) when the cache was written, so reopening a 2,000,000-word store
        only maps the matrix; ``load_words()`` (a list of ``len(vectors)`` str) and the word →
        row dict are built the first time a word is looked up.
        """
        store = cls.__new__(cls)
        matrix = vectors
        if matrix.dtype != np.float32 or not matrix.flags.c_contiguous:
            matrix = np.ascontiguousarray(matrix, dtype=np.float32)
        if matrix.flags.writeable:
            matrix = matrix.view()
            matrix.flags.writeable = False
        store._vectors = matrix
        store._load_words = load_words
        store._init_common(lang, provenance)
        return store

    @cached_property
    def _words(self) -> list[str]:
        words = self._load_words()
        if len(words) != self._vectors.shape[0]:
            raise InputError(f"{len(words)} words but {self._vectors.shape[0]} vector rows; they must match")
        return words

    @cached_property
    def _index(self) -> dict[str, int]:
        return dict(zip(self._words, range(len(self._words)), strict=True))

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
        return int(self._vectors.shape[0])

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
        """ndarray of shape (n_words,), float32: Euclidean norm of each row (cached).

        Computed in blocks of :data:`BLOCK_ROWS` rows, so a memory-mapped 2,000,000-row store
        never gets a full-size temporary.
        """
        n = len(self)
        norms = np.empty(n, dtype=np.float32)
        for s in range(0, n, BLOCK_ROWS):
            norms[s : s + BLOCK_ROWS] = np.linalg.norm(self._vectors[s : s + BLOCK_ROWS], axis=1)
        norms.flags.writeable = False
        return norms

    def unit_block(self, start: int, stop: int) -> np.ndarray:
        """Rows ``start:stop`` scaled to unit norm (float32, a new C-contiguous array).

        Uses the cached :attr:`unit_vectors` when they exist; otherwise normalises only these
        rows (bit-identical to the corresponding rows of :attr:`unit_vectors`).
        """
        cached = self.__dict__.get("unit_vectors")
        if cached is not None:
            return cached[start:stop]
        norms = self.norms[start:stop]
        safe = np.where(norms > 0, norms, 1.0).astype(np.float32)
        return np.ascontiguousarray(self._vectors[start:stop] / safe[:, None], dtype=np.float32)

    def unit_rows(self, rows: np.ndarray) -> np.ndarray:
        """Unit-normalised copies of the given rows (int array), without normalising the store."""
        rows = np.asarray(rows, dtype=np.int64)
        cached = self.__dict__.get("unit_vectors")
        if cached is not None:
            return cached[rows]
        raw = self._vectors[rows]
        # the norms of these rows only (a few words of a 2,000,000-row store touch a few pages);
        # per-row reductions, so bit-identical to the corresponding entries of `norms`
        norms = self.__dict__["norms"][rows] if "norms" in self.__dict__ else np.linalg.norm(raw, axis=1)
        safe = np.where(norms > 0, norms, 1.0).astype(np.float32)
        return np.ascontiguousarray(raw / safe[:, None], dtype=np.float32)

    @cached_property
    def unit_vectors(self) -> np.ndarray:
        """ndarray of shape (n_words, dim), float32, read-only: rows scaled to unit norm.

        Zero rows stay zero. Computed once per store and cached: a second full-size matrix.
        Lookups (``lookup(unit=True)``, :meth:`similarity`) and neighbour search on stores above
        :data:`LARGE_BYTES` normalise only the rows they touch instead, so a 2,000,000 × 300 store
        is never held twice.
        """
        n = len(self)
        unit = np.empty(self._vectors.shape, dtype=np.float32)
        for s in range(0, n, BLOCK_ROWS):
            unit[s : s + BLOCK_ROWS] = self.unit_block(s, min(n, s + BLOCK_ROWS))
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
        matrix = np.asarray(vectors)
        if matrix.ndim != 2 or matrix.shape[0] != len(self):  # the constructor explains it
            return VectorStore(self._words, vectors, lang=self.lang, provenance=prov)
        # this store's words were validated: share the word list and index, check the rows only
        store = VectorStore.__new__(VectorStore)
        matrix = self._checked_rows(matrix, self._words, True)
        matrix.flags.writeable = False
        store._words = self._words
        store._index = self._index
        store._vectors = matrix
        store._init_common(self.lang, prov)
        return store

    # ------------------------------------------------------------------ lookups
    def lookup(
        self,
        words: Iterable[str],
        *,
        oov: OOVPolicy = "raise",
        unit: bool = False,
        context: str = "",
    ) -> Lookup:
        """Rows of ``words`` with an explicit out-of-vocabulary policy (never a silent drop).

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
        idx = np.asarray(rows, dtype=np.int64)
        return Lookup(found, self.unit_rows(idx) if unit else self._vectors[idx], missing)

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
    def _nearest_flat(self, q: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Brute force over :attr:`unit_vectors` in place: faiss's flat inner-product search (the
        search an ``IndexFlatIP`` runs, with the same results to the bit), without the full copy of
        the matrix such an index holds. On a 200,000 × 300 store (229 MB) the first search's peak
        memory grew by 303 MB instead of 464 MB; in each quick worker of ``geobias serve``, a copy
        less of every store it has searched."""
        import faiss

        return faiss.knn(q, self.unit_vectors, k, metric=faiss.METRIC_INNER_PRODUCT)

    def ivf_index(self):
        """The approximate neighbour index of this store (built on first use, then cached).

        faiss ``IndexIVFScalarQuantizer`` (inner product, 8-bit scalar quantiser) over the
        unit-normalised rows, added block by block: it holds 1 byte per value (a quarter of the
        float32 matrix), never a second float32 copy. Parameters (measured on the 2,000,000 × 300
        benchmark, see ``benchmarks/bench_load.py``): ``nlist = clip(√n, 16, 1024)`` inverted
        lists (at most n / 39), k-means on ``min(n, 64 · nlist)`` sampled rows (10 iterations, seed 0);
        :meth:`nearest` probes :data:`IVF_NPROBE` lists and re-ranks ``4k`` candidates by their
        exact float32 cosine.

        For a store opened from a cache directory (:func:`geobias.store.load_store`), the index
        is saved there (``ivf-sq8.faiss`` with ``ivf-sq8.json``: the store's checksum, shape and
        :data:`geobias.store.ivf.IVF_RECIPE`) the first time it is built, and read back by later
        processes instead of retraining (minutes for 2,000,000 words); a changed store or recipe
        builds a new one (:mod:`geobias.store.ivf`).
        """
        cached = self.__dict__.get("_ivf")
        if cached is not None:
            return cached
        from geobias.store.ivf import load_saved_ivf, save_ivf

        saved = load_saved_ivf(self)
        if saved is not None:
            self.__dict__["_ivf"] = saved
            return saved
        import faiss

        n, d = self._vectors.shape
        nlist = max(1, min(int(np.clip(np.sqrt(n), 16, 1024)), n // 39))  # ≥ 39 points per list
        quantizer = faiss.IndexFlatIP(d)
        index = faiss.IndexIVFScalarQuantizer(quantizer, d, nlist, faiss.ScalarQuantizer.QT_8bit,
                                              faiss.METRIC_INNER_PRODUCT)
        index.cp.niter = 10
        index.cp.seed = 0
        rng = np.random.default_rng(0)
        n_train = min(n, 64 * nlist)
        rows = np.sort(rng.choice(n, n_train, replace=False)) if n_train < n else np.arange(n)
        index.train(self.unit_rows(rows))
        for s in range(0, n, BLOCK_ROWS):
            index.add(self.unit_block(s, min(n, s + BLOCK_ROWS)))
        self.__dict__["_ivf"] = index
        save_ivf(self, index)
        return index

    def nearest(
        self, queries: np.ndarray, k: int = 10, *, approx: Approx = "exact"
    ) -> tuple[np.ndarray, np.ndarray]:
        """Cosine nearest neighbours of query vectors (faiss inner product on unit rows).

        Parameters
        ----------
        queries : ndarray of shape (n_queries, dim) or (dim,)
            Raw query vectors; they are unit-normalised here.
        k : int, default 10
        approx : {"exact", "ivf"}, default "exact"
            ``"exact"``: brute force (faiss's flat inner-product search over the cached unit rows; for stores above
            :data:`LARGE_BYTES`, block by block over rows normalised per block, so no second
            full matrix is held). ``"ivf"``: the approximate :meth:`ivf_index`, probing
            :data:`IVF_NPROBE` lists, its ``4k`` best candidates re-scored exactly (the
            similarities returned are exact cosines; some true neighbours may be missed —
            ``bench_load`` prints recall@10 against exact).

        Returns
        -------
        similarities : ndarray of shape (n_queries, min(k, n_words)), float32
            Cosine similarities, best first.
        rows : ndarray of shape (n_queries, min(k, n_words)), int64

        Raises
        ------
        InputError
            ``k <= 0``, a query dimension other than :attr:`dim`, an unknown ``approx``.
        """
        check_choice("approx", approx, Approx)
        if k <= 0:
            raise InputError(f"k must be positive; got {k}")
        q = np.atleast_2d(np.asarray(queries, dtype=np.float32))
        if q.shape[1] != self.dim:
            raise InputError(f"query dimension {q.shape[1]} does not match the store's {self.dim}")
        n = np.linalg.norm(q, axis=1, keepdims=True)
        q = np.ascontiguousarray(q / np.where(n > 0, n, 1.0), dtype=np.float32)
        k = min(k, len(self))
        if approx == "ivf":
            return self._nearest_ivf(q, k)
        if self._vectors.nbytes <= LARGE_BYTES or "unit_vectors" in self.__dict__:
            return self._nearest_flat(q, k)
        return self._nearest_blockwise(q, k)

    def _nearest_blockwise(self, q: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        import faiss

        n = len(self)
        best_s = np.full((len(q), k), -np.inf, dtype=np.float32)
        best_r = np.full((len(q), k), -1, dtype=np.int64)
        for s in range(0, n, BLOCK_ROWS):
            block = self.unit_block(s, min(n, s + BLOCK_ROWS))
            sims, rows = faiss.knn(q, block, min(k, len(block)), metric=faiss.METRIC_INNER_PRODUCT)
            all_s = np.concatenate([best_s, sims], axis=1)
            all_r = np.concatenate([best_r, rows + s], axis=1)
            order = _topk_order(all_s, all_r, k)
            best_s = np.take_along_axis(all_s, order, axis=1)
            best_r = np.take_along_axis(all_r, order, axis=1)
        return best_s, best_r

    def _nearest_ivf(self, q: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        index = self.ivf_index()
        index.nprobe = IVF_NPROBE
        kc = min(len(self), 4 * k)
        _, cand = index.search(q, kc)
        out_s = np.full((len(q), k), -np.inf, dtype=np.float32)
        out_r = np.full((len(q), k), -1, dtype=np.int64)
        for i in range(len(q)):
            rows = cand[i][cand[i] >= 0]
            sims = self.unit_rows(rows) @ q[i]
            order = np.lexsort((rows, -sims))[:k]
            out_s[i, : len(order)] = sims[order]
            out_r[i, : len(order)] = rows[order]
        return out_s, out_r

    def most_similar(
        self,
        positive: str | Sequence[str] | None = None,
        negative: str | Sequence[str] | int | None = None,
        topn: int | None = None,
        *,
        k: int | None = None,
        approx: Approx = "exact",
    ) -> list[tuple[str, float]]:
        """The nearest words by cosine similarity to a word, or to a sum of words (gensim's signature).

        ``most_similar("roi", 5)`` (a word and ``k``, positionally or as ``k=``) and gensim's
        ``most_similar(positive=["roi", "femme"], negative=["homme"], topn=5)`` both work. As in
        gensim's ``KeyedVectors.most_similar``, the query is the mean of the unit vectors of
        ``positive`` minus those of ``negative``; the words of the query are excluded.

        Parameters
        ----------
        positive : str or sequence of str
            Words that add to the query.
        negative : str, sequence of str or int, optional
            Words that subtract from it. An int in this place is ``k`` (this method's older form
            ``most_similar(word, k)``).
        topn : int, optional
            Neighbours returned (gensim's name); default 10.
        k : int, optional
            Same as ``topn`` (give one of them).
        approx : {"exact", "ivf"}, default "exact"
            As in :meth:`nearest`.

        Returns
        -------
        list of (str, float)
            At most ``topn`` words with their cosine similarity to the query, best first.

        Raises
        ------
        OutOfVocabularyError
            A query word is not in the store.
        InputError
            No query word; ``topn`` and ``k`` both given, or not positive.

        Examples
        --------
        >>> import numpy as np
        >>> s = VectorStore(["roi", "reine", "homme", "femme"],
        ...                 np.array([[1, 1, 0], [1, -1, 0], [0, 1, 0.1], [0, -1, 0.1]], dtype=np.float32))
        >>> s.most_similar(positive=["roi", "femme"], negative=["homme"], topn=1)[0][0]
        'reine'
        """
        if isinstance(negative, (int, np.integer)) and not isinstance(negative, bool):
            if k is not None or topn is not None:
                raise InputError("give the number of neighbours once (topn or k)")
            k, negative = int(negative), None
        if topn is not None and k is not None:
            raise InputError("give topn or k, not both")
        n = 10 if topn is None and k is None else int(topn if topn is not None else k)
        pos = [positive] if isinstance(positive, str) else list(positive or [])
        neg = [negative] if isinstance(negative, str) else list(negative or [])
        if not pos and not neg:
            raise InputError("most_similar needs at least one word (positive or negative)")
        if n <= 0:
            raise InputError(f"topn must be positive; got {n}")
        missing = [w for w in (*pos, *neg) if w not in self]
        if missing:
            raise OutOfVocabularyError(missing, "in the query", hint=None)
        rows = np.array([self._index[w] for w in (*pos, *neg)])
        weights = np.array([1.0] * len(pos) + [-1.0] * len(neg))
        query = (weights[:, None] * self.unit_rows(rows).astype(np.float64)).mean(axis=0)
        exclude = set(pos) | set(neg)
        sims, found = self.nearest(query.astype(np.float32), n + len(exclude), approx=approx)
        out = [(self._words[r], float(v)) for v, r in zip(sims[0], found[0], strict=True)
               if r >= 0 and self._words[r] not in exclude]
        return out[:n]

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
        u = self.unit_rows(np.array([self._index_or_raise(a), self._index_or_raise(b)]))
        return float(u[0] @ u[1])

    def _index_or_raise(self, word: str) -> int:
        try:
            return self._index[word]
        except KeyError:
            raise OutOfVocabularyError([word], hint=None) from None

