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
