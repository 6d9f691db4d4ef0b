"""Vector stores: the in-memory :class:`VectorStore` and its on-disk cache format.

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
    "Lookup": "geobias.store.vector_store",
    "VectorStore": "geobias.store.vector_store",
    "merged_store": "geobias.store.merge",
}

__all__ = ["Lookup", "VectorStore", "is_cache", "load_store", "merged_store", "save_store", "verify_store"]


def __getattr__(name: str):
    module = _NAMES.get(name)
    if module is None:
        raise AttributeError(f"module 'geobias.store' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
