"""Loading speed: gensim `load_word2vec_format` vs geobias `read_vectors` vs reloading our cache.

Generates a 200,000 × 300 word2vec text file (header line, 4-decimal values like MUSE/fastText
.vec files) in a temporary directory, then times each loader in a fresh subprocess (so peak RSS
is per loader, measured with ``resource.getrusage``). Prints seconds, peak RSS and the ratios.

Targets (issue 2): parse ≥ 5× faster than gensim; cache reload ≥ 50× faster than our parse.

    python benchmarks/bench_load.py [--rows 200000] [--dim 300]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]


def generate(path: Path, rows: int, dim: int, seed: int = 0) -> None:
    """Write ``rows`` text vectors. Row texts cycle through 4,096 distinct random rows (parsing
    cost does not depend on the values; formatting 60M floats in Python would dominate the run)."""
    rng = np.random.default_rng(seed)
    pool = rng.normal(0, 0.1, size=(4096, dim)).astype(np.float32)
    fmt = " ".join(["%.4f"] * dim)
    texts = [fmt % tuple(r) for r in pool.tolist()]
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(f"{rows} {dim}\n")
        for start in range(0, rows, 10000):
            fh.write("".join(f"w{i} {texts[i % 4096]}\n" for i in range(start, min(rows, start + 10000))))


def _peak_rss_mb() -> float:
    """Peak resident memory of this process (VmHWM; ru_maxrss would include the parent's at fork)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def worker(mode: str, path: str) -> None:
    import gensim.models  # noqa: F401 - imported by every mode so the baseline RSS is comparable

    import geobias.sources  # noqa: F401

    base_rss = _peak_rss_mb()
    if mode == "gensim":
        from gensim.models import KeyedVectors

        t = time.perf_counter()
        kv = KeyedVectors.load_word2vec_format(path)
        n = len(kv.index_to_key)
    elif mode == "ours":
        from geobias.sources import read_vectors

        t = time.perf_counter()
        store = read_vectors(path)
        n = len(store)
    elif mode == "cache-mmap":
        from geobias.store import load_store

        t = time.perf_counter()
        store = load_store(path)
        n = len(store)
    elif mode == "cache-read":
        from geobias.store import load_store

        t = time.perf_counter()
        store = load_store(path, mmap=False)
        n = len(store)
    else:
        raise SystemExit(f"unknown mode {mode}")
    seconds = time.perf_counter() - t
    print(json.dumps({"seconds": seconds, "n": n, "peak_rss_mb": _peak_rss_mb(), "base_rss_mb": base_rss}))


def measure(mode: str, path: Path, repeat: int = 1) -> dict:
    best = None
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    for _ in range(repeat):
        out = subprocess.run(
            [sys.executable, __file__, "--worker", mode, str(path)],
            check=True, capture_output=True, text=True, env=env,
        )
        res = json.loads(out.stdout.strip().splitlines()[-1])
        if best is None or res["seconds"] < best["seconds"]:
            best = res
    return best


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=200_000)
    ap.add_argument("--dim", type=int, default=300)
    ap.add_argument("--worker", nargs=2, metavar=("MODE", "PATH"))
    args = ap.parse_args()
    if args.worker:
        worker(*args.worker)
        return
    with tempfile.TemporaryDirectory() as tmp:
        vec = Path(tmp) / "bench.vec"
        t = time.perf_counter()
        generate(vec, args.rows, args.dim)
        print(f"generated {args.rows:,} × {args.dim} text file ({vec.stat().st_size / 2**20:.0f} MiB) "
              f"in {time.perf_counter() - t:.1f} s")
        cache = Path(tmp) / "cache"
        subprocess.run(
            [sys.executable, "-c", "import sys; from geobias.sources import read_vectors; "
             "from geobias.store import save_store; save_store(read_vectors(sys.argv[1]), sys.argv[2])",
             str(vec), str(cache)],
            check=True, env=dict(os.environ, PYTHONPATH=str(REPO)),
        )

        gensim = measure("gensim", vec)
        ours = measure("ours", vec, repeat=2)
        mmap = measure("cache-mmap", cache, repeat=3)
        full = measure("cache-read", cache, repeat=3)
        assert gensim["n"] == ours["n"] == mmap["n"] == full["n"] == args.rows
        rows = [("gensim load_word2vec_format", gensim), ("geobias read_vectors", ours),
                ("geobias cache (mmap)", mmap), ("geobias cache (read into RAM)", full)]
        print(f"{'loader':32s} {'seconds':>9s} {'peak RSS MiB':>13s} {'after imports':>14s}")
        for name, r in rows:
            print(f"{name:32s} {r['seconds']:9.3f} {r['peak_rss_mb']:13.0f} {r['base_rss_mb']:14.0f}")
        parse_ratio = gensim["seconds"] / ours["seconds"]
        mmap_ratio = ours["seconds"] / mmap["seconds"]
        full_ratio = ours["seconds"] / full["seconds"]
        print(f"parse speed-up vs gensim:           {parse_ratio:7.1f}×  (target ≥ 5×)")
        print(f"cache reload (mmap) vs our parse:   {mmap_ratio:7.0f}×  (target ≥ 50×)")
        print(f"cache read into RAM vs our parse:   {full_ratio:7.1f}×")
        ok = parse_ratio >= 5 and mmap_ratio >= 50
        print("targets met" if ok else "TARGETS NOT MET")


if __name__ == "__main__":
    main()
