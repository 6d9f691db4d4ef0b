"""Calibration of every default interval and test on simulated embeddings with a known truth.

For each scenario of :mod:`geobias.evaluation.calibration` (agreement without bias — symmetric and
asymmetric —, bias without agreement, both, neither) it simulates ``--datasets`` data sets sized
like the French occupation query and prints, per default interval, its **coverage** of the true
value and, per default test, its **rejection rate** at the 5 % level (a false-positive rate where
the test's null holds). Targets: coverage 93–97 %, false-positive rate ≤ 5.5 % for a nominal 5 %.
Each row says where it stands against its target and carries its binomial standard error.

``--pairs`` and ``--attributes`` size the sets otherwise (the French query's: 27 and 11): the
committed ``reproductions/calibration-8-words.json`` is the run at 8 and 8, the size of most of
Caliskan et al.'s WEAT sets, whose coverage the notes of smaller queries' intervals state
(:mod:`geobias.metrics.coverage`).

This is a benchmark of statistical calibration, not of speed: the figures do not depend on the
machine (the seeds are fixed); the wall time and load average are printed for the record.

``--preference`` calibrates instead CrowS-Pairs' and StereoSet's intervals (SS, LMS, ICAT) and test of "no
preference" on simulated choices (:mod:`geobias.evaluation.preference_calibration`: 262 pairs; 40
target terms), ``--datasets`` per scenario.

Run: PYTHONPATH=. python benchmarks/bench_calibration.py [--datasets 1000] [--pairs 27 --attributes 11]
         [--preference] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from contextlib import contextmanager

from geobias._progress import Progress
from geobias.errors import GeobiasError
from geobias.evaluation.calibration import SCENARIOS, SIZES, calibrate, verdict


class _Every100(Progress):
    """A line on stderr every 100 data sets (the run takes minutes; a log, not a bar)."""

    @contextmanager
    def bar(self, description, total):
        done = [0]

        def advance(n=1):
            done[0] += n
            if done[0] % 100 == 0:
                print(f"  {done[0]:,} {description}", file=sys.stderr)
        yield advance


def _head() -> str | None:
    """The checkout's commit (``None`` outside a git checkout)."""
    import subprocess

    out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=os.path.dirname(os.path.abspath(__file__)),
                         capture_output=True, text=True)
    return out.stdout.strip() or None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--datasets", type=int, default=1000)
    ap.add_argument("--permutations", type=int, default=999)
    ap.add_argument("--resamples", type=int, default=1000)
    ap.add_argument("--scenarios", nargs="*", default=list(SCENARIOS))
    ap.add_argument("--pairs", type=int, default=SIZES["pairs"],
                    help="occupation pairs (WEAT's target words) per set; a smaller query than the French one")
    ap.add_argument("--attributes", type=int, default=SIZES["attributes"], help="attribute words per set")
    ap.add_argument("--preference", action="store_true",
                    help="CrowS-Pairs' and StereoSet's intervals and test of no preference instead")
    ap.add_argument("--json", help="also write the rows to this file")
    args = ap.parse_args(argv)
    load = os.getloadavg()[0]
    commit = _head()  # the code that runs: the commit at the start (a later one may land while it runs)
    if args.preference:
        return _preference(args, load, commit)
    t = time.perf_counter()
    try:
        r = calibrate(args.scenarios, n_datasets=args.datasets, n_permutations=args.permutations,
                      n_resamples=args.resamples, sizes={"pairs": args.pairs, "attributes": args.attributes},
                      progress=_Every100())
    except GeobiasError as exc:  # a request that cannot be met: one line, a usage error
        print(f"bench_calibration: {exc}", file=sys.stderr)
        return 2
    wall = time.perf_counter() - t
    print(f"calibration: {args.datasets:,} data sets per scenario, {args.permutations:,} permutations, "
          f"{args.resamples:,} resamples, {args.pairs} pairs and {args.attributes} attribute words per set; "
          f"{wall:.0f} s, load average {load:.2f} at the start")
    _print_table(("scenario", "metric"), [(row.scenario, row.metric, row.figure, row.kind, row.truth, row.null_holds,
                                           row.rate, row.mc_se, verdict(row)) for row in r.rows], signed=True)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump({"settings": vars(args), "load": load, "seconds": wall, "commit": commit, "rows": r.tidy_rows()},
                      fh, indent=1)
    return 0


def _print_table(first: tuple[str, str], rows: list[tuple], *, signed: bool = False) -> None:
    """The rows as a Markdown table: the two ``first`` columns, figure, kind, truth, null holds, rate,
    its standard error and the verdict."""
    print(f"| {first[0]} | {first[1]} | figure | kind | truth | null holds | rate | SE | target |")
    print("|---|---|---|---|---|---|---|---|---|")
    for a, b, figure, kind, truth, null_holds, rate, se, mark in rows:
        shown = "" if truth is None else f"{truth:+.3f}" if signed else f"{truth:.3f}"
        label = "coverage" if kind == "interval" else "rejections"
        print(f"| {a} | {b} | {figure} | {kind} | {shown} | {null_holds} | {label} {rate:.3f} | {se:.3f} | {mark} |")


def _preference(args, load: float, commit: str | None) -> int:
    from geobias.evaluation.preference_calibration import calibrate_preference

    t = time.perf_counter()
    try:
        rows = calibrate_preference(n_datasets=args.datasets, n_permutations=10_000, n_resamples=args.resamples,
                                    progress=_Every100())
    except GeobiasError as exc:
        print(f"bench_calibration: {exc}", file=sys.stderr)
        return 2
    wall = time.perf_counter() - t
    print(f"calibration of no preference: {args.datasets:,} data sets per scenario, 10,000 sign-flip draws, "
          f"{args.resamples:,} resamples; {wall:.0f} s, load average {load:.2f} at the start")
    _print_table(("study", "scenario"), [(row.study, row.scenario, row.figure, row.kind, row.truth, row.null_holds,
                                          row.rate, row.standard_error, row.verdict) for row in rows])
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump({"settings": vars(args), "load": load, "seconds": wall, "commit": commit,
                       "rows": [row.to_dict() for row in rows]}, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
