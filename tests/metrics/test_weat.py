"""WEAT and MWEAT on a tiny fixture whose numbers are computed by hand."""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pytest

from geobias.errors import InputError, OutOfVocabularyError
from geobias.metrics import association, mweat, weat, word_bias
from geobias.query import LostVocabularyError, WordQuery
from geobias.store import VectorStore


@pytest.fixture
def tiny():
    """Unit vectors (except m1, scaled ×2) whose s(w, A, B) = x − y with A = e1, B = e2.

    word  vector            s (cosine)
    x1    (1, 0, 0)         1
    x2    (0.6, 0.8, 0)    -0.2
    y1    (0, 1, 0)        -1
    y2    (0.8, 0.6, 0)     0.2
    m1    (2, 0, 0)         1     (dot: 2)
    m2    (0.6, 0, 0.8)     0.6
    f1    (0.8, 0.6, 0)     0.2
    f2    (0.48, 0.36, 0.8) 0.12
    """
    rows = {
        "he": (1, 0, 0),
        "she": (0, 1, 0),
        "x1": (1, 0, 0),
        "x2": (0.6, 0.8, 0),
        "y1": (0, 1, 0),
        "y2": (0.8, 0.6, 0),
        "m1": (2, 0, 0),
        "m2": (0.6, 0, 0.8),
        "f1": (0.8, 0.6, 0),
        "f2": (0.48, 0.36, 0.8),
        "chose": (0.3, 0.9, 0.3),
    }
    return VectorStore(list(rows), np.array(list(rows.values()), dtype=np.float32), lang="fr")


def test_association_one_product(tiny):
    s = association(tiny, ["x1", "x2", "y1", "y2", "m1"], ["he"], ["she"])
    np.testing.assert_allclose(s, [1, -0.2, -1, 0.2, 1], atol=1e-6)
    dot = association(tiny, ["m1"], ["he"], ["she"], similarity="dot")
    assert dot[0] == pytest.approx(2.0)  # raw dot products: the norm of m1 counts
    # several attribute words: the mean of cosines
    s2 = association(tiny, ["x2"], ["he", "y2"], ["she"])
    assert s2[0] == pytest.approx((0.6 + (0.48 + 0.48)) / 2 - 0.8, abs=1e-6)
    with pytest.raises(OutOfVocabularyError):
        association(tiny, ["nope"], ["he"], ["she"])


def test_weat_hand_computed(tiny):
    r = weat(tiny, WordQuery(["x1", "x2"], ["y1", "y2"], ["he"], ["she"]))
    # Σx s − Σy s = (1 − 0.2) − (−1 + 0.2) = 1.6
    assert r.statistic == pytest.approx(1.6, abs=1e-6)
    # union {1, −0.2, −1, 0.2}: mean 0; ddof=1 var 2.08/3; ddof=0 var 0.52; means ±0.4
    assert r.effect_size_ddof == 1
    assert r.effect_size == pytest.approx(0.8 / math.sqrt(2.08 / 3), abs=1e-6)
    assert r.effect_size_ddof0 == pytest.approx(0.8 / math.sqrt(0.52), abs=1e-6)
    # C(4,2) = 6 partitions; statistics {1.6, 0, 2.4, −2.4, 0, −1.6}: two are ≥ 1.6
    assert r.exact and r.n_permutations == 6
    assert r.p_value == pytest.approx(2 / 6)
    assert r.n_x == r.n_y == 2 and r.missing == []
    assert [w.word for w in r.per_word] == ["x1", "x2", "y1", "y2"]
    two = weat(tiny, WordQuery(["x1", "x2"], ["y1", "y2"], ["he"], ["she"]), alternative="two-sided")
    assert two.p_value == pytest.approx(min(1, 2 * 2 / 6))


def test_weat_monte_carlo_and_seed(rng):
    words = [f"w{i}" for i in range(44)]
    store = VectorStore(words, rng.normal(size=(44, 20)))
    query = WordQuery(words[:20], words[20:40], words[40:42], words[42:])
    a = weat(store, query, permutations=2_000, seed=1)
    b = weat(store, query, permutations=2_000, seed=1)
    assert not a.exact and a.n_permutations == 2_000 and a == b
    assert a.p_value_ci[0] <= a.p_value <= a.p_value_ci[1]
    s = association(store, words[:40], words[40:42], words[42:])
    assert a.statistic == pytest.approx(s[:20].sum() - s[20:].sum(), abs=1e-9)


def test_weat_oov(tiny):
    with pytest.raises(OutOfVocabularyError) as err:
        weat(tiny, WordQuery(["x1", "zz"], ["y1"], ["he", "qq"], ["she"]))
    assert err.value.words == ["zz", "qq"]
    with pytest.raises(LostVocabularyError, match="33% of X"):  # the default rule: WEFE's 20% per set
        weat(tiny, WordQuery(["x1", "x2", "zz"], ["y1", "y2"], ["he"], ["she"]), oov="ignore")
    r = weat(tiny, WordQuery(["x1", "x2", "zz"], ["y1", "y2"], ["he"], ["she"], lost_vocabulary_threshold=0.5, minimum_words=1),
             oov="ignore")
    assert r.missing == ["zz"] and r.n_x == 2
    assert r.statistic == pytest.approx(1.6, abs=1e-6)
    with pytest.raises(InputError, match="100% of X"):
        weat(tiny, WordQuery(["zz", "qq"], ["y1"], ["he"], ["she"], lost_vocabulary_threshold=1, minimum_words=1), oov="ignore")
    with pytest.raises(InputError, match="empty"):
        weat(tiny, WordQuery([], ["y1"], ["he"], ["she"]))
    with pytest.raises(InputError, match="positive"):
        weat(tiny, WordQuery(["x1", "x2"], ["y1"], ["he"], ["she"]), permutations=0)
    # one target word against one: the effect size is ±√2 whatever the vectors, so no figure
    with pytest.raises(InputError, match="at least 3 target words"):
        weat(tiny, WordQuery(["x1"], ["y1"], ["he"], ["she"]))
    # MWEAT likewise with one occupation pair
    with pytest.raises(InputError, match="at least 2 occupation pairs; got 1"):
        mweat(tiny, WordQuery.two_form([("y1", "x1")], ["he"], ["she"]))
    assert mweat(tiny, WordQuery.two_form([("y1", "x1"), ("y2", "x2")], ["he"], ["she"])).n_pairs == 2
    # a word in two sets counts against itself: the query refuses it, whichever two sets
    for sets, said in (((["x1", "x2"], ["x1", "y1"], ["he"], ["she"]), "'x1' is in X and in Y"),
                       ((["x1", "x2"], ["y1"], ["he"], ["he", "she"]), "'he' is in A and in B"),
                       ((["x1", "he"], ["y1"], ["he"], ["she"]), "'he' is in X and in A")):
        with pytest.raises(InputError, match=f"{said}: a word may be in one set only"):
            WordQuery(*sets)
    with pytest.raises(InputError, match="similarity"):
        weat(tiny, WordQuery(["x1"], ["y1"], ["he"], ["she"]), similarity="euclid")


OCC = [("f1", "m1", "one"), ("f2", "m2", "two")]


def test_mweat_hand_computed(tiny):
    r = mweat(tiny, WordQuery.two_form(OCC, ["he"], ["she"]))
    # s: m1 = 1, m2 = 0.6, f1 = 0.2, f2 = 0.12 → | |1.6| − |0.32| | = 1.28
    assert r.statistic == pytest.approx(1.28, abs=1e-6)
    assert r.sum_masculine == pytest.approx(1.6, abs=1e-6)
    assert r.sum_feminine == pytest.approx(0.32, abs=1e-6)
    # 6 partitions of {1, .6, .2, .12}: statistics 1.28, .48, .32, .32, .48, 1.28 → p = 2/6
    assert r.exact and r.n_permutations == 6 and r.p_value == pytest.approx(1 / 3)
    assert r.n_pairs == 2 and r.alternative == "greater" and not r.paired
    b = [p.bias for p in r.per_word]
    np.testing.assert_allclose(b, [0.8, 0.48], atol=1e-6)  # ||s_m| − |s_f||
    assert r.per_word[0].masculine == "m1" and r.per_word[0].english == "one"


def test_mweat_paired(tiny):
    r = mweat(tiny, WordQuery.two_form(OCC, ["he"], ["she"]), paired=True)
    # swaps within pairs: X ∈ {1,.6}, {.2,.6}, {1,.12}, {.2,.12} → 1.28, .32, .32, 1.28
    assert r.paired and r.exact and r.n_permutations == 4
    assert r.p_value == pytest.approx(0.5)
    assert r.statistic == pytest.approx(1.28, abs=1e-6)


def test_mweat_dot_similarity(tiny):
    r = mweat(tiny, WordQuery.two_form(OCC, ["he"], ["she"]), similarity="dot")
    assert r.per_word[0].s_masculine == pytest.approx(2.0)  # |m1| = 2 counts in raw dot products
    assert r.statistic == pytest.approx(abs(2.6 - 0.32), abs=1e-6)


def test_word_bias():
    np.testing.assert_allclose(word_bias([0.3, -0.5]), [0.3, 0.5])  # inanimate nouns: |s(w)|
    np.testing.assert_allclose(word_bias([0.3, -0.5], [-0.1, 0.2]), [0.2, 0.3])
    np.testing.assert_allclose(word_bias([0.3, -0.5], [0.3, 0.2], two_form=[False, True]), [0.3, 0.3])
    with pytest.raises(InputError):
        word_bias([1.0, 2.0], [1.0])


def test_mweat_single_form_noun_bias(tiny):
    r = mweat(tiny, WordQuery.two_form([*OCC, ("chose", "chose", "thing")], ["he"], ["she"]))
    assert r.per_word[2].bias == pytest.approx(abs(0.3 - 0.9) / math.sqrt(0.99), abs=1e-6)


def test_mweat_oov_never_silent(tiny):
    occ = [*OCC, ("reine", "m1", "queen"), ("zz", "qq", "")]
    with pytest.raises(OutOfVocabularyError) as err:
        mweat(tiny, WordQuery.two_form(occ, ["he"], ["she"]))
    assert err.value.words == ["reine", "qq", "zz"]
    with pytest.raises(LostVocabularyError, match="50% of the occupation pairs"):
        mweat(tiny, WordQuery.two_form(occ, ["he", "lui"], ["she"]), oov="ignore")
    r = mweat(tiny, WordQuery.two_form(occ, ["he", "lui"], ["she"], lost_vocabulary_threshold=1, minimum_words=1), oov="ignore")
    assert r.n_pairs == 2 and r.missing == ["reine", "qq", "zz", "lui"]
    assert r.dropped_pairs == [("reine", "m1", "queen"), ("zz", "qq", "")]
    assert r.statistic == pytest.approx(1.28, abs=1e-6)
    d = json.loads(r.to_json())
    assert d["dropped_pairs"][0] == ["reine", "m1", "queen"]
    with pytest.raises(InputError, match="100% of the occupation pairs"):
        mweat(tiny, WordQuery.two_form([("zz", "qq")], ["he"], ["she"], lost_vocabulary_threshold=1, minimum_words=1), oov="ignore")
    with pytest.raises(InputError, match=r"100% of A \(male words\)"):
        mweat(tiny, WordQuery.two_form(OCC, ["lui"], ["she"], lost_vocabulary_threshold=1, minimum_words=1), oov="ignore")
    with pytest.raises(InputError, match="empty"):
        mweat(tiny, WordQuery.two_form([], ["he"], ["she"]))


def test_mweat_many_pairs_statistic(rng):
    n = 58
    words = [f"m{i}" for i in range(n)] + [f"f{i}" for i in range(n)] + ["a1", "a2", "b1", "b2"]
    store = VectorStore(words, rng.normal(size=(len(words), 30)))
    occ = [(f"f{i}", f"m{i}", "") for i in range(n)]
    r = mweat(store, WordQuery.two_form(occ, ["a1", "a2"], ["b1", "b2"]), permutations=10_000, seed=0)
    s = association(store, words[: 2 * n], ["a1", "a2"], ["b1", "b2"])
    assert r.statistic == pytest.approx(abs(abs(s[:n].sum()) - abs(s[n:].sum())), abs=1e-9)
    assert not r.exact and r.n_permutations == 10_000 and r.seed == 0
    # the statistic never exceeds |Σ all s| (fixed under permutation) and reaches it exactly
    # when the two group sums have opposite signs
    assert r.statistic <= abs(s.sum()) + 1e-9
    straddle = np.sign(r.sum_masculine) != np.sign(r.sum_feminine)
    assert straddle == (r.statistic == pytest.approx(abs(s.sum()), abs=1e-9))
    d = r.to_dict()
    assert set(d["per_word"][0]) == {"masculine", "feminine", "english", "s_masculine", "s_feminine", "bias"}


def test_results_embed_the_permutation_test_and_keep_a_flat_json(tiny):
    """WeatResult/MweatResult hold the PermutationResult itself (no copied fields); its figures
    read through, and the JSON form keeps them at the top level (the published schema)."""
    from geobias.stats import PermutationResult, permutation_test
    from geobias.stats.permutation import PERMUTATION_KEYS

    w = weat(tiny, WordQuery(["x1", "x2"], ["y1", "y2"], ["he"], ["she"]))
    m = mweat(tiny, WordQuery.two_form([("f1", "m1"), ("f2", "m2")], ["he"], ["she"]), paired=True)
    for r, stat, paired in ((w, "difference", False), (m, "mweat", True)):
        assert isinstance(r.permutation, PermutationResult)
        again = permutation_test([a.s for a in r.per_word] if r is w else
                                 [p.s_masculine for p in r.per_word] + [p.s_feminine for p in r.per_word],
                                 2, statistic=stat, paired=paired)
        assert r.permutation == again  # the very test, not a copy of some of its fields
        d = r.to_dict()
        assert "permutation" not in d
        for key in PERMUTATION_KEYS:
            assert d[key] == json.loads(json.dumps(r.permutation.to_dict()[key]))
            assert getattr(r, key) == getattr(r.permutation, key)
        own = {f.name for f in dataclasses.fields(r) if f.name != "permutation"}
        assert own <= set(d)  # no field of the result left out of its JSON form
    assert m.to_dict()["paired"] is True and "paired" not in w.to_dict()
