"""Loading speed and full-size stores.

Part 1 — parsing. A ``--rows`` × 300 word2vec text file (header line, 4-decimal values like
MUSE/fastText .vec files) is read by gensim ``load_word2vec_format``, geobias ``read_vectors``
and the three fast general CSV readers (polars ``read_csv``, pyarrow ``csv.read_csv``, pandas'
C engine), each in a fresh subprocess so that peak RSS (VmHWM) is per reader. Targets:
geobias ≥ 25× gensim, within 1.5× of the fastest general reader, cache reload ≥ 50× our parse.

Part 2 — a full-size store (fastText crawl size: 2,000,000 × 300, ~4.8 GB of text, generated on
the fly in a temporary directory and deleted afterwards; never committed). ``--big-rows N`` or
``GEOBIAS_BENCH_BIG_ROWS=N`` picks another N (0 skips part 2); it is also skipped, with a message,
when the temporary directory has less than twice the space it needs. Measured, each in a fresh
subprocess: install (parse + cache write) time and peak RSS against the matrix size; mmap reopen
time (and the first word lookup, which reads the vocabulary); exact ``neighbors`` (blockwise, no
second full matrix) and the approximate IVF option with its recall@10 against exact; ``mweat``.
Targets: install ≤ 60 s, reopen ≤ 0.1 s, peak RSS ≤ 1.5× the matrix.

    python benchmarks/bench_load.py [--rows 100000] [--dim 300] [--big-rows 2000000]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from geobias.query import WordQuery

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


def _format_block(words_from: int, x: np.ndarray) -> bytes:
    """Format rows of values in (-1, 1) as ``w%08d v1 ... v_dim\\n`` with 4 decimals, vectorised."""
    n, dim = x.shape
    q = np.rint(np.clip(x, -0.9999, 0.9999) * 10000).astype(np.int32)
    cells = np.zeros((n, dim, 8), dtype=np.uint8)  # [sign, '0', '.', d, d, d, d, sep]; 0 = dropped
    cells[:, :, 0] = np.where(q < 0, ord("-"), 0)
    a = np.abs(q)
    cells[:, :, 1] = ord("0")
    cells[:, :, 2] = ord(".")
    for j, div in enumerate((1000, 100, 10, 1)):
        cells[:, :, 3 + j] = ord("0") + (a // div) % 10
    cells[:, :, 7] = ord(" ")
    cells[:, -1, 7] = ord("\n")
    ids = np.arange(words_from, words_from + n)
    word = np.zeros((n, 10), dtype=np.uint8)
    word[:, 0] = ord("w")
    for j in range(8):
        word[:, 1 + j] = ord("0") + (ids // 10 ** (7 - j)) % 10
    word[:, 9] = ord(" ")
    line = np.concatenate([word, cells.reshape(n, dim * 8)], axis=1)
    return line[line != 0].tobytes()


def generate_big(path: Path, rows: int, dim: int, seed: int = 0) -> None:
    """Distinct clustered rows (2,000 Gaussian clusters), so neighbours and recall mean something."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(0, 0.12, size=(2000, dim)).astype(np.float32)
    with open(path, "wb") as fh:
        fh.write(f"{rows} {dim}\n".encode())
        for s in range(0, rows, 20_000):
            m = min(20_000, rows - s)
            x = centres[rng.integers(0, 2000, m)] + rng.normal(0, 0.06, size=(m, dim)).astype(np.float32)
            fh.write(_format_block(s, x))


def _peak_rss_mb() -> float:
    """Peak resident memory of this process (VmHWM; ru_maxrss would include the parent's at fork)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _ncols(path: str) -> int:
    with open(path, "rb") as fh:
        fh.readline()
        return len(fh.readline().split())


def worker(mode: str, path: str, extra: str = "") -> None:
    if mode in ("gensim", "ours", "polars", "pyarrow", "pandas", "cache-mmap", "cache-read"):
        import gensim.models  # noqa: F401 - imported by every parse mode: comparable baseline RSS

        import geobias.sources  # noqa: F401

        if _available("polars"):  # our fast path's engine: import time outside every timing
            import polars  # noqa: F401
    base_rss = _peak_rss_mb()
    res: dict = {}
    t = time.perf_counter()
    if mode == "gensim":
        from gensim.models import KeyedVectors

        t = time.perf_counter()
        n = len(KeyedVectors.load_word2vec_format(path).index_to_key)
    elif mode == "ours":
        from geobias.sources import read_vectors

        t = time.perf_counter()
        n = len(read_vectors(path))
    elif mode == "polars":
        import polars as pl

        t = time.perf_counter()
        df = pl.read_csv(path, has_header=False, separator=" ", quote_char=None, skip_rows=1)
        m = df.select(df.columns[1:]).to_numpy().astype(np.float32, copy=False)
        n = len(m)
    elif mode == "pyarrow":
        import pyarrow.csv as pc

        t = time.perf_counter()
        names = [f"c{j}" for j in range(_ncols(path))]
        tab = pc.read_csv(path, read_options=pc.ReadOptions(skip_rows=1, column_names=names),
                          parse_options=pc.ParseOptions(delimiter=" ", quote_char=False))
        m = np.column_stack([tab.column(j).to_numpy() for j in range(1, len(names))]).astype(np.float32)
        n = len(m)
    elif mode == "pandas":
        import pandas as pd

        t = time.perf_counter()
        df = pd.read_csv(path, sep=" ", header=None, skiprows=1, engine="c", quoting=3,
                         na_filter=False, dtype={0: str})
        m = df.iloc[:, 1:].to_numpy(dtype=np.float32)
        n = len(m)
    elif mode == "cache-mmap":
        from geobias.store import load_store

        t = time.perf_counter()
        n = len(load_store(path))
    elif mode == "cache-read":
        from geobias.store import load_store

        t = time.perf_counter()
        n = len(load_store(path, mmap=False))
    elif mode == "install":
        from geobias.sources import read_vectors
        from geobias.store import save_store

        t = time.perf_counter()
        store = read_vectors(path)
        res["parse_seconds"] = time.perf_counter() - t
        save_store(store, extra)
        n = len(store)
        res["matrix_mb"] = store.vectors.nbytes / 2**20
    elif mode == "reopen":
        from geobias.store import load_store

        t = time.perf_counter()
        store = load_store(path)
        res["seconds_reopen"] = time.perf_counter() - t
        t1 = time.perf_counter()
        store["w00000001"]  # noqa: B018 - the first lookup reads words.txt and builds the index
        res["first_lookup_seconds"] = time.perf_counter() - t1
        n = len(store)
    elif mode == "neighbors":
        from geobias.store import load_store

        store = load_store(path)
        rng = np.random.default_rng(1)
        rows = np.sort(rng.choice(len(store), 100, replace=False))
        q = np.array(store.vectors[rows])
        t = time.perf_counter()
        pairs = store.most_similar("w00000001", 10)
        res["exact_one_word_seconds"] = time.perf_counter() - t
        t = time.perf_counter()
        _, ex = store.nearest(q, 10)
        res["exact_100_queries_seconds"] = time.perf_counter() - t
        t = time.perf_counter()
        store.ivf_index()
        res["ivf_build_seconds"] = time.perf_counter() - t
        t = time.perf_counter()
        _, ap = store.nearest(q, 10, approx="ivf")
        res["ivf_100_queries_seconds"] = time.perf_counter() - t

        res["recall_at_10"] = float(np.mean([len(set(a) & set(b)) / 10 for a, b in zip(ex, ap, strict=True)]))
        res["neighbors_of_w00000001"] = [w for w, _ in pairs[:3]]
        n = len(store)
        t = time.perf_counter()
    elif mode == "ivf-reopen":  # a later process: the index saved with the store is read back
        from geobias.store import load_store

        t = time.perf_counter()
        store = load_store(path)
        store.ivf_index()
        res["ivf_reopen_seconds"] = time.perf_counter() - t
        n = len(store)
    elif mode == "mweat":
        from geobias.metrics import mweat
        from geobias.store import load_store

        store = load_store(path)
        occ = [(f"w{2 * i:08d}", f"w{2 * i + 1:08d}", "") for i in range(58)]
        A = [f"w{1000 + i:08d}" for i in range(10)]
        B = [f"w{2000 + i:08d}" for i in range(10)]
        t = time.perf_counter()
        r = mweat(store, WordQuery.two_form(occ, A, B), permutations=100_000, seed=0)
        res["p_value"] = r.p_value
        n = len(store)
    else:
        raise SystemExit(f"unknown mode {mode}")
    seconds = time.perf_counter() - t
    print(json.dumps({"seconds": seconds, "n": n, "peak_rss_mb": _peak_rss_mb(), "base_rss_mb": base_rss, **res}))


def measure(mode: str, path: Path, repeat: int = 1, extra: str = "") -> dict:
    best = None
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    for _ in range(repeat):
        out = subprocess.run(
            [sys.executable, __file__, "--worker", mode, str(path), extra],
            check=True, capture_output=True, text=True, env=env,
        )
        res = json.loads(out.stdout.strip().splitlines()[-1])
        if best is None or res["seconds"] < best["seconds"]:
            best = res
    return best


def _available(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


def part_parse(tmp: Path, rows: int, dim: int) -> bool:
    vec = tmp / "bench.vec"
    t = time.perf_counter()
    generate(vec, rows, dim)
    mb = vec.stat().st_size / 2**20
    print(f"[parse] generated {rows:,} × {dim} text file ({mb:.0f} MiB) in {time.perf_counter() - t:.1f} s")
    cache = tmp / "cache"
    subprocess.run(
        [sys.executable, "-c", "import sys; from geobias.sources import read_vectors; "
         "from geobias.store import save_store; save_store(read_vectors(sys.argv[1]), sys.argv[2])",
         str(vec), str(cache)],
        check=True, env=dict(os.environ, PYTHONPATH=str(REPO)),
    )
    # interleaved rounds: load on the shared machine drifts, so every reader sees the same drift
    names = ["gensim", "ours", "polars", "pyarrow", "pandas"]
    names = [m for m in names if m in ("gensim", "ours") or _available(m)]
    results: dict[str, list[dict]] = {m: [] for m in names}
    for rnd in range(3):
        for m in names:
            if m == "gensim" and rnd:
                continue  # one gensim round: it is 20-30× slower and only the ratio's baseline
            results[m].append(measure(m, vec))
    best = {m: min(r, key=lambda x: x["seconds"]) for m, r in results.items()}
    mmap = measure("cache-mmap", cache, repeat=3)
    full = measure("cache-read", cache, repeat=3)
    print(f"{'reader':32s} {'seconds':>9s} {'MB/s':>7s} {'peak RSS MiB':>13s} {'after imports':>14s}  runs")
    labels = {"gensim": "gensim load_word2vec_format", "ours": "geobias read_vectors",
              "polars": "polars read_csv (+to_numpy)", "pyarrow": "pyarrow csv.read_csv (+numpy)",
              "pandas": "pandas read_csv engine=c"}
    for m in names:
        r = best[m]
        runs = ", ".join(f"{x['seconds']:.2f}" for x in results[m])
        print(f"{labels[m]:32s} {r['seconds']:9.3f} {mb / r['seconds']:7.0f} {r['peak_rss_mb']:13.0f} "
              f"{r['base_rss_mb']:14.0f}  {runs}")
    for name, r in (("geobias cache (mmap)", mmap), ("geobias cache (read into RAM)", full)):
        print(f"{name:32s} {r['seconds']:9.3f} {'':>7s} {r['peak_rss_mb']:13.0f} {r['base_rss_mb']:14.0f}")
    ours = best["ours"]["seconds"]
    parse_ratio = best["gensim"]["seconds"] / ours
    fast = [m for m in ("polars", "pyarrow", "pandas") if m in best]
    ok = parse_ratio >= 25 and ours / mmap["seconds"] >= 50
    print(f"goal 1  parse speed-up vs gensim:            {parse_ratio:7.1f}×  (target ≥ 25×)")
    if fast:
        fastest = min(fast, key=lambda m: best[m]["seconds"])
        vs_fast = ours / best[fastest]["seconds"]
        ok &= vs_fast <= 1.5
        print(f"goal 1  our time / fastest ({fastest:7s}):        {vs_fast:7.2f}×  (target ≤ 1.5×)")
    else:
        print("goal 1  polars/pyarrow/pandas not installed: comparison skipped")
    print(f"        cache reload (mmap) vs our parse:     {ours / mmap['seconds']:7.0f}×  (target ≥ 50×)")
    print(f"        parse peak RSS − imports: {best['ours']['peak_rss_mb'] - best['ours']['base_rss_mb']:.0f} MiB "
          f"for a {rows * dim * 4 / 2**20:.0f} MiB matrix")
    return ok


def part_big(tmp_root: str, rows: int, dim: int) -> bool:
    text_bytes = rows * (10 + dim * 7.5)  # estimate of the formatted size
    need = text_bytes + rows * dim * 4 * 1.05
    free = shutil.disk_usage(tmp_root).free
    if free < 2 * need:
        print(f"[big] SKIPPED: {rows:,} rows need ~{need / 2**30:.1f} GiB in {tmp_root}, "
              f"{free / 2**30:.1f} GiB free (want twice that); set GEOBIAS_BENCH_BIG_ROWS lower")
        return True
    with tempfile.TemporaryDirectory(dir=tmp_root) as tmp:
        vec = Path(tmp) / "big.vec"
        t = time.perf_counter()
        generate_big(vec, rows, dim)
        gb = vec.stat().st_size / 2**30
        print(f"[big] generated {rows:,} × {dim} text file ({gb:.2f} GiB, distinct clustered rows) "
              f"in {time.perf_counter() - t:.0f} s")
        store_dir = Path(tmp) / "store"
        inst = measure("install", vec, extra=str(store_dir))
        vec.unlink()  # free the disk before the rest
        reopen = measure("reopen", store_dir, repeat=3)
        nb = measure("neighbors", store_dir)
        ivf = measure("ivf-reopen", store_dir)
        mw = measure("mweat", store_dir)
    matrix_mb = inst["matrix_mb"]
    rss_ratio = inst["peak_rss_mb"] / matrix_mb
    print(f"goal 2  install (parse {inst['parse_seconds']:.1f} s + cache write): {inst['seconds']:.1f} s  "
          f"({gb * 1024 / inst['parse_seconds']:.0f} MB/s parse)   (target ≤ 60 s)")
    print(f"goal 2  install peak RSS {inst['peak_rss_mb']:.0f} MiB = {rss_ratio:.2f}× the {matrix_mb:.0f} MiB "
          f"matrix   (target ≤ 1.5×)")
    print(f"goal 2  mmap reopen: {reopen['seconds_reopen'] * 1e3:.1f} ms (target ≤ 100 ms); first word lookup "
          f"(reads words.txt, builds the index): {reopen['first_lookup_seconds']:.2f} s; "
          f"reopen vs install: {inst['seconds'] / reopen['seconds_reopen']:,.0f}×")
    print(f"goal 2  neighbors exact (blockwise, one word): {nb['exact_one_word_seconds']:.2f} s; "
          f"100 queries {nb['exact_100_queries_seconds']:.2f} s; peak RSS {nb['peak_rss_mb']:.0f} MiB "
          f"({nb['peak_rss_mb'] / matrix_mb:.2f}× matrix, mmap pages included)")
    print(f"goal 3  IVF-SQ8 index build {nb['ivf_build_seconds']:.1f} s; 100 queries "
          f"{nb['ivf_100_queries_seconds']:.3f} s ({nb['exact_100_queries_seconds'] / nb['ivf_100_queries_seconds']:.0f}× exact); "
          f"recall@10 vs exact {nb['recall_at_10']:.3f}; a later process reads the saved index in "
          f"{ivf['ivf_reopen_seconds']:.2f} s ({nb['ivf_build_seconds'] / ivf['ivf_reopen_seconds']:.0f}× faster than building it)")
    print(f"goal 2  mweat (58 pairs, 100,000 permutations) on the store: {mw['seconds']:.2f} s, "
          f"peak RSS {mw['peak_rss_mb']:.0f} MiB")
    return inst["seconds"] <= 60 and reopen["seconds_reopen"] <= 0.1 and rss_ratio <= 1.5


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--dim", type=int, default=300)
    ap.add_argument("--big-rows", type=int, default=int(os.environ.get("GEOBIAS_BENCH_BIG_ROWS", 2_000_000)))
    ap.add_argument("--worker", nargs=3, metavar=("MODE", "PATH", "EXTRA"))
    args = ap.parse_args()
    if args.worker:
        worker(*args.worker)
        return
    print("shared 2-core machine: figures are noisy; every ratio is against a baseline run in this process")
    ok = True
    if args.rows > 0:  # --rows 0 runs only the full-size part
        with tempfile.TemporaryDirectory() as tmp:
            ok = part_parse(Path(tmp), args.rows, args.dim)
    if args.big_rows > 0:
        ok &= part_big(tempfile.gettempdir(), args.big_rows, args.dim)
    print("targets met" if ok else "TARGETS NOT MET")


if __name__ == "__main__":
    main()
