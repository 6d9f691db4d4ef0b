"""The approximate neighbour index of a store (:meth:`VectorStore.ivf_index
<geobias.store.vector_store.VectorStore.ivf_index>`), saved next to the store's cache directory
so that later processes reuse it instead of retraining: ``ivf-sq8.faiss`` and its sidecar
``ivf-sq8.json`` (the store's checksum, shape and :data:`IVF_RECIPE`).

The functions take the :class:`~geobias.store.vector_store.VectorStore` itself (its
``provenance``, length and ``dim``); this module does not import it, so the store's module can
import this one.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from geobias.errors import InputError
from geobias.io.atomic import atomic_write

#: The recipe of :meth:`VectorStore.ivf_index`, recorded with a saved index: a saved index built
#: by another recipe is not reused.
IVF_RECIPE = "IVF-SQ8 inner product; nlist=min(clip(sqrt(n),16,1024),n//39); train min(n,64*nlist) rows, seed 0; niter 10"

#: File names of the saved approximate neighbour index inside a store directory.
IVF_FILE, IVF_META = "ivf-sq8.faiss", "ivf-sq8.json"


def _ivf_identity(p: Path, store) -> dict | None:
    """What a saved index must match: the store's recorded checksum, shape and index recipe."""
    try:
        meta = json.loads((p / "meta.json").read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None
    checksum = meta.get("sample_sha256") or meta.get("sha256_vectors")
    if not checksum or meta.get("n_words") != len(store):  # not this store, or a --limit prefix
        return None
    return {"checksum": checksum, "n_words": len(store), "dim": store.dim, "recipe": IVF_RECIPE}


def load_saved_ivf(store):
    """The approximate index saved next to ``store``'s cache directory, or ``None``.

    Used only when the store was loaded from a cache directory (its ``provenance["cache"]``),
    whole (no ``limit``), and the sidecar ``ivf-sq8.json`` records the same checksum, shape and
    index recipe (:data:`IVF_RECIPE`); an unreadable index file is
    ignored (it is rebuilt and saved again).
    """
    cache = (store.provenance or {}).get("cache")
    if not cache:
        return None
    p = Path(cache)
    want = _ivf_identity(p, store)
    try:
        have = json.loads((p / IVF_META).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None
    if want is None or have != want:
        return None
    import faiss

    try:
        index = faiss.read_index(str(p / IVF_FILE))
    except RuntimeError:
        return None
    return index if index.ntotal == len(store) and index.d == store.dim else None


def save_ivf(store, index) -> Path | None:
    """Save ``index`` next to ``store``'s cache directory (atomically) so later runs reuse it.

    Returns the path written, or ``None`` when the store has no cache directory (built from a
    file in this process) or is a ``limit`` prefix. A directory that cannot be written is
    reported on stderr in one line; the index is still used in this process.
    """
    cache = (store.provenance or {}).get("cache")
    if not cache:
        return None
    p = Path(cache)
    ident = _ivf_identity(p, store)
    if ident is None:
        return None
    import faiss

    try:
        data = faiss.serialize_index(index)
        with atomic_write(p / IVF_FILE, what="approximate index") as fh:
            fh.write(data.tobytes())
        with atomic_write(p / IVF_META, mode="w", what="approximate index") as fh:
            fh.write(json.dumps(ident, indent=2) + "\n")
    except InputError as exc:
        print(f"geobias: warning: the approximate index was not saved ({exc})", file=sys.stderr)
        return None
    return p / IVF_FILE
