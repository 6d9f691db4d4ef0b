"""Parity with WEFE 1.0.1: WEAT, RND, RNSB, ECT, MAC and RIPA, ours and WEFE's, on the same vectors.

WEFE pins old numpy/scipy, so it usually lives in its own virtualenv; this script runs itself a
second time under that interpreter (``--wefe-side``, which imports only wefe, gensim and numpy)
and hands it the exact float32 rows of every query word, so both sides see identical vectors.

    WEFE_PYTHON=/path/to/wefe-venv/bin/python PYTHONPATH=. python benchmarks/wefe_parity.py

WEFE is looked for in ``--wefe-python``, then ``$WEFE_PYTHON``, then this interpreter; without it
the script says so and exits 0. The vectors are the registry source ``en-w2v-gnews``
(``geobias vectors install en-w2v-gnews``); the queries are our English WEAT tests, each set
restricted to the words in the vocabulary (WEFE returns NaN when a set loses more than 20% of its
words; the table shows where its default would have). Each metric is called the way that computes
the paper's definition on unit vectors on both sides:

=========  =======================================  ======================================
metric     WEFE call (normalize=True)                ours
=========  =======================================  ======================================
WEAT       Query([X, Y], [A, B])                     weat(X, Y, A, B)  (statistic; effect
                                                     size with ddof 0, WEFE's np.std)
RND        Query([A, B], [X ∪ Y])                    rnd(X ∪ Y, None, A, B).rnd_mean
RNSB       Query([X, Y], [A, B]), holdout=False,     rnsb(X, Y, A, B, seed=0)
           random_state=0
ECT        Query([A, B], [X ∪ Y])                    ect(X ∪ Y, None, A, B)
MAC        Query([X, Y], [A, B])                     mac(X, Y, A, B)
RIPA       Query([A, B], [X ∪ Y]), |A| = |B|         mean over pairs i of
                                                     ripa(X ∪ Y, [(A_i, B_i)], unit=True).mean
=========  =======================================  ======================================
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from geobias.query import WordQuery

TOLERANCE = 1e-6


def wefe_side(config_path: str) -> None:
    """Run WEFE on the query words' rows (this runs under WEFE's interpreter)."""
    import logging

    import numpy as np
    from gensim.models import KeyedVectors
    from wefe.metrics import ECT, MAC, RIPA, RND, RNSB, WEAT
    from wefe.query import Query
    from wefe.word_embedding_model import WordEmbeddingModel

    logging.disable(logging.CRITICAL)
    config = json.loads(Path(config_path).read_text(encoding="utf-8"))
    data = np.load(config["vectors"])
    words = [str(w) for w in data["words"]]
    kv = KeyedVectors(vector_size=data["rows"].shape[1])
    kv.add_vectors(words, data["rows"])
    model = WordEmbeddingModel(kv, "gnews")

    def num(value):
        value = float(value)
        return None if value != value else value  # NaN → null

    out = {}
    for name, q in config["queries"].items():
        X, Y, A, B = q["X"], q["Y"], q["A"], q["B"]
        two_two = Query([X, Y], [A, B], ["X", "Y"], ["A", "B"])
        groups = Query([A, B], [X + Y], ["A", "B"], ["T"])
        weat = WEAT().run_query(two_two, model, normalize=True)
        res = {
            "WEAT statistic": num(weat["weat"]),
            "WEAT effect size": num(weat["effect_size"]),
            "RND": num(RND().run_query(groups, model, normalize=True)["rnd"]),
            "RNSB": num(RNSB().run_query(two_two, model, normalize=True, holdout=False, random_state=0)["rnsb"]),
            "ECT": num(ECT().run_query(groups, model, normalize=True)["ect"]),
            "MAC": num(MAC().run_query(two_two, model, normalize=True)["mac"]),
        }
        if len(A) == len(B):
            res["RIPA"] = num(RIPA().run_query(groups, model, normalize=True)["ripa"])
        if config.get("p_values"):
            p = WEAT().run_query(two_two, model, normalize=True, calculate_p_value=True,
                                 p_value_iterations=config["p_values"])
            res["WEAT p (right-sided)"] = num(p["p_value"])
        full = q.get("unfiltered")
        if full:
            res["WEAT statistic, unfiltered sets"] = num(WEAT().run_query(
                Query([full["X"], full["Y"]], [full["A"], full["B"]], ["X", "Y"], ["A", "B"]), model,
                normalize=True)["weat"])
        out[name] = res
    print(json.dumps(out))


def find_wefe(explicit: str | None) -> str | None:
    """An interpreter that can import wefe, or None."""
    candidates = [explicit, os.environ.get("WEFE_PYTHON"), sys.executable]
    for python in (c for c in candidates if c):
        try:
            probe = subprocess.run([python, "-c", "import wefe"], capture_output=True)
        except OSError:  # not an executable
            continue
        if probe.returncode == 0:
            return python
    return None


def ours(store, X, Y, A, B, permutations: int) -> dict[str, float]:
    import numpy as np

    from geobias.metrics import weat
    from geobias.metrics.ect import ect
    from geobias.metrics.mac import mac
    from geobias.metrics.ripa import ripa
    from geobias.metrics.rnd import rnd
    from geobias.metrics.rnsb import rnsb

    T = list(dict.fromkeys([*X, *Y]))
    w = weat(store, WordQuery(X, Y, A, B), permutations=permutations, seed=0)
    res = {
        "WEAT statistic": w.statistic,
        "WEAT effect size": w.effect_size_ddof0,
        "RND": rnd(store, WordQuery(T, None, A, B)).rnd_mean,
        "RNSB": rnsb(store, WordQuery(X, Y, A, B), seed=0).rnsb,
        "ECT": ect(store, WordQuery(T, None, A, B)).ect,
        "MAC": mac(store, WordQuery(X, Y, A, B)).mac,
    }
    if len(A) == len(B):
        res["RIPA"] = float(np.mean([ripa(store, WordQuery.with_pairs(T, [(a, b)]), unit=True).mean for a, b in zip(A, B, strict=True)]))
        res["RIPA (ours: first PC of all pairs)"] = ripa(store, WordQuery.with_pairs(T, list(zip(A, B, strict=True))), unit=True).mean
    res["WEAT p (right-sided)"] = w.p_value
    return res


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--wefe-side", metavar="CONFIG", help=argparse.SUPPRESS)
    ap.add_argument("--wefe-python", help="Interpreter with wefe==1.0.1 installed (default: $WEFE_PYTHON).")
    ap.add_argument("--vectors", default="en-w2v-gnews", help="Registry source or store (default en-w2v-gnews).")
    ap.add_argument("--p-values", type=int, default=0,
                    help="Also run WEFE's WEAT p-value with this many draws (slow: about a minute per 10,000 and "
                         "test); ours always uses 100,000 permutations (exact when fewer partitions exist).")
    args = ap.parse_args()
    if args.wefe_side:
        wefe_side(args.wefe_side)
        return 0

    python = find_wefe(args.wefe_python)
    if python is None:
        print("WEFE is not installed (no interpreter imports wefe; set WEFE_PYTHON or --wefe-python to one, e.g. "
              "a virtualenv with `pip install wefe==1.0.1`); skipping the parity check.")
        return 0

    import numpy as np

    from geobias import wordlists
    from geobias.errors import GeobiasError
    from geobias.sources import resolve_store

    try:
        store = resolve_store("en", args.vectors)
    except GeobiasError as exc:
        print(f"cannot open {args.vectors}: {exc} (install it: geobias vectors install en-w2v-gnews); skipping.")
        return 0

    queries, vocab, ours_by_test, lost = {}, [], {}, {}
    for test in wordlists.weat_tests("en"):
        sets = wordlists.weat_test("en", test)
        full = {"X": sets.X, "Y": sets.Y, "A": sets.A, "B": sets.B}
        kept = {k: [w for w in v if w in store] for k, v in full.items()}
        if any(len(v) < 2 for v in kept.values()):
            print(f"{test}: a set has fewer than 2 words in {args.vectors}; left out")
            continue
        lost[test] = max(1 - len(kept[k]) / len(full[k]) for k in full)
        queries[test] = {**kept, "unfiltered": full if lost[test] > 0 else None}
        vocab += [w for v in (*kept.values(), *full.values()) for w in v if w in store]
        ours_by_test[test] = ours(store, kept["X"], kept["Y"], kept["A"], kept["B"], 100_000)

    vocab = list(dict.fromkeys(vocab))
    with tempfile.TemporaryDirectory() as tmp:
        rows = np.ascontiguousarray(store.lookup(vocab).vectors, dtype=np.float32)
        np.savez(Path(tmp) / "rows.npz", words=np.array(vocab), rows=rows)
        config = {"vectors": str(Path(tmp) / "rows.npz"), "queries": queries, "p_values": args.p_values}
        (Path(tmp) / "config.json").write_text(json.dumps(config), encoding="utf-8")
        run = subprocess.run([python, str(Path(__file__).resolve()), "--wefe-side", str(Path(tmp) / "config.json")],
                             capture_output=True, text=True)
    if run.returncode != 0:
        print(f"WEFE failed:\n{run.stderr[-2000:]}")
        return 1
    theirs = json.loads(run.stdout.strip().splitlines()[-1])

    print(f"vectors: {args.vectors} ({len(store):,} × {store.dim}); WEFE via {python}")
    print(f"{'test':<22} {'metric':<34} {'ours':>14} {'WEFE':>14} {'|diff|':>10}")
    worst = 0.0
    for test, mine in ours_by_test.items():
        wefe = theirs[test]
        for metric in sorted(set(mine) | set(wefe), key=lambda m: (m.startswith("WEAT p"), m)):
            a, b = mine.get(metric), wefe.get(metric)
            diff = abs(a - b) if a is not None and b is not None else None
            exact = metric in ("WEAT statistic", "WEAT effect size", "RND", "RNSB", "ECT", "MAC", "RIPA")
            if exact and diff is not None:
                worst = max(worst, diff)
            fmt = lambda v: "—" if v is None else f"{v:+.8f}"  # noqa: E731
            print(f"{test:<22} {metric:<34} {fmt(a):>14} {fmt(b):>14} "
                  f"{'—' if diff is None else f'{diff:.1e}':>10}")
        if lost[test] > 0:
            print(f"{test:<22} (a set lost {lost[test]:.0%} of its words; WEFE's default threshold is 20%)")
    print(f"largest |difference| over the metrics defined alike: {worst:.2e} (target {TOLERANCE:g})")
    print("WEAT p-values differ by design: ours is an exact or Monte-Carlo test over true permutations "
          "(seed 0); WEFE draws its 'permutations' with replacement and without a seed.")
    return 0 if worst <= TOLERANCE else 1


if __name__ == "__main__":
    sys.exit(main())
