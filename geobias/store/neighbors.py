"""Nearest neighbours of a word as a result object (``geobias neighbors``, the service's
``/neighbors``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from geobias.results import Result

if TYPE_CHECKING:
    from geobias.choices import Approx
    from geobias.store.vector_store import VectorStore


@dataclass(frozen=True)
class Neighbor(Result):
    """One neighbour: the word and its cosine similarity to the query (float in [-1, 1])."""

    word: str
    similarity: float


@dataclass(frozen=True)
class NeighborsResult(Result):
    """The ``k`` nearest words to ``word`` by cosine similarity (the word itself excluded).

    Attributes
    ----------
    word : str
        The query.
    k : int
        Neighbours asked for (``neighbors`` holds at most ``k``).
    lang : str or None
        Language of the store.
    source : str
        Where the vectors came from: the registry source, else the file path.
    neighbors : list of Neighbor
        Most similar first.
    """

    word: str
    k: int
    lang: str | None
    source: str
    neighbors: list[Neighbor]


def nearest_neighbors(
    store: VectorStore,
    word: str,
    k: int = 10,
    *,
    approx: Approx = "exact",
    lang: str | None = None,
    source: str | None = None,
) -> NeighborsResult:
    """The ``k`` nearest words to ``word`` by cosine similarity, as a result.

    Parameters
    ----------
    store : VectorStore
    word : str
        The query word; it must be in ``store``.
    k : int, default 10
    approx : {"exact", "ivf"}, default "exact"
        As in :meth:`VectorStore.nearest`.
    lang : str, optional
        Language to report; default ``store.lang``.
    source : str, optional
        Name to report when the store's provenance records neither a ``source`` nor a ``path``.

    Returns
    -------
    NeighborsResult

    Raises
    ------
    OutOfVocabularyError
        ``word`` is not in the store.
    """
    pairs = store.most_similar(word, k, approx=approx)
    name = str(store.provenance.get("source") or store.provenance.get("path") or source)
    return NeighborsResult(word, k, store.lang if lang is None else lang, name,
                           [Neighbor(w, s) for w, s in pairs])
