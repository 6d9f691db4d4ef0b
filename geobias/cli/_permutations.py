"""The permutation-test options shared by ``mweat``, ``weat`` (and anything else that runs a
permutation test): the budget check before any work, the time estimate, and the progress bar."""

from __future__ import annotations

import time
from typing import Annotated

import typer

from geobias.cli._choices import PermutationMethod
from geobias.errors import InputError

#: Most partitions a permutation test evaluates without ``--force`` (about 2 minutes for
#: 100 items at ~1 M partitions/s on one core; the estimate for the actual run is printed).
MAX_PERMUTATIONS = 100_000_000

Permutations = Annotated[int, typer.Option("--permutations", "-n", help=(
    "Monte-Carlo permutations (with --method auto, the exact test when fewer partitions exist). "
    f"More than {MAX_PERMUTATIONS:,} partitions need --force."))]
MethodOpt = Annotated[PermutationMethod, typer.Option("--method", help=(
    "Permutation test: exact (enumerate every partition), monte-carlo (-n random permutations) or auto "
    "(exact when there are at most -n partitions)."))]
Force = Annotated[bool, typer.Option("--force", help=f"Run a permutation test above {MAX_PERMUTATIONS:,} partitions.")]


def check_permutations(n: int) -> None:
    """Raise :class:`InputError` unless ``--permutations`` is a positive integer."""
    if n <= 0:
        raise InputError(f"--permutations must be a positive integer; got {n}")


def _duration(seconds: float) -> str:
    for unit, size in (("days", 86400), ("hours", 3600), ("minutes", 60)):
        if seconds >= size:
            return f"{seconds / size:.1f} {unit}"
    return f"{seconds:.1f} s"


def estimate_seconds(n_items: int, n_x: int, draws: int, *, paired: bool = False) -> float:
    """Seconds ``draws`` partitions of ``n_items`` scores take here, from a 20,000-draw run."""
    import numpy as np

    from geobias.metrics import permutation_test

    calib = 20_000
    scores = np.random.default_rng(0).random(n_items)
    t0 = time.perf_counter()
    permutation_test(scores, n_x, n_permutations=calib, method="monte-carlo", paired=paired)
    return (time.perf_counter() - t0) / calib * draws


def plan_permutations(
    n_items: int, n_x: int, permutations: int, method: str, *, paired: bool = False, force: bool = False
) -> int:
    """Check a permutation budget before any work; return the partitions the test will evaluate.

    ``n_items``/``n_x`` are the sizes before out-of-vocabulary words are dropped (an upper
    bound). Raises :class:`InputError` for a bad ``--method``, an exact test beyond
    :data:`geobias.stats.permutation.MAX_EXACT`, or more than :data:`MAX_PERMUTATIONS`
    partitions without ``--force`` (the message gives the estimated time).
    """
    from geobias.stats.permutation import MAX_EXACT, n_partitions

    check_permutations(permutations)
    if method not in ("auto", "exact", "monte-carlo"):
        raise InputError(f"--method must be auto, exact or monte-carlo; got {method!r}")
    if n_items < 2 or not 1 <= n_x < n_items:
        return permutations  # the metric reports the empty set itself
    count = n_partitions(n_items, n_x, paired=paired and n_items == 2 * n_x)
    if method == "exact" and count > MAX_EXACT:
        raise InputError(f"--method exact: {count:.3g} partitions exceed the exact limit of {MAX_EXACT:,}; "
                         "use --method monte-carlo (or auto)")
    draws = count if method == "exact" or (method == "auto" and count <= permutations) else permutations
    if draws > MAX_PERMUTATIONS and not force:
        secs = estimate_seconds(n_items, n_x, draws, paired=paired and n_items == 2 * n_x)
        raise InputError(
            f"{draws:,} permutations would take about {_duration(secs)} here; the limit without --force is "
            f"{MAX_PERMUTATIONS:,} (at the default 100,000 the p-value's Monte-Carlo standard error is at most 0.0016)"
        )
    return draws


def run_with_progress(ui, draws: int, n_items: int, n_x: int, paired: bool, fn):
    """Call ``fn(progress_callback)`` with a permutation bar when the run is long (> ~2 s)."""
    if not ui.enabled or draws < 1_000_000 or estimate_seconds(n_items, n_x, draws, paired=paired) < 2:
        return fn(None)
    with ui.bar("permutations", draws) as advance:
        return fn(advance)
