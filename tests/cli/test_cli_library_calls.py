"""The library functions behind thin commands, called directly (no CLI): nearest neighbours,
the aligned-space heuristic of translate-eval, the mitigation runner and the probe TSV reader."""

from __future__ import annotations

import numpy as np
import pytest

from geobias.alignment import looks_aligned
from geobias.contextual.kurita import read_probe_tsv
from geobias.errors import InputError
from geobias.mitigation.runner import needs_english
from geobias.store import VectorStore
from geobias.store.neighbors import nearest_neighbors


def _store(provenance=None, lang="fr"):
    rng = np.random.default_rng(0)
    return VectorStore([f"w{i}" for i in range(12)], rng.standard_normal((12, 8)).astype(np.float32),
                       lang=lang, provenance=provenance or {})


def test_nearest_neighbors_excludes_the_word_and_sorts_by_cosine():
    store = _store({"source": "toy"})
    res = nearest_neighbors(store, "w0", 4)
    words = [n.word for n in res.neighbors]
    assert "w0" not in words and len(words) == 4
    unit = store.vectors / np.linalg.norm(store.vectors, axis=1, keepdims=True)
    cos = unit[1:] @ unit[0]
    expected = [f"w{i + 1}" for i in np.argsort(-cos)[:4]]
    assert words == expected
    sims = [n.similarity for n in res.neighbors]
    assert sims == sorted(sims, reverse=True)
    np.testing.assert_allclose(sims, np.sort(cos)[::-1][:4], atol=1e-5)  # float32 rows
    assert (res.word, res.k, res.lang, res.source) == ("w0", 4, "fr", "toy")


def test_nearest_neighbors_source_falls_back_to_path_then_given_name():
    assert nearest_neighbors(_store({"path": "/x/v.txt"}), "w1", 2).source == "/x/v.txt"
    assert nearest_neighbors(_store(), "w1", 2, source="mine", lang="xx").source == "mine"
    assert nearest_neighbors(_store(), "w1", 2, lang="xx").lang == "xx"


def test_looks_aligned_reads_provenance_only():
    plain = _store({"source": "fr-spacy-md"})
    en = _store({"source": "en-w2v-gnews"}, lang="en")
    assert not looks_aligned(plain, en)
    assert looks_aligned(_store({"source": "muse-fr"}), _store({"source": "muse-en"}, lang="en"))
    assert not looks_aligned(_store({"source": "muse-fr"}), en)  # both sides must be MUSE
    assert looks_aligned(_store({"aligned_to": "en"}), en)
    assert looks_aligned(_store({"transforms": ["procrustes-aligned"]}), en)


@pytest.mark.parametrize("method,en_given,dictionary_given,expected", [
    ("shift-ori", False, False, False),  # works monolingually
    ("shift-ori", True, False, True),
    ("shift-ori", False, True, True),
    ("hybrid-ori", False, False, True),
    ("de-align", False, False, True),
    ("hard-debias", True, True, False),  # English only, never a second store
    ("leace", True, True, False),
    ("inlp-keep-grammar", False, True, False),
])
def test_needs_english(method, en_given, dictionary_given, expected):
    assert needs_english(method, en_given=en_given, dictionary_given=dictionary_given) is expected


def test_needs_english_unknown_method():
    with pytest.raises(InputError, match="unknown mitigation method 'nope'"):
        needs_english("nope")


def test_read_probe_tsv_aliases_and_line_numbers(tmp_path):
    good = tmp_path / "p.tsv"
    good.write_text("Sentence\tPerson\tProfession\nhe is a nurse\the\tnurse\n\nshe is a pilot\tshe\tpilot\n",
                    encoding="utf-8")
    probes = read_probe_tsv(good)
    assert [p.text for p in probes] == ["he is a nurse", "she is a pilot"]  # blank line skipped
    bad = tmp_path / "b.tsv"
    bad.write_text("sentence\ttarget\tattribute\nhe is a nurse\the\tnurse\nshe is here\tshe\n", encoding="utf-8")
    with pytest.raises(InputError, match="line 3: too few fields"):
        read_probe_tsv(bad)
    missing = tmp_path / "m.tsv"
    missing.write_text("sentence\ttarget\nx\ty\n", encoding="utf-8")
    with pytest.raises(InputError, match="missing column"):
        read_probe_tsv(missing)
