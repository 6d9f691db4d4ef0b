"""The LDA's baselines (chance and spelling, on the same folds) and the Dutch common-vs-neuter d_g."""

from __future__ import annotations

import numpy as np
import pytest

from geobias import wordlists
from geobias.directions import GrammaticalDirection, gender_directions
from geobias.store import VectorStore

pytestmark = pytest.mark.metrics


def test_spelling_baseline_sees_what_the_vectors_hide():
    # the gender is in the ending (-o / -a) and nowhere in the vectors: the LDA is near chance,
    # the suffix baseline perfect, the majority class 0.5 on the balanced classes
    rng = np.random.default_rng(0)
    masc = [f"w{i}o" for i in range(60)]
    fem = [f"w{i}a" for i in range(60)]
    store = VectorStore(masc + fem, rng.normal(size=(120, 8)).astype(np.float32))
    g = GrammaticalDirection(cv=5, random_state=0).fit(store, masc, fem)
    assert g.baselines_["majority"]["accuracy"] == 0.5
    assert g.baselines_["orthographic"]["accuracy"] == 1.0
    assert len(g.baselines_["orthographic"]["folds"]) == 5
    assert g.cv_accuracy_ < 0.75


def test_baselines_use_the_same_folds_as_the_lda():
    # an unbalanced run: the majority rate per fold is the share of the training majority in that test fold
    rng = np.random.default_rng(1)
    masc, fem = [f"m{i}x" for i in range(30)], [f"f{i}x" for i in range(20)]
    vecs = rng.normal(size=(50, 6))
    vecs[:30, 0] += 3.0
    store = VectorStore(masc + fem, vecs.astype(np.float32))
    g = GrammaticalDirection(cv=5, random_state=0, balance=False).fit(store, masc, fem)
    assert g.baselines_["majority"]["accuracy"] == pytest.approx(0.6)
    assert g.cv_accuracy_ > 0.9 > g.baselines_["orthographic"]["accuracy"]


def test_dutch_d_g_separates_common_from_neuter_nouns():
    rng = np.random.default_rng(2)
    common = wordlists.nouns_of_gender("nl", "common")[:80]
    neuter = wordlists.nouns_of_gender("nl", "neuter")[:80]
    pairs = wordlists.definitional_pairs("nl")
    words = list(dict.fromkeys([*common, *neuter, *(w for p in pairs for w in p)]))
    vecs = rng.normal(size=(len(words), 16))
    idx = {w: i for i, w in enumerate(words)}
    for w in common:
        vecs[idx[w], 1] += 5.0
    store = VectorStore(words, vecs.astype(np.float32))
    d = gender_directions(store, "nl", oov="ignore")
    assert d.classes == ("common", "neuter")
    assert set(d.n_nouns) == {"common", "neuter"} and d.n_nouns["common"] == d.n_nouns["neuter"] > 60
    assert d.lda_cv_accuracy > 0.9 and d.note is None
    assert abs(d.d_g[1]) > 0.9 and d.d_g[1] > 0  # common nouns on the positive side
