"""Stores built from several stores (bilingual directions and cross-lingual metrics)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from geobias.errors import InputError
from geobias.store.vector_store import VectorStore


def merged_store(parts: Sequence[tuple[str, VectorStore, Sequence[str]]]) -> VectorStore:
    """One small store holding ``words`` of several stores, each prefixed (``"fr:"``, ``"en:"``).

    Used to fit a single direction on the definitional pairs of two aligned languages, and to
    run MWEAT across languages.

    Parameters
    ----------
    parts : sequence of (prefix, store, words)
        Stores of one dimension. Duplicate words are kept once; words absent from their store
        are left out (the callers' metrics list them as missing under their prefixed name).

    Returns
    -------
    VectorStore
        Rows copied from each store (float32, not re-normalised), in ``parts`` order.

    Raises
    ------
    InputError
        The stores differ in dimension, or no word is in its store's vocabulary.
    """
    dims = {store.dim for _, store, _ in parts}
    if len(dims) > 1:
        raise InputError(f"cannot merge stores of different dimensions ({', '.join(map(str, sorted(dims)))})")
    words: list[str] = []
    blocks = []
    for prefix, store, ws in parts:
        lk = store.lookup(list(dict.fromkeys(ws)), oov="ignore")
        words += [prefix + w for w in lk.words]
        blocks.append(lk.vectors)
    if not words:
        raise InputError("no definitional word is in the vocabulary")
    return VectorStore(words, np.concatenate(blocks).astype(np.float32, copy=False))
