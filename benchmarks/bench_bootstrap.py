"""Bootstrap of MWEAT over word choice: 1,000 resamples of the French occupations (pairs resampled as
pairs) and of the male/female attribute words, on a synthetic 300-d store holding every word of the
built-in French lists.

Ours: :func:`geobias.metrics.bootstrap.mweat_resampling` computes the target × attribute cosine
matrices once; a resample is index counts times those matrices and a gather.
Baseline (the naive loop): for every resample, look the resampled words up in the store and compute
the MWEAT statistic from their vectors (``association_scores`` then eq. 1), as re-running the metric
would (without its permutation test). Both get the same index draws (one ``bootstrap`` call each,
same seed), so the intervals must be identical; the ratio is baseline time ÷ ours.

Run: PYTHONPATH=. python benchmarks/bench_bootstrap.py [--resamples 1000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from geobias import wordlists
from geobias.metrics import bootstrap as mb
from geobias.metrics.weat import association_scores
from geobias.stats.bootstrap import bootstrap
from geobias.store import VectorStore

TARGET_S = 1.0
DIM = 300


def french_store(seed: int = 0):
    rng = np.random.default_rng(seed)
    occ = list(wordlists.occupations("fr"))
    male, female = wordlists.attribute_words("fr")
    words = list(dict.fromkeys([*(o.masculine for o in occ), *(o.feminine for o in occ), *male, *female]))
    words += [f"filler{i}" for i in range(20_000)]
    return VectorStore(words, rng.normal(size=(len(words), DIM)).astype(np.float32)), occ, list(male), list(female)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--resamples", type=int, default=1000)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    store, occ, male, female = french_store()
    xs, ys = [o.masculine for o in occ], [o.feminine for o in occ]
    print(f"MWEAT on {len(occ)} French occupation pairs, A {len(male)} / B {len(female)} attribute words, "
          f"{args.resamples:,} resamples, dim {DIM}")

    def ours():
        rows = {k: store.lookup(v, unit=True).vectors for k, v in (("X", xs), ("Y", ys), ("A", male), ("B", female))}
        return mb.run(mb.mweat_resampling(rows["X"], rows["Y"], rows["A"], rows["B"]),
                      n_resamples=args.resamples, seed=0)

    def naive_stat(ix):
        out = np.empty(ix["X"].shape[0])
        for r in range(len(out)):
            x = store.lookup([xs[i] for i in ix["X"][r]], unit=True).vectors
            y = store.lookup([ys[i] for i in ix["Y"][r]], unit=True).vectors
            a = store.lookup([male[i] for i in ix["A"][r]], unit=True).vectors
            b = store.lookup([female[i] for i in ix["B"][r]], unit=True).vectors
            s = association_scores(np.concatenate([x, y]), a, b)
            out[r] = abs(abs(s[: len(x)].sum()) - abs(s[len(x):].sum()))
        return out

    def naive():
        return bootstrap(naive_stat, {"X": len(xs), "Y": len(ys), "A": len(male), "B": len(female)},
                         paired=[("X", "Y")], n_resamples=args.resamples, seed=0)

    times = {"ours": [], "naive": []}
    for _ in range(args.repeats):
        for name, fn in (("ours", ours), ("naive", naive)):
            t0 = time.perf_counter()
            res = fn()
            times[name].append(time.perf_counter() - t0)
            if name == "ours":
                mine = res
            else:
                base = res
    same = all(np.isclose(getattr(mine, k), getattr(base, k), rtol=1e-9, atol=1e-12)
               for k in ("estimate", "low", "high", "standard_error"))
    t_ours, t_naive = min(times["ours"]), min(times["naive"])
    print(f"estimate {mine.estimate:.6f}, 95% interval [{mine.low:.6f}, {mine.high:.6f}], SE {mine.standard_error:.6f}")
    print(f"naive loop: [{base.low:.6f}, {base.high:.6f}], SE {base.standard_error:.6f}; identical: {same}")
    print(f"ours {t_ours * 1000:.1f} ms (best of {args.repeats}), naive {t_naive * 1000:.1f} ms; "
          f"naive ÷ ours = {t_naive / t_ours:.1f}; ours ÷ the 1 s target = {t_ours / TARGET_S:.3f}")
    print("load average (1, 5, 15 min): " + ", ".join(f"{v:.2f}" for v in os.getloadavg()))
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
