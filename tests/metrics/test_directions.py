"""Gender directions as geometric properties on synthetic stores with planted directions."""

from __future__ import annotations

import json

import numpy as np
import pytest

from geobias.directions import (
    GenderSubspace,
    GrammaticalDirection,
    SemanticDirection,
    gender_directions,
    orthogonalize,
)
from geobias.errors import InputError, NotFittedError, OutOfVocabularyError
from geobias.store import VectorStore

DIM = 40


def _unit(v):
    return v / np.linalg.norm(v)


@pytest.fixture
def planted():
    """Store with a semantic direction (axis 0 + a bit of axis 1) and a grammatical one (axis 1).

    20 definitional pairs differ along ``sem``; 150 masculine / 100 feminine nouns differ
    along ``gram``. Noise is small against the planted offsets.
    """
    rng = np.random.default_rng(0)
    sem = _unit(np.eye(DIM)[0] + 0.4 * np.eye(DIM)[1])
    gram = np.eye(DIM)[1]
    words, rows, pairs = [], [], []
    for i in range(20):
        base = rng.normal(size=DIM)
        words += [f"f{i}", f"m{i}"]
        rows += [base - 0.6 * sem + 0.02 * rng.normal(size=DIM), base + 0.6 * sem + 0.02 * rng.normal(size=DIM)]
        pairs.append((f"f{i}", f"m{i}"))
    masc = [f"nm{i}" for i in range(150)]
    fem = [f"nf{i}" for i in range(100)]
    for w in masc:
        words.append(w)
        rows.append(rng.normal(size=DIM) + 2.5 * gram)
    for w in fem:
        words.append(w)
        rows.append(rng.normal(size=DIM) - 2.5 * gram)
    store = VectorStore(words, np.array(rows), lang="fr")
    return store, pairs, masc, fem, sem, gram


def test_semantic_direction_recovers_planted_direction(planted):
    store, pairs, *_ , sem, _ = planted
    est = SemanticDirection(normalize=False).fit(store, pairs)
    d = est.direction_
    assert d.dtype == np.float32 and np.linalg.norm(d) == pytest.approx(1, abs=1e-6)
    # noise 0.02 per coordinate vs offset 0.6: the first PC is within a few degrees
    assert float(d @ sem) > 0.99
    assert est.explained_variance_ratio_[0] > 0.9
    # rank of the centred rows is at most the number of pairs
    assert len(est.explained_variance_ratio_) == 10
    assert est.explained_variance_ratio_.sum() <= 1 + 1e-9


def test_orientation_masculine_positive(planted):
    store, pairs, *_ = planted
    swapped = [(m, f) for f, m in pairs]  # now the "male" side is the planted feminine side
    d1 = SemanticDirection().fit(store, pairs).direction_
    d2 = SemanticDirection().fit(store, swapped).direction_
    np.testing.assert_allclose(d1, -d2, atol=1e-5)  # same axis, opposite orientation
    unit = store.unit_vectors
    proj = unit[[store.index[m] for _, m in pairs]] @ d1 - unit[[store.index[f] for f, _ in pairs]] @ d1
    assert proj.mean() > 0


def test_pair_centring_is_exact():
    """One pair: rows ±(m − f)/2, so the direction is exactly (m − f)/|m − f| (not Zhou's a + b/2)."""
    f, m = np.array([1.0, 2.0, 0.0, 0.0]), np.array([3.0, 1.0, 1.0, 0.0])
    store = VectorStore(["f", "m", "x"], np.array([f, m, [0, 0, 0, 1.0]]))
    est = SemanticDirection(normalize=False).fit(store, [("f", "m")])
    np.testing.assert_allclose(est.direction_, _unit(m - f), atol=1e-6)
    assert est.explained_variance_ratio_[0] == pytest.approx(1.0)
    # a centre of f + m/2 would not be symmetric: check the result does not depend on a shift
    shifted = VectorStore(["f", "m", "x"], np.array([f + 5, m + 5, [0, 0, 0, 1.0]]))
    est2 = SemanticDirection(normalize=False).fit(shifted, [("f", "m")])
    np.testing.assert_allclose(est2.direction_, est.direction_, atol=1e-6)


def test_lda_on_separable_classes(planted):
    store, _, masc, fem, _, gram = planted
    est = GrammaticalDirection(cv=5, random_state=0).fit(store, masc, fem)
    assert est.cv_accuracy_ > 0.98  # classes 5 sd apart along one axis
    assert est.cv_fold_accuracy_.shape == (5,)
    assert est.n_nouns_ == {"masculine": 100, "feminine": 100}  # balanced by down-sampling
    assert float(est.direction_ @ gram) > 0.8  # masculine positive, along the planted axis
    assert np.linalg.norm(est.direction_) == pytest.approx(1, abs=1e-6)
    unbalanced = GrammaticalDirection(balance=False).fit(store, masc, fem)
    assert unbalanced.n_nouns_ == {"masculine": 150, "feminine": 100}
    capped = GrammaticalDirection(max_per_class=30).fit(store, masc, fem)
    assert capped.n_nouns_ == {"masculine": 30, "feminine": 30}


def test_lda_same_seed_same_result(planted):
    store, _, masc, fem, *_ = planted
    a = GrammaticalDirection(random_state=4).fit(store, masc, fem)
    b = GrammaticalDirection(random_state=4).fit(store, masc, fem)
    np.testing.assert_array_equal(a.direction_, b.direction_)
    assert a.cv_accuracy_ == b.cv_accuracy_


def test_lda_on_random_labels_is_near_chance():
    rng = np.random.default_rng(1)
    words = [f"w{i}" for i in range(400)]
    store = VectorStore(words, rng.normal(size=(400, 10)))
    est = GrammaticalDirection().fit(store, words[:200], words[200:])
    assert 0.35 < est.cv_accuracy_ < 0.65  # no signal: chance level ± ~4 sd of 400 draws


def test_orthogonalize(planted):
    store, pairs, masc, fem, *_ = planted
    d_pca = SemanticDirection().fit(store, pairs).direction_
    d_g = GrammaticalDirection().fit(store, masc, fem).direction_
    d_s = orthogonalize(d_pca, d_g)
    assert abs(float(d_s.astype(np.float64) @ d_g.astype(np.float64))) < 1e-6  # float32 rounding
    assert np.linalg.norm(d_s) == pytest.approx(1, abs=1e-6)
    assert float(d_s @ d_pca) > 0
    with pytest.raises(InputError, match="parallel"):
        orthogonalize(d_g, d_g)


def test_not_fitted_errors():
    for est in (SemanticDirection(), GrammaticalDirection()):
        with pytest.raises(NotFittedError):
            est.direction_  # noqa: B018
        with pytest.raises(NotFittedError):
            est.project(np.zeros((2, 3)))
    # scikit-learn's repr: only the parameters that differ from their defaults
    assert repr(SemanticDirection(5)) == "SemanticDirection(n_components=5)"
    assert SemanticDirection(5).get_params() == {"n_components": 5, "normalize": True, "oov": "raise"}


def test_fit_returns_self_and_does_not_mutate_store(planted):
    store, pairs, masc, fem, *_ = planted
    before = store.vectors.copy()
    est = SemanticDirection()
    assert est.fit(store, pairs) is est
    g = GrammaticalDirection()
    assert g.fit(store, masc, fem) is g
    np.testing.assert_array_equal(store.vectors, before)


def test_oov_policy(planted):
    store, pairs, masc, fem, *_ = planted
    with pytest.raises(OutOfVocabularyError) as err:
        SemanticDirection().fit(store, [*pairs, ("reine", "roi")])
    assert err.value.words == ["reine", "roi"]
    est = SemanticDirection(oov="ignore").fit(store, [*pairs, ("reine", "m0")])
    assert est.missing_ == ["reine"] and len(est.pairs_) == 20
    with pytest.raises(InputError, match="out of vocabulary"):
        SemanticDirection(oov="ignore").fit(store, [("a", "b")])
    g = GrammaticalDirection(oov="ignore").fit(store, [*masc, "zzz"], [*fem, "nm0"])
    assert g.missing_ == ["zzz"] and g.ambiguous_ == ["nm0"]
    with pytest.raises(OutOfVocabularyError):
        GrammaticalDirection().fit(store, [*masc, "zzz"], fem)
    with pytest.raises(InputError, match="at least 5"):
        GrammaticalDirection(oov="ignore").fit(store, masc[:3], fem)


def test_subspace_artefact(planted):
    store, pairs, *_ = planted
    sub = SemanticDirection(n_components=3).fit(store, pairs).subspace_
    assert isinstance(sub, GenderSubspace)
    assert sub.components.shape == (3, DIM) and not sub.components.flags.writeable
    np.testing.assert_allclose(sub.components @ sub.components.T, np.eye(3), atol=1e-5)
    proj = sub.project(store.unit_vectors[:4])
    assert proj.shape == (4, 3)
    d = json.loads(sub.to_json())
    assert len(d["components"]) == 3 and d["orientation"].startswith("masculine positive")
    with pytest.raises(InputError):
        sub.project(np.zeros((2, DIM + 1)))


def test_grammatical_subspace_is_what_the_next_stage_consumes(planted):
    """The LDA's frozen artefact carries its direction and CV accuracy; a consumer given the
    subspace or the fitted estimator reads the same thing (fitted_subspace)."""
    from geobias.directions.subspace import fitted_subspace
    from geobias.errors import NotFittedError

    store, _, masc, fem, *_ = planted
    g = GrammaticalDirection().fit(store, masc, fem)
    sub = g.subspace_
    assert sub.cv_accuracy == g.cv_accuracy_ and np.array_equal(sub.direction, g.direction_)
    assert fitted_subspace(sub) is sub and fitted_subspace(g) is sub
    assert fitted_subspace(np.ones(DIM)) is None  # an array is taken as given by the consumer
    with pytest.raises(NotFittedError):
        fitted_subspace(GrammaticalDirection())
    assert SemanticDirection().fit(store, planted[1]).subspace_.cv_accuracy is None


def test_gender_directions_result(planted):
    store, pairs, masc, fem, *_ = planted
    r = gender_directions(store, "fr", pairs=pairs, masculine=masc, feminine=fem)
    assert r.n_nouns == {"masculine": 100, "feminine": 100} and r.n_pairs == 20
    assert r.lda_cv_accuracy > 0.98
    assert r.cos_pca_grammatical == pytest.approx(float(r.d_pca @ r.d_g), abs=1e-6)
    # planted: sem = normalise(e0 + 0.4 e1), gram = e1 → cos ≈ 0.4/sqrt(1.16) = 0.37
    assert 0.25 < r.cos_pca_grammatical < 0.5
    assert r.cos_semantic_pca == pytest.approx(np.sqrt(1 - r.cos_pca_grammatical**2), abs=1e-4)
    d = r.to_dict()
    for key in ("explained_variance_ratio", "lda_cv_accuracy", "n_nouns", "cos_pca_grammatical", "cos_semantic_pca"):
        assert key in d
    assert isinstance(d["explained_variance_ratio"], list)
    en = gender_directions(store, "en", pairs=pairs)  # no grammatical gender, no noun lists
    assert en.d_g is None and en.lda_cv_accuracy is None
    np.testing.assert_array_equal(en.d_s, en.d_pca)
