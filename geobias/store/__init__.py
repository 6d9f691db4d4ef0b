"""Vector stores: the in-memory :class:`VectorStore`, its on-disk cache format
(:mod:`~geobias.store.cache`, with the saved approximate index :mod:`~geobias.store.ivf`), the
vector file formats it is read from and written to (:mod:`~geobias.store.formats`, with the
polars fast path :mod:`~geobias.store.fastparse`), exports (:mod:`~geobias.store.export`),
merging (:mod:`~geobias.store.merge`) and neighbour listings (:mod:`~geobias.store.neighbors`).

Names are imported on first use (PEP 562), so importing a submodule of :mod:`geobias` that only
needs, say, :class:`VectorStore` does not pay for the cache code.
"""

from __future__ import annotations

__all__ = ["Lookup", "StoreChangedError", "VectorStore", "is_cache", "load_store", "merged_store", "save_store", "verify_store"]


def __getattr__(name: str):
    """A public name, imported from its submodule on first use (explicit imports, so the import graph
    shows them)."""
    if name in {'StoreChangedError', 'verify_store', 'load_store', 'save_store', 'is_cache'}:
        from geobias.store import cache as module
    elif name in {'Lookup', 'VectorStore'}:
        from geobias.store import vector_store as module
    elif name in {'merged_store'}:
        from geobias.store import merge as module
    else:
        raise AttributeError(f"module 'geobias.store' has no attribute {name!r}")
    value = getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
