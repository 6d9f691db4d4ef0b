"""SEAT on a test file equals sent-bias's ``weat.py`` (May et al. 2019) on the same sentence
vectors: effect size to 1e-6, the exact permutation p-value (outputs stored by
``scripts/conformance/sentbias_outputs.py``, which ran the authors' module)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from _expected import load

INPUTS = load("seat_inputs")
EXPECTED = load("sentbias")["outputs"]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_seat_on_a_file_equals_sent_bias(name):
    from geobias.metrics.seat import parse_seat_test, seat_sentences

    test = parse_seat_test(json.dumps(INPUTS["tests"][name]), name=name, source=f"{name}.jsonl")

    def encode(sentences):
        return np.array([INPUTS["vectors"][s] for s in sentences], dtype=np.float64)

    r = seat_sentences(encode, test, n_permutations=100_000, seed=0)
    want = EXPECTED[name]
    assert r.exact and want["exact"]
    assert r.effect_size == pytest.approx(want["effect_size"], abs=1e-6)
    assert r.p_value == pytest.approx(want["p_value"], abs=1e-12)
