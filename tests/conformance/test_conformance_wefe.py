"""WEAT, RND, RNSB, ECT, MAC and RIPA equal WEFE 1.0.1's outputs on the same inputs (stored by
``scripts/conformance/wefe_outputs.py``, which ran WEFE itself), to 1e-6."""

from __future__ import annotations

import numpy as np
import pytest
from _expected import load, static_store

from geobias.query import WordQuery

TOL = 1e-6
EXPECTED = load("wefe")["outputs"]


@pytest.mark.parametrize("name", ["career-family", "math-arts"])
def test_the_catalogue_equals_wefe(name):
    from geobias.metrics import weat
    from geobias.metrics.ect import ect
    from geobias.metrics.mac import mac
    from geobias.metrics.ripa import ripa
    from geobias.metrics.rnd import rnd
    from geobias.metrics.rnsb import rnsb

    store, queries = static_store()
    q = queries[name]
    X, Y, A, B = q["X"], q["Y"], q["A"], q["B"]
    T = list(dict.fromkeys([*X, *Y]))
    want = EXPECTED[name]
    w = weat(store, WordQuery(X, Y, A, B), permutations=100, seed=0)
    assert w.statistic == pytest.approx(want["WEAT statistic"], abs=TOL)
    assert w.effect_size_ddof0 == pytest.approx(want["WEAT effect size (ddof 0)"], abs=TOL)
    assert rnd(store, WordQuery(T, None, A, B)).rnd_mean == pytest.approx(want["RND"], abs=TOL)
    assert rnsb(store, WordQuery(X, Y, A, B), seed=0).rnsb == pytest.approx(want["RNSB"], abs=TOL)
    assert ect(store, WordQuery(T, None, A, B)).ect == pytest.approx(want["ECT"], abs=TOL)
    assert mac(store, WordQuery(X, Y, A, B)).mac == pytest.approx(want["MAC"], abs=TOL)
    # WEFE's RIPA: the mean over the pairs (A_i, B_i) of each pair's RIPA, every vector unit
    # (normalize=True normalises the pair words too)
    unit = store.normalized()
    ours = np.mean([ripa(unit, WordQuery.with_pairs(T, [(a, b)])).mean for a, b in zip(A, B, strict=True)])
    assert ours == pytest.approx(want["RIPA"], abs=TOL)


def test_ripa_with_a_lost_word_follows_the_corrected_pairing():
    """WEFE drops a missing attribute word and then pairs the two sets by position, misaligning
    every later pair; geobias uses a pair only when both its words are found, which equals WEFE's
    RIPA on the query with the whole pair left out (the stored corrected figure)."""
    from geobias.metrics.ripa import ripa

    store, queries = static_store()
    q = queries["career-family"]
    want = EXPECTED["ripa-lost-word"]
    T = list(dict.fromkeys([*q["X"], *q["Y"]]))
    pairs = [(a, b) for a, b in zip(want["A"], want["B"], strict=True) if a in store and b in store]
    ours = np.mean([ripa(store.normalized(), WordQuery.with_pairs(T, [p])).mean for p in pairs])
    assert len(pairs) == 4 and ours == pytest.approx(want["RIPA"], abs=TOL)
    assert abs(ours - want["RIPA (WEFE, misaligned)"]) > 1e-3  # the bug changes the figure
