"""CrowS-Pairs scores equal the authors' ``metric.py`` on the same sentence scores (its printed
figures and per-pair output, stored by ``scripts/conformance/crows_metric_outputs.py``, which ran
their scoring loop)."""

from __future__ import annotations

import pytest
from _expected import load

INPUTS = load("crows_inputs")["pairs"]
EXPECTED = load("crows_pairs")["outputs"]


def _rows():
    return [{"sent_more": p["sent_more"], "sent_less": p["sent_less"], "direction": p["stereo_antistereo"],
             "bias_type": p["bias_type"], "score_more": p["score_more"], "score_less": p["score_less"]}
            for p in INPUTS]


def test_the_default_comparison_is_metric_py():
    from geobias.contextual.crows_pairs import score_pairs

    r = score_pairs(_rows())
    printed = EXPECTED["printed"]
    assert r.n_pairs == int(printed["Total examples"])
    assert f"{round(r.metric_score, 2)}" == printed["Metric score"]
    assert f"{round(r.stereo_score, 2)}" == printed["Stereotype score"]
    assert f"{round(r.antistereo_score, 2)}" == printed["Anti-stereotype score"]
    n_neutral, share = printed["Num. neutral"].split()
    assert r.n_ties == int(n_neutral) and f"{round(100 * r.n_ties / r.n_pairs, 2)}" == share
    # pair by pair: the same wins, and the same rounded scores
    for ours, theirs in zip(r.per_pair, EXPECTED["per_pair"], strict=True):
        assert ours["sent_more"] == theirs["sent_more"]
        won = not ours["neutral"] and round(ours["score_more"], 3) > round(ours["score_less"], 3)
        assert int(won) == theirs["score"]
        assert round(ours["score_more"], 3) == pytest.approx(theirs["sent_more_score"], abs=1e-9)
        assert round(ours["score_less"], 3) == pytest.approx(theirs["sent_less_score"], abs=1e-9)


def test_the_unrounded_variant_differs_on_these_pairs():
    from geobias.contextual.crows_pairs import score_pairs

    r = score_pairs(_rows(), comparison="unrounded")
    assert r.n_ties == 0 and f"{round(r.metric_score, 2)}" != EXPECTED["printed"]["Metric score"]
