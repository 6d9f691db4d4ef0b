"""What the default bootstrap costs each association command: the command run through
:func:`geobias.commands.run` with ``bootstrap=0`` (baseline) and with N resamples, on the installed
French (fr-spacy-md) and English (en-w2v-gnews) stores, the store opened once before timing.

RNSB retrains its logistic regression on every resample, so it is the one whose cost grows with N;
the others resample precomputed similarity matrices. The figure is the ratio (with ÷ without) of
the median of ``--repeats`` runs, both in the same process; the load average is printed with it.

Run: PYTHONPATH=. python benchmarks/bench_bootstrap_default.py [--commands rnsb] [--resamples 1000,200]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from geobias.commands import run

STORES = {"fr": "fr-spacy-md", "en": "en-w2v-gnews"}


def timed(command: str, repeats: int, **params) -> float:
    """Median wall time of ``repeats`` runs (s)."""
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        run(command, **params)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--commands", default="rnsb,mweat,weat,rnd,ect,mac,ripa")
    ap.add_argument("--resamples", default="1000,200")
    ap.add_argument("--langs", default="fr,en")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    counts = [int(n) for n in args.resamples.split(",")]
    print("load average before (1, 5, 15 min): " + ", ".join(f"{v:.2f}" for v in os.getloadavg()))
    for lang in args.langs.split(","):
        for command in args.commands.split(","):
            if command == "mweat" and lang == "en":
                continue  # MWEAT needs two-form occupations
            params = {"lang": lang, "vectors": STORES[lang]}
            if command == "weat" and lang == "en":
                params["test"] = "math-arts"  # career-family's names are mostly missing from the small store
            if command == "ripa":
                params["variant"] = "english"
            run(command, **params, bootstrap=0)  # open the store, warm the caches
            base = timed(command, args.repeats, **params, bootstrap=0)
            cells = [f"{command} {lang}: no bootstrap {base:.3f} s"]
            for n in counts:
                t = timed(command, args.repeats, **params, bootstrap=n)
                cells.append(f"{n:,} resamples {t:.3f} s (×{t / base:.1f})")
            print("; ".join(cells), flush=True)
    print("load average after (1, 5, 15 min): " + ", ".join(f"{v:.2f}" for v in os.getloadavg()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
