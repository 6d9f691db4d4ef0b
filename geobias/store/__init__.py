"""Vector stores: the in-memory :class:`VectorStore`, its on-disk cache format
(:mod:`~geobias.store.cache`, with the saved approximate index :mod:`~geobias.store.ivf`), the
vector file formats it is read from and written to (:mod:`~geobias.store.formats`, with the
polars fast path :mod:`~geobias.store.fastparse`), exports (:mod:`~geobias.store.export`),
merging (:mod:`~geobias.store.merge`) and neighbour listings (:mod:`~geobias.store.neighbors`).

Names are imported on first use (PEP 562), so importing a submodule of :mod:`geobias` that only
needs, say, :class:`VectorStore` does not pay for the cache code.
"""

from __future__ import annotations

import importlib

_NAMES = {
    "is_cache": "geobias.store.cache",
    "load_store": "geobias.store.cache",
    "save_store": "geobias.store.cache",
    "verify_store": "geobias.store.cache",
    "StoreChangedError": "geobias.store.cache",
    "Lookup": "geobias.store.vector_store",
    "VectorStore": "geobias.store.vector_store",
    "merged_store": "geobias.store.merge",
}

__all__ = ["Lookup", "StoreChangedError", "VectorStore", "is_cache", "load_store", "merged_store", "save_store", "verify_store"]


def __getattr__(name: str):
    module = _NAMES.get(name)
    if module is None:
        raise AttributeError(f"module 'geobias.store' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
