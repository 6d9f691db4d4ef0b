"""The stored SEAT run on May et al.'s eight-sentence test files (``reproductions/seat-may-eight.json``,
``scripts/conformance/seat_published_words.py``): with no option set, ``geobias seat --tests`` enumerated
every partition, as sent-bias's ``weat.py`` does, and gave its p-values."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RECORD = json.loads((ROOT / "reproductions" / "seat-may-eight.json").read_text(encoding="utf-8"))


def test_the_record_is_of_sent_bias_s_eight_sentence_tests_on_both_encoders():
    enc = RECORD["result"]["encoders"]
    assert sorted(enc) == ["minilm-l6", "use-m3"]
    assert RECORD["provenance"]["repository"] == "github:W4ngatang/sent-bias"
    assert len(RECORD["provenance"]["commit"]) == 40 and "--permutations" not in RECORD["command"]
    for rows in enc.values():
        assert [t["test"] for t in rows] == ["weat6", "weat6b", "weat7", "weat7b", "weat8", "weat8b"]
        assert all(t["n_sentences"]["X"] == t["n_sentences"]["Y"] == 8 for t in rows)


@pytest.mark.parametrize("encoder", ["minilm-l6", "use-m3"])
def test_the_default_is_weat_py_s_exact_test(encoder):
    from geobias.commands.sentences import SeatParams
    from geobias.metrics.seat import SENT_BIAS_SAMPLES

    assert SeatParams.model_fields["permutations"].default == SENT_BIAS_SAMPLES == 100_000
    for t in RECORD["result"]["encoders"][encoder]:
        assert t["exact"] and t["seed"] is None and t["n_permutations"] == math.comb(16, 8)
        assert t["p_value"] == t["sentbias_p_value"], t["test"]  # both count the same 12,870 partitions
        assert t["difference"] < 1e-5, t["test"]  # float32 sentence vectors; weat.py computes in float64
        # the former default's Monte-Carlo estimate was a different number
        assert not t["former_default_exact"] and t["former_default_n_permutations"] == 10_000
        assert t["former_default_p_difference"] == pytest.approx(abs(t["former_default_p_value"] - t["p_value"]))
