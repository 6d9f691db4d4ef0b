"""Vectorised bootstrap statistics of every association metric, for :func:`geobias.stats.bootstrap`.

Each factory takes a query's rows (float64; unit rows for cosine metrics), precomputes the
similarity matrices between its sets **once**, and returns a :class:`Resampling`: the statistic
as a function of index resamples (see :mod:`geobias.stats.bootstrap`), the set sizes and which
sets are paired. A resample is then evaluated by index counts (a mean over a resampled set is a
count-weighted row of a similarity matrix: one matrix product per chunk of resamples) or by
gathering, never by re-running the metric from the word vectors. The one exception is RNSB,
whose statistic needs its classifier retrained on each resampled attribute set.

Each metric declares which of these factories it uses, the sets it resamples, the quantities it
offers and the note each interval carries (:mod:`geobias.metrics.declaration`);
:func:`bootstrap_query` reads the declaration and knows no metric by name. The quantity each metric
resamples by default (``Resampling.quantity``) is its headline figure:

=========  ====================================================================================
WEAT/SEAT  ``effect_size`` (Caliskan's d, ddof 1) or ``statistic`` (``Σ_X s − Σ_Y s``); SEAT
           resamples words, each with all its sentences (:func:`seat_resampling`)
MWEAT      ``signed_statistic`` (``|Σ_X s| − |Σ_Y s|``: eq. 1 before its outer absolute value),
           ``sum_masculine``, ``sum_feminine``, ``statistic`` (eq. 1 itself, never negative),
           ``difference`` or ``effect_size``
RIPA       ``mean`` (mean β over the targets; the relation vector is re-fitted on resampled pairs)
RND        ``rnd`` (the sum of ``‖w − ā‖ − ‖w − b̄‖``)
RNSB       ``rnsb`` (KL divergence from uniform)
ECT        ``ect`` (Spearman ρ of the two similarity profiles)
MAC        ``mac`` (mean cosine distance)
=========  ====================================================================================
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from geobias._numeric import legacy_seed
from geobias.errors import InputError
from geobias.metrics.declaration import declared_metrics, get_metric
from geobias.stats.bootstrap import BootstrapResult, bootstrap, index_counts

__all__ = [
    "NON_NEGATIVE_NOTE", "Resampling", "bootstrap_query", "bootstrappable", "interval_note", "interval_of", "non_negative",
    "non_negative_note", "quantities", "ect_resampling", "lenient", "mac_resampling", "mweat_resampling", "ripa_resampling",
    "rnd_resampling", "rnsb_resampling", "run", "seat_resampling", "weat_resampling",
]

#: The note of a percentile interval of a never negative quantity (``{}``: what to read instead);
#: a metric declares it for such a quantity (:attr:`geobias.metrics.declaration.Metric.notes`).
NON_NEGATIVE_NOTE = "the quantity is never negative, so this interval cannot contain 0 and cannot show no bias; {}"


def interval_of(metric: str, quantity: str) -> str:
    """The interval a bootstrap of ``(metric, quantity)`` reports: ``"basic"`` or ``"expanded"`` where
    the metric declares the quantity so (:attr:`~geobias.metrics.declaration.Metric.basic`,
    :attr:`~geobias.metrics.declaration.Metric.expanded`), else ``"percentile"``
    (:data:`geobias.stats.bootstrap.INTERVALS`).

    The basic interval is declared where the resamples are biased the way the estimate is, so the
    percentile interval sits on the wrong side of the truth: Caliskan's d divides by a spread the
    attribute words' sampling noise inflates (resampling them inflates it again), and ``|Σ s|`` near
    0 is biased away from 0. In simulation (:mod:`geobias.evaluation.calibration`) the percentile
    interval held a large true d in 72–75 % of data sets and MWEAT's signed figure under one-sided
    agreement in 91.5 %; the basic interval reflects the resamples about the estimate and corrects
    that bias to first order. RND's distances to the means of resampled attribute sets (a resample
    with duplicates has a longer mean) move every resample the same way: percentile 97.8–99.1 %,
    basic 95.7–96.8 %. MAC, a mean over 27 pairs, reads the expanded percentile interval: the
    percentile one held its truth in 91.8–94.1 %, the expanded one in 93.6–95.8 %.

    Independently of the method, a quantity the metric declares ``two_way`` (a crossed design:
    targets × attribute words) reads its interval from resamples whose spread is scaled to the
    two-way variance (``crossed`` of :func:`geobias.stats.bootstrap.bootstrap`), and a ``basic``
    quantity that is also ``expanded`` reads the basic interval at the expanded level.

    Examples
    --------
    >>> interval_of("mweat", "signed_statistic"), interval_of("mweat", "sum_masculine")
    ('basic', 'percentile')
    """
    try:
        declared = get_metric(metric)  # (imports the other metrics only for a name not declared yet)
    except InputError:
        return "percentile"
    return "basic" if quantity in declared.basic else "expanded" if quantity in declared.expanded else "percentile"


def __getattr__(name: str):
    """The tables this module kept before the metrics declared themselves, read from the declarations:
    ``QUANTITIES`` (metric → quantities), ``BASIC`` ((metric, quantity) read with the basic interval),
    ``NON_NEGATIVE`` and ``UNDERCOVERED`` ((metric, quantity) → its note: a never negative quantity's,
    or a measured coverage outside 93–97 %, :mod:`geobias.metrics.coverage`)."""
    if name == "QUANTITIES":
        return quantities()
    if name == "BASIC":
        return frozenset((m.name, q) for m in declared_metrics() for q in m.basic)
    if name in ("NON_NEGATIVE", "UNDERCOVERED"):
        prefix = NON_NEGATIVE_NOTE.split("{")[0]
        notes = {(m.name, q): note for m in declared_metrics() for q, note in m.notes.items()}
        return {k: v for k, v in notes.items() if v.startswith(prefix) == (name == "NON_NEGATIVE")}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def non_negative(instead: str) -> str:
    """The note of an interval of a never negative quantity, ``instead`` saying what to read.

    >>> non_negative("read the interval of mean, which can")[:40]
    'the quantity is never negative, so this '
    """
    return NON_NEGATIVE_NOTE.format(instead)


def non_negative_note(metric: str, quantity: str) -> str:
    """The note a bootstrap of ``(metric, quantity)`` carries (the metric's declared
    :attr:`~geobias.metrics.declaration.Metric.notes`): why its interval cannot show no bias, or
    its measured undercoverage; else empty."""
    return get_metric(metric).notes.get(quantity, "")


def quantities() -> dict[str, tuple[str, ...]]:
    """The quantities each declared metric's bootstrap can resample; the first is its default.

    >>> quantities()["mweat"][:2]
    ('signed_statistic', 'statistic')
    """
    return {m.name: m.quantities for m in declared_metrics() if m.resampling is not None}


@dataclass(frozen=True)
class Resampling:
    """A metric's statistic over index resamples of its word sets.

    Attributes
    ----------
    statistic : callable
        ``statistic(indices) -> ndarray (b,)``; ``indices[name]`` is ``(b, sizes[name])`` int.
    sizes : dict of str to int
    paired : list of tuple of str
        Sets drawn together (the two forms of one word).
    metric, quantity : str
        What is resampled, e.g. ``("mweat", "statistic")``.
    bounds : pair of float, optional
        The quantity's range, which the interval is clipped to (:func:`geobias.stats.bootstrap`).
    """

    statistic: Callable[[Mapping[str, np.ndarray]], np.ndarray]
    sizes: dict[str, int]
    paired: list[tuple[str, ...]] = field(default_factory=list)
    metric: str = ""
    quantity: str = ""
    bounds: tuple[float, float] | None = None


def bootstrap_query(rows, metric: str, *, variant: str = "english", quantity: str | None = None,
                    unit: bool = False, C: float = 1.0, classifier_seed: int | None = 0, n_resamples: int = 1000,
                    seed: int | None = 0, confidence: float = 0.95, test_zero: bool = False) -> BootstrapResult:
    """The bootstrap over the words of a resolved query, for any association metric.

    Parameters
    ----------
    rows : ResolvedQuery or QueryRows
        The query as the metric resolved it (:meth:`geobias.query.WordQuery.resolve`): float64 rows
        ``x``, ``y`` (or ``None``), ``a``, ``b`` — unit rows for the cosine metrics; for RIPA the
        raw rows of the targets (``x``) and of the pairs' two words (``a[i]``, ``b[i]``).
    metric : str
        A declared metric with a resampling (:func:`bootstrappable`: in the tree "weat", "seat",
        "mweat", "ripa", "rnd", "rnsb", "ect", "mac"): its declaration
        (:class:`geobias.metrics.declaration.Metric`) builds the resampling, and each of the options
        below goes to it when it takes that keyword.
    variant : {"english", "grammatical"}, default "english"
        RND, RNSB, ECT, MAC: the grammatical variant resamples the two-form words as pairs.
    quantity : str, optional
        What to resample (the metric's declared ``quantities``; default the first, its headline
        figure).
    unit : bool, default False
        RIPA: unit-normalise the targets first (as ``ripa(unit=True)``).
    C, classifier_seed : float, int
        RNSB's classifier (as :func:`geobias.metrics.rnsb.rnsb`).
    n_resamples : int, default 1000
    seed : int or None, default 0
    confidence : float, default 0.95
    test_zero : bool, default False
        Also the bootstrap test of 0 that inverts the interval (``BootstrapResult.p_value``).

    Returns
    -------
    BootstrapResult or None
        With ``quantity`` set, and ``note`` the metric's note for it, and where the smallest set
        resampled has fewer words than the calibration's French-sized run, what the run with smaller
        sets measured (:func:`geobias.metrics.coverage.small_set_note`); ``None`` inside
        :func:`lenient` when the sets are too small to resample.

    Raises
    ------
    InputError
        No such metric, a metric without a bootstrap, or a quantity it does not resample.
    ParameterError
        ``n_resamples`` outside 1..1,000,000, or a set with fewer than 2 words (pairs) to resample
        (field ``"bootstrap"``: a usage error), the latter outside :func:`lenient` only.

    References
    ----------
    Efron & Tibshirani (1993), *An Introduction to the Bootstrap*, §6.2 and §13.3. Antoniak & Mimno
    (2021), "Bad Seeds: Evaluating Lexical Methods for Bias Measurement", ACL (why the word choice
    matters). Du, Fang & Nguyen (2021), "Assessing the Reliability of Word Embedding Gender Bias
    Measures", EMNLP.

    Examples
    --------
    >>> from geobias.query import WordQuery
    >>> from geobias.store import VectorStore
    >>> rng = np.random.default_rng(0)
    >>> s = VectorStore([f"w{i}" for i in range(16)], rng.normal(size=(16, 8)).astype(np.float32))
    >>> q = WordQuery([f"w{i}" for i in range(4)], [f"w{i}" for i in range(4, 8)],
    ...               [f"w{i}" for i in range(8, 12)], [f"w{i}" for i in range(12, 16)])
    >>> r = bootstrap_query(q.resolve(s), "weat", n_resamples=200)
    >>> r.quantity, r.n_resamples, r.set_sizes
    ('effect_size', 200, {'X': 4, 'Y': 4, 'A': 4, 'B': 4})
    """
    from dataclasses import replace

    from geobias.errors import ParameterError

    declared = get_metric(metric)
    if declared.resampling is None:
        raise InputError(f"no bootstrap for {metric!r}; one of {', '.join(bootstrappable())}")
    options = {"variant": variant, "unit": unit, "C": C, "classifier_seed": classifier_seed}
    res = declared.resampling(rows, quantity=quantity, **_accepted(declared.resampling, options))
    try:
        out = run(res, n_resamples=n_resamples, seed=seed, confidence=confidence, test_zero=test_zero)
    except InputError as exc:
        if isinstance(exc, ParameterError):
            raise
        refuse_resampling(exc)
        return None
    return replace(out, quantity=res.quantity, note=interval_note(metric, res.quantity, out.set_sizes))


def interval_note(metric: str, quantity: str, set_sizes: Mapping[str, int]) -> str:
    """The note of ``metric``'s interval of ``quantity`` over sets of ``set_sizes``: the metric's
    declared note (:attr:`~geobias.metrics.declaration.Metric.notes`), then, where the smallest set has
    fewer words than the calibration's French-sized run, what is known of the coverage for so few
    (:func:`geobias.metrics.coverage.small_set_note`), joined by "; " (``""`` when neither applies).

    >>> interval_note("weat", "effect_size", {"X": 27, "Y": 27, "A": 11, "B": 11})
    ''
    """
    from geobias.metrics.coverage import small_set_note

    said = (get_metric(metric).notes.get(quantity, ""), small_set_note(metric, quantity, min(set_sizes.values())))
    return "; ".join(n for n in said if n)


def bootstrappable() -> list[str]:
    """The declared metrics that offer a bootstrap (a :attr:`~geobias.metrics.declaration.Metric.resampling`)."""
    return [m.name for m in declared_metrics() if m.resampling is not None]


def _accepted(fn: Callable[..., Any], options: Mapping[str, Any]) -> dict[str, Any]:
    """The ``options`` that ``fn`` takes as keywords."""
    import inspect

    params = inspect.signature(fn).parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return dict(options)
    return {k: v for k, v in options.items() if k in params}


#: Inside :func:`lenient`: why a bootstrap was left out (one reason per refused resampling).
_LENIENT: ContextVar[list[str] | None] = ContextVar("geobias_lenient_bootstrap", default=None)


@contextmanager
def lenient() -> Iterator[list[str]]:
    """Within this block a bootstrap whose sets are too small to resample gives no interval
    (``None``) instead of raising; the yielded list collects the reasons. The commands use it for
    their default count, so that the figure is computed once either way; an explicit count is
    refused as before.

    Examples
    --------
    >>> from geobias.query import WordQuery
    >>> from geobias.store import VectorStore
    >>> s = VectorStore(["a", "b", "c", "d", "e", "f"], np.eye(6))
    >>> rows = WordQuery(["a"], ["b"], ["c", "d"], ["e", "f"], minimum_words=1).resolve(s)
    >>> with lenient() as skipped:
    ...     bootstrap_query(rows, "weat", n_resamples=10) is None, len(skipped)
    (True, 1)
    """
    skipped: list[str] = []
    token = _LENIENT.set(skipped)
    try:
        yield skipped
    finally:
        _LENIENT.reset(token)


def refuse_resampling(exc: InputError) -> None:
    """A resampling the sets do not allow: raise it as the bootstrap's :class:`ParameterError`
    (field ``"bootstrap"``), or, inside :func:`lenient`, record its reason and return."""
    from geobias.errors import ParameterError

    skipped = _LENIENT.get()
    if skipped is None:
        raise ParameterError(f"bootstrap: {exc}", "bootstrap") from None
    skipped.append(str(exc))


def run(resampling: Resampling, *, n_resamples: int = 1000, seed: int | None = 0,
        confidence: float = 0.95, test_zero: bool = False) -> BootstrapResult:
    """:func:`geobias.stats.bootstrap` of a :class:`Resampling`, with the interval its metric and
    quantity call for (:func:`interval_of`).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> x, y, a, b = (rng.normal(size=(6, 4)) for _ in range(4))
    >>> r = run(weat_resampling(x, y, a, b), n_resamples=200)
    >>> r.n_resamples, r.set_sizes
    (200, {'X': 6, 'Y': 6, 'A': 6, 'B': 6})
    """
    interval = interval_of(resampling.metric, resampling.quantity)
    try:
        declared = get_metric(resampling.metric)
    except InputError:  # a resampling built by hand for no declared metric: the plain bootstrap
        declared = None
    units = crossed = None
    if declared is not None and resampling.quantity in declared.expanded:
        # the units the quantity averages: its sets' sizes, a paired group once
        over = declared.expanded[resampling.quantity]
        draws = {next((tuple(g) for g in resampling.paired if k in g), (k,)) for k in over if k in resampling.sizes}
        units = sum(resampling.sizes[d[0]] for d in draws)
    if declared is not None and resampling.quantity in declared.two_way:
        crossed = tuple(tuple(k for k in side if k in resampling.sizes) for side in declared.two_way[resampling.quantity])
    return bootstrap(resampling.statistic, resampling.sizes, paired=resampling.paired,
                     n_resamples=n_resamples, seed=seed, confidence=confidence,
                     interval=interval, test_zero=test_zero, units=units, crossed=crossed, bounds=resampling.bounds)


def _f64(*arrays: np.ndarray | None) -> list[np.ndarray | None]:
    return [None if a is None else np.asarray(a, dtype=np.float64) for a in arrays]


def _check_quantity(metric: str, quantity: str | None) -> str:
    allowed = get_metric(metric).quantities
    if quantity is None:
        return allowed[0]
    if quantity not in allowed:
        raise InputError(f"{metric} resamples one of {', '.join(allowed)}, not {quantity!r}")
    return quantity


def _mean_over(idx: np.ndarray, sim: np.ndarray) -> np.ndarray:
    """Mean of the columns of ``sim`` (n_rows, n_set) picked by each resample: (b, n_rows)."""
    return index_counts(idx, sim.shape[1]) @ sim.T / idx.shape[1]


def _gather(values: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """``values[r, idx[r]]`` for each resample ``r``: (b, k)."""
    return np.take_along_axis(values, idx, axis=1)


def effect_size_bounds(n_x: int, n_y: int) -> tuple[float, float]:
    """The range of the effect size (mean_X s − mean_Y s) / sd over X∪Y of a population whose share of
    X is ``p = n_x / (n_x + n_y)``: ``±1/√(p(1 − p))`` (±2 for sets of one size), reached when every
    X score is one value and every Y score another (the pooled variance is then ``p(1 − p)`` times
    the squared difference of the means).

    >>> effect_size_bounds(8, 8), effect_size_bounds(1, 3)[1] == 4 / 3 ** 0.5
    ((-2.0, 2.0), True)
    """
    bound = (n_x + n_y) / math.sqrt(n_x * n_y)
    return -bound, bound


def _effect(s_x: np.ndarray, s_y: np.ndarray) -> np.ndarray:
    both = np.concatenate([s_x, s_y], axis=1)
    sd = both.std(axis=1, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = (s_x.mean(axis=1) - s_y.mean(axis=1)) / sd
    out[~(sd > 0)] = np.nan
    return out


def _association_parts(x, y, a, b):
    sim = {("x", "a"): x @ a.T, ("x", "b"): x @ b.T, ("y", "a"): y @ a.T, ("y", "b"): y @ b.T}

    def scores(ix):
        s = {}
        for t in ("x", "y"):
            full = _mean_over(ix["A"], sim[t, "a"]) - _mean_over(ix["B"], sim[t, "b"])  # (b, n_t)
            s[t] = _gather(full, ix[t.upper()])
        return s["x"], s["y"]
    return scores


def weat_resampling(x: np.ndarray, y: np.ndarray, a: np.ndarray, b: np.ndarray, *,
                    quantity: str | None = None, metric: str = "weat") -> Resampling:
    """WEAT (and SEAT, on sentence rows): X, Y, A and B each resampled on their own.

    Parameters
    ----------
    x, y, a, b : ndarray of shape (n_set, dim)
        Rows as the metric compares them (unit rows for cosine).
    quantity : {"effect_size", "statistic"}, default "effect_size"
    metric : {"weat", "seat"}, default "weat"

    References
    ----------
    Caliskan, Bryson & Narayanan (2017), Science 356(6334): the statistic and effect size.
    """
    quantity = _check_quantity(metric, quantity)
    x, y, a, b = _f64(x, y, a, b)
    scores = _association_parts(x, y, a, b)

    def stat(ix):
        s_x, s_y = scores(ix)
        if quantity == "statistic":
            return s_x.sum(axis=1) - s_y.sum(axis=1)
        return _effect(s_x, s_y)
    bounds = effect_size_bounds(len(x), len(y)) if quantity == "effect_size" else None
    return Resampling(stat, {"X": len(x), "Y": len(y), "A": len(a), "B": len(b)}, [], metric, quantity, bounds)


def seat_resampling(sentences: Mapping[str, np.ndarray], groups: Mapping[str, np.ndarray], *,
                    quantity: str | None = None) -> Resampling:
    """SEAT with its **words** resampled: each set's words drawn with replacement, every drawn word
    bringing all its template sentences (a word drawn twice counts its sentences twice).

    Parameters
    ----------
    sentences : mapping {"X", "Y", "A", "B"} to ndarray (n_sentences, dim)
        The sentences' unit rows per set.
    groups : mapping {"X", "Y", "A", "B"} to ndarray of int (n_sentences,)
        The word (0..n_words − 1) each sentence was made from.
    quantity : {"effect_size", "statistic"}, default "effect_size"

    Notes
    -----
    A resample is a weight per sentence (its word's count), so WEAT's means become weighted means
    and its standard deviation the frequency-weighted one (``ddof = 1`` on the weights' total):
    exactly WEAT on the sentence list with each drawn word's sentences repeated.

    References
    ----------
    May, Wang, Bordia, Bowman & Rudinger (2019), "On Measuring Social Biases in Sentence Encoders",
    NAACL (SEAT); Caliskan et al. (2017) (the statistic and effect size).
    """
    quantity = _check_quantity("seat", quantity)
    rows = {k: np.asarray(v, dtype=np.float64) for k, v in sentences.items()}
    grp = {k: np.asarray(v, dtype=np.intp) for k, v in groups.items()}
    n_words = {k: int(g.max()) + 1 for k, g in grp.items()}
    sim = {(t, a): rows[t] @ rows[a].T for t in ("X", "Y") for a in ("A", "B")}

    def weights(ix, k):
        return index_counts(ix[k], n_words[k])[:, grp[k]]  # (b, n_sentences of k)

    def stat(ix):
        w = {k: weights(ix, k) for k in ("X", "Y", "A", "B")}
        s = {}
        for t in ("X", "Y"):
            ma = w["A"] @ sim[t, "A"].T / w["A"].sum(axis=1, keepdims=True)
            mb = w["B"] @ sim[t, "B"].T / w["B"].sum(axis=1, keepdims=True)
            s[t] = ma - mb  # (b, n_sentences of t)
        sx, sy = (w["X"] * s["X"]).sum(axis=1), (w["Y"] * s["Y"]).sum(axis=1)
        if quantity == "statistic":
            return sx - sy
        wx, wy = w["X"].sum(axis=1), w["Y"].sum(axis=1)
        total = wx + wy
        mean = (sx + sy) / total
        ss = (w["X"] * (s["X"] - mean[:, None]) ** 2).sum(axis=1) + (w["Y"] * (s["Y"] - mean[:, None]) ** 2).sum(axis=1)
        sd = np.sqrt(ss / (total - 1))
        with np.errstate(divide="ignore", invalid="ignore"):
            out = (sx / wx - sy / wy) / sd
        out[~(sd > 0)] = np.nan
        return out
    # the sentences' shares of X and Y as given (a resample's shares vary with the words it draws)
    bounds = effect_size_bounds(len(grp["X"]), len(grp["Y"])) if quantity == "effect_size" else None
    return Resampling(stat, dict(n_words), [], "seat", quantity, bounds)


def mweat_resampling(x: np.ndarray, y: np.ndarray, a: np.ndarray, b: np.ndarray, *,
                     quantity: str | None = None) -> Resampling:
    """MWEAT: the occupations resampled as pairs (masculine ``x[i]`` with feminine ``y[i]``), A and B
    on their own.

    Parameters
    ----------
    x, y : ndarray of shape (n_pairs, dim)
        Masculine and feminine forms, paired by position.
    a, b : ndarray of shape (n_a, dim), (n_b, dim)
        Male and female attribute rows.
    quantity : {"signed_statistic", "statistic", "difference", "effect_size", "sum_masculine", "sum_feminine"}
        Default ``"signed_statistic"``: ``|Σ_x s| − |Σ_y s|``, eq. 1 before its outer absolute value
        (> 0: the masculine forms' association is the larger; its interval can contain 0). Or eq. 1
        itself ``| |Σ_x s| − |Σ_y s| |`` (never negative: its percentile interval cannot contain 0),
        Caliskan's ``Σ_x s − Σ_y s``, Caliskan's d on the sets, or either sum alone.

    References
    ----------
    Zhou et al. (2019), "Examining Gender Bias in Languages with Grammatical Gender", EMNLP, eq. 1.
    """
    quantity = _check_quantity("mweat", quantity)
    x, y, a, b = _f64(x, y, a, b)
    if len(x) != len(y):
        raise InputError(f"MWEAT pairs need as many masculine as feminine forms ({len(x)} and {len(y)})")
    scores = _association_parts(x, y, a, b)

    def stat(ix):
        s_x, s_y = scores(ix)
        if quantity == "effect_size":
            return _effect(s_x, s_y)
        sx, sy = s_x.sum(axis=1), s_y.sum(axis=1)
        if quantity == "difference":
            return sx - sy
        if quantity == "sum_masculine":
            return sx
        if quantity == "sum_feminine":
            return sy
        signed = np.abs(sx) - np.abs(sy)
        return signed if quantity == "signed_statistic" else np.abs(signed)
    return Resampling(stat, {"X": len(x), "Y": len(y), "A": len(a), "B": len(b)}, [("X", "Y")], "mweat", quantity)


def _targets(x, y, paired):
    sizes = {"X": len(x)}
    if y is not None:
        sizes["Y"] = len(y)
    return sizes, ([("X", "Y")] if paired else [])


def _stack(ix, per_set):
    """Per-set (b, n_set) values gathered by the resample, concatenated over the sets: (b, n)."""
    return np.concatenate([_gather(v, ix[k]) for k, v in per_set.items()], axis=1)


def mac_resampling(x: np.ndarray, y: np.ndarray | None, a: np.ndarray, b: np.ndarray, *,
                   variant: str = "english", quantity: str | None = None) -> Resampling:
    """MAC (Manzini et al. 2019) as :func:`geobias.metrics.mac` computes it, on unit rows.

    English variant: mean over the targets T = X ∪ Y of ``(S(t, A) + S(t, B)) / 2``; grammatical:
    pairs resampled together, ``mean_i (S̄(m_i) + S̄(f_i)) / 2`` (the same formula on paired rows).
    """
    _check_quantity("mac", quantity)
    x, y, a, b = _f64(x, y, a, b)
    sets = {"X": x} if y is None else {"X": x, "Y": y}
    sim = {k: (v @ a.T, v @ b.T) for k, v in sets.items()}

    def stat(ix):
        per = {k: 1.0 - (_mean_over(ix["A"], sa) + _mean_over(ix["B"], sb)) / 2 for k, (sa, sb) in sim.items()}
        return _stack(ix, per).mean(axis=1)
    sizes, paired = _targets(x, y, variant == "grammatical")
    return Resampling(stat, {**sizes, "A": len(a), "B": len(b)}, paired, "mac", "mac", (0.0, 2.0))  # cosine distances


def _mean_norm2(ix: np.ndarray, gram: np.ndarray) -> np.ndarray:
    """``‖mean of the resampled rows‖²`` from their Gram matrix: (b,)."""
    w = index_counts(ix, gram.shape[0]) / ix.shape[1]
    return np.einsum("bi,ij,bj->b", w, gram, w)


def rnd_resampling(x: np.ndarray, y: np.ndarray | None, a: np.ndarray, b: np.ndarray, *,
                   variant: str = "english", quantity: str | None = None) -> Resampling:
    """RND (Garg et al. 2018): ``Σ_w ‖w − ā‖ − ‖w − b̄‖`` with the distances from Gram matrices
    (``‖w − ā‖² = ‖w‖² − 2 w·ā + ‖ā‖²``). Grammatical variant: pairs resampled together, each form
    against the same two means (as :func:`geobias.metrics.rnd`)."""
    _check_quantity("rnd", quantity)
    x, y, a, b = _f64(x, y, a, b)
    sets = {"X": x} if y is None else {"X": x, "Y": y}
    sim = {k: (v @ a.T, v @ b.T, np.einsum("ij,ij->i", v, v)) for k, v in sets.items()}
    gram_a, gram_b = a @ a.T, b @ b.T

    def stat(ix):
        na, nb = _mean_norm2(ix["A"], gram_a), _mean_norm2(ix["B"], gram_b)
        per = {}
        for k, (sa, sb, n2) in sim.items():
            da = n2[None, :] - 2 * _mean_over(ix["A"], sa) + na[:, None]
            db = n2[None, :] - 2 * _mean_over(ix["B"], sb) + nb[:, None]
            per[k] = np.sqrt(np.maximum(da, 0.0)) - np.sqrt(np.maximum(db, 0.0))
        return _stack(ix, per).sum(axis=1)
    sizes, paired = _targets(x, y, variant == "grammatical")
    return Resampling(stat, {**sizes, "A": len(a), "B": len(b)}, paired, "rnd", "rnd")


def _rowwise_spearman(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    from scipy.stats import rankdata

    rp, rq = rankdata(p, axis=1), rankdata(q, axis=1)
    rp -= rp.mean(axis=1, keepdims=True)
    rq -= rq.mean(axis=1, keepdims=True)
    den = np.sqrt((rp * rp).sum(axis=1) * (rq * rq).sum(axis=1))
    with np.errstate(divide="ignore", invalid="ignore"):
        out = (rp * rq).sum(axis=1) / den
    out[~(den > 0)] = np.nan
    return out


def ect_resampling(x: np.ndarray, y: np.ndarray | None, a: np.ndarray, b: np.ndarray, *,
                   variant: str = "english", quantity: str | None = None) -> Resampling:
    """ECT (Dev & Phillips 2019): Spearman ρ of ``cos(t, mean A)`` and ``cos(t, mean B)`` over the
    resampled targets (English: X ∪ Y; grammatical: masculine forms against A, feminine against B,
    pairs resampled together), on unit rows; ties (a word drawn twice) get average ranks, as in
    ``scipy.stats.spearmanr``."""
    _check_quantity("ect", quantity)
    x, y, a, b = _f64(x, y, a, b)
    gram_a, gram_b = a @ a.T, b @ b.T
    gram = variant == "grammatical"
    sets = {"X": x} if y is None else {"X": x, "Y": y}
    sim = {k: (v @ a.T, v @ b.T) for k, v in sets.items()}

    def stat(ix):
        norm_a = np.sqrt(_mean_norm2(ix["A"], gram_a))[:, None]
        norm_b = np.sqrt(_mean_norm2(ix["B"], gram_b))[:, None]
        prof_a = {k: _mean_over(ix["A"], sa) / norm_a for k, (sa, _) in sim.items()}
        prof_b = {k: _mean_over(ix["B"], sb) / norm_b for k, (_, sb) in sim.items()}
        if gram:
            return _rowwise_spearman(_gather(prof_a["X"], ix["X"]), _gather(prof_b["Y"], ix["Y"]))
        return _rowwise_spearman(_stack(ix, prof_a), _stack(ix, prof_b))
    sizes, paired = _targets(x, y, gram)
    return Resampling(stat, {**sizes, "A": len(a), "B": len(b)}, paired, "ect", "ect", (-1.0, 1.0))  # a correlation


def rnsb_resampling(x: np.ndarray, y: np.ndarray | None, a: np.ndarray, b: np.ndarray, *,
                    variant: str = "english", C: float = 1.0, seed: int | None = 0,
                    quantity: str | None = None) -> Resampling:
    """RNSB (Sweeney & Najafian 2019): the classifier of :func:`geobias.metrics.rnsb` retrained on
    each resampled A ∪ B (a logistic regression has no closed form to gather from), the targets'
    probabilities gathered. Slower than the others: one fit per resample."""
    _check_quantity("rnsb", quantity)
    from scipy.stats import entropy
    from sklearn.linear_model import LogisticRegression

    x, y, a, b = _f64(x, y, a, b)
    gram = variant == "grammatical"
    sets = {"X": x} if y is None else {"X": x, "Y": y}
    state = None if seed is None else legacy_seed(seed)  # as rnsb(): our seeds go beyond scikit-learn's 2**32

    def one(ia, ib, targets):
        train = np.concatenate([a[ia], b[ib]])
        labels = np.concatenate([np.ones(len(ia)), -np.ones(len(ib))])
        clf = LogisticRegression(solver="liblinear", max_iter=10_000, C=C, random_state=state).fit(train, labels)
        neg = int(np.flatnonzero(clf.classes_ == -1)[0])
        return {k: clf.predict_proba(v)[:, neg] for k, v in targets.items()}

    def stat(ix):
        out = np.empty(ix["A"].shape[0])
        for r in range(len(out)):
            p = one(ix["A"][r], ix["B"][r], sets)
            if gram:
                probs = (p["X"][ix["X"][r]] + p["Y"][ix["Y"][r]]) / 2
            else:
                probs = np.concatenate([p[k][ix[k][r]] for k in sets])
            dist = probs / probs.sum()
            out[r] = max(float(entropy(dist, np.full(len(dist), 1.0 / len(dist)))), 0.0)
        return out
    sizes, paired = _targets(x, y, gram)
    return Resampling(stat, {**sizes, "A": len(a), "B": len(b)}, paired, "rnsb", "rnsb")


def ripa_resampling(targets: np.ndarray, pair_first: np.ndarray, pair_second: np.ndarray, *,
                    quantity: str | None = None) -> Resampling:
    """RIPA (Ethayarajh et al. 2019): mean (or mean absolute) ``⟨w, b⟩`` over the resampled targets,
    ``b`` re-fitted on each resample of the defining pairs (the first principal direction of the
    pair differences, signed towards their mean, as :func:`geobias.metrics.ripa.relation_vector`).

    With ``D`` the pair differences (k, dim) and a resample's ``D_r``, the top right singular
    vector is ``b = D_rᵀ u / σ`` with ``(u, σ²)`` the top eigenpair of ``D_r D_rᵀ``, so only the
    k × k Gram matrix ``D Dᵀ`` and the products ``targets Dᵀ`` are needed. With one pair the pairs
    are not resampled (set ``"pairs"`` is left out).

    Parameters
    ----------
    targets : ndarray (n, dim)
        Target rows as RIPA scores them.
    pair_first, pair_second : ndarray (k, dim)
        The rows of the two words of each defining pair.
    quantity : {"mean", "mean_abs"}, default "mean"
    """
    quantity = _check_quantity("ripa", quantity)
    t, p1, p2 = _f64(targets, pair_first, pair_second)
    d = p1 - p2
    gram, td = d @ d.T, t @ d.T
    k = len(d)

    def stat(ix):
        n_b = ix["targets"].shape[0]
        ip = ix["pairs"] if "pairs" in ix else np.broadcast_to(np.arange(k), (n_b, k))
        g = gram[ip[:, :, None], ip[:, None, :]]  # (b, k, k)
        w, v = np.linalg.eigh(g)
        u, s2 = v[:, :, -1], w[:, -1]
        sigma = np.sqrt(np.maximum(s2, 0.0))
        sign = np.sign(np.einsum("bij,bj->b", g, u))  # mean(D_r) · b ∝ Σ_i (G u)_i
        sign[sign == 0] = 1.0
        proj = np.einsum("nbk,bk->bn", td[:, ip], u) * (sign / sigma)[:, None]  # (b, n)
        vals = _gather(proj, ix["targets"])
        return np.abs(vals).mean(axis=1) if quantity == "mean_abs" else vals.mean(axis=1)
    sizes = {"targets": len(t)}
    if k >= 2:
        sizes["pairs"] = k
    return Resampling(stat, sizes, [], "ripa", quantity)
