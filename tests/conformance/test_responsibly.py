"""Hard debias with Bolukbasi et al.'s lists (``geobias hard-debias --lists bolukbasi``) equals
responsibly's ``GenderBiasWE.debias('hard')`` on the same word2vec subset, on the words both treat
alike (stored by ``scripts/conformance/responsibly_outputs.py``, which ran responsibly 0.1.3): each
profession's and each equalised word's inner products with the original anchor vectors, to 1e-6."""

from __future__ import annotations

import numpy as np
import pytest
from _expected import load

EXPECTED = load("responsibly")


def test_hard_debias_equals_responsibly(installed):
    from geobias import wordlists
    from geobias.mitigation import hard_debias_report

    store = installed("en-w2v-gnews")
    _, debiased = hard_debias_report(store, wordlists.bolukbasi_lists().professions, protect="paper",
                                     lists="bolukbasi")
    anchors = store.lookup(EXPECTED["anchors"], unit=True).vectors.astype(np.float64)
    words = list(EXPECTED["outputs"])
    assert len(EXPECTED["professions"]) == 303 and len(EXPECTED["pairs"]) == 45
    after = debiased.lookup(words, unit=True).vectors.astype(np.float64)
    ours = after @ anchors.T
    theirs = np.array([EXPECTED["outputs"][w] for w in words])
    assert np.abs(ours - theirs).max() == pytest.approx(0.0, abs=1e-6)
    # the professions' he/she gap shrank (their gender component is gone)
    he, she = EXPECTED["anchors"].index("he"), EXPECTED["anchors"].index("she")
    prof = [words.index(w) for w in EXPECTED["professions"]]
    before = store.lookup(EXPECTED["professions"], unit=True).vectors.astype(np.float64) @ anchors.T
    assert np.abs(ours[prof, he] - ours[prof, she]).mean() < 0.5 * np.abs(before[:, he] - before[:, she]).mean()
