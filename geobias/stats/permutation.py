"""One shared permutation test for every association statistic (WEAT, MWEAT, ...).

Association scores ``s(w, A, B)`` do not depend on how the target words are partitioned,
so they are computed **once**; a permutation then only re-sums them. Group sums for a
chunk of permutations are one gather-and-sum over an index matrix, so 100,000
permutations of 116 items take a fraction of a second.

Conventions:

- **Exact** enumeration of every distinct partition when their number (``C(n, n_x)``, or
  ``2**n_pairs`` for the paired variant) is within budget; then
  ``p = #{stat_b >= stat_obs} / n_partitions`` (the observed partition is among them).
- Otherwise **Monte Carlo**: ``B`` independent draws, each a *true* permutation of the
  items (no replacement within a draw), ``p = (1 + #{stat_b >= stat_obs}) / (1 + B)``,
  with a Clopper–Pearson 95% interval and a standard error for the Monte-Carlo
  uncertainty. Randomness only through ``seed`` (``numpy.random.default_rng``).
- Ties: statistics within ``tie_tolerance`` of the observed value count as ties (they are
  the same partition statistic up to floating-point rounding of the sums).
- **Cancellation** is cooperative: inside :func:`cancellable` (``with cancellable(check):``) the
  test calls ``check()`` after each chunk of partitions and stops with :class:`Cancelled` when it
  returns True (a cancelled job, a client that went away).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Literal

import numpy as np

from geobias._progress import ProgressArg, loop_bar
from geobias.choices import Alternative
from geobias.choices import PermutationMethod as Method
from geobias.errors import Cancelled, InputError
from geobias.results import Result
from geobias.validation import check_choice

StatisticName = Literal["difference", "mweat"]


_CANCEL: ContextVar[Callable[[], bool] | None] = ContextVar("geobias_cancel", default=None)


@contextmanager
def cancellable(check: Callable[[], bool]) -> Iterator[None]:
    """Within the block, permutation tests call ``check()`` after each chunk (10,000 partitions by
    default) and raise :class:`Cancelled` as soon as it returns True (or the check of an enclosing
    ``cancellable`` block does).

    Examples
    --------
    >>> import numpy as np
    >>> with cancellable(lambda: True):
    ...     permutation_test(np.arange(40.0), 20, n_permutations=50_000, method="monte-carlo")
    Traceback (most recent call last):
    ...
    geobias.errors.Cancelled: the permutation test was cancelled after 10,000 of 50,000 partitions
    """
    outer = _CANCEL.get()  # an enclosing block's check still applies
    token = _CANCEL.set(check if outer is None else (lambda: outer() or check()))
    try:
        yield
    finally:
        _CANCEL.reset(token)

#: Largest number of partitions ``method="exact"`` will enumerate.
MAX_EXACT = 10_000_000

StatisticFn = Callable[[np.ndarray, np.ndarray], np.ndarray]


def difference_of_sums(sum_x: np.ndarray, sum_y: np.ndarray) -> np.ndarray:
    """WEAT test statistic (Caliskan et al. 2017): ``Σ_x s(x) − Σ_y s(y)``."""
    return sum_x - sum_y


def mweat_statistic(sum_x: np.ndarray, sum_y: np.ndarray) -> np.ndarray:
    """MWEAT statistic (Zhou et al. 2019, eq. 1): ``| |Σ_x s(x)| − |Σ_y s(y)| |``."""
    return np.abs(np.abs(sum_x) - np.abs(sum_y))


STATISTICS: dict[str, StatisticFn] = {"difference": difference_of_sums, "mweat": mweat_statistic}


@dataclass(frozen=True)
class PermutationResult(Result):
    """Outcome of :func:`permutation_test`.

    Attributes
    ----------
    statistic : float
        The statistic on the observed partition.
    p_value : float
        Exact p-value, or the Monte-Carlo estimate ``(1 + #{stat_b >= stat_obs}) / (1 + B)``
        (for ``"less"`` with ``<=``; two-sided: ``min(1, 2 * min(p_greater, p_less))``,
        the convention of ``scipy.stats.permutation_test``).
    p_value_ci : tuple of float
        95% Clopper–Pearson interval for the p-value (``(p, p)`` when exact).
    p_value_se : float
        Monte-Carlo standard error ``sqrt(p (1 − p) / B)`` (doubled for two-sided; 0 when exact).
    n_permutations : int
        Partitions evaluated: all of them when ``exact``, else the ``B`` random draws.
    exact : bool
    seed : int or None
        The seed actually used (``None`` only for exact tests, which draw nothing).
    alternative : str
    paired : bool
    """

    statistic: float
    p_value: float
    p_value_ci: tuple[float, float]
    p_value_se: float
    n_permutations: int
    exact: bool
    seed: int | None
    alternative: str
    paired: bool = False  # a WEAT's JSON form leaves it out: WEAT is never paired


class PermutationFields:
    """Read access to an embedded :class:`PermutationResult` for results that carry one.

    A result class (a frozen dataclass with a field ``permutation: PermutationResult``)
    inherits the test's figures as read-only properties: ``result.p_value`` is
    ``result.permutation.p_value``. Its JSON form stays flat (``_json_keys`` lists the test's
    keys beside the result's own, see :func:`geobias.results.jsonable`): the published schema of
    ``--json``, the service and the README examples reads ``result.p_value``, not
    ``result.permutation.p_value``.
    """

    permutation: PermutationResult

    @property
    def statistic(self) -> float:
        """The statistic on the observed partition (:attr:`PermutationResult.statistic`)."""
        return self.permutation.statistic

    @property
    def p_value(self) -> float:
        """:attr:`PermutationResult.p_value`."""
        return self.permutation.p_value

    @property
    def p_value_ci(self) -> tuple[float, float]:
        """95% Clopper–Pearson interval of the p-value (:attr:`PermutationResult.p_value_ci`)."""
        return self.permutation.p_value_ci

    @property
    def p_value_se(self) -> float:
        """Monte-Carlo standard error of the p-value (:attr:`PermutationResult.p_value_se`)."""
        return self.permutation.p_value_se

    @property
    def n_permutations(self) -> int:
        """Partitions evaluated (:attr:`PermutationResult.n_permutations`)."""
        return self.permutation.n_permutations

    @property
    def exact(self) -> bool:
        """Whether every partition was enumerated (:attr:`PermutationResult.exact`)."""
        return self.permutation.exact

    @property
    def seed(self) -> int | None:
        """The seed used (:attr:`PermutationResult.seed`)."""
        return self.permutation.seed

    @property
    def alternative(self) -> str:
        """:attr:`PermutationResult.alternative`."""
        return self.permutation.alternative

    @property
    def paired(self) -> bool:
        """Whether permutations only swapped within pairs (:attr:`PermutationResult.paired`)."""
        return self.permutation.paired


#: The :class:`PermutationResult` keys a flat result JSON carries (``paired`` only where the
#: result can be paired).
PERMUTATION_KEYS = ("statistic", "p_value", "p_value_ci", "p_value_se", "n_permutations", "exact", "seed",
                    "alternative")


def n_partitions(n: int, n_x: int, *, paired: bool = False) -> int:
    """Number of distinct labellings: ``C(n, n_x)``, or ``2**(n // 2)`` when paired."""
    return 2 ** (n // 2) if paired else math.comb(n, n_x)


def _exact_unpaired_sums(s: np.ndarray, n_x: int, chunk: int) -> Iterator[np.ndarray]:
    n = s.shape[0]
    combos = itertools.combinations(range(n), n_x)
    while True:
        flat = np.fromiter(
            itertools.chain.from_iterable(itertools.islice(combos, chunk)), dtype=np.intp
        )
        if flat.size == 0:
            return
        yield s[flat.reshape(-1, n_x)].sum(axis=1)


def _exact_paired_sums(s: np.ndarray, chunk: int) -> Iterator[np.ndarray]:
    p = s.shape[0] // 2
    x, diff = s[:p], s[p:] - s[:p]
    base, total = x.sum(), 2**p
    shifts = np.arange(p, dtype=np.int64)
    for start in range(0, total, chunk):
        codes = np.arange(start, min(start + chunk, total), dtype=np.int64)
        swaps = ((codes[:, None] >> shifts) & 1).astype(np.float64)
        yield base + swaps @ diff


def _prefetched(draw: Callable[[int], np.ndarray], sizes: list[int]) -> Iterator[np.ndarray]:
    """``draw(size)`` for each size in order, the next one drawn in a second thread meanwhile.

    The draws happen in exactly the same order on the same generator as a plain loop would make
    them (one thread draws, the caller waits for each), so a seed gives the same numbers; NumPy
    releases the GIL while it fills random arrays and inside the ufunc loops that consume them,
    so on two cores drawing the next chunk overlaps with evaluating this one.
    """
    if len(sizes) <= 1:
        for size in sizes:
            yield draw(size)
        return
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="geobias-draw") as pool:
        pending = pool.submit(draw, sizes[0])
        for size in sizes[1:]:
            ready = pending.result()
            pending = pool.submit(draw, size)
            yield ready
        yield pending.result()


def _mc_sums(
    s: np.ndarray, n_x: int, paired: bool, rng: np.random.Generator, n_draws: int, chunk: int
) -> Iterator[np.ndarray]:
    n = s.shape[0]
    p = n // 2
    sizes = [min(chunk, n_draws - start) for start in range(0, n_draws, chunk)]
    if paired:
        x, diff = s[:p], s[p:] - s[:p]
        base = x.sum()
        for u in _prefetched(lambda size: rng.random((size, p)), sizes):
            yield base + (u < 0.5).astype(np.float64) @ diff
    else:
        for u in _prefetched(lambda size: rng.random((n, size), dtype=np.float32), sizes):
            yield _selection_from_uniforms(s, n_x, u)


def _selection_sums(s: np.ndarray, n_x: int, rng: np.random.Generator, size: int) -> np.ndarray:
    """Group-X sums of ``size`` uniformly random ``n_x``-subsets, by selection sampling.

    Knuth's Algorithm S (TAOCP vol. 2, §3.4.2), vectorised across draws: item ``i`` joins X with
    probability ``need / (n − i)``, where ``need`` is how many X places are still free, so every
    draw has exactly ``n_x`` members and every subset is equally likely. One float32 uniform per
    item and draw (24-bit resolution: each inclusion probability is within 2**-24 of exact, a total
    variation from uniform of at most ``n · 2**-24``, e.g. 7e-6 for 116 items, far below the
    Monte-Carlo error). Costs ``n`` passes of three vector operations over the draws instead of a
    full shuffle plus a gather (``tests/_reference.monte_carlo_partitions``): about 3-4× faster. Sums in float64.

    Returns
    -------
    ndarray of shape (size,), float64
    """
    return _selection_from_uniforms(s, n_x, rng.random((s.shape[0], size), dtype=np.float32))


def _selection_from_uniforms(s: np.ndarray, n_x: int, u: np.ndarray) -> np.ndarray:
    """:func:`_selection_sums` given its uniforms ``u`` of shape (n, size), float32 (overwritten)."""
    n, size = u.shape
    u *= np.arange(n, 0, -1, dtype=np.float32)[:, None]  # u_i · (n − i)
    need = np.full(size, n_x, dtype=np.float32)
    acc = np.zeros(size, dtype=np.float64)
    take = np.empty(size, dtype=bool)
    for i in range(n):
        np.less(u[i], need, out=take)  # u·(n − i) < need  ⇔  u < need / (n − i)
        need -= take
        acc += s[i] * take
    return acc


def _clopper_pearson(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    a = (1.0 - level) / 2.0
    # beta.ppf(q, a, b) = betaincinv(a, b, q), in pure Python: importing scipy.stats or
    # scipy.special cost more CLI startup than the whole test (geobias/stats/_betainc.py)
    from geobias.stats._betainc import betaincinv

    low = 0.0 if k == 0 else float(betaincinv(k, n - k + 1, a))
    high = 1.0 if k == n else float(betaincinv(k + 1, n - k, 1.0 - a))
    return low, high


def permutation_test(
    scores: np.ndarray,
    n_x: int,
    *,
    statistic: StatisticName | StatisticFn = "difference",
    alternative: Alternative = "greater",
    n_permutations: int = 100_000,
    seed: int | None = 0,
    paired: bool = False,
    method: Method = "auto",
    tie_tolerance: float = 1e-10,
    chunk_size: int = 10_000,
    progress: ProgressArg = None,
) -> PermutationResult:
    """Permutation test of a two-group statistic of per-item scores.

    Parameters
    ----------
    scores : array-like of shape (n,)
        Per-item scores, computed once: the first ``n_x`` belong to group X, the rest to
        group Y. With ``paired=True`` item ``i`` of X is paired with item ``n_x + i`` of Y.
    n_x : int
        Size of group X (``1 <= n_x < n``).
    statistic : {"difference", "mweat"} or callable, default "difference"
        A function of the group sums ``(sum_x, sum_y)`` (arrays of shape (B,)) returning the
        statistics (shape (B,)), vectorised. ``"difference"`` is WEAT's ``Σx − Σy``,
        ``"mweat"`` is ``| |Σx| − |Σy| |`` (Zhou et al. 2019, eq. 1).
    alternative : {"greater", "less", "two-sided"}, default "greater"
    n_permutations : int, default 100_000
        Monte-Carlo draws ``B``; also the budget for ``method="auto"``.
    seed : int or None, default 0
        Seed of ``numpy.random.default_rng``; ``None`` draws fresh entropy, which is then
        reported in the result so the run can be repeated.
    paired : bool, default False
        Permute only within pairs (swap the two members of each pair): ``2**n_pairs``
        labellings. Requires ``n == 2 * n_x``.
    method : {"auto", "exact", "monte-carlo"}, default "auto"
        ``"auto"`` enumerates exactly when the number of distinct partitions is at most
        ``n_permutations``, else draws ``n_permutations`` random permutations.
    tie_tolerance : float, default 1e-10
        Statistics within ``tie_tolerance * max(1, Σ|s|)`` of the observed one count as
        ties (float rounding of differently ordered sums).
    chunk_size : int, default 10_000
        Permutations evaluated per vectorised chunk (memory ~ chunk_size × n × 8 bytes).
    progress : Progress, bool or None, optional
        Where the partitions evaluated are shown, a bar of ``result.n_permutations`` steps (see
        :data:`geobias._progress.ProgressArg`); a reporter that is cancelled stops the test.

    Returns
    -------
    PermutationResult

    Raises
    ------
    InputError
        ``n_permutations <= 0``, bad group sizes, non-finite scores, bad option values, or
        ``method="exact"`` with more than ``MAX_EXACT`` partitions.

    References
    ----------
    Caliskan, Bryson & Narayanan (2017), Science 356(6334), supplementary: permutation test.
    Phipson & Smyth (2010), "Permutation p-values should never be zero".
    """
    check_choice("alternative", alternative, Alternative)
    check_choice("method", method, Method)
    if isinstance(n_permutations, bool) or int(n_permutations) != n_permutations or n_permutations <= 0:
        raise InputError(f"the number of permutations must be a positive integer; got {n_permutations}")
    n_permutations = int(n_permutations)
    if isinstance(statistic, str):
        check_choice("statistic", statistic, StatisticName)
        stat_fn = STATISTICS[statistic]
    else:
        stat_fn = statistic
    s = np.asarray(scores, dtype=np.float64).ravel()
    n = s.shape[0]
    if not 1 <= n_x < n:
        raise InputError(f"both groups need at least one item; got n_x={n_x} of n={n}")
    if not np.isfinite(s).all():
        raise InputError("association scores contain NaN or inf")
    if paired and n != 2 * n_x:
        raise InputError(f"a paired test needs two groups of equal size; got {n_x} and {n - n_x}")

    total = s.sum()
    # the observed statistic from each group's own sum, as a metric reports its sums (``total − Σx``
    # can differ from ``Σy`` in the last bit, and MWEAT's statistic must equal |its signed figure|
    # exactly); the draws compare within the tie tolerance below
    observed = float(stat_fn(np.array([s[:n_x].sum()]), np.array([s[n_x:].sum()]))[0])
    gamma = tie_tolerance * max(1.0, float(np.abs(s).sum()))

    count = n_partitions(n, n_x, paired=paired)
    exact = method == "exact" or (method == "auto" and count <= n_permutations)
    if exact and count > MAX_EXACT:
        raise InputError(
            f"exact enumeration of {count:.3g} partitions exceeds the limit of {MAX_EXACT:,};"
            " use the Monte-Carlo method (--method monte-carlo)"
        )
    if exact:
        used_seed = None
        sums = _exact_paired_sums(s, chunk_size) if paired else _exact_unpaired_sums(s, n_x, chunk_size)
        n_draws = count
    else:
        used_seed = int(np.random.SeedSequence().entropy) if seed is None else int(seed)
        rng = np.random.default_rng(used_seed)
        sums = _mc_sums(s, n_x, paired, rng, n_permutations, chunk_size)
        n_draws = n_permutations

    n_ge = n_le = done = 0
    cancel = _CANCEL.get()
    with loop_bar(progress, n_draws, "permutations") as bar:
        for sum_x in sums:
            stats = stat_fn(sum_x, total - sum_x)
            n_ge += int(np.count_nonzero(stats >= observed - gamma))
            n_le += int(np.count_nonzero(stats <= observed + gamma))
            done += len(stats)
            bar.update(len(stats))
            if cancel is not None and done < n_draws and cancel():
                raise Cancelled(f"the permutation test was cancelled after {done:,} of {n_draws:,} partitions")

    adj = 0 if exact else 1
    k_ge, k_le, denom = n_ge + adj, n_le + adj, n_draws + adj
    if alternative == "greater":
        k, factor = k_ge, 1.0
    elif alternative == "less":
        k, factor = k_le, 1.0
    else:
        k, factor = min(k_ge, k_le), 2.0
    p_tail = k / denom
    p_value = min(1.0, factor * p_tail)
    if exact:
        ci = (p_value, p_value)
        se = 0.0
    else:
        # Clopper–Pearson on k successes in B + 1 trials: the observed labelling is itself a
        # draw under the null (the reason for the +1), so the interval contains p.
        low, high = _clopper_pearson(k, denom)
        ci = (min(1.0, factor * low), min(1.0, factor * high))
        se = min(1.0, factor * math.sqrt(p_tail * (1.0 - p_tail) / n_draws))
    return PermutationResult(
        statistic=observed,
        p_value=p_value,
        p_value_ci=ci,
        p_value_se=se,
        n_permutations=n_draws,
        exact=exact,
        seed=used_seed,
        alternative=alternative,
        paired=paired,
    )
