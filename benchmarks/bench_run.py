"""``geobias.commands.run`` against the library call it wraps, on the real French store (fr-spacy-md).

A notebook user calls ``run("mweat", lang="fr", ...)`` in a loop over languages or seeds. After the
first call the store stays open in the process (:mod:`geobias.sources.opened`), so each further
call should cost about what the library call costs on an already open store: target ≤ 1.3×. Both
are timed here, in this process, as CPU time (best of ``REPEAT``; the host is shared and its wall
clock noisy), after one warm-up call each.

Run: python benchmarks/bench_run.py   (installs nothing: skips when fr-spacy-md is not installed)
"""

from __future__ import annotations

import os
import sys
import time

REPEAT = 15


def cpu(fn, repeat: int = REPEAT) -> float:
    fn()
    best = float("inf")
    for _ in range(repeat):
        t = time.process_time()
        fn()
        best = min(best, time.process_time() - t)
    return best


def main() -> int:
    from geobias import wordlists
    from geobias.commands import run
    from geobias.metrics import mweat
    from geobias.query import WordQuery
    from geobias.sources.registry import is_installed, load_installed
    from geobias.store.neighbors import nearest_neighbors

    if not is_installed("fr-spacy-md"):
        print("fr-spacy-md is not installed (geobias vectors install fr-spacy-md); nothing measured")
        return 0
    store = load_installed("fr-spacy-md")
    male, female = wordlists.attribute_words("fr")
    query = WordQuery.two_form(wordlists.occupations("fr"), male, female)
    cases = {
        "mweat (10,000 permutations)": (
            lambda: mweat(store, query, permutations=10_000, oov="ignore"),
            lambda: run("mweat", lang="fr", permutations=10_000)),
        "neighbors (k = 10)": (
            lambda: nearest_neighbors(store, "infirmière", 10, lang="fr"),
            lambda: run("neighbors", lang="fr", word="infirmière", k=10)),
    }
    print(f"load average {os.getloadavg()[0]:.2f} (1 min); CPU time, best of {REPEAT}")
    worst = 0.0
    for name, (library, command) in cases.items():
        lib, cmd = cpu(library), cpu(command)
        worst = max(worst, cmd / lib)
        print(f"{name:30s} library {lib * 1e3:7.2f} ms   run() {cmd * 1e3:7.2f} ms   ratio {cmd / lib:.2f}")
    print(f"largest ratio {worst:.2f} (target ≤ 1.3)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
