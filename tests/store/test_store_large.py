"""Full-size store paths on small data: lazy vocabulary on reopen, per-row/per-block normalisation
equal to the cached unit matrix, blockwise exact neighbours equal to the flat index, and the
approximate IVF option's recall."""

from __future__ import annotations

import json

import numpy as np
import pytest

from geobias.errors import InputError, VectorFormatError
from geobias.store import VectorStore, load_store, save_store
from geobias.store import cache as cache_mod
from geobias.store import ivf as ivf_mod
from geobias.store import vector_store as vs


def _store(n=3000, dim=16, seed=0):
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(30, dim))
    x = (centres[rng.integers(0, 30, n)] + 0.5 * rng.normal(size=(n, dim))).astype(np.float32)
    x[5] = 0.0  # a zero row stays zero
    return VectorStore([f"w{i}" for i in range(n)], x)


def test_unit_rows_and_blocks_equal_unit_vectors():
    s = _store()
    rows = np.array([3, 5, 2999, 0])
    a = s.unit_rows(rows)
    b = s.unit_block(100, 200)
    full = _store().unit_vectors
    assert np.array_equal(a, full[rows]) and np.array_equal(b, full[100:200])
    assert not a[1].any()
    assert np.array_equal(s.lookup(["w3", "w7"], unit=True).vectors, full[[3, 7]])
    assert s.similarity("w1", "w2") == pytest.approx(float(full[1] @ full[2]), abs=1e-7)


def test_blockwise_exact_neighbours_match_flat_index(monkeypatch):
    s = _store()
    q = s.vectors[[1, 10, 100, 2000]] + 0.01
    flat_s, flat_r = _store().nearest(q, 7)
    monkeypatch.setattr(vs, "LARGE_BYTES", 0)
    monkeypatch.setattr(vs, "BLOCK_ROWS", 700)  # 5 blocks, the last one short
    big_s, big_r = s.nearest(q, 7)
    assert "unit_vectors" not in s.__dict__  # no full normalised copy was made
    assert np.array_equal(big_r, flat_r)
    np.testing.assert_allclose(big_s, flat_s, atol=1e-6)


def test_ivf_option_recall_and_exact_scores():
    s = _store(n=4000)
    q = s.vectors[6:206]
    ex_s, ex_r = s.nearest(q, 10)
    ap_s, ap_r = s.nearest(q, 10, approx="ivf")
    recall = np.mean([len(set(a) & set(b)) / 10 for a, b in zip(ex_r, ap_r, strict=True)])
    assert recall > 0.9
    # similarities of the approximate answers are exact cosines of those rows
    u = _store(n=4000).unit_vectors
    qu = q / np.linalg.norm(q, axis=1, keepdims=True)
    np.testing.assert_allclose(ap_s[:, 0], np.einsum("qd,qd->q", qu, u[ap_r[:, 0]]), atol=1e-5)
    assert s.most_similar("w1", 3, approx="ivf")[0][0] != "w1"
    with pytest.raises(InputError, match="approx must be one of"):
        s.nearest(q, 3, approx="hnsw")


def test_lazy_reopen_reads_words_on_first_use(tmp_path, monkeypatch):
    monkeypatch.setattr(cache_mod, "EAGER_WORDS", 10)
    s = _store(n=50)
    save_store(s, tmp_path / "st")
    r = load_store(tmp_path / "st")
    assert "_words" not in r.__dict__ and len(r) == 50 and r.dim == 16
    assert r["w7"].tolist() == s["w7"].tolist() and r.words == s.words
    assert load_store(tmp_path / "st", limit=5).words == s.words[:5]
    (tmp_path / "st" / "words.txt").write_text("a\nb\n", encoding="utf-8")
    # a rewritten words.txt is refused when the store opens (its size and sha256 changed) ...
    with pytest.raises(VectorFormatError, match="words.txt changed since the store was saved"):
        load_store(tmp_path / "st")
    # ... and, unchecked, when the lazy list is first read (its length disagrees with the matrix)
    with pytest.raises(VectorFormatError, match="words.txt 2 lines"):
        load_store(tmp_path / "st", check=False).words  # noqa: B018


def test_ivf_index_saved_with_the_store_and_reused(tmp_path):
    s = _store(n=4000)
    save_store(s, tmp_path / "st")
    first = load_store(tmp_path / "st")
    assert ivf_mod.load_saved_ivf(first) is None  # nothing saved yet
    q = s.vectors[6:106]
    want = first.nearest(q, 10, approx="ivf")  # builds and saves
    assert (tmp_path / "st" / ivf_mod.IVF_FILE).is_file()
    again = load_store(tmp_path / "st")  # another process would start like this
    saved = ivf_mod.load_saved_ivf(again)
    assert saved is not None and saved.ntotal == 4000
    got = again.nearest(q, 10, approx="ivf")
    assert np.array_equal(got[1], want[1]) and np.array_equal(got[0], want[0])
    # a --limit prefix neither uses nor overwrites the whole store's index
    part = load_store(tmp_path / "st", limit=3000)
    assert ivf_mod.load_saved_ivf(part) is None
    before = (tmp_path / "st" / ivf_mod.IVF_FILE).read_bytes()
    part.nearest(q[:3], 5, approx="ivf")
    assert (tmp_path / "st" / ivf_mod.IVF_FILE).read_bytes() == before
    # an index recorded for other content (the store was reinstalled) is not used
    meta = json.loads((tmp_path / "st" / ivf_mod.IVF_META).read_text(encoding="utf-8"))
    meta["checksum"] = "0" * 64
    (tmp_path / "st" / ivf_mod.IVF_META).write_text(json.dumps(meta), encoding="utf-8")
    assert ivf_mod.load_saved_ivf(load_store(tmp_path / "st")) is None
