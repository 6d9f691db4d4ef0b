"""One bootstrap over word sets for every association metric: how much a figure moves when other
words of the same kind had been chosen.

Each word set of a query (targets X, Y; attributes A, B; or any other named set) is resampled
**with replacement, within the set**, keeping its size; sets that are paired by position (the
two forms of one word: MWEAT, the grammatical variants) share one index draw, so pairs are
resampled as pairs. The statistic is evaluated on every resample and summarised by an interval
(the percentile interval, or the basic interval where the percentile one is biased) and the
bootstrap standard error (Efron & Tibshirani 1993, ch. 6 and 13; Davison & Hinkley 1997, §5.2).

The caller supplies the statistic as a **vectorised function of index resamples**: it receives,
for each set name, an integer array of shape ``(b, n_set)`` (``b`` resamples in this chunk; row
``r`` lists the word indices of resample ``r``) and returns ``b`` values. A metric precomputes its
similarity matrices once and evaluates a resample by gathering rows or by weighting them with
index counts (:func:`index_counts`); it never re-runs from the word vectors. The statistics of
the association metrics live in :mod:`geobias.metrics.bootstrap`.

The interval answers another question than the permutation p-value: the permutation test asks
whether *these* words' association could arise by relabelling them (a null of no association),
the bootstrap how far the figure would move with other words drawn from the same population
(Antoniak & Mimno 2021; Du, Fang & Nguyen 2021). See docs/bootstrap.md.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from geobias._numeric import quantiles
from geobias.errors import Cancelled, InputError
from geobias.results import Result
from geobias.stats.permutation import _CANCEL

__all__ = ["INTERVALS", "MAX_RESAMPLES", "BootstrapResult", "BootstrapStatistic", "bootstrap", "bootstrap_lines",
           "check_confidence", "check_resamples", "expanded_confidence", "index_counts", "quantile_mcse", "two_way_scale"]

#: The most resamples one call accepts (the command layer's work budget usually binds first).
MAX_RESAMPLES = 1_000_000

#: The fewest words a set must have to be resampled (a set of one resamples only to itself).
MIN_SET_SIZE = 2

#: Index arrays per set name (each ``(b, n_set)``, int) → ``b`` statistic values.
BootstrapStatistic = Callable[[Mapping[str, np.ndarray]], np.ndarray]

#: The interval methods: ``"percentile"`` takes the resampled statistic's quantiles as they are;
#: ``"basic"`` reflects them about the estimate (``2θ̂ − q_{1−α/2}, 2θ̂ − q_{α/2}``), which
#: corrects a bias the resamples share with the estimate (Davison & Hinkley 1997, eq. 5.6);
#: ``"expanded"`` takes the percentile interval at the wider level :func:`expanded_confidence`,
#: which makes up for the percentile interval's narrowness for a mean over few units (Hesterberg 2015).
#: The basic interval is read at that wider level too when :func:`bootstrap` is given ``units``; and
#: either is read from resamples whose spread is corrected for a crossed design when it is given
#: ``crossed`` (:func:`two_way_scale`).
INTERVALS = ("percentile", "basic", "expanded")

#: Elements of index arrays held at once (bounds memory: chunks of resamples).
_CHUNK_ELEMENTS = 2_000_000


@dataclass(frozen=True)
class BootstrapResult(Result):
    """The bootstrap distribution of one statistic, summarised.

    Attributes
    ----------
    estimate : float or None
        The statistic on the sets as given (no resampling); ``None`` when it is undefined.
    low, high : float or None
        The interval (``interval``): for ``"percentile"`` the ``(1 − confidence)/2`` and
        ``(1 + confidence)/2`` quantiles ``q_lo, q_hi`` (``numpy.quantile``, linear interpolation)
        of the resampled statistics; for ``"basic"`` ``2 estimate − q_hi`` and
        ``2 estimate − q_lo``. ``None`` when no resample gave a finite value (or, for ``"basic"``,
        when the estimate is undefined).
    standard_error : float or None
        Standard deviation (``ddof = 1``) of the finite resampled statistics.
    confidence : float
        E.g. 0.95.
    n_resamples : int
        Resamples drawn.
    n_finite : int
        Resamples whose statistic was defined (a resample can make a standard deviation 0, and
        an effect size undefined); the summaries use these.
    seed : int or None
        The seed of ``numpy.random.default_rng``.
    set_sizes : dict of str to int
        Words (or pairs) per resampled set.
    paired : list of list of str
        Groups of sets resampled with one shared index draw.
    quantity : str
        What was resampled, when a metric says (``"effect_size"``); empty otherwise.
    low_mcse, high_mcse : float or None
        Monte Carlo standard error of each bound: how much ``low`` and ``high`` would move with
        another bootstrap seed (:func:`quantile_mcse`). A verdict read at an interval's edge is only
        as firm as this; raise ``n_resamples`` where a bound is within a few of them of 0.
    note : str
        What the interval cannot say, when a metric says it: a percentile interval of a
        statistic that is never negative (MWEAT's eq. 1, RNSB's KL divergence) cannot contain 0,
        so it cannot show "no bias"; read the metric's signed quantity or null band instead.
    interval : {"percentile", "basic", "expanded"}
        How ``low`` and ``high`` were read from the resamples (:data:`INTERVALS`); ``confidence`` is
        the nominal level in every case (the expanded interval's quantiles are at
        :func:`expanded_confidence` of it).
    level : float or None
        The level at which the quantiles were read when it is not ``confidence`` (the expanded
        level, :func:`expanded_confidence`); ``None`` otherwise.
    variance_scale : float or None
        With a crossed design (``crossed`` of :func:`bootstrap`): the factor by which the
        resamples' spread about their median was scaled before the interval was read, so that their
        variance is the two-way estimate (:func:`two_way_scale`; at most 1); ``None`` otherwise.
        ``standard_error``, the bounds' Monte Carlo errors and ``p_value`` are of the scaled resamples.
    p_value : float or None
        The bootstrap test of "the quantity is 0", where the metric asks for it (``test_zero`` of
        :func:`bootstrap`; ``None`` otherwise): the test that inverts this interval, so that the
        interval at confidence ``1 − α`` excludes 0 exactly when ``p_value < α`` (up to the
        quantiles' interpolation). Percentile: ``2 min(#{T* ≤ 0} + 1, #{T* ≥ 0} + 1) / (B + 1)``;
        basic: the same with ``2 estimate`` in place of 0 (capped at 1; ``B`` the finite resamples).
        Its level is the interval's coverage: a test of association in the population sampled,
        where the resampling covers every word set the quantity depends on.
    """

    estimate: float | None
    low: float | None
    high: float | None
    standard_error: float | None
    confidence: float
    n_resamples: int
    n_finite: int
    seed: int | None
    set_sizes: dict[str, int]
    paired: list[list[str]]

    #: What was resampled (``"effect_size"``, ``"statistic"``...), set by the metric.
    quantity: str = ""
    low_mcse: float | None = None
    high_mcse: float | None = None
    note: str = ""
    interval: str = "percentile"
    p_value: float | None = None
    level: float | None = None
    variance_scale: float | None = None

    def summary(self, digits: int = 4) -> str:
        """One line: ``"[low, high] (95%), SE se; 1,000 resamples of X 8, Y 8, A 8, B 8, seed 0"``."""
        sizes = ", ".join(f"{k} {v}" for k, v in self.set_sizes.items())
        what = f"{self.quantity}: " if self.quantity else ""
        if self.low is None:
            return f"{what}undefined on every resample ({self.n_resamples:,} resamples of {sizes})"
        pct = f"{100 * self.confidence:g}%"
        undefined = "" if self.n_finite == self.n_resamples else f", {self.n_resamples - self.n_finite} undefined"
        mc = ("" if self.low_mcse is None else
              f", Monte Carlo SE of the bounds {self.low_mcse:.2g}/{self.high_mcse:.2g}")
        pct = f"{pct} {self.method}" if self.method != "percentile" else pct
        note = f" ({self.note})" if self.note else ""
        return (f"{what}[{self.low:.{digits}g}, {self.high:.{digits}g}] ({pct}), SE {self.standard_error:.{digits}g}; "
                f"{self.n_resamples:,} resamples of {sizes}{undefined}, seed {self.seed}{mc}{note}")

    def __rich__(self):
        """A two-column table (the CLI's and ``--csv``'s): the interval, its SE and what was resampled."""
        from rich.table import Table

        t = Table(title=f"Bootstrap over the words ({self.quantity or 'statistic'})", title_justify="left",
                  show_header=False)
        t.add_column("what")
        t.add_column("value", justify="right")
        pct = f"{100 * self.confidence:g}%"
        t.add_row("estimate", "n/a" if self.estimate is None else f"{self.estimate:.6g}")
        t.add_row(f"{pct} {self.method} interval", "n/a" if self.low is None else f"[{self.low:.6g}, {self.high:.6g}]")
        t.add_row("standard error", "n/a" if self.standard_error is None else f"{self.standard_error:.6g}")
        if self.low_mcse is not None:
            t.add_row("Monte Carlo SE of the bounds", f"{self.low_mcse:.2g}, {self.high_mcse:.2g}")
        t.add_row("resamples", f"{self.n_resamples:,}" + ("" if self.n_finite == self.n_resamples
                                                          else f" ({self.n_resamples - self.n_finite} undefined)"))
        t.add_row("set sizes", ", ".join(f"{k} {v}" for k, v in self.set_sizes.items())
                  + (f"; paired {', '.join('/'.join(g) for g in self.paired)}" if self.paired else ""))
        t.add_row("seed", str(self.seed))
        if self.note:
            t.caption, t.caption_justify = f"note: {self.note}", "left"
        return t

    @property
    def method(self) -> str:
        """How the interval was read, in words: ``interval``, with ``"two-way"`` before it for a
        crossed design's corrected spread and ``"expanded"`` for a basic interval read at the wider
        level (``"two-way basic expanded"``).

        >>> from dataclasses import replace
        >>> r = bootstrap(lambda ix: ix["X"].mean(axis=1) * 1.0, {"X": 5}, n_resamples=10)
        >>> r.method, replace(r, interval="basic", level=0.97, variance_scale=0.9).method
        ('percentile', 'two-way basic expanded')
        """
        words = ["two-way"] if self.variance_scale is not None else []
        words.append(self.interval)
        if self.interval == "basic" and self.level is not None:
            words.append("expanded")
        return " ".join(words)

    @property
    def crosses_zero(self) -> bool | None:
        """Whether the interval holds 0 (``None`` without an interval)."""
        if self.low is None or self.high is None:
            return None
        return self.low <= 0.0 <= self.high


def bootstrap_lines(result) -> list:
    """What a result's table shows of its bootstrap: the :class:`BootstrapResult` (which renders
    itself), else its ``bootstrap_note`` (why there is none), else nothing.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> bootstrap_lines(SimpleNamespace(bootstrap=None, bootstrap_note="no bootstrap: 0 resamples asked for"))
    ['no bootstrap: 0 resamples asked for']
    """
    boot = getattr(result, "bootstrap", None)
    if boot is not None:
        return [boot]
    note = getattr(result, "bootstrap_note", None)
    return [note] if note else []


def index_counts(idx: np.ndarray, n: int) -> np.ndarray:
    """How often each of ``n`` items occurs in each resample.

    Parameters
    ----------
    idx : ndarray of int, shape (b, k)
        Resampled indices into ``range(n)``.
    n : int

    Returns
    -------
    ndarray of float64, shape (b, n)
        Row sums are ``k``. ``counts @ M`` sums the rows of ``M`` picked by a resample, so a mean
        over a resampled set is ``counts @ M / k``: one matrix product for a chunk of resamples.

    Examples
    --------
    >>> index_counts(np.array([[0, 0, 2], [1, 2, 2]]), 3)
    array([[2., 0., 1.],
           [0., 1., 2.]])
    """
    b = idx.shape[0]
    flat = (idx + (np.arange(b) * n)[:, None]).ravel()
    return np.bincount(flat, minlength=b * n).reshape(b, n).astype(np.float64)


def check_resamples(n_resamples: int) -> None:
    """Raise :class:`InputError` unless ``1 <= n_resamples <= MAX_RESAMPLES`` (an int)."""
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, (int, np.integer)):
        raise InputError(f"the number of bootstrap resamples must be an integer, not {n_resamples!r}")
    if n_resamples < 1:
        raise InputError(f"the number of bootstrap resamples must be at least 1 (got {n_resamples})")
    if n_resamples > MAX_RESAMPLES:
        raise InputError(f"{n_resamples:,} bootstrap resamples is more than the {MAX_RESAMPLES:,} allowed")


def check_confidence(confidence: float) -> None:
    """Raise :class:`InputError` unless ``0 < confidence < 1``."""
    if not 0.0 < confidence < 1.0:
        raise InputError(f"the confidence level must be between 0 and 1 (got {confidence})")


def bootstrap(
    statistic: BootstrapStatistic,
    sizes: Mapping[str, int],
    *,
    paired: Sequence[Sequence[str]] = (),
    n_resamples: int = 1000,
    seed: int | None = 0,
    confidence: float = 0.95,
    check: Callable[[], bool] | None = None,
    interval: str = "percentile",
    test_zero: bool = False,
    units: int | None = None,
    crossed: tuple[Sequence[str], Sequence[str]] | None = None,
    bounds: tuple[float, float] | None = None,
) -> BootstrapResult:
    """Bootstrap interval of ``statistic`` over word sets resampled with replacement.

    Parameters
    ----------
    statistic : callable
        ``statistic(indices) -> ndarray of shape (b,)``, ``indices[name]`` an int array of shape
        ``(b, sizes[name])``. Non-finite values mark resamples where the statistic is undefined.
    sizes : mapping of str to int
        Words per set (each at least 2).
    paired : sequence of sequences of str, default ()
        Groups of sets of equal size resampled with one shared draw (``[("X", "Y")]``: the two
        forms of one word stay together).
    n_resamples : int, default 1000
    seed : int or None, default 0
    confidence : float, default 0.95
    check : callable, optional
        Called after each chunk; when it returns True the bootstrap stops with
        :class:`~geobias.errors.Cancelled`. Default: the check of an enclosing
        :func:`~geobias.stats.cancellable` block, if any.
    interval : {"percentile", "basic"}, default "percentile"
        How the bounds are read from the resamples (:data:`INTERVALS`). The basic interval suits a
        statistic whose resamples are biased the way the estimate is (an effect size whose
        denominator the resampling inflates, an absolute value near 0): the percentile interval
        then sits on the wrong side and under-covers.
    test_zero : bool, default False
        Also give the bootstrap test of "the quantity is 0" that inverts the interval
        (``BootstrapResult.p_value``). Only meaningful for a quantity that can be 0 or of either sign.
    units : int, optional
        The expanded level's ``n`` (:func:`expanded_confidence`): how many independent units the
        statistic averages; at least 3. Required with ``interval="expanded"``; with
        ``interval="basic"`` the basic interval is read at the expanded level; ignored with
        ``"percentile"``.
    crossed : pair of sequences of str, optional
        The two sides of a crossed design, e.g. ``(("X", "Y"), ("A", "B"))``: every set on one
        side meets every set on the other (a target word's score averages over the attribute
        words). Resampling both sides at once counts their interaction three times where it
        counts once (Owen 2007); given the sides, two more bootstraps of ``n_resamples`` each (one
        side resampled, the other held as given; seeds spawned from ``seed``) estimate the two-way
        variance, and the resamples' spread about their median is scaled to it
        (:func:`two_way_scale`) before the interval is read. The two sides must cover the sets,
        and a paired group must lie on one side. Costs three bootstraps; the first, whose values
        are scaled, draws exactly what it would without ``crossed``, and the statistic sees it
        first (chunks in order), then the two one-sided passes.
    bounds : pair of float, optional
        The quantity's range (an effect size's ``±1/√(pq)``, a correlation's ``[−1, 1]``): the
        interval is clipped to it. A basic interval reflects the resamples about the estimate, and a
        two-way scaling stretches them, so either can reach past what any population could give;
        the truth lies within the range, so clipping never lowers coverage.

    Returns
    -------
    BootstrapResult

    Raises
    ------
    InputError
        No set, a set of fewer than 2 words, paired sets of different sizes or a set in two
        groups, ``n_resamples`` outside ``1..MAX_RESAMPLES``, ``confidence`` outside (0, 1), an
        expanded interval without ``units`` ≥ 3, ``crossed`` sides that do not share out the sets
        or that split a paired group.

    References
    ----------
    Efron & Tibshirani (1993), *An Introduction to the Bootstrap*, Chapman & Hall: §6.2 (the
    bootstrap standard error) and §13.3 (the percentile interval). Davison & Hinkley (1997),
    *Bootstrap Methods and their Application*, Cambridge: §5.2, eq. 5.6 (the basic interval).
    Hesterberg (2015), "What teachers should know about the bootstrap", *The American
    Statistician* 69(4): 371–386 (the expanded percentile interval). Owen (2007), "The pigeonhole
    bootstrap", *The Annals of Applied Statistics* 1(2): 386–411 (the two-way variance).

    Examples
    --------
    >>> s = np.array([0.1, 0.4, 0.3, 0.2])
    >>> r = bootstrap(lambda ix: s[ix["X"]].mean(axis=1), {"X": 4}, n_resamples=2000, seed=1)
    >>> round(r.estimate, 3), r.low <= r.estimate <= r.high, r.n_resamples
    (0.25, True, 2000)
    """
    check_resamples(n_resamples)
    if interval not in INTERVALS:
        raise InputError(f"unknown bootstrap interval {interval!r}; one of {', '.join(INTERVALS)}")
    check_confidence(confidence)
    if interval == "expanded" and (units is None or units < 3):
        raise InputError(f"the expanded bootstrap interval needs the number of units averaged, at least 3 (got {units})")
    if interval == "basic" and units is not None and units < 3:
        raise InputError(f"the expanded level needs the number of units averaged, at least 3 (got {units})")
    if not sizes:
        raise InputError("the bootstrap needs at least one word set")
    for name, n in sizes.items():
        if n < MIN_SET_SIZE:
            raise InputError(f"word set {name} has {n} word(s); the bootstrap needs at least {MIN_SET_SIZE} "
                             "to resample")
    groups: list[list[str]] = []
    seen: set[str] = set()
    for group in paired:
        group = list(group)
        unknown = [g for g in group if g not in sizes]
        if unknown:
            raise InputError(f"paired set(s) {', '.join(unknown)} not among the sets {', '.join(sizes)}")
        if seen.intersection(group):
            raise InputError(f"a set is in two paired groups: {group}")
        if len({sizes[g] for g in group}) > 1:
            raise InputError("paired sets must have the same size: "
                             + ", ".join(f"{g} {sizes[g]}" for g in group))
        seen.update(group)
        groups.append(group)
    groups += [[name] for name in sizes if name not in seen]

    sides = _check_sides(crossed, sizes, groups) if crossed is not None else None

    if check is None:
        check = _CANCEL.get()
    identity = {name: np.arange(n)[None, :] for name, n in sizes.items()}
    est = float(np.asarray(statistic(identity), dtype=np.float64).reshape(-1)[0])
    values = _draws(statistic, sizes, groups, n_resamples, np.random.default_rng(seed), check)
    finite = values[np.isfinite(values)]
    scale = None
    if sides is not None:
        one_sided = []
        for held, stream in zip(reversed(sides), np.random.SeedSequence(seed).spawn(2), strict=True):
            v = _draws(statistic, sizes, groups, n_resamples, np.random.default_rng(stream), check, held=held)
            one_sided.append(v[np.isfinite(v)])
        if finite.size > 1:
            scale = two_way_scale(finite, *one_sided, units=[min(sizes[k] for k in side) for side in sides])
            middle = float(quantiles(finite, 0.5))  # the median (np.median would import numpy.ma)
            finite = middle + scale * (finite - middle)
    expand = interval == "expanded" or (interval == "basic" and units is not None)
    level = expanded_confidence(confidence, units) if expand else confidence
    alpha = (1.0 - level) / 2.0
    if finite.size:
        low, high = (float(v) for v in quantiles(finite, [alpha, 1.0 - alpha]))
        se = float(finite.std(ddof=1)) if finite.size > 1 else 0.0
        low_mcse, high_mcse = quantile_mcse(finite, alpha), quantile_mcse(finite, 1.0 - alpha)
        if interval == "basic":  # reflected about the estimate: each bound's Monte Carlo error is the other quantile's
            if np.isfinite(est):
                low, high = 2.0 * est - high, 2.0 * est - low
            else:
                low = high = None
            low_mcse, high_mcse = high_mcse, low_mcse
    else:
        low = high = se = low_mcse = high_mcse = None
    if bounds is not None and low is not None:
        low, high = min(max(low, bounds[0]), bounds[1]), max(min(high, bounds[1]), bounds[0])
    p_value = _zero_test(finite, est, interval, units if expand else None) if test_zero else None
    return BootstrapResult(
        estimate=est if np.isfinite(est) else None, low=low, high=high, standard_error=se,
        confidence=confidence, n_resamples=n_resamples, n_finite=int(finite.size), seed=seed,
        set_sizes={k: int(v) for k, v in sizes.items()}, paired=[g for g in groups if len(g) > 1],
        low_mcse=low_mcse, high_mcse=high_mcse, interval=interval, p_value=p_value,
        level=level if expand else None, variance_scale=scale,
    )


def _draws(statistic: BootstrapStatistic, sizes: Mapping[str, int], groups: list[list[str]], n_resamples: int,
           rng: np.random.Generator, check: Callable[[], bool] | None, held: Sequence[str] = ()) -> np.ndarray:
    """``n_resamples`` values of ``statistic``, each on one draw of every group of sets (in chunks that
    bound memory); the sets in ``held`` keep their words as given in every resample."""
    per_resample = sum(sizes.values())
    chunk = max(1, min(n_resamples, _CHUNK_ELEMENTS // per_resample))
    values = np.empty(n_resamples, dtype=np.float64)
    done = 0
    while done < n_resamples:
        b = min(chunk, n_resamples - done)
        idx: dict[str, np.ndarray] = {}
        for group in groups:  # the same order of draws for a seed, whatever the chunking
            n = sizes[group[0]]
            draw = (np.broadcast_to(np.arange(n), (b, n)) if group[0] in held
                    else rng.integers(0, n, size=(b, n)))
            for name in group:
                idx[name] = draw
        out = np.asarray(statistic(idx), dtype=np.float64).reshape(-1)
        if out.shape != (b,):
            raise ValueError(f"the statistic returned shape {out.shape} for {b} resamples")
        values[done:done + b] = out
        done += b
        if check is not None and check():
            raise Cancelled(f"the bootstrap was cancelled after {done:,} of {n_resamples:,} resamples")
    return values


def _check_sides(crossed, sizes: Mapping[str, int], groups: list[list[str]]) -> tuple[tuple[str, ...], ...]:
    """The two sides of a crossed design, checked: they partition the sets, a paired group on one side."""
    sides = tuple(tuple(side) for side in crossed)
    named = [k for side in sides for k in side]
    if len(sides) != 2 or not all(sides) or sorted(named) != sorted(sizes):
        raise InputError(f"a crossed design's two sides must share out the sets {', '.join(sizes)} "
                         f"(got {' | '.join(', '.join(side) for side in sides)})")
    for group in groups:
        if len({0 if k in sides[0] else 1 for k in group}) > 1:
            raise InputError(f"the paired sets {'/'.join(group)} must lie on one side of the crossed design")
    return sides


def two_way_scale(both: np.ndarray, first: np.ndarray, second: np.ndarray, *, units: Sequence[int]) -> float:
    """The factor that brings a crossed design's bootstrap spread to the two-way variance.

    A statistic that averages over two crossed samples (target words × attribute words) has
    variance ``V = σ²_1/n_1 + σ²_2/n_2 + σ²_12/(n_1 n_2)``. Resampling both samples at once gives,
    in expectation, the interaction term three times over; resampling one side with the other held
    gives its main term and the interaction once. So ``2 (V_1 + V_2) − V_both`` estimates ``V``
    (Owen 2007, eq. 2.3 for two factors). Each one-sided variance is the plug-in one and is first
    multiplied by ``n/(n − 1)``, ``n`` the smallest set on its side (ours: the usual small-sample
    factor, which a plug-in variance of a mean over ``n`` draws lacks). The estimate is kept within
    ``[max(V_1, V_2), V_both]`` (neither main term alone can exceed ``V``; a design without an
    interaction keeps the plain bootstrap), and the factor is ``sqrt(V / V_both)``.

    Parameters
    ----------
    both, first, second : ndarray of shape (B,), finite
        The statistic's resamples with both sides resampled, with only the first, only the second.
    units : pair of int
        The smallest set size on each side (each at least 2).

    Returns
    -------
    float
        In ``(0, 1]``; 1 when ``V_both`` is 0.

    References
    ----------
    Owen (2007), "The pigeonhole bootstrap", *The Annals of Applied Statistics* 1(2): 386–411.
    McCullagh (2000), "Resampling and exchangeable arrays", *Bernoulli* 6(2): 285–301 (no
    resampling of a crossed array gets the variance right by itself).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> both, first, second = rng.normal(0, 3, 4000), rng.normal(0, 1.5, 4000), rng.normal(0, 1.5, 4000)
    >>> round(two_way_scale(both, first, second, units=(1000, 1000)), 2)  # 2 (2.25 + 2.25) − 9 = 0: floor 2.25
    0.5
    """
    v_both = float(np.var(both, ddof=1))
    if not v_both > 0:
        return 1.0
    n1, n2 = units
    v1 = float(np.var(first, ddof=1)) * n1 / (n1 - 1) if first.size > 1 else 0.0
    v2 = float(np.var(second, ddof=1)) * n2 / (n2 - 1) if second.size > 1 else 0.0
    v = min(max(2.0 * (v1 + v2) - v_both, v1, v2), v_both)
    return float(np.sqrt(v / v_both))


def expanded_confidence(confidence: float, n: int) -> float:
    """The level at which the expanded percentile interval reads its quantiles (Hesterberg 2015).

    A percentile interval of a mean over ``n`` units is too narrow for small ``n``: its quantiles
    stand for ``±z_{1−α/2}·σ̂/√n`` with the plug-in ``σ̂`` (divisor ``n``), where Student's interval
    is ``±t_{1−α/2, n−1}·s/√n``. The expanded interval takes the quantiles at the level
    ``1 − 2 Φ(−√(n/(n−1)) · t_{1−α/2, n−1})``, so that in the normal case it equals the t interval.

    Parameters
    ----------
    confidence : float
        Nominal level, in (0, 1).
    n : int
        Units the statistic averages (at least 3).

    Returns
    -------
    float
        The wider level (0.9638 for 0.95 and ``n = 27``); it tends to ``confidence`` as ``n`` grows.

    Examples
    --------
    >>> round(expanded_confidence(0.95, 27), 4), round(expanded_confidence(0.95, 10_000), 4)
    (0.9638, 0.95)
    """
    if confidence == 0.95 and 3 <= n <= 256:  # the common case, tabulated: no SciPy at start-up
        from geobias.stats._expanded_levels import LEVELS_95

        return LEVELS_95[int(n)]
    return _expanded_level(confidence, n)


def _expanded_level(confidence: float, n: int) -> float:
    """:func:`expanded_confidence` computed (``scripts/expanded_levels.py`` tabulates it at 95 %)."""
    from math import erfc, sqrt

    # Student's t quantile (scipy.special loads lighter than scipy.stats)
    from scipy.special import stdtrit

    t = float(stdtrit(n - 1, (1.0 + confidence) / 2.0))
    return 1.0 - erfc(sqrt(n / (n - 1)) * t / sqrt(2.0))


def _zero_test(finite: np.ndarray, estimate: float, interval: str, units: int | None = None) -> float | None:
    """The p-value of "the quantity is 0" that inverts the ``interval`` read from ``finite``.

    Read at the expanded level (``units`` given: the expanded interval, or the basic one read at
    that level): the test's p read back through :func:`expanded_confidence` (the nominal level whose
    expanded level has 0 at its edge).

    >>> round(_zero_test(np.array([-1.0, 1, 2, 3, 4, 5, 6, 7, 8]), 4.0, "percentile"), 4)  # 2·(1+1)/10
    0.4
    """
    if not finite.size or (interval == "basic" and not np.isfinite(estimate)):
        return None
    pivot = 2.0 * estimate if interval == "basic" else 0.0
    below, above = int((finite <= pivot).sum()), int((finite >= pivot).sum())
    p = float(min(1.0, 2.0 * (min(below, above) + 1) / (finite.size + 1)))
    if units is not None and p < 1.0:
        from math import sqrt

        from scipy.special import ndtri, stdtr

        z = float(ndtri(1.0 - p / 2.0))  # the percentile interval at level 1 − p has 0 at its edge
        p = float(2.0 * (1.0 - stdtr(units - 1, z * sqrt((units - 1) / units))))
    return p


def quantile_mcse(values: np.ndarray, q: float) -> float:
    """Monte Carlo standard error of the ``q`` quantile of ``values`` (a bootstrap's draws).

    Distribution-free, from order statistics: the number of draws below the true quantile is
    Binomial(B, q), so the draws of ranks ``B q ± sqrt(B q (1 − q))`` bracket the quantile by about
    one standard error on each side; half their distance is the standard error.

    Parameters
    ----------
    values : ndarray of shape (B,), finite
    q : float in (0, 1)

    Returns
    -------
    float
        In the unit of ``values``; 0 when fewer than two values.

    References
    ----------
    Conover (1999), *Practical Nonparametric Statistics*, 3rd ed., §3.2 (confidence intervals for
    quantiles from the binomial distribution of order statistics).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> round(quantile_mcse(rng.normal(size=100_000), 0.025), 3)   # theory: sqrt(q(1-q)/B)/φ(1.96) = 0.0085
    0.009
    """
    v = np.sort(np.asarray(values, dtype=np.float64))
    n = v.size
    if n < 2:
        return 0.0
    half = np.sqrt(n * q * (1.0 - q))
    lo = int(np.clip(np.floor(n * q - half), 0, n - 1))
    hi = int(np.clip(np.ceil(n * q + half), 0, n - 1))
    return float((v[hi] - v[lo]) / 2.0)
