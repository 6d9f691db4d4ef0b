"""Startup time of the CLI: `geobias --help` ≤ 0.25 s and
`geobias mweat --lang fr` ≤ 0.6 s end to end, on a quiet machine.

Each command runs 7 times in a fresh interpreter; the best and median wall times are printed
with two baselines from the same run: the bare interpreter (`python -c pass`) and the imports the
CLI needed at startup in its earlier form (numpy, scipy.stats, typer, rich), so a loaded machine
shows up in the baselines too. `mweat --lang fr` needs the fr-spacy-md store (`make demo`).

    python benchmarks/bench_startup.py
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def wall(args: list[str], n: int = 7) -> tuple[float, float, float]:
    """Best and median wall time, and the best CPU time (user + sys of the child: on a loaded
    machine the closest figure to a quiet machine's wall time)."""
    env = dict(os.environ, PYTHONPATH=str(REPO))
    times, cpus = [], []
    for _ in range(n):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        subprocess.run(args, check=True, capture_output=True, env=env, cwd=REPO)
        times.append(time.perf_counter() - t)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime)
    times.sort()
    return times[0], times[len(times) // 2], min(cpus)


def main() -> None:
    py = sys.executable
    cli = str(REPO / "cli.py")
    print("shared 2-core machine: noisy; best and median of 7 fresh processes")
    rows = [("python -c pass", [py, "-c", "pass"]),
            ("import numpy, scipy.stats, typer, rich (pre-14 startup set)",
             [py, "-c", "import numpy, scipy.stats, typer, rich.console"]),
            ("geobias --help", [py, cli, "--help"])]
    from geobias.sources import is_installed

    have_fr = is_installed("fr-spacy-md")
    if have_fr:
        rows.append(("geobias mweat --lang fr", [py, cli, "mweat", "--lang", "fr"]))
    res = {}
    for name, args in rows:
        res[name] = wall(args)
        print(f"{name:62s} best {res[name][0]:.3f} s  median {res[name][1]:.3f} s  CPU {res[name][2]:.3f} s")
    floor = res["python -c pass"][0]
    old = res["import numpy, scipy.stats, typer, rich (pre-14 startup set)"][0]
    h = res["geobias --help"][0]
    old_cpu = res["import numpy, scipy.stats, typer, rich (pre-14 startup set)"][2]
    print(f"goal 5  geobias --help: {h:.3f} s wall, {res['geobias --help'][2]:.3f} s CPU "
          f"(target ≤ 0.25 s {'OK' if h <= 0.25 else 'MISSED'}); {h / floor:.1f}× the bare interpreter; "
          f"{old / h:.2f}× faster (wall) and {old_cpu / res['geobias --help'][2]:.2f}× (CPU) than importing the pre-14 set")
    if have_fr:
        m = res["geobias mweat --lang fr"][0]
        print(f"goal 5  geobias mweat --lang fr: {m:.3f} s wall, {res['geobias mweat --lang fr'][2]:.3f} s CPU "
              f"(target ≤ 0.6 s {'OK' if m <= 0.6 else 'MISSED'})")
    else:
        print("goal 5  mweat --lang fr skipped: fr-spacy-md not installed (make demo)")


if __name__ == "__main__":
    main()
