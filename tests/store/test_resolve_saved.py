"""`--vectors NAME` finds a store saved by name under vectors_dir() (pool/align --out NAME)."""

from pathlib import Path

import numpy as np
import pytest

from geobias import VectorStore
from geobias.errors import InputError
from geobias.sources import resolve_store, vectors_dir
from geobias.store import save_store


def test_saved_store_by_name(tmp_path, monkeypatch):
    monkeypatch.setenv("GEOBIAS_VECTORS_DIR", str(tmp_path))
    assert vectors_dir() == tmp_path
    store = VectorStore(["a", "b"], np.eye(2), lang="en")
    save_store(store, tmp_path / "my-pooled")
    got = resolve_store("en", "my-pooled")
    assert got.words == ["a", "b"] and np.array_equal(got.vectors, store.vectors)
    with pytest.raises(InputError, match="nor a store saved under"):
        resolve_store("en", "not-saved")


def test_store_path_bare_names_go_to_vectors_dir(tmp_path, monkeypatch):
    from geobias.sources import store_path

    monkeypatch.setenv("GEOBIAS_VECTORS_DIR", str(tmp_path / "vd"))
    assert store_path("fr-aligned") == tmp_path / "vd" / "fr-aligned" and (tmp_path / "vd").is_dir()
    assert store_path("./fr-aligned") == Path("fr-aligned")  # an explicit relative path stays relative
    assert store_path(str(tmp_path / "x")) == tmp_path / "x"
