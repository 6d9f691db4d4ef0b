"""The permutation budget of every command that runs a permutation test (``mweat``, ``weat``,
``evaluate``, ``erasure``): the estimate of the work before any of it (:func:`permutation_work`, what
each model's :meth:`~geobias.commands.Params.work` returns), the time estimate, and the progress bar."""

from __future__ import annotations

import time
from contextlib import contextmanager

from geobias._progress import ProgressArg, reporter
from geobias.commands._base import Estimate
from geobias.errors import ParameterError

#: Most partitions a permutation test evaluates without ``force`` (about 2 minutes for
#: 100 items at ~1 M partitions/s on one core; the estimate for the actual run is given).
MAX_PERMUTATIONS = 100_000_000

def check_permutations(n: int) -> None:
    """Raise :class:`ParameterError` unless ``permutations`` is a positive integer."""
    if n <= 0:
        raise ParameterError(f"permutations must be a positive integer; got {n}", "permutations")



def estimate_seconds(n_items: int, n_x: int, draws: int, *, paired: bool = False) -> float:
    """Seconds ``draws`` partitions of ``n_items`` scores take here, from a 20,000-draw run."""
    import numpy as np

    from geobias.metrics import permutation_test

    calib = 20_000
    scores = np.random.default_rng(0).random(n_items)
    t0 = time.perf_counter()
    permutation_test(scores, n_x, n_permutations=calib, method="monte-carlo", paired=paired)
    return (time.perf_counter() - t0) / calib * draws


def draws_of(n_items: int, n_x: int, permutations: int, method: str, *, paired: bool = False) -> int:
    """The partitions one test evaluates: every partition (exact, or auto with at most
    ``permutations`` of them) or ``permutations`` draws."""
    from geobias.stats.permutation import n_partitions

    if n_items < 2 or not 1 <= n_x < n_items:
        return permutations
    count = n_partitions(n_items, n_x, paired=paired and n_items == 2 * n_x)
    return count if method == "exact" or (method == "auto" and count <= permutations) else permutations


def permutation_work(n_items: int, n_x: int, permutations: int, method: str = "auto", *, tests: int = 1,
                     paired: bool = False, what: str = "", timed: bool = True) -> Estimate:
    """The :class:`~geobias.commands.Estimate` of ``tests`` permutation tests of ``n_items`` scores
    (``n_x`` in the first group), each with ``permutations`` draws (or exact).

    ``what`` names the tests in the detail (``"6 methods × "``); ``timed`` adds a time estimate from
    a 20,000-draw calibration run, only when the work is over the limit (the message needs it).

    Examples
    --------
    >>> permutation_work(24, 12, 10**12, "monte-carlo", tests=6, what="6 methods × ", timed=False).units
    6000000000000
    """
    from geobias.stats.permutation import MAX_EXACT

    per_test = draws_of(n_items, n_x, permutations, method, paired=paired)
    if method == "exact" and per_test > MAX_EXACT:
        raise ParameterError(f"permutation_method exact: {per_test:.3g} partitions exceed the exact limit of "
                             f"{MAX_EXACT:,}; use monte-carlo (or auto)", "permutation_method")
    units = per_test * tests
    detail = f"{what}{per_test:,} partitions" if tests > 1 or what else ""
    seconds = None
    if timed and units > MAX_PERMUTATIONS and n_items >= 2 and 1 <= n_x < n_items:
        seconds = estimate_seconds(n_items, n_x, units, paired=paired and n_items == 2 * n_x)
    return Estimate(units, "permutations", detail, seconds, MAX_PERMUTATIONS)


def permutation_draws(n_items: int, n_x: int, permutations: int, method: str, *, paired: bool = False) -> int:
    """The partitions a test will evaluate (for its progress bar), refusing an exact test beyond
    :data:`geobias.stats.permutation.MAX_EXACT` before any work.

    The work budget is not checked here: :func:`geobias.commands.check_budget` checks every run's
    :meth:`~geobias.commands.Params.work` (this module's :func:`permutation_work`) once, before it
    starts, on every front door. ``n_items``/``n_x`` are the sizes before out-of-vocabulary words
    are dropped (an upper bound).

    Raises
    ------
    ParameterError
        ``permutations`` not positive; an exact test with too many partitions.
    """
    from geobias.stats.permutation import MAX_EXACT, n_partitions

    check_permutations(permutations)
    if n_items < 2 or not 1 <= n_x < n_items:
        return permutations  # the metric reports the empty set itself
    count = n_partitions(n_items, n_x, paired=paired and n_items == 2 * n_x)
    if method == "exact" and count > MAX_EXACT:
        raise ParameterError(f"permutation_method exact: {count:.3g} partitions exceed the exact limit of "
                             f"{MAX_EXACT:,}; use monte-carlo (or auto)", "permutation_method")
    return draws_of(n_items, n_x, permutations, method, paired=paired)


@contextmanager
def permutation_bar(progress: ProgressArg, draws: int, n_items: int, n_x: int, paired: bool = False):
    """Yield where the permutation test shows its bar: ``progress`` when the run is long (> ~2 s,
    estimated from a calibration run), else ``None`` (no bar)."""
    if (progress is None or not reporter(progress).enabled or draws < 1_000_000
            or estimate_seconds(n_items, n_x, draws, paired=paired) < 2):
        yield None
        return
    yield progress
