
import numpy as np
import pytest
from _envelope import result_of

from geobias import VectorStore
from geobias.errors import InputError, OutOfVocabularyError
from geobias.store import load_store, save_store


def make(n=50, d=8, seed=0):
    rng = np.random.default_rng(seed)
    return VectorStore([f"w{i}" for i in range(n)], rng.normal(size=(n, d)), lang="en")


def test_layout_and_readonly():
    s = make()
    assert s.vectors.dtype == np.float32 and s.vectors.flags.c_contiguous
    assert not s.vectors.flags.writeable
    with pytest.raises(ValueError):
        s.vectors[0, 0] = 1.0
    assert s["w3"].shape == (8,) and s[["w1", "w2"]].shape == (2, 8)
    assert "w3" in s and "zzz" not in s
    # unit vectors have norm 1 (float32 rounding: 1e-6 relative)
    np.testing.assert_allclose(np.linalg.norm(s.unit_vectors, axis=1), 1.0, atol=1e-6)


def test_input_array_not_aliased():
    data = np.ones((2, 3), dtype=np.float32)
    s = VectorStore(["a", "b"], data)
    data[0, 0] = 5.0
    assert s["a"][0] == 1.0


@pytest.mark.parametrize(
    "words,vectors,match",
    [
        (["a", "a"], np.ones((2, 2)), "duplicate word 'a'"),
        (["a", "b"], np.array([[1.0, np.nan], [0, 1]]), "NaN or inf"),
        (["a"], np.ones((2, 2)), "must match"),
        ([], np.ones((0, 2)), "empty"),
    ],
)
def test_bad_input(words, vectors, match):
    with pytest.raises(InputError, match=match):
        VectorStore(words, vectors)


def test_with_vectors_shares_the_vocabulary_and_checks_the_rows():
    s = make()
    data = np.arange(50 * 3, dtype=np.float32).reshape(50, 3)
    t = s.with_vectors(data, note="test")
    assert t.words == s.words and t.index == s.index and t.dim == 3 and t.lang == "en"
    assert t.provenance["transforms"][-1] == "test" and "transforms" not in s.provenance
    data[0, 0] = -1.0  # the caller's array is copied, the new store read-only
    assert t["w0"][0] == 0.0 and not t.vectors.flags.writeable
    bad = np.ones((50, 3))
    bad[7, 1] = np.inf
    with pytest.raises(InputError, match="1 vector row.*NaN or inf.*'w7'"):
        s.with_vectors(bad)
    with pytest.raises(InputError, match="50 words but 49 vector rows"):
        s.with_vectors(np.ones((49, 3)))
    with pytest.raises(InputError, match="2-D"):
        s.with_vectors(np.ones(50))


def test_oov_policy():
    s = make()
    with pytest.raises(OutOfVocabularyError) as exc:
        s.lookup(["w1", "nope", "nada"])
    assert exc.value.words == ["nope", "nada"]
    lk = s.lookup(["w1", "nope"], oov="ignore")
    assert lk.words == ["w1"] and lk.missing == ["nope"]
    with pytest.raises(InputError, match="oov must be one of"):
        s.lookup(["w1"], oov="drop")


def test_nearest_matches_bruteforce():
    s = make(200, 16)
    sims = s.unit_vectors @ s.unit_vectors[7]
    expected = [s.words[i] for i in np.argsort(-sims) if i != 7][:5]
    assert [w for w, _ in s.most_similar("w7", 5)] == expected


def test_exact_search_is_faiss_flat_index_search_to_the_bit_without_its_copy():
    """The flat search runs over the cached unit rows in place: the same similarities and rows, bit
    for bit, as a faiss IndexFlatIP holding its own copy, for one query and for a batch past faiss's
    BLAS threshold, ties included."""
    import faiss

    s = make(3000, 24)
    vectors = s.vectors.copy()
    vectors[11] = vectors[10]  # a tie: two identical rows
    s = VectorStore(s.words, vectors, lang="en")
    index = faiss.IndexFlatIP(s.dim)
    index.add(np.ascontiguousarray(s.unit_vectors))
    for q in (s.unit_vectors[10:11], np.ascontiguousarray(s.unit_vectors[:40]) * 3.0):
        got = s.nearest(q, 12)
        norm = np.linalg.norm(q, axis=1, keepdims=True)
        want = index.search(np.ascontiguousarray(q / norm, dtype=np.float32), 12)
        assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])
    assert not any(isinstance(v, faiss.Index) for v in vars(s).values())  # the store holds no index copy


def test_cache_roundtrip(tmp_path):
    s = make()
    save_store(s, tmp_path / "st")
    t = load_store(tmp_path / "st")
    assert t.words == s.words and np.array_equal(t.vectors, s.vectors) and t.lang == "en"
    with pytest.raises(InputError, match="already exists"):
        save_store(s, tmp_path / "st")
    assert load_store(tmp_path / "st", limit=5).words == s.words[:5]


def test_keyedvectors_roundtrip():
    s = make()
    kv = s.to_keyedvectors()
    assert kv.vectors.shape == s.vectors.shape
    back = VectorStore.from_keyedvectors(kv)
    assert back.words == s.words and np.array_equal(back.vectors, s.vectors)


def _damage(cache):
    """Overwrite row 1 of vectors.npy with NaN in place: same size, so load_store cannot tell."""
    arr = np.load(cache / "vectors.npy", mmap_mode="r+")
    arr[1] = np.nan
    arr.flush()
    del arr


def test_load_and_verify_catch_damage_in_place(tmp_path):
    from geobias.errors import VectorFormatError
    from geobias.store import verify_store

    cache = save_store(VectorStore(["a", "b", "c"], np.eye(3, dtype=np.float32)), tmp_path / "s")
    sha = verify_store(cache)
    assert len(sha) == 64
    _damage(cache)
    with pytest.raises(VectorFormatError, match="damaged on disk"):
        load_store(cache)  # the cheap on-open check sees it
    assert np.isnan(load_store(cache, check=False).vectors[1]).all()
    with pytest.raises(VectorFormatError, match="sha256 .* but meta.json records"):
        verify_store(cache)


def test_cli_verify_and_install_refuse_a_damaged_store(tmp_path, capsys, monkeypatch):
    from geobias.cli import main

    monkeypatch.setenv("GEOBIAS_VECTORS_DIR", str(tmp_path / "installed"))
    monkeypatch.delenv("GEOBIAS_DEBUG", raising=False)
    vec = tmp_path / "wiki.multi.es.vec"
    rows = np.random.default_rng(0).standard_normal((4, 300)).astype(np.float32)
    vec.write_text("4 300\n" + "".join(f"w{i} " + " ".join(map(str, r)) + "\n" for i, r in enumerate(rows)),
                   encoding="utf-8")

    def run(*args):
        with pytest.raises(SystemExit) as info:
            main(list(args))
        return info.value.code, capsys.readouterr()

    assert run("vectors", "install", "muse-es", "--from", str(vec))[0] == 0
    cache = tmp_path / "installed" / "muse-es"
    for target in ("muse-es", str(cache)):
        code, (out, _) = run("vectors", "info", target, "--verify", "--json")
        assert code == 0 and result_of(out)["sha256_ok"] is True
    _damage(cache)
    for args in (("vectors", "info", "muse-es", "--verify"), ("vectors", "info", str(cache), "--verify"),
                 ("vectors", "install", "muse-es")):
        code, (_, err) = run(*args)
        assert code == 1 and len(err.strip().splitlines()) == 1 and "damaged" in err, err
    assert run("vectors", "install", "muse-es", "--force", "--from", str(vec))[0] == 0
    assert run("vectors", "info", "muse-es", "--verify")[0] == 0
