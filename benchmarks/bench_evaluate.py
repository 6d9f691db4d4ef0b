"""`geobias evaluate` on the README command (target: ≤ 15 s on a quiet machine).

Runs the README's evaluate command twice in fresh processes: as shipped, and with
``GEOBIAS_CSLS_CACHE=0`` as the baseline of the same run — every method and direction then gets
its own IVF pruning indexes and computes its own exact r and neighbour lists (both directions of a
method still share one pair), as in the earlier code.
As shipped, one :class:`geobias.alignment.csls.CslsPair` serves both translation directions and
the cosine NN of a method, and the next method starts from the lists it remembers (unchanged rows
keep or update their exact lists; remembered rows seed the pruning bounds). Prints wall times, the
ratio, and whether both runs printed the same table, every method and metric (they must: reuse
never changes a CSLS ranking). ``GEOBIAS_BENCH_EVAL_REPEAT=3`` alternates the two runs three times
and prints the medians. Needs fr-spacy-md, en-w2v-gnews and ../shared/data; skipped
otherwise. ``GEOBIAS_BENCH_EVAL_METHODS=original,shift-ori`` runs fewer methods.

    python benchmarks/bench_evaluate.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
D = REPO / ".." / "shared" / "data"


def run(env_extra: dict) -> tuple[float, dict]:
    args = [sys.executable, str(REPO / "cli.py"), "evaluate", "--lang", "fr", "--en-vectors", "en-w2v-gnews",
            "--dictionary", str(D / "muse/dictionaries/fr-en.0-5000.txt"),
            "--test-dictionary", str(D / "muse/dictionaries/fr-en.5000-6500.txt"),
            "--similarity", str(D / "wordsim/monolingual/FR_RG-65.txt"), "--json"]
    methods = os.environ.get("GEOBIAS_BENCH_EVAL_METHODS")
    if methods:
        args += ["--methods", methods]
    env = dict(os.environ, PYTHONPATH=str(REPO), **env_extra)
    t = time.perf_counter()
    out = subprocess.run(args, check=True, capture_output=True, text=True, env=env, cwd=REPO)
    return time.perf_counter() - t, json.loads(out.stdout)["result"]


def main() -> None:
    from geobias.sources import is_installed

    if not (D / "muse").is_dir() or not is_installed("fr-spacy-md") or not is_installed("en-w2v-gnews"):
        print("goal 4  evaluate skipped: needs ../shared/data and the fr-spacy-md, en-w2v-gnews stores")
        return
    repeat = int(os.environ.get("GEOBIAS_BENCH_EVAL_REPEAT", "1"))
    print("shared 2-core machine: noisy (the same run varies by up to ±15% here); baseline (no index reuse) "
          f"and ours run back to back, {repeat} time(s)")
    base_ts, ours_ts, same = [], [], True
    for _ in range(repeat):
        base_t, base = run({"GEOBIAS_CSLS_CACHE": "0"})
        ours_t, ours = run({})
        base_ts.append(base_t)
        ours_ts.append(ours_t)
        same = same and base == ours  # the whole table, every method and metric
    base_t, ours_t = float(np.median(base_ts)), float(np.median(ours_ts))
    print(f"evaluate, baseline (no CSLS reuse: index, r and lists per method and direction): "
          f"{', '.join(f'{t:.1f}' for t in base_ts)} s")
    print(f"evaluate, ours (one CslsPair per method, lists remembered across methods): "
          f"{', '.join(f'{t:.1f}' for t in ours_ts)} s")
    print(f"goal 4  evaluate {ours_t:.1f} s (median), {base_t / ours_t:.2f}× the baseline; target ≤ 15 s "
          f"{'OK' if ours_t <= 15 else 'MISSED'}; identical tables: {same}")

if __name__ == "__main__":
    main()
