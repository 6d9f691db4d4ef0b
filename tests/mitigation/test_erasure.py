"""Concept erasure: LEACE, INLP and their grammar-keeping variants, tested as
geometric properties on a synthetic space whose truth is known (concept-erasure style)."""

from __future__ import annotations

import numpy as np
import pytest

from geobias.errors import InputError, NotFittedError
from geobias.mitigation import (
    METHODS,
    ErasureProjection,
    Inlp,
    InlpKeepGrammar,
    Leace,
    LeaceKeepGrammar,
    get_method,
)
from geobias.store import VectorStore

DIM = 20
ERASERS = [Leace, LeaceKeepGrammar, Inlp, InlpKeepGrammar]


def make_space(seed: int = 0, n_nouns: int = 600, n_persons: int = 80, n_filler: int = 200):
    """A space with a known grammatical axis e0 and a semantic-only axis e1.

    Inanimate nouns: x = 0.6 g e0 + noise (g = ±1 grammatical gender). Person words:
    x = s (0.5 e0 + 0.4 e1) + noise — as in French, a person noun's semantic gender also shows
    on the grammatical axis. Noise: N(0, 0.25² I). Returns the store, the labelled person and
    noun lists (train/test halves) and the truth axes.
    """
    rng = np.random.default_rng(seed)
    e0, e1 = np.eye(DIM)[0], np.eye(DIM)[1]
    words, rows = [], []
    nouns_m, nouns_f, pers_m, pers_f = [], [], [], []
    for i in range(n_nouns):
        g = 1 if i % 2 == 0 else -1
        words.append(f"noun{i}")
        rows.append(0.6 * g * e0 + 0.25 * rng.standard_normal(DIM))
        (nouns_m if g > 0 else nouns_f).append(f"noun{i}")
    for i in range(n_persons):
        s = 1 if i % 2 == 0 else -1
        words.append(f"person{i}")
        rows.append(s * (0.5 * e0 + 0.4 * e1) + 0.25 * rng.standard_normal(DIM))
        (pers_m if s > 0 else pers_f).append(f"person{i}")
    for i in range(n_filler):
        words.append(f"w{i}")
        rows.append(0.4 * rng.standard_normal(DIM))
    store = VectorStore(words, np.asarray(rows), lang="xx")
    return store, (pers_m, pers_f), (nouns_m, nouns_f), (e0, e1)


@pytest.fixture(scope="module")
def space():
    return make_space()


def _fit(cls, space, **kw):
    store, (pm, pf), (nm, nf), _ = space
    half = len(nm) // 2
    if getattr(cls, "keeps_grammar", False):
        kw.setdefault("grammatical_masculine", nm[:half])
        kw.setdefault("grammatical_feminine", nf[:half])
    return cls(masculine=pm, feminine=pf, **kw).fit(store)


def _probe_acc(train_x, train_y, test_x, test_y):
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression(max_iter=2000).fit(train_x, train_y).score(test_x, test_y)


# ---------------------------------------------------------------- contract and artefact
def test_registered():
    for name, cls in (("leace", Leace), ("leace-keep-grammar", LeaceKeepGrammar), ("inlp", Inlp),
                      ("inlp-keep-grammar", InlpKeepGrammar)):
        assert METHODS[name] is cls and get_method(name) is cls and cls.name == name


@pytest.mark.parametrize("cls", ERASERS)
def test_contract(cls, space):
    store = space[0]
    est = cls()
    with pytest.raises(NotFittedError):
        est.transform(store)
    before = store.vectors.copy()
    fitted = _fit(cls, space)
    out = fitted.transform(store)
    np.testing.assert_array_equal(store.vectors, before)  # input unchanged
    assert out is not store and out.words == store.words and not out.vectors.flags.writeable
    assert out.provenance["transforms"][-1] == cls.name
    # idempotent: r∘r = r (float32 storage of the first output: ~1e-7 per coordinate)
    np.testing.assert_allclose(fitted.transform(out).vectors, out.vectors, atol=2e-6)
    with pytest.raises(InputError, match="dimension"):
        fitted.transform(VectorStore(["a", "b"], np.ones((2, DIM + 1))))
    assert "removes rank" in str(fitted.projection_)


@pytest.mark.parametrize("cls", ERASERS)
def test_projection_roundtrip_and_reuse(cls, space, tmp_path):
    fitted = _fit(cls, space)
    p = fitted.projection_
    path = tmp_path / "p.npz"
    p.save(path)
    q = ErasureProjection.load(path)
    for a in ("left", "right", "bias", "kept"):
        np.testing.assert_array_equal(getattr(p, a), getattr(q, a))
    assert q.method == cls.name and q.source_words == p.source_words
    with pytest.raises(InputError):
        p.save(path)  # nothing the user owns is overwritten
    other = VectorStore(["x", "y", "z"], np.random.default_rng(5).standard_normal((3, DIM)))
    np.testing.assert_allclose(fitted.transform(other).vectors, q.apply(other.vectors), atol=1e-6)
    # the artefact is an affine map x − L R (x − b) with an idempotent removed part
    M = p.left @ p.right
    np.testing.assert_allclose(M @ M, M, atol=1e-8)
    assert p.to_dict()["rank"] == p.rank >= 1


def test_load_rejects_other_files(tmp_path):
    bad = tmp_path / "x.npz"
    np.savez(bad, a=np.ones(3))
    with pytest.raises(InputError, match="not an erasure projection"):
        ErasureProjection.load(bad)
    with pytest.raises(InputError, match="no such file"):
        ErasureProjection.load(tmp_path / "missing.npz")


def test_bad_words(space):
    store = space[0]
    with pytest.raises(InputError, match="both"):
        Leace(masculine=["person0", "person2"], feminine=["person0", "person1"]).fit(store)
    with pytest.raises(InputError, match="fit word"):
        Leace(masculine=["person0", "nope"], feminine=["person1", "person3"]).fit(store)
    with pytest.raises(InputError, match="neither"):
        Leace(masculine=["person0"]).fit(store)
    with pytest.raises(InputError, match="grammatically gendered nouns"):
        LeaceKeepGrammar(masculine=["person0", "person2"], feminine=["person1", "person3"]).fit(store)
    with pytest.raises(ValueError, match="svm"):
        Inlp(masculine=space[1][0], feminine=space[1][1], classifier="tree").fit(store)


# ---------------------------------------------------------------- LEACE guardedness
def test_leace_equalises_class_means_on_fit_words(space):
    store, (pm, pf), _, _ = space
    out = _fit(Leace, space).transform(store)
    gap_before = np.linalg.norm(store[pm].mean(0) - store[pf].mean(0))
    gap_after = np.linalg.norm(out[pm].astype(np.float64).mean(0) - out[pf].astype(np.float64).mean(0))
    assert gap_before > 0.5  # the concept was there (|0.5 e0 + 0.4 e1| * 2 ≈ 1.28)
    assert gap_after < 1e-5  # and its linear signal is gone (float32 rows)


def test_no_linear_classifier_beats_chance_after_leace():
    """Fit LEACE on many draws, then train a fresh probe on erased draws and test it on other
    erased draws: accuracy within 0.04 of chance (4 standard errors at n = 2000 test rows)."""
    rng = np.random.default_rng(1)
    d, n = 10, 4000
    mu = np.zeros(d)
    mu[:3] = [0.8, -0.5, 0.3]
    z = rng.integers(0, 2, n)
    X = rng.standard_normal((n, d)) + np.outer(2 * z - 1, mu)
    words = [f"w{i}" for i in range(n)]
    store = VectorStore(words, X)
    tr, te = np.arange(n // 2), np.arange(n // 2, n)
    est = Leace(masculine=[words[i] for i in tr if z[i]], feminine=[words[i] for i in tr if not z[i]]).fit(store)
    Xe = est.transform(store).vectors.astype(np.float64)
    assert _probe_acc(X[tr], z[tr], X[te], z[te]) > 0.8  # learnable before
    assert abs(_probe_acc(Xe[tr], z[tr], Xe[te], z[te]) - 0.5) < 0.04


# ---------------------------------------------------------------- keeping grammar
@pytest.mark.parametrize("cls", [LeaceKeepGrammar, InlpKeepGrammar])
def test_keep_grammar_leaves_the_grammatical_subspace_exactly(cls, space):
    store = space[0]
    est = _fit(cls, space)
    U = est.projection_.kept
    assert U.shape == (1, DIM)
    np.testing.assert_allclose(np.abs(U[0] @ space[3][0]), 1.0, atol=0.05)  # LDA found e0
    out = est.transform(store)
    np.testing.assert_allclose(out.vectors @ U.T, store.vectors @ U.T, atol=1e-5)  # float32 rows
    np.testing.assert_allclose(U @ est.projection_.left, 0.0, atol=1e-10)  # removed directions ⊥ G


def test_keep_grammar_erases_semantics_outside_the_subspace_only(space):
    store, (pm, pf), _, (e0, e1) = space
    est = _fit(LeaceKeepGrammar, space)
    U = est.projection_.kept
    out = est.transform(store)
    gap = out[pm].astype(np.float64).mean(0) - out[pf].astype(np.float64).mean(0)
    inside = U.T @ (U @ gap)
    assert np.linalg.norm(gap - inside) < 1e-5  # nothing left outside G (property 2)
    assert np.linalg.norm(inside) > 0.4  # and what lies along G stays (property 3): ≈ 2 * 0.5
    # with the true grammatical axis given, the semantic-only axis is clean and the gap along
    # e0 is exactly the original one
    exact = _fit(LeaceKeepGrammar, space, grammatical=e0)
    out = exact.transform(store)
    gap = out[pm].astype(np.float64).mean(0) - out[pf].astype(np.float64).mean(0)
    gap0 = store[pm].astype(np.float64).mean(0) - store[pf].astype(np.float64).mean(0)
    assert abs(gap @ e1) < 1e-5
    assert abs(gap @ e0 - gap0 @ e0) < 1e-5
    np.testing.assert_allclose(gap, (gap0 @ e0) * e0, atol=1e-5)


@pytest.mark.parametrize("keep, plain", [(LeaceKeepGrammar, Leace), (InlpKeepGrammar, Inlp)])
def test_grammatical_accuracy_kept_where_plain_erasure_loses_it(keep, plain, space):
    """Frozen grammatical probe (trained on the original nouns) on held-out nouns: within 0.01 of
    its original accuracy after the keep-grammar variant; the plain eraser, whose direction
    overlaps the grammatical axis (0.5 e0 + 0.4 e1), costs more than that."""
    store, _, (nm, nf), _ = space
    half = len(nm) // 2
    tr, te = nm[:half] + nf[:half], nm[half:] + nf[half:]
    y_tr = np.r_[np.ones(half), np.zeros(half)]
    y_te = np.r_[np.ones(len(nm) - half), np.zeros(len(nf) - half)]
    from sklearn.linear_model import LogisticRegression

    frozen = LogisticRegression(max_iter=2000).fit(store[tr], y_tr)
    acc0 = frozen.score(store[te], y_te)
    acc_keep = frozen.score(_fit(keep, space).transform(store)[te], y_te)
    acc_plain = frozen.score(_fit(plain, space).transform(store)[te], y_te)
    assert acc0 > 0.95
    assert abs(acc_keep - acc0) <= 0.01
    assert acc_plain < acc0 - 0.05


# ---------------------------------------------------------------- INLP
def test_inlp_is_an_orthogonal_projection_and_stops_at_chance(space):
    est = _fit(Inlp, space, n_iterations=10)
    p = est.projection_
    B = p.left
    np.testing.assert_allclose(B.T @ B, np.eye(B.shape[1]), atol=1e-10)  # orthonormal directions
    P = p.matrix()
    np.testing.assert_allclose(P, P.T, atol=1e-12)
    np.testing.assert_allclose(P @ P, P, atol=1e-10)
    accs = p.info["dev_accuracies"]
    assert accs[0] > 0.9  # learnable at first
    assert accs[-1] <= p.info["majority_rate"] + 0.05  # stopped at chance
    assert p.info["n_iterations"] == len(accs) - 1 and p.info["stopped"] == "chance"
    fixed = _fit(Inlp, space, n_iterations=3, stop_at_chance=False)
    assert fixed.projection_.rank == 3


def test_inlp_keep_grammar_directions_are_orthogonal_to_grammar(space):
    est = _fit(InlpKeepGrammar, space)
    np.testing.assert_allclose(est.projection_.kept @ est.projection_.left, 0.0, atol=1e-10)
