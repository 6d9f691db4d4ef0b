"""RNSB's null band: KL is never negative, so it is read against KL on random directions."""

from __future__ import annotations

import numpy as np
import pytest

from geobias.errors import InputError
from geobias.metrics.rnsb import rnsb
from geobias.query import WordQuery
from geobias.store import VectorStore


def _store(bias: float, seed: int = 0) -> tuple[VectorStore, WordQuery]:
    """20 + 20 attribute words split along axis 0; 12 targets, half pushed towards A by ``bias`` (P(B) falls: a large KL)."""
    rng = np.random.default_rng(seed)
    dim = 8
    a = rng.normal(size=(20, dim)) * 0.3
    a[:, 0] += 1.0
    b = rng.normal(size=(20, dim)) * 0.3
    b[:, 0] -= 1.0
    t = rng.normal(size=(12, dim)) * 0.3
    t[:6, 0] += bias
    words = [f"a{i}" for i in range(20)] + [f"b{i}" for i in range(20)] + [f"t{i}" for i in range(12)]
    store = VectorStore(words, np.concatenate([a, b, t]).astype(np.float32))
    return store, WordQuery(words[40:], None, words[:20], words[20:40])


def test_a_biased_query_lies_above_its_null_band_and_an_unbiased_one_inside():
    store, q = _store(bias=1.5)
    biased = rnsb(store, q, null_directions=400)
    assert biased.rnsb > biased.null_band[1] and biased.p_value < 0.01
    store, q = _store(bias=0.0)
    neutral = rnsb(store, q, null_directions=400)
    assert neutral.rnsb > 0  # KL is above 0 without bias ...
    assert neutral.rnsb <= neutral.null_band[1] and neutral.p_value > 0.05  # ... not above its null band


def test_the_null_is_seeded_and_its_p_has_a_monte_carlo_interval():
    store, q = _store(bias=0.5)
    r1, r2 = rnsb(store, q, null_directions=200, seed=3), rnsb(store, q, null_directions=200, seed=3)
    assert r1.p_value == r2.p_value and r1.null_band == r2.null_band
    lo, hi = r1.p_value_ci
    assert lo <= r1.p_value <= hi and r1.null_directions == 200
    assert rnsb(store, q, null_directions=0).p_value is None


def test_the_p_value_is_uniform_under_the_null():
    """Over 100 unbiased data sets (isotropic noise: the null's assumption holds), p < 0.2 in about
    20 % of them (binomial 99.9 % range: 8-34 of 100)."""
    hits = sum(rnsb(*_store(0.0, seed=s), null_directions=199).p_value < 0.2 for s in range(100))
    assert 8 <= hits <= 34


def test_a_bad_count_is_one_clear_error():
    store, q = _store(bias=0.0)
    with pytest.raises(InputError, match="null_directions"):
        rnsb(store, q, null_directions=-1)


def _anisotropic(seed: int) -> tuple[VectorStore, WordQuery]:
    """A vocabulary of 1,000 words whose variance lies mostly along 3 of 40 axes (as real embeddings'
    does), 12 targets drawn like every other word, and A and B 8 words each drawn from the
    vocabulary too: no association of the targets with A rather than B beyond chance."""
    rng = np.random.default_rng(seed)
    scale = np.r_[np.full(3, 3.0), np.full(37, 0.4)]
    vec = rng.normal(size=(1_012, 40)) * scale + np.r_[1.0, np.zeros(39)]
    words = [f"w{i}" for i in range(1_000)] + [f"t{i}" for i in range(12)]
    ab = rng.choice(1_000, 16, replace=False)
    return VectorStore(words, vec.astype(np.float32)), WordQuery(words[1_000:], None, [words[i] for i in ab[:8]],
                                                                  [words[i] for i in ab[8:]])


def test_on_an_anisotropic_vocabulary_the_null_is_the_vocabularys_contrasts_and_holds_its_level():
    """With A and B random words of an anisotropic vocabulary, the null of contrasts of random word
    sets holds its level (p < 0.1 in at most 10 % of data sets; the binomial 99.9 % bound over 80 is
    18; here it is conservative, 1 of 80: the fitted classifier's direction leans less on the axes of
    most variance than a plain contrast of means does), where directions uniform on the sphere, which
    miss the axes that any two word sets differ along, reject in most (69 of 80)."""
    from geobias.metrics import rnsb as module

    hits, iso_hits = 0, 0
    for s in range(80):
        store, q = _anisotropic(s)
        r = rnsb(store, q, null_directions=199)
        assert r.null_kind == "vocabulary"
        hits += r.p_value < 0.1
        small = store.subset(dict.fromkeys([*[f"w{i}" for i in range(150)], *q.A, *q.B, *q.X]))
        iso = rnsb(small, q, null_directions=199)  # 150 other words: fewer than MIN_VOCABULARY
        assert iso.null_kind == "isotropic" and module.MIN_VOCABULARY > 150
        iso_hits += iso.p_value < 0.1
    assert hits <= 18 and iso_hits >= 40, (hits, iso_hits)
