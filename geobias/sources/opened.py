"""Stores kept open in this process: a second command on the same store reuses it.

:func:`open_cached` wraps :func:`geobias.sources.resolve_store` for Python callers of the command
layer (``geobias.commands.run("mweat", lang="fr")`` in a loop over seeds or tests): the store it
returns is kept, keyed by what was asked (language, ``vectors``, ``limit``) and by the *stamps* of
the files behind it (name, size and modification time of every file of a saved store, or of the
vector file). A changed stamp opens the store again (and its own checks run); an unchanged one
reuses the open store, its memory map and its cached unit rows. The service keeps its own open
stores (:mod:`geobias.service.stores`); the command line runs one command per process.

Content changes that keep every stamp (a row rewritten in place with its modification time
restored) are not seen by a store already open here; ``geobias vectors verify`` hashes the files.
At most :data:`MAX_OPEN` stores stay open (least recently used first out).

Examples
--------
>>> cache = OpenedStores(max_open=2)
>>> len(cache)
0
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from pathlib import Path

from geobias.store import VectorStore

#: Stores kept open per process.
MAX_OPEN = 4


def stamps(path: Path) -> tuple | None:
    """``(name, size, mtime_ns)`` of ``path`` (a file) or of every file directly in it (a saved
    store's folder); ``None`` when it does not exist."""
    try:
        if path.is_dir():
            return tuple(sorted((p.name, p.stat().st_size, p.stat().st_mtime_ns) for p in path.iterdir() if p.is_file()))
        st = path.stat()
        return ((path.name, st.st_size, st.st_mtime_ns),)
    except OSError:
        return None


def store_location(lang: str | None, vectors: str | None) -> Path | None:
    """The file or folder :func:`geobias.sources.resolve_store` would read for ``(lang, vectors)``,
    when it is already on disk (``None``: not installed yet, or nothing to locate)."""
    from geobias.languages import get_language
    from geobias.sources.registry import SOURCES, default_source, install_path, vectors_dir

    if vectors is None:
        if lang is None:
            return None
        path = install_path(default_source(get_language(lang).code))
    elif vectors in SOURCES:
        path = install_path(vectors)
    else:
        path = Path(vectors).expanduser()
        if not path.exists():
            path = vectors_dir() / vectors
    return path if path.exists() else None


class OpenedStores:
    """A small least-recently-used map of open stores, checked against their files' stamps."""

    def __init__(self, max_open: int = MAX_OPEN):
        self.max_open = max_open
        self._open: OrderedDict[Hashable, tuple[tuple | None, VectorStore]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._open)

    def get(self, key: Hashable, location: Path | None, load: Callable[[], VectorStore]) -> VectorStore:
        """The store open under ``key`` when ``location``'s stamps are unchanged, else ``load()``'s."""
        current = stamps(location) if location is not None else None
        if current is None:  # nothing on disk to check against: open it afresh (it may install)
            return load()
        with self._lock:
            hit = self._open.get(key)
            if hit is not None and hit[0] == current:
                self._open.move_to_end(key)
                return hit[1]
        store = load()
        with self._lock:
            self._open[key] = (stamps(location), store)
            self._open.move_to_end(key)
            while len(self._open) > self.max_open:
                self._open.popitem(last=False)
        return store

    def clear(self) -> None:
        with self._lock:
            self._open.clear()


#: This process's open stores.
OPENED = OpenedStores()


def open_cached(lang: str | None, vectors: str | None, *, limit: int | None = None,
                load: Callable[[], VectorStore]) -> VectorStore:
    """``load()`` (a :func:`~geobias.sources.resolve_store` call for ``(lang, vectors, limit)``), or
    the store it gave before when the files behind it are unchanged (see the module docstring)."""
    return OPENED.get((lang, vectors, limit), store_location(lang, vectors), load)


__all__ = ["MAX_OPEN", "OPENED", "OpenedStores", "open_cached", "stamps", "store_location"]
