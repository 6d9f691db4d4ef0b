"""Word translation accuracy (bilingual lexicon induction), MUSE protocol."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from geobias.alignment.csls import CslsIndex, knn_ip
from geobias.alignment.dictionary import Dictionary, check_language_order
from geobias.errors import InputError
from geobias.results import Result
from geobias.store import VectorStore
from geobias.validation import check_choice

Retrieval = Literal["nn", "csls"]


@dataclass(frozen=True)
class TranslationResult(Result):
    """Precision at k of word translation.

    Attributes
    ----------
    method : {"nn", "csls"}
    precision : dict
        ``{"p_at_1": float, "p_at_5": ..., "p_at_10": ...}`` in [0, 1]: fraction of covered
        queries with at least one gold translation among the top k retrieved targets.
    n_queries : int
        Distinct source words with at least one gold pair fully in vocabulary (covered).
    n_source_words : int
        Distinct source words in the dictionary.
    coverage : float
        ``n_queries / n_source_words``.
    n_pairs, n_oov_pairs : int
        Dictionary pairs, and pairs with a word out of vocabulary (not used).
    csls_k : int or None
    """

    method: str
    precision: dict[str, float]
    n_queries: int
    n_source_words: int
    coverage: float
    n_pairs: int
    n_oov_pairs: int
    csls_k: int | None = None
    oov_examples: list[tuple[str, str]] = field(default_factory=list)


@dataclass(frozen=True)
class TranslateEvalResult(Result):
    """Word translation ``src`` → ``tgt`` by nearest neighbour and by CSLS (``geobias
    translate-eval``).

    Attributes
    ----------
    src, tgt : str
        Language codes.
    nn, csls : dict
        :meth:`TranslationResult.to_dict` of the nearest-neighbour and the CSLS retrieval.
    """

    src: str
    tgt: str
    nn: dict
    csls: dict


def looks_aligned(src: VectorStore, tgt: VectorStore) -> bool:
    """Whether provenance says the two stores share one space.

    True for two MUSE-aligned sources (``source`` starting with ``muse-``), or a source store
    written by ``geobias align`` (``aligned_to``) or transformed by a Procrustes map
    (``procrustes-aligned`` in ``transforms``). A heuristic for a warning: it reads only
    provenance, never the vectors.

    Parameters
    ----------
    src, tgt : VectorStore

    Returns
    -------
    bool
    """
    prov = src.provenance
    muse = all(str(st.provenance.get("source", "")).startswith("muse-") for st in (src, tgt))
    return muse or "aligned_to" in prov or "procrustes-aligned" in prov.get("transforms", [])


def translation_accuracy(
    src: VectorStore,
    tgt: VectorStore,
    dictionary: Dictionary,
    *,
    method: Retrieval = "csls",
    ks: Sequence[int] = (1, 5, 10),
    csls_k: int = 10,
    index: CslsIndex | None = None,
) -> TranslationResult:
    """Word translation P@k of aligned ``src`` → ``tgt`` on a gold dictionary (MUSE protocol).

    Every target word is a candidate; a query is correct at k when any of its gold
    translations is among the k best targets.

    Parameters
    ----------
    src, tgt : VectorStore
        Aligned stores of equal dimension (the source already mapped into the target space).
    dictionary : Dictionary
        ``(source, target)`` gold pairs; pairs with an out-of-vocabulary word are counted and skipped.
    method : {"nn", "csls"}, default "csls"
        Cosine nearest neighbour, or CSLS (Conneau et al. 2018, eq. 6).
    ks : sequence of int, default (1, 5, 10)
    csls_k : int, default 10
        Neighbourhood size of the CSLS penalties (checked for every ``method``).
    index : CslsIndex, optional
        A prepared index over ``src.unit_vectors`` → ``tgt.unit_vectors`` (same rows), reused
        across calls; with it, ``"nn"`` reads the index's exact neighbour lists too.

    Returns
    -------
    TranslationResult

    Raises
    ------
    InputError
        Bad method, non-positive k or ``csls_k``, dimension mismatch, no covered query, or a
        dictionary that looks given in the wrong language order (the message names the
        dictionary; :func:`~geobias.alignment.dictionary.check_language_order`).

    References
    ----------
    Conneau, Lample, Ranzato, Denoyer, Jégou (2018). Word translation without parallel data. ICLR.
    """
    check_choice("method", method, Retrieval)
    ks = sorted({int(k) for k in ks})
    if not ks or ks[0] <= 0:
        raise InputError(f"ks must be positive integers; got {ks}")
    if csls_k <= 0:
        raise InputError(f"CSLS k must be positive; got {csls_k}")
    if src.dim != tgt.dim:
        raise InputError(f"source dimension {src.dim} differs from target dimension {tgt.dim}; align first")
    gold: dict[int, set[int]] = {}
    sources: set[str] = set()
    oov: list[tuple[str, str]] = []
    for s, t in dictionary.pairs:
        sources.add(s)
        a, b = src.index.get(s), tgt.index.get(t)
        if a is None or b is None:
            oov.append((s, t))
            continue
        gold.setdefault(a, set()).add(b)
    check_language_order(dictionary, src, tgt, len(dictionary.pairs) - len(oov))
    queries = np.fromiter(gold, dtype=np.int64)
    kmax = ks[-1]
    if index is not None and (len(index.sources) != len(src) or len(index.targets) != len(tgt)):
        raise InputError(f"the CSLS index is over {len(index.sources)} × {len(index.targets)} rows, "
                         f"the stores have {len(src)} × {len(tgt)}")
    if method == "nn":
        if index is not None:  # its exact neighbour lists serve cosine NN too
            _, rows = index.nearest_rows(queries, kmax)
        else:
            _, rows = knn_ip(src.unit_vectors[queries], tgt.unit_vectors, kmax)
    else:
        if index is None:
            index = CslsIndex(src.unit_vectors, tgt.unit_vectors, k=csls_k)
        _, rows = index.search_rows(queries, kmax)
    # one row per (query, gold target): the rank of that target in the query's list, then the
    # best rank over each query's gold targets
    gq = np.repeat(np.arange(len(queries)), [len(gold[int(q)]) for q in queries])
    gt = np.fromiter((b for q in queries for b in gold[int(q)]), dtype=np.int64, count=len(gq))
    hits = rows[gq] == gt[:, None]
    first = np.where(hits.any(axis=1), hits.argmax(axis=1), np.inf)
    hit_rank = np.full(len(queries), np.inf)
    np.minimum.at(hit_rank, gq, first)
    precision = {f"p_at_{k}": float(np.mean(hit_rank < k)) for k in ks}
    return TranslationResult(
        method=method,
        precision=precision,
        n_queries=len(queries),
        n_source_words=len(sources),
        coverage=len(queries) / len(sources),
        n_pairs=len(dictionary),
        n_oov_pairs=len(oov),
        csls_k=csls_k if method == "csls" else None,
        oov_examples=oov[:10],
    )
