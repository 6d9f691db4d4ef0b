"""Vector stores: the in-memory :class:`VectorStore` and its on-disk cache format."""

from geobias.store.cache import is_cache, load_store, save_store, verify_store
from geobias.store.vector_store import Lookup, VectorStore, check_choice

__all__ = ["Lookup", "VectorStore", "check_choice", "is_cache", "load_store", "save_store", "verify_store"]
