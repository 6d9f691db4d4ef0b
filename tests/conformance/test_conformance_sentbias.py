"""SEAT on a test file equals sent-bias's ``weat.py`` (May et al. 2019) on the same sentence
vectors: effect size to 1e-6, the exact permutation p-value (outputs stored by
``scripts/conformance/sentbias_outputs.py``, which ran the authors' module).

With its default options, as the authors run it: ``weat.py`` enumerates every partition when there
are at most ``n_samples`` (100,000 by default) of them, so a test of eight sentences per target set
(12,870 partitions) gets its exact p-value, and so must ``geobias seat --tests FILE``."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from _expected import load

INPUTS = load("seat_inputs")
EXPECTED = load("sentbias")["outputs"]


def _encode(sentences):
    """The stored made-up vector of each sentence (the encoder both sides were given)."""
    return np.array([INPUTS["vectors"][s] for s in sentences], dtype=np.float64)


def test_the_inputs_hold_a_test_of_eight_sentences_per_set():
    """The case the default must get right: more partitions than a 10,000 budget, fewer than 100,000."""
    sizes = {name: [len(test[k]["examples"]) for k in ("targ1", "targ2")] for name, test in INPUTS["tests"].items()}
    eight = [name for name, (nx, ny) in sizes.items() if nx == ny == 8]
    assert eight and 10_000 < math.comb(16, 8) == 12_870 <= 100_000
    assert all(name in EXPECTED for name in eight)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_seat_on_a_file_equals_sent_bias(name):
    from geobias.metrics.seat import parse_seat_test, seat_sentences

    test = parse_seat_test(json.dumps(INPUTS["tests"][name]), name=name, source=f"{name}.jsonl")
    r = seat_sentences(_encode, test)  # the library's defaults
    want = EXPECTED[name]
    n = len(test.sets[0]) + len(test.sets[1])
    assert r.exact and want["exact"] and r.n_permutations == math.comb(n, len(test.sets[0]))
    assert r.effect_size == pytest.approx(want["effect_size"], abs=1e-6)
    assert r.p_value == pytest.approx(want["p_value"], abs=1e-12)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_geobias_seat_tests_with_default_options_equals_weat_py(name, tmp_path, monkeypatch, capsys):
    """``geobias seat --tests FILE --json``, nothing else: the exact p-value of weat.py."""
    import geobias.contextual.sentence_encoders as se
    from geobias.cli import main

    monkeypatch.setattr(se, "sentence_encoder", lambda *a, **k: _encode)
    path = tmp_path / f"{name}.jsonl"
    path.write_text(json.dumps(INPUTS["tests"][name]), encoding="utf-8")
    with pytest.raises(SystemExit) as info:
        main(["seat", "--tests", str(path), "--json"])
    out, err = capsys.readouterr()
    assert info.value.code == 0, err
    r = json.loads(out)["result"]
    want = EXPECTED[name]
    assert r["exact"] is True and r["seed"] is None
    assert r["effect_size"] == pytest.approx(want["effect_size"], abs=1e-6)
    assert r["p_value"] == pytest.approx(want["p_value"], abs=1e-12)
