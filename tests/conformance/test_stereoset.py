"""StereoSet's LMS, SS and ICAT equal the authors' ``evaluation.py`` on the same sentence scores
(stored by ``scripts/conformance/stereoset_outputs.py``, which ran their scorer), overall and per
bias type; the gold file in their format is read by our reader."""

from __future__ import annotations

import json

import pytest
from _expected import load

INPUTS = load("stereoset_inputs")
EXPECTED = load("stereoset")["outputs"]["intrasentence"]


def test_the_scores_equal_the_authors_evaluation(tmp_path):
    from geobias.contextual.stereoset import LABELS, read_stereoset, stereoset_scores

    gold = tmp_path / "dev.json"
    gold.write_text(json.dumps(INPUTS["gold"]), encoding="utf-8")
    examples = read_stereoset(gold)
    ids = {ex["id"]: {s["gold_label"]: s["id"] for s in ex["sentences"]}
           for ex in INPUTS["gold"]["data"]["intrasentence"]}
    rows = [{"target": ex.target, "bias_type": ex.bias_type,
             "scores": {label: INPUTS["scores"][ids[ex.id][label]] for label in LABELS}} for ex in examples]
    for name, want in EXPECTED.items():
        sel = rows if name == "overall" else [r for r in rows if r["bias_type"] == name]
        got = stereoset_scores(sel)
        assert got["lms"] == pytest.approx(want["LM Score"], abs=1e-9), name
        assert got["ss"] == pytest.approx(want["SS Score"], abs=1e-9), name
        assert got["icat"] == pytest.approx(want["ICAT Score"], abs=1e-9), name
    # the authors' per-type "Count" counts each example once per sentence (3×); their scores are unaffected
    assert EXPECTED["gender"]["Count"] == 3 * sum(r["bias_type"] == "gender" for r in rows)
