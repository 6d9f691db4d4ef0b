"""The permutation budget of every command that runs a permutation test (``mweat``, ``weat``,
``evaluate``, ``erasure``): the check before any work, the time estimate, and the progress bar."""

from __future__ import annotations

import time
from contextlib import contextmanager

from geobias.errors import InputError, ParameterError

#: Most partitions a permutation test evaluates without ``force`` (about 2 minutes for
#: 100 items at ~1 M partitions/s on one core; the estimate for the actual run is given).
MAX_PERMUTATIONS = 100_000_000

def check_permutations(n: int) -> None:
    """Raise :class:`ParameterError` unless ``permutations`` is a positive integer."""
    if n <= 0:
        raise ParameterError(f"permutations must be a positive integer; got {n}", "permutations")


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
    bound). Raises :class:`ParameterError` for an exact test beyond
    :data:`geobias.stats.permutation.MAX_EXACT`, and :class:`InputError` for more than
    :data:`MAX_PERMUTATIONS` partitions without ``force`` (the message gives the estimated time).
    """
    from geobias.stats.permutation import MAX_EXACT, n_partitions

    check_permutations(permutations)
    if n_items < 2 or not 1 <= n_x < n_items:
        return permutations  # the metric reports the empty set itself
    count = n_partitions(n_items, n_x, paired=paired and n_items == 2 * n_x)
    if method == "exact" and count > MAX_EXACT:
        raise ParameterError(f"permutation_method exact: {count:.3g} partitions exceed the exact limit of "
                             f"{MAX_EXACT:,}; use monte-carlo (or auto)", "permutation_method")
    draws = count if method == "exact" or (method == "auto" and count <= permutations) else permutations
    if draws > MAX_PERMUTATIONS and not force:
        secs = estimate_seconds(n_items, n_x, draws, paired=paired and n_items == 2 * n_x)
        raise InputError(
            f"{draws:,} permutations would take about {_duration(secs)} here; the limit without `force` is "
            f"{MAX_PERMUTATIONS:,} (at the default 100,000 the p-value's Monte-Carlo standard error is at most 0.0016)"
        )
    return draws


@contextmanager
def permutation_bar(progress, draws: int, n_items: int, n_x: int, paired: bool = False):
    """Yield a callback for the permutation test's progress: a bar on ``progress`` when the run is
    long (> ~2 s, estimated from a calibration run), else ``None``."""
    if (progress is None or not progress.enabled or draws < 1_000_000
            or estimate_seconds(n_items, n_x, draws, paired=paired) < 2):
        yield None
        return
    with progress.bar("permutations", draws) as advance:
        yield advance
