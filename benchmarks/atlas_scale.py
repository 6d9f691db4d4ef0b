"""Benchmark: how the atlas scales with languages and vocabulary.

Two parts, each printing one line per cell and a summary:

``use-m3``: the real battery (:func:`geobias.evaluation.atlas.run_cell`, the command layer's cell)
on the installed ``use-m3-*`` stores, one cell after another in this process: seconds per cell,
the store's size, and this process's peak resident memory. Stores that are not installed are
skipped (``--install`` installs them first with ``--vocab`` wordfreq words; about a minute per
50,000 words on one core).

``synthetic``: L languages × N words × D dimensions of random vectors with planted gender
structure, one Ray task per language on a private local Ray cluster of ``--workers`` CPUs. Each
task builds its store in the worker (no transfer): our word lists of the language (cycling
through the languages of :data:`geobias.languages.LANGUAGES`) get vectors pushed along axis 0
(semantic gender: masculine words and forms +, feminine −) and axis 1 (grammatical gender of the
nouns and forms), the rest are filler words; the English store holds the English lists plus 1,000
fillers. The task then runs the same battery through ``geobias.sources.use_opener`` (the stores
are served from memory, as the service does) and reports its build and battery seconds, words per
second, and its worker's peak resident memory (``resource.getrusage``; a worker reused for a
second task reports its peak so far).

    PYTHONPATH=. python benchmarks/atlas_scale.py                     # both parts, default sizes (~1 min)
    PYTHONPATH=. python benchmarks/atlas_scale.py --part synthetic --languages 16 --words 2000000 --dims 300
    PYTHONPATH=. python benchmarks/atlas_scale.py --part use-m3 --langs es,fr --install --vocab 50000

The full-size run (16 × 2,000,000 × 300: 2.4 GB of float32 per store and task) needs about
3 GB of memory per worker; size ``--workers`` to the machine. Timings depend on the machine: this
script only prints them, no test asserts one.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time

#: The atlas command's defaults (geobias.commands.atlas.AtlasParams): 20,000 hierarchical bootstrap resamples.
OPTIONS = {"permutations": 10_000, "bootstrap": 20_000, "seed": 0, "max_per_class": None,
           "lost_vocabulary_threshold": 0.2}


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KB on Linux


# ----------------------------------------------------------------------------- use-m3
def bench_use_m3(langs: list[str] | None, vocab: int, install: bool, options: dict) -> None:
    from geobias.commands.atlas import atlas_cell
    from geobias.evaluation.atlas import plan_atlas
    from geobias.sources import install as install_source
    from geobias.sources import is_installed

    cells = plan_atlas("use-m3", langs, options)
    print(f"[use-m3] {len(cells)} languages, one cell after another in this process "
          f"({options['permutations']:,} permutations per test)")
    total, ran = 0.0, 0
    for cell in cells:
        for name in (cell["store"], cell["en_store"]):
            if name and not is_installed(name) and install:
                t0 = time.perf_counter()
                install_source(name, vocab_size=vocab, progress=False)
                print(f"  installed {name} ({vocab:,} words) in {time.perf_counter() - t0:.1f} s")
        if not is_installed(cell["store"]):
            print(f"  {cell['lang']}: {cell['store']} is not installed (skipped; --install installs it)")
            continue
        t0 = time.perf_counter()
        out = atlas_cell(cell)
        dt = time.perf_counter() - t0
        total, ran = total + dt, ran + 1
        shape = out.shape or ["?", "?"]
        print(f"  {cell['lang']}: {out.status:<5} {shape[0]:>9,} words × {shape[1]} d   {dt:7.2f} s/cell   "
              f"peak RSS {_peak_mb():,.0f} MB" + (f"   error: {out.error}" if out.status != "ok" else ""))
    if ran:
        print(f"[use-m3] {ran} cells in {total:.1f} s: {total / ran:.2f} s per cell")


# ----------------------------------------------------------------------------- synthetic
def _planted_store(lang: str, n_words: int, dim: int, seed: int):
    """Our lists of ``lang`` with planted gender geometry, plus fillers up to ``n_words``."""
    import numpy as np

    from geobias import wordlists
    from geobias.store import VectorStore

    rng = np.random.default_rng(seed)
    signs: dict[str, tuple[float, float]] = {}

    def plant(words, sem: float, gram: float) -> None:
        for w in words:
            signs.setdefault(w, (sem, gram))

    def optional(fn):
        try:
            return fn()
        except Exception:  # noqa: BLE001 - a list the language lacks
            return None

    pairs = optional(lambda: wordlists.definitional_pairs(lang)) or []
    plant([m for _, m in pairs], 1.0, 0.5)
    plant([f for f, _ in pairs], -1.0, -0.5)
    attrs = optional(lambda: wordlists.attribute_words(lang))
    if attrs:
        plant(attrs[0], 1.0, 0.5)
        plant(attrs[1], -1.0, -0.5)
    for o in optional(lambda: wordlists.occupations(lang)) or []:
        plant([o.masculine], 0.3 * rng.standard_normal(), 0.5)
        plant([o.feminine], -0.3 + 0.3 * rng.standard_normal(), -0.5)
        plant([o.english], 0.3 * rng.standard_normal(), 0.0)
    for test in ("career-family", "math-arts", "science-arts"):
        s = optional(lambda t=test: wordlists.weat_test(lang, t))
        if s:
            plant(s.X + s.Y + s.A + s.B, 0.0, 0.0)
    nouns = optional(lambda: wordlists.gendered_nouns(lang))
    if nouns:
        plant(nouns[0], 0.0, 0.6)
        plant(nouns[1], 0.0, -0.6)
    words = list(signs)[:n_words]
    words += [f"filler{i}" for i in range(n_words - len(words))]
    vectors = rng.standard_normal((len(words), dim), dtype=np.float32) * 0.3
    planted = np.array([signs.get(w, (0.0, 0.0)) for w in words[: len(signs)]], dtype=np.float32)
    vectors[: len(planted), 0] += planted[:, 0]
    vectors[: len(planted), 1] += planted[:, 1]
    return VectorStore(words, vectors, lang=lang, provenance={"source": f"synthetic-{lang}"})


def synthetic_cell(task: dict) -> dict:
    """One synthetic language in a Ray worker: build the stores, run the battery, report time and memory."""
    from geobias.commands.atlas import atlas_cell
    from geobias.sources import use_opener

    t0 = time.perf_counter()
    store = _planted_store(task["lang"], task["words"], task["dims"], task["seed"])
    english = _planted_store("en", 1_000 + 3_000, task["dims"], task["seed"] + 1)
    built = time.perf_counter() - t0

    def opener(lang, name, option):
        return english if option == "--en-vectors" else store

    t1 = time.perf_counter()
    with use_opener(opener):
        out = atlas_cell({"lang": task["lang"], "store": f"synthetic-{task['lang']}", "en_store": "synthetic-en",
                          "options": task["options"]})
    battery = time.perf_counter() - t1
    return {"index": task["index"], "lang": task["lang"], "status": out.status, "error": out.error,
            "n_ok_metrics": sum(m.status == "ok" for m in out.metrics.values()),
            "build_s": built, "battery_s": battery, "pid": os.getpid(), "peak_rss_mb": _peak_mb()}


def bench_synthetic(n_langs: int, n_words: int, dims: int, workers: int, options: dict) -> None:
    import tempfile

    import ray

    from geobias.languages import LANGUAGES

    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    codes = list(LANGUAGES)
    tasks = [{"index": i, "lang": codes[i % len(codes)], "words": n_words, "dims": dims, "seed": i,
              "options": options} for i in range(n_langs)]
    t0 = time.perf_counter()
    ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False,
             _temp_dir=tempfile.mkdtemp(prefix="ray", dir="/tmp"))
    started = time.perf_counter() - t0
    print(f"[synthetic] {n_langs} languages × {n_words:,} words × {dims} d on a local Ray cluster of {workers} "
          f"CPUs (ray.init {started:.1f} s; {options['permutations']:,} permutations per test)")
    try:
        remote = ray.remote(num_cpus=1, max_retries=0)(synthetic_cell)
        t1 = time.perf_counter()
        results = ray.get([remote.remote(t) for t in tasks])
        wall = time.perf_counter() - t1
    finally:
        ray.shutdown()
    for r in sorted(results, key=lambda r: r["index"]):
        rate = n_words / (r["build_s"] + r["battery_s"])
        print(f"  #{r['index']:<3} {r['lang']:<6} {r['status']:<5} build {r['build_s']:6.2f} s   battery "
              f"{r['battery_s']:6.2f} s   {rate:>10,.0f} words/s   worker {r['pid']} peak RSS {r['peak_rss_mb']:,.0f} MB"
              f"   {r['n_ok_metrics']} metrics ok" + (f"   error: {r['error']}" if r["error"] else ""))
    cell_s = [r["build_s"] + r["battery_s"] for r in results]
    print(f"[synthetic] wall {wall:.1f} s for {n_langs} cells: {n_langs / wall * 60:.1f} cells/min, mean "
          f"{sum(cell_s) / len(cell_s):.2f} s per cell, max worker peak RSS "
          f"{max(r['peak_rss_mb'] for r in results):,.0f} MB")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--part", choices=("use-m3", "synthetic", "both"), default="both")
    ap.add_argument("--langs", default=None, help="use-m3: comma list (default: every language of the family)")
    ap.add_argument("--vocab", type=int, default=50_000, help="use-m3 with --install: wordfreq words per store")
    ap.add_argument("--install", action="store_true", help="use-m3: install the stores that are missing")
    ap.add_argument("--languages", type=int, default=4, help="synthetic: languages (cells)")
    ap.add_argument("--words", type=int, default=20_000, help="synthetic: words per store")
    ap.add_argument("--dims", type=int, default=300, help="synthetic: dimensions")
    ap.add_argument("--workers", type=int, default=2, help="synthetic: CPUs of the local Ray cluster")
    ap.add_argument("--permutations", type=int, default=10_000)
    ap.add_argument("--max-per-class", type=int, default=None, help="cap the LDA's nouns per gender")
    args = ap.parse_args(argv)
    options = {**OPTIONS, "permutations": args.permutations, "max_per_class": args.max_per_class}
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs")
    if args.part in ("use-m3", "both"):
        langs = [c.strip() for c in args.langs.split(",")] if args.langs else None
        bench_use_m3(langs, args.vocab, args.install, options)
    if args.part in ("synthetic", "both"):
        bench_synthetic(args.languages, args.words, args.dims, args.workers, options)


if __name__ == "__main__":
    main()
