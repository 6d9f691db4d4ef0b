"""Python callers of the command layer reuse an open store: a second ``run`` on the same store
opens nothing, a changed file opens it again, and the envelope still names the store."""

from __future__ import annotations

import os

from _server import small_french_store

from geobias.commands import execute, run
from geobias.sources import opened
from geobias.store import save_store


def test_a_second_run_reuses_the_open_store_until_its_files_change(tmp_path, monkeypatch):
    path = tmp_path / "small-fr"
    save_store(small_french_store(), path)
    opened.OPENED.clear()
    loads = []
    real = opened.OpenedStores.get

    def counting(self, key, location, load):
        def counted():
            loads.append(key)
            return load()
        return real(self, key, location, counted)

    monkeypatch.setattr(opened.OpenedStores, "get", counting)
    a = run("neighbors", vectors=str(path), word="avocat", k=3)
    b = run("neighbors", vectors=str(path), word="avocat", k=3)
    assert a == b and len(loads) == 1  # opened once
    _, env = execute("neighbors", {"vectors": str(path), "word": "avocat", "k": 3})
    assert env["inputs"]["vectors"]["given"] == str(path)  # a reused store is recorded as an opened one
    assert len(loads) == 1
    words = next(p for p in path.iterdir() if p.is_file())
    st = words.stat()
    os.utime(words, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))  # a changed stamp
    run("neighbors", vectors=str(path), word="avocat", k=3)
    assert len(loads) == 2  # opened again


def test_the_cache_keeps_the_most_recent_stores_only(tmp_path):
    cache = opened.OpenedStores(max_open=2)
    stores = {}
    for i in range(3):
        f = tmp_path / f"s{i}.txt"
        f.write_text(str(i))
        stores[i] = cache.get(i, f, small_french_store)
    assert len(cache) == 2
    assert cache.get(2, tmp_path / "s2.txt", small_french_store) is stores[2]  # kept
    assert cache.get(0, tmp_path / "s0.txt", small_french_store) is not stores[0]  # the oldest went first
    assert len(cache.get("none", None, small_french_store)) and len(cache) == 2  # nothing on disk: not kept
