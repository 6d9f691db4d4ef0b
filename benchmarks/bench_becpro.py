"""Benchmark: full BEC-Pro EN Kurita association on a randomly initialised bert-base-size model.

Ours (deduplicated masked inputs + length buckets + inference mode, batched) vs the naive loop that
peers use (one unpadded forward pass per sentence and variant, no deduplication), in the same run.
The naive loop runs on a subset of sentences (every k-th, all templates and groups) and its time is
extrapolated linearly to the 5,400 sentences — printed as such. Model: 12 layers, 768 hidden, 12
heads, 3072 intermediate, 30,522-token vocabulary (the uncased BERT WordPiece vocabulary bundled
with the MiniLM package, so BEC-Pro words are single tokens where BERT has them).

    PYTHONPATH=. python benchmarks/bench_becpro.py [--naive-sentences 60] [--batch-size 64]
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

import numpy as np


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux: KiB


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--naive-sentences", type=int, default=60)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--device", default="cpu")
    args = ap.parse_args()

    import torch
    from transformers import AutoTokenizer, BertConfig, BertForMaskedLM

    from geobias.contextual.becpro import generate_becpro
    from geobias.contextual.kurita import kurita_association
    from geobias.models import REGISTRY, LoadedModel, resolve_device, resolve_model

    tok_dir, _, _ = resolve_model("minilm-l6")  # only its 30,522-token uncased vocabulary is used
    assert REGISTRY["minilm-l6"]
    tokenizer = AutoTokenizer.from_pretrained(tok_dir, local_files_only=True)
    config = BertConfig(vocab_size=len(tokenizer), hidden_size=768, num_hidden_layers=12,
                        num_attention_heads=12, intermediate_size=3072)
    torch.manual_seed(0)
    device = resolve_device(args.device)
    model = BertForMaskedLM(config).to(device).eval()
    lm = LoadedModel("random-bert-base", model, tokenizer, device)
    print(f"model: random BertForMaskedLM, 12 layers, 768 hidden, vocab {len(tokenizer)}; "
          f"device {device}; torch threads {torch.get_num_threads()}", flush=True)

    rows = generate_becpro("en")
    probes = [r.probe for r in rows]
    rss0 = peak_rss_mib()
    t0 = time.perf_counter()
    ours = kurita_association(lm, probes, batch_size=args.batch_size, progress=sys.stderr.isatty())
    t_ours = time.perf_counter() - t0
    rss_ours = peak_rss_mib()
    print(f"ours : {len(probes)} sentences in {t_ours:.1f} s = {len(probes) / t_ours:.1f} sentences/s; "
          f"forward inputs {ours.n_distinct_target_masked} T-masked + {ours.n_distinct_prior_masked} T+A-masked "
          f"(of {2 * len(probes)}); peak RSS {rss_ours:.0f} MiB (model loaded: {rss0:.0f} MiB)", flush=True)

    step = max(1, len(probes) // args.naive_sentences)
    subset = list(range(0, len(probes), step))[: args.naive_sentences]
    t0 = time.perf_counter()
    naive = kurita_association(lm, [probes[i] for i in subset], naive=True)
    t_naive_sub = time.perf_counter() - t0
    t_naive = t_naive_sub / len(subset) * len(probes)
    diff = float(np.max(np.abs(naive.association - ours.association[subset])))
    print(f"naive: {len(subset)} sentences in {t_naive_sub:.1f} s = {len(subset) / t_naive_sub:.2f} sentences/s; "
          f"extrapolated to {len(probes)}: {t_naive:.0f} s; peak RSS {peak_rss_mib():.0f} MiB")
    print(f"max |ours - naive| association on the subset: {diff:.2e}")
    print(f"ratio (naive extrapolated / ours): {t_naive / t_ours:.1f}x  (target >= 10x)")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    main()
