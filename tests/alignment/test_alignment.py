"""Alignment: Procrustes, dictionaries, CSLS retrieval against a dense reference, P@k."""

from __future__ import annotations

import numpy as np
import pytest
from _reference import csls_dense
from scipy.stats import ortho_group

from geobias.alignment import (
    CslsIndex,
    Dictionary,
    ProcrustesAligner,
    identical_dictionary,
    procrustes,
    read_dictionary,
    translation_accuracy,
)
from geobias.alignment.csls import clear_memory
from geobias.errors import InputError, NotFittedError
from geobias.store import VectorStore


def _pair(rng, n=400, dim=20, noise=0.0):
    """A source store and a target store that is an exact rotation (plus noise) of it."""
    x = rng.standard_normal((n, dim)).astype(np.float32)
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    r = ortho_group.rvs(dim, random_state=1)
    y = x @ r + noise * rng.standard_normal((n, dim))
    src = VectorStore([f"s{i}" for i in range(n)], x, lang="fr")
    tgt = VectorStore([f"t{i}" for i in range(n)], y, lang="en")
    return src, tgt, r


def test_procrustes_recovers_known_rotation(rng):
    src, tgt, r = _pair(rng)
    w = procrustes(src.vectors[:100], tgt.vectors[:100])
    np.testing.assert_allclose(w, r, atol=1e-5)  # float32 inputs: ~1e-6 error per entry
    np.testing.assert_allclose(w @ w.T, np.eye(w.shape[0]), atol=1e-10)


def test_aligner_maps_source_onto_target_and_keeps_input(rng):
    src, tgt, _ = _pair(rng, noise=0.01)
    before = src.vectors.copy()
    dico = Dictionary([(f"s{i}", f"t{i}") for i in range(150)] + [("zzz", "t1")])
    aligner = ProcrustesAligner().fit(src, tgt, dico)
    assert aligner.result_.n_oov_pairs == 1 and aligner.result_.n_pairs_used == 150
    out = aligner.transform(src)
    np.testing.assert_array_equal(src.vectors, before)
    cos = np.sum(out.unit_vectors * tgt.unit_vectors, axis=1)
    assert cos.min() > 0.95  # noise 0.01 per coordinate in 20-d: cos ≈ 0.998
    assert out.words == src.words


def test_aligner_refinement_and_centering_run(rng):
    src, tgt, _ = _pair(rng, noise=0.01)
    dico = Dictionary([(f"s{i}", f"t{i}") for i in range(50)])
    aligner = ProcrustesAligner(refine=2, center=True).fit(src, tgt, dico)
    assert len(aligner.result_.refinements) == 2
    assert aligner.result_.refinements[0] > 300  # near-exact rotation: most pairs mutual NN
    out = aligner.transform(src)
    assert translation_accuracy(out, tgt, Dictionary([(f"s{i}", f"t{i}") for i in range(400)]),
                                method="nn").precision["p_at_1"] > 0.95


def test_transform_before_fit():
    src = VectorStore(["a"], np.ones((1, 3)))
    with pytest.raises(NotFittedError):
        ProcrustesAligner().transform(src)


@pytest.mark.parametrize("dense_below", [10**9, 0])  # dense r_S path, and the bound-and-prune path
def test_csls_ranks_equal_bruteforce(rng, dense_below):
    n_s, n_t, dim = 700, 900, 16
    s = rng.standard_normal((n_s, dim)).astype(np.float32)
    t = np.concatenate([s[:300] + 0.3 * rng.standard_normal((300, dim)),
                        rng.standard_normal((n_t - 300, dim))]).astype(np.float32)
    queries = np.arange(0, n_s, 7)
    clear_memory()  # no lists remembered from the other parametrisation
    index = CslsIndex(s, t, k=10, dense_below=dense_below)
    scores, rows = index.search(s[queries], 10)
    ref = csls_dense(s, t, queries, k=10)
    ref_rows = np.argsort(-ref, axis=1, kind="stable")[:, :10]
    ref_scores = np.take_along_axis(ref, ref_rows, axis=1)
    np.testing.assert_allclose(scores, ref_scores, atol=1e-5)  # float32 vs float64 scores
    # rank-by-rank equality where the reference has no near-ties
    gaps = np.diff(ref_scores, axis=1)
    clear = np.all(np.abs(gaps) > 1e-4, axis=1)
    assert clear.mean() > 0.8
    np.testing.assert_array_equal(rows[clear], ref_rows[clear])
    if dense_below == 0:
        assert index.n_exact_r_ < n_t  # pruning actually skipped some targets


def test_translation_accuracy_counts_any_gold_and_coverage(rng):
    src, tgt, r = _pair(rng, n=200, noise=0.0)
    aligned = src.with_vectors(src.vectors @ r)
    pairs = [(f"s{i}", f"t{i}") for i in range(100)] + [("s0", "t5"), ("nope", "t1"), ("s1", "nope")]
    res = translation_accuracy(aligned, tgt, Dictionary(pairs), method="csls")
    assert res.n_queries == 100 and res.n_source_words == 101
    assert res.coverage == pytest.approx(100 / 101)
    assert res.n_oov_pairs == 2
    assert res.precision["p_at_1"] == 1.0
    # a wrong-only gold set gives 0
    res0 = translation_accuracy(aligned, tgt, Dictionary([(f"s{i}", f"t{i + 1}") for i in range(50)]), method="nn")
    assert res0.precision["p_at_1"] == 0.0


def test_read_dictionary_errors(tmp_path):
    good = tmp_path / "d.txt"
    good.write_text("chat cat\nchat\tcat\nchien dog\n\n# comment\n", encoding="utf-8")
    d = read_dictionary(good)
    assert d.pairs == [("chat", "cat"), ("chien", "dog")]
    bad = tmp_path / "bad.txt"
    bad.write_text("chat cat\nchien dog extra\n", encoding="utf-8")
    with pytest.raises(InputError, match="line 2"):
        read_dictionary(bad)
    empty = tmp_path / "e.txt"
    empty.write_text("\n", encoding="utf-8")
    with pytest.raises(InputError, match="no pairs"):
        read_dictionary(empty)
    with pytest.raises(InputError, match="not found"):
        read_dictionary(tmp_path / "missing.txt")


def test_identical_dictionary():
    a = VectorStore(["x", "y", "z"], np.eye(3))
    b = VectorStore(["z", "x", "w"], np.eye(3))
    assert identical_dictionary(a, b).pairs == [("x", "x"), ("z", "z")]
    with pytest.raises(InputError):
        identical_dictionary(a, VectorStore(["q"], np.ones((1, 3))))


def _shared_name_stores():
    """A French and an English store sharing two strings (names), as real vocabularies do."""
    fr = VectorStore(["chat", "chien", "maison", "paris", "london"], np.eye(5, dtype=np.float32), lang="fr")
    en = VectorStore(["cat", "dog", "house", "paris", "london"], np.eye(5, dtype=np.float32), lang="en")
    fr_en = Dictionary([("chat", "cat"), ("chien", "dog"), ("maison", "house"), ("paris", "paris"),
                        ("london", "london")], "fr-en.txt")
    return fr, en, fr_en


def test_dictionary_in_the_wrong_order_is_refused_though_identical_strings_resolve():
    """An en-fr file given where fr-en belongs still has its identical strings in vocabulary (2 of 5
    pairs here; 912 of 10,866 for MUSE's en-fr on fr-spacy-md / en-w2v-gnews): refused by name."""
    from geobias.alignment import resolve

    fr, en, fr_en = _shared_name_stores()
    en_fr = fr_en.inverted()
    for call in (lambda: resolve(en_fr, fr, en), lambda: ProcrustesAligner().fit(fr, en, en_fr),
                 lambda: translation_accuracy(fr, en, en_fr, method="nn", ks=(1,))):
        with pytest.raises(InputError, match=r"looks reversed: 2 of its 5 pairs .* 5 the other way round; "
                                             r"give the fr→en pairs"):
            call()
    assert len(resolve(fr_en, fr, en).src_rows) == 5  # the right order resolves every pair
    assert len(resolve(identical_dictionary(fr, en), fr, en).src_rows) == 2  # reads the same both ways


def test_order_check_refuses_only_beyond_twice_as_many_reversed():
    """The boundary of REVERSED_ORDER_FACTOR (2): 2 in order and 4 reversed passes, 5 reversed does not."""
    from geobias.alignment import check_language_order

    fr, en, _ = _shared_name_stores()
    four = Dictionary([("cat", "chat"), ("dog", "chien"), ("paris", "paris"), ("london", "london")], "d")
    check_language_order(four, fr, en, 2)  # paris, london in order; 4 reversed = 2 × 2: accepted
    five = Dictionary([*four.pairs, ("house", "maison")], "d")
    with pytest.raises(InputError, match="looks reversed"):
        check_language_order(five, fr, en, 2)
