"""Start-up of the command line against `python -c "import numpy"` and the analysis' own compute.

Targets (issue 46): `geobias mweat --lang fr` on an installed store takes at most 3× (importing numpy
+ the MWEAT call's compute), and `geobias --help` at most 1.5× importing numpy.

Every command runs ``--repeat`` times (default 7) in a fresh interpreter after one warm-up run (which
also writes the byte-code cache, as installing a wheel does); the best and median wall times and the
best CPU time (user + sys of the child) are printed. The compute is the library call
``geobias.commands.run("mweat", lang="fr")`` timed in one process once its store is open (best of
``--repeat`` calls, wall and CPU; the first call, which opens the store, is printed beside it).
The CPU ratio (CPU times throughout) is the steadier figure on a loaded machine. The ratios divide
best wall times measured in this same run, so a loaded machine slows both sides; the load average
is printed with them. `mweat --lang fr` needs the fr-spacy-md store (`make demo`, or a
GEOBIAS_VECTORS_DIR that holds it).

    python benchmarks/bench_startup.py [--repeat 7]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

#: The compute: the MWEAT call itself, in one process, its store already open.
COMPUTE = """
import sys, time
from geobias.commands import run
t = time.perf_counter(); run("mweat", lang="fr"); first = time.perf_counter() - t
best = cpu = float("inf")
for _ in range(int(sys.argv[1])):
    t, c = time.perf_counter(), time.process_time()
    run("mweat", lang="fr")
    best, cpu = min(best, time.perf_counter() - t), min(cpu, time.process_time() - c)
print(first, best, cpu)
"""


def child_env() -> dict[str, str]:
    """The environment of the measured processes: this checkout first on the path, and byte-code
    written (an installed wheel has it; ``PYTHONDONTWRITEBYTECODE`` would make every start compile)."""
    env = dict(os.environ, PYTHONPATH=str(REPO))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def wall(args: list[str], n: int) -> tuple[float, float, float]:
    """Best and median wall time of ``n`` fresh processes (after one warm-up), and the best CPU time
    (user + sys of the child: on a loaded machine the closest figure to a quiet machine's wall time)."""
    env = child_env()
    subprocess.run(args, check=True, capture_output=True, env=env, cwd=REPO)  # warm-up: byte-code, page cache
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


def geobias_command() -> list[str]:
    """The installed console script beside this interpreter, else ``python cli.py`` from the checkout."""
    script = Path(sys.executable).with_name("geobias")
    if script.exists() or shutil.which("geobias") == str(script):
        return [str(script)]
    return [sys.executable, str(REPO / "cli.py")]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=7, help="fresh processes per command (default 7)")
    args = ap.parse_args()
    n = args.repeat
    py, geobias = sys.executable, geobias_command()
    load = os.getloadavg()
    print(f"{os.cpu_count()} CPUs, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; "
          f"best and median of {n} fresh processes after a warm-up")
    rows = [("python -c pass", [py, "-c", "pass"]),
            ("python -c 'import numpy'", [py, "-c", "import numpy"]),
            ("geobias --help", [*geobias, "--help"])]
    sys.path.insert(0, str(REPO))
    from geobias.sources import is_installed

    have_fr = is_installed("fr-spacy-md")
    if have_fr:
        rows.append(("geobias mweat --lang fr", [*geobias, "mweat", "--lang", "fr"]))
    res = {}
    for name, argv in rows:
        res[name] = wall(argv, n)
        best, median, cpu = res[name]
        print(f"{name:28s} best {best:.3f} s  median {median:.3f} s  CPU {cpu:.3f} s")
    numpy = res["python -c 'import numpy'"]
    help_ = res["geobias --help"]
    print(f"geobias --help ÷ import numpy: {help_[0] / numpy[0]:.2f} (wall), {help_[2] / numpy[2]:.2f} (CPU); "
          f"target ≤ 1.5: {'OK' if help_[0] / numpy[0] <= 1.5 else 'MISSED'}")
    if not have_fr:
        print("geobias mweat --lang fr skipped: fr-spacy-md is not installed (make demo)")
        return
    out = subprocess.run([py, "-c", COMPUTE, str(n)], check=True, capture_output=True, text=True, env=child_env(),
                         cwd=REPO)
    first, compute, compute_cpu = map(float, out.stdout.split())
    print(f"compute: geobias.commands.run('mweat', lang='fr') {compute:.3f} s wall, {compute_cpu:.3f} s CPU on an "
          f"open store (the first call, which imports the analysis and opens the store, {first:.3f} s)")
    mweat = res["geobias mweat --lang fr"]
    ratio = mweat[0] / (numpy[0] + compute)
    print(f"geobias mweat --lang fr ÷ (import numpy + compute): {ratio:.2f} (wall), "
          f"{mweat[2] / (numpy[2] + compute_cpu):.2f} (CPU); target ≤ 3: {'OK' if ratio <= 3 else 'MISSED'}")
    load = os.getloadavg()
    print(f"load average at the end {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")


if __name__ == "__main__":
    main()
