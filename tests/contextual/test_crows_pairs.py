"""CrowS-Pairs scoring (Nangia et al. 2020) on a small sample we write and a tiny random BERT."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest
from _tiny_models import make_random_bert, vocabulary_for

from geobias.contextual.crows_pairs import (
    CrowsPair,
    crows_pairs,
    read_crows_pairs,
    shared_positions,
)
from geobias.errors import InputError

PAIRS = [
    ("He is a strong leader.", "She is a strong leader.", "stereo", "gender"),
    ("She stayed home with the kids.", "He stayed home with the kids.", "stereo", "gender"),
    ("The old man forgot his keys.", "The young man forgot his keys.", "stereo", "age"),
    ("She fixed the engine herself.", "He fixed the engine himself.", "antistereo", "gender"),
]


@pytest.fixture(scope="module")
def mlm(tmp_path_factory) -> Path:
    texts = [s for p in PAIRS for s in p[:2]]
    return make_random_bert(tmp_path_factory.mktemp("crows"), vocabulary_for(texts), seed=7)


@pytest.fixture
def sample(tmp_path) -> Path:
    path = tmp_path / "crows.csv"
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["", "sent_more", "sent_less", "stereo_antistereo", "bias_type", "annotations"])
        for i, (a, b, d, t) in enumerate(PAIRS):
            w.writerow([i, a, b, d, t, "[]"])
    return path


def test_shared_positions_are_the_unmodified_tokens():
    assert shared_positions([1, 5, 6, 7, 2], [1, 9, 6, 7, 2]) == ([0, 2, 3, 4], [0, 2, 3, 4])
    assert shared_positions([1, 5, 6, 2], [1, 5, 8, 8, 6, 2]) == ([0, 1, 2, 3], [0, 1, 4, 5])


def test_scores_are_the_pseudo_log_likelihood_of_the_unmodified_tokens(mlm, sample):
    """Each sentence's score equals a loop that masks each shared non-special token once and sums
    log P(token) with the modified tokens visible; the metric counts sent_more > sent_less."""
    import torch

    from geobias.models import load_masked_lm

    lm = load_masked_lm(str(mlm), "cpu")
    pairs = read_crows_pairs(sample)
    res = crows_pairs(lm, pairs, model_name="tiny", batch_size=3)
    tok = lm.tokenizer

    def pll(sentence: str, other: str) -> float:
        a, b = tok(sentence)["input_ids"], tok(other)["input_ids"]
        ia, _ = shared_positions(a, b)
        total = 0.0
        for i in ia:
            if a[i] in tok.all_special_ids:
                continue
            ids = list(a)
            ids[i] = tok.mask_token_id
            with torch.inference_mode():
                logits = lm.model(input_ids=torch.tensor([ids])).logits[0, i]
            total += float(torch.log_softmax(logits.double(), -1)[a[i]])
        return total

    for row, p in zip(res.per_pair, pairs, strict=True):
        assert row["score_more"] == pytest.approx(pll(p.sent_more, p.sent_less), abs=1e-6)
        assert row["score_less"] == pytest.approx(pll(p.sent_less, p.sent_more), abs=1e-6)
    wins = [r["score_more"] > r["score_less"] for r in res.per_pair]
    assert res.metric_score == pytest.approx(100 * np.mean(wins))
    assert res.stereo_score == pytest.approx(100 * np.mean(wins[:3]))
    assert res.antistereo_score == pytest.approx(100.0 * wins[3])
    assert res.by_bias_type["age"]["n"] == 1 and res.by_bias_type["gender"]["n"] == 3
    # swapping the sentences of every pair mirrors the metric about 50 (no ties here)
    swapped = [CrowsPair(p.sent_less, p.sent_more, p.direction, p.bias_type) for p in pairs]
    assert res.n_ties == 0
    assert crows_pairs(lm, swapped).metric_score == pytest.approx(100 - res.metric_score)


def test_bad_files_get_one_line(tmp_path, sample, capsys):
    from geobias.cli import main

    bad = tmp_path / "bad.csv"
    bad.write_text("sentence,label\na,b\n", encoding="utf-8")
    with pytest.raises(InputError, match="no column"):
        read_crows_pairs(bad)
    wrong = tmp_path / "wrong.csv"
    wrong.write_text("sent_more,sent_less,stereo_antistereo,bias_type\na b,a c,both,gender\n", encoding="utf-8")
    with pytest.raises(InputError, match="expected stereo or antistereo"):
        read_crows_pairs(wrong)
    with pytest.raises(SystemExit) as info:
        main(["crows-pairs", "--model", "nowhere-model", "--data", str(bad)])
    _, err = capsys.readouterr()
    assert info.value.code == 1 and "no column(s) sent_more" in err and err.count("\n") == 1


def test_the_command_prints_the_metric(mlm, sample, capsys):
    from _envelope import result_of

    from geobias.cli import main

    with pytest.raises(SystemExit) as info:
        main(["crows-pairs", "--model", str(mlm), "--data", str(sample), "--device", "cpu", "--json"])
    out, err = capsys.readouterr()
    assert info.value.code == 0, err
    r = result_of(out)
    assert r["n_pairs"] == 4 and 0 <= r["metric_score"] <= 100 and len(r["per_pair"]) == 4
