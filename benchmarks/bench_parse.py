"""Parsing word2vec text: geobias against polars' and pyarrow's CSV readers, throughput and peak memory.

Targets (issue 46): ``geobias.store.formats.read_vectors`` parses a 50,000 × 300 word2vec text
file within 1.5× of polars' ``read_csv`` of the same file, and its peak memory stays within 1.5×
of the float32 matrix; ``--full`` adds the full-size file, 2,000,000 × 300 (about 4.5 GB of text,
a full fastText ``.vec``), for throughput and peak memory (several minutes on two cores, 10 GB of
disk in ``--dir``).

The files are synthetic: words ``w0 w1 …``, values normal(0, 0.1) written with four decimals as
fastText writes them, a ``n dim`` header. Each reader runs in a fresh process (``--repeat`` rounds,
the readers taking turns within a round so that a change in the machine's load falls on all of
them; best time kept) that imports its library and warms it on a one-line file first, so the
figures are the parse itself; the CPU seconds (all threads) are printed beside the wall time, since they
depend far less on what else the machine runs (on an idle machine with ``c`` cores a reader cannot
take less than its CPU seconds ÷ ``c``); peak memory is the process's high-water mark (``VmHWM``) above its resident size
just before the parse, the largest over the runs, as a multiple of the float32 matrix
(``n × dim × 4`` bytes). polars' reader makes a DataFrame (words and 300 float32 columns), pyarrow's
a Table: what a columnar reader costs, not yet a matrix. The load average is printed: the ratios
compare runs of this same invocation, so a loaded machine slows both sides.

Threads: geobias parses with polars, so both readers use polars' one thread pool, one thread per
core (its default; the pool size is printed) — the same threads for the same work. geobias reads,
parses and copies each block in the calling thread (a worker thread copying one block while polars
parsed the next cost more CPU for no gain in wall time).
pyarrow uses its own pool, also one thread per core. ``--threads N`` gives every reader N threads
(``POLARS_MAX_THREADS``, ``pyarrow.set_cpu_count``), e.g. to compare as on a 2-core machine.

    python benchmarks/bench_parse.py [--full] [--repeat 3] [--dir DIR] [--threads N]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

SMALL = (50_000, 300)
FULL = (2_000_000, 300)


def write_file(path: Path, n: int, dim: int, *, seed: int = 0) -> None:
    """A word2vec text file of ``n`` × ``dim`` normal(0, 0.1) values with four decimals, written by
    polars in blocks of 100,000 rows."""
    import numpy as np
    import polars as pl

    rng = np.random.default_rng(seed)
    tmp = path.with_suffix(".part")
    with open(tmp, "wb") as fh:
        fh.write(f"{n} {dim}\n".encode())
        for s in range(0, n, 100_000):
            k = min(100_000, n - s)
            values = (rng.standard_normal((k, dim), dtype=np.float32) * np.float32(0.1))
            frame = pl.DataFrame({"w": [f"w{i}" for i in range(s, s + k)]}).hstack(pl.from_numpy(values))
            frame.write_csv(fh, include_header=False, separator=" ", float_precision=4, quote_style="never")
    tmp.replace(path)


def _status(key: str) -> int:
    with open("/proc/self/status") as fh:
        return next(int(line.split()[1]) * 1024 for line in fh if line.startswith(key))


def child(reader: str, path: Path, dim: int) -> None:
    """Run one reader once in this process; print ``{"seconds", "cpu", "peak", "rows"}`` as JSON
    (``cpu``: the process's CPU seconds, all threads, user and system)."""
    warm = path.with_name("warm.vec")
    if not warm.exists():
        warm.write_text(f"1 {dim}\nw " + " ".join(["0.1"] * dim) + "\n", encoding="utf-8")
    if reader == "geobias":
        from geobias.store.formats import read_vectors

        def parse(p):
            store = read_vectors(p)
            return len(store)
    elif reader == "polars":
        import polars as pl

        schema = {"w": pl.String, **{f"v{j}": pl.Float32 for j in range(dim)}}

        def parse(p):
            return pl.read_csv(p, has_header=False, separator=" ", skip_rows=1, quote_char=None, schema=schema).height
    else:
        import pyarrow as pa
        import pyarrow.csv as pcsv

        if os.environ.get("POLARS_MAX_THREADS"):  # --threads
            pa.set_cpu_count(int(os.environ["POLARS_MAX_THREADS"]))

        types = {f"f{j}": pa.float32() for j in range(1, dim + 1)}

        def parse(p):
            return pcsv.read_csv(p, read_options=pcsv.ReadOptions(skip_rows=1, autogenerate_column_names=True),
                                 parse_options=pcsv.ParseOptions(delimiter=" ", quote_char=False),
                                 convert_options=pcsv.ConvertOptions(column_types=types)).num_rows
    parse(warm)  # the library's one-time runtime (thread pools, allocator) is not the parse
    with open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")  # reset VmHWM to the current resident size (Linux)
    before = _status("VmRSS")
    cpu = time.process_time()
    t = time.perf_counter()
    rows = parse(path)
    seconds = time.perf_counter() - t
    cpu = time.process_time() - cpu
    print(json.dumps({"seconds": seconds, "cpu": cpu, "peak": _status("VmHWM") - before, "rows": rows}))


def run_once(reader: str, path: Path, dim: int, threads: int | None) -> dict:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    if threads:
        env["POLARS_MAX_THREADS"] = str(threads)
    out = subprocess.run([sys.executable, __file__, "--child", reader, str(path), str(dim)], check=True,
                         capture_output=True, text=True, env=env, cwd=REPO)
    return json.loads(out.stdout)


def measure(readers: tuple[str, ...], path: Path, dim: int, repeat: int, threads: int | None) -> dict[str, dict]:
    """``repeat`` rounds, each running every reader once in turn; per reader the best wall and CPU
    seconds and the largest peak."""
    runs: dict[str, list[dict]] = {r: [] for r in readers}
    for _ in range(repeat):
        for reader in readers:
            runs[reader].append(run_once(reader, path, dim, threads))
    return {reader: {"seconds": min(r["seconds"] for r in rs), "cpu": min(r["cpu"] for r in rs),
                     "peak": max(r["peak"] for r in rs), "rows": rs[0]["rows"]}
            for reader, rs in runs.items()}


def report(path: Path, n: int, dim: int, repeat: int, readers: tuple[str, ...],
           threads: int | None = None) -> dict[str, dict]:
    size = path.stat().st_size
    matrix = n * dim * 4
    print(f"\n{n:,} × {dim} word2vec text, {size / 2**20:,.0f} MiB (float32 matrix {matrix / 2**20:,.0f} MiB); "
          f"best of {repeat} fresh processes each")
    res = measure(readers, path, dim, repeat, threads)
    for reader in readers:
        r = res[reader]
        assert r["rows"] == n, (reader, r["rows"])
        print(f"  {reader:8s} {r['seconds']:7.2f} s (CPU {r['cpu']:5.2f} s)  {size / 2**20 / r['seconds']:6.0f} MiB/s  "
              f"{n / r['seconds']:9,.0f} rows/s  peak {r['peak'] / 2**20:7,.0f} MiB = {r['peak'] / matrix:.2f}× the matrix")
    g = res["geobias"]
    if "polars" in res:
        ratio = g["seconds"] / res["polars"]["seconds"]
        cpu = g["cpu"] / res["polars"]["cpu"]
        print(f"  geobias ÷ polars {ratio:.2f} wall, {cpu:.2f} CPU seconds (target ≤ 1.5: "
              f"{'OK' if max(ratio, cpu) <= 1.5 else 'MISSED'})"
              + (f"; geobias ÷ pyarrow {g['seconds'] / res['pyarrow']['seconds']:.2f}" if "pyarrow" in res else ""))
    print(f"  geobias peak memory {g['peak'] / matrix:.2f}× the matrix "
          f"(target ≤ 1.5: {'OK' if g['peak'] / matrix <= 1.5 else 'MISSED'})")
    return res


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2], Path(sys.argv[3]), int(sys.argv[4]))
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--full", action="store_true", help="also the 2,000,000 × 300 file (~4.5 GB, minutes)")
    ap.add_argument("--repeat", type=int, default=3, help="fresh processes per reader (default 3; 1 for --full's file)")
    ap.add_argument("--threads", type=int, default=None, help="threads for every reader (default: polars' and "
                    "pyarrow's own default, one per core)")
    ap.add_argument("--dir", type=Path, default=None, help="where the synthetic files are written (default: a "
                    "temporary folder, removed at the end; a given folder keeps them for the next run)")
    args = ap.parse_args()
    load = os.getloadavg()
    if args.threads:
        os.environ["POLARS_MAX_THREADS"] = str(args.threads)  # before polars is imported (write_file)
    import polars as pl

    print(f"{os.cpu_count()} CPUs, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; polars' pool "
          f"{pl.thread_pool_size()} threads (polars and geobias), pyarrow {args.threads or os.cpu_count()}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.dir or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        for (n, dim), repeat, readers in [(SMALL, args.repeat, ("polars", "pyarrow", "geobias"))] + (
                [(FULL, 1, ("polars", "geobias"))] if args.full else []):
            path = folder / f"synthetic-{n}x{dim}.vec"
            if not path.exists():
                t = time.perf_counter()
                write_file(path, n, dim)
                print(f"\nwrote {path.name} in {time.perf_counter() - t:.0f} s")
            report(path, n, dim, repeat, readers, args.threads)
    load = os.getloadavg()
    print(f"\nload average at the end {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")


if __name__ == "__main__":
    main()
