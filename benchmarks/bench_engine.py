"""Benchmark: the same BEC-Pro association workload on the local engine and on Ray (1 and 2 actors).

Prints, measured in one run: the local engine's time (baseline), Ray's start (``ray.init`` of a
private cluster), the Ray engine's time with 1 and 2 actors as ratios to the baseline, the cost of
one actor start + model load (a one-batch run), and Ray Data's per-batch overhead, measured with
an identity actor (no model): (time for 201 one-block batches - time for 1) / 200. Every run uses ``--threads`` torch threads
(local: in the process; Ray: per actor), default 1. The numbers must agree; the max difference is
printed.

Model: a randomly initialised BERT masked LM (``--layers``, ``--hidden``) over a vocabulary covering
BEC-Pro, saved to a temporary directory and loaded by path (by the driver for the local engine, by
each actor for Ray). Sentences: every k-th BEC-Pro EN sentence (``--sentences``; 5,400 in all).

    PYTHONPATH=. python benchmarks/bench_engine.py [--sentences 1000] [--batch-size 32] [--threads 1]

On a shared 2-core machine expect overhead, not speed-up: two actors compete for the same two
cores as Ray's own processes, and each batch pays serialisation and scheduling.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path


class _Identity:
    """Ray Data callable class doing nothing: isolates the per-batch cost of Ray Data."""

    def __call__(self, batch):
        return batch


def per_batch_overhead(batch_size: int) -> float:
    """Seconds per batch of Ray Data with one actor and no model (needs a running cluster)."""
    import pyarrow as pa
    import ray
    from ray.data import ActorPoolStrategy

    def timed(n: int) -> float:
        blocks = [pa.table({"row": list(range(i * batch_size, (i + 1) * batch_size))}) for i in range(n)]
        t0 = time.perf_counter()
        ray.data.from_arrow(blocks).map_batches(_Identity, batch_size=batch_size, batch_format="numpy",
                                                compute=ActorPoolStrategy(size=1), num_cpus=1).take_all()
        return time.perf_counter() - t0

    timed(1)  # warm-up
    return (timed(201) - timed(1)) / 200


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sentences", type=int, default=1000)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--hidden", type=int, default=256)
    ap.add_argument("--device", default="cpu")
    args = ap.parse_args()

    import numpy as np

    from geobias.contextual.becpro import generate_becpro
    from geobias.contextual.kurita import kurita_association
    from geobias.engine import LocalEngine
    from geobias.engine.ray_engine import RayEngine

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the test factory lives in tests/
    from _tiny_models import make_random_bert, vocabulary_for

    rows = generate_becpro("en")
    step = max(1, len(rows) // args.sentences)
    probes = [r.probe for r in rows[::step]][: args.sentences]
    tmp = tempfile.mkdtemp(prefix="bench-engine-")
    path = make_random_bert(tmp, vocabulary_for([r.sentence for r in rows]), hidden_size=args.hidden,
                            num_hidden_layers=args.layers, num_attention_heads=max(1, args.hidden // 64),
                            intermediate_size=4 * args.hidden, seed=0)
    print(f"model: random BertForMaskedLM, {args.layers} layers, {args.hidden} hidden; "
          f"{len(probes)} BEC-Pro sentences, batch size {args.batch_size}; torch threads "
          f"{args.threads} (local process / each Ray actor); device {args.device}; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (shared machine)", flush=True)

    def run(lm, sentences):
        t0 = time.perf_counter()
        res = kurita_association(lm, sentences, batch_size=args.batch_size)
        return time.perf_counter() - t0, res

    with LocalEngine(threads=args.threads) as eng:
        lm = eng.load_masked_lm(str(path), args.device)
        t_local_one, _ = run(lm, probes[:1])
        t_local, base = run(lm, probes)
    n_batches = -(-(base.n_distinct_target_masked + base.n_distinct_prior_masked) // args.batch_size)
    print(f"local engine: {t_local:.2f} s ({n_batches} batches)  [baseline 1.00]", flush=True)

    out = {}
    for actors in (1, 2):
        t0 = time.perf_counter()
        with RayEngine("local", threads=args.threads, actors=actors, num_cpus=2) as eng:
            t_start = time.perf_counter() - t0
            lm = eng.load_masked_lm(str(path), args.device)
            t_one, _ = run(lm, probes[:1])  # actor start + model load + one batch
            t_ray, res = run(lm, probes)
            per_batch = per_batch_overhead(args.batch_size) if actors == 1 else None
        t_total = time.perf_counter() - t0
        diff = float(np.abs(res.association - base.association).max())
        out[actors] = t_ray
        print(f"ray, {actors} actor(s): {t_ray:.2f} s (actor start included) = {t_ray / t_local:.2f} x local; ray.init "
              f"{t_start:.2f} s; actor start + model load + 1 batch {t_one:.2f} s (local 1 batch "
              f"{t_local_one:.2f} s); with start, overhead runs and shutdown {t_total:.2f} s; "
              f"max |diff| {diff:.1e}", flush=True)
        if per_batch is not None:
            print(f"ray data per-batch overhead (identity actor, no model): {per_batch * 1000:.1f} ms "
                  f"per batch; local compute per batch here {(t_local / n_batches) * 1000:.1f} ms", flush=True)
    print(f"2 actors vs 1 actor: {out[2] / out[1]:.2f} x time", flush=True)


if __name__ == "__main__":
    main()
