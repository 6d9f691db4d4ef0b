"""A metric declares itself: its name, its query, what its bootstrap resamples and how, its figure.

A metric module ends with one :func:`declare` call (a :class:`Metric`); importing the module
registers it, and :func:`geobias.metrics.load_metrics` imports every in-tree metric module (one line
each) before :func:`declared_metrics` lists them or :func:`get_metric` misses a name.
Everything that used to know a metric by its name reads the declaration instead:

* the bootstrap over the words (:func:`geobias.metrics.bootstrap.bootstrap_query`) builds the
  metric's :attr:`Metric.resampling` and checks the quantity against :attr:`Metric.quantities`;
* the report layer draws :attr:`Metric.figure` (a :class:`Bars` chart given as data, or a
  matplotlib ``Figure``) for a result of type :attr:`Metric.result`: a metric module registers its
  figure without importing :mod:`geobias.report`, which sits above it;
* the command layer offers a command for every declared metric whose query is :data:`SETS`
  and that has no hand-written command (:mod:`geobias.commands.declared`): the CLI, the service,
  its jobs and the web app then show it like every other.

:func:`geobias.metrics.check_metric` checks a declaration against the contract, for plug-in authors
as for the in-tree metrics (as scikit-learn's ``check_estimator``).

Examples
--------
>>> from geobias.metrics import get_metric
>>> m = get_metric("ect")
>>> m.query, m.quantities, m.sets
('sets', ('ect',), ('X', 'Y', 'A', 'B'))
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from geobias.errors import InputError

__all__ = ["SETS", "Bars", "FigureSpec", "Metric", "QueryShape", "declare", "declared_metrics", "declares_figure",
           "figure_of",
           "get_metric", "metric_of"]

#: How a metric reads its words:
#:
#: ``"sets"``
#:     A :class:`geobias.query.WordQuery` of target sets X, Y (Y optional) and attribute sets A, B,
#:     with a ``variant`` (``"english"`` or ``"grammatical"``: X and Y the masculine and feminine
#:     forms of the same words, paired by position; :mod:`geobias.metrics._query`). WEFE's metrics
#:     (RND, RNSB, ECT, MAC) and WEAT.
#: ``"two-form"``
#:     X and Y the masculine and feminine forms of the same words, always paired (MWEAT).
#: ``"targets-and-pairs"``
#:     Target words and defining word pairs (RIPA).
#: ``"sentences"``
#:     Template sentences of a sentence encoder (SEAT).
QueryShape = Literal["sets", "two-form", "targets-and-pairs", "sentences"]

#: The query shape whose metrics the command layer can offer without a hand-written command.
SETS = "sets"


@dataclass(frozen=True)
class Bars:
    """A bar chart as data; the report layer draws it (:func:`geobias.report.plots.plot_bars`).

    Attributes
    ----------
    labels : list of str
    values : list of float
        One bar per label.
    title : str
    axis : str
        The label of the values' axis (the bars are horizontal).
    colours : list of str, optional
        One matplotlib colour per bar (default: one colour for all).
    """

    labels: list[str]
    values: list[float]
    title: str
    axis: str
    colours: list[str] | None = None


@dataclass(frozen=True)
class FigureSpec:
    """A metric's figure: its title in reports and downloads, and ``draw(data)``.

    ``draw`` takes the result's JSON form (``result.to_dict()``: a stored result draws as a fresh
    one) and returns a :class:`Bars`, a matplotlib ``Figure``, or ``None`` when there is nothing to
    draw (an empty per-word table).
    """

    title: str
    draw: Callable[[dict[str, Any]], Any]


@dataclass(frozen=True)
class Metric:
    """What a metric declares about itself (see the module docstring).

    Attributes
    ----------
    name : str
        The metric's name, and its command's name where the command layer offers one.
    function : callable
        The library function, ``function(store, query, **options) -> result``; it takes
        ``bootstrap`` and ``bootstrap_seed`` when :attr:`resampling` is given.
    result : type
        The result type the function returns (a frozen :class:`geobias.results.Result` dataclass).
    query : {"sets", "two-form", "targets-and-pairs", "sentences"}
        How it reads its words (:data:`QueryShape`).
    summary : str
        One line: what it measures (the command's summary and the first line of its help).
    description : str
        More help for its command (optional).
    sets : tuple of str
        The word sets its bootstrap resamples (the keys of :attr:`Resampling.sizes`), e.g.
        ``("X", "Y", "A", "B")``; empty without a bootstrap.
    paired : str
        How its sets are paired in a resample, in words (``"X with Y in the grammatical variant"``).
    quantities : tuple of str
        The quantities its bootstrap can resample; the first is the default (its headline figure).
    resampling : callable, optional
        ``resampling(rows, *, quantity=None, **options) -> geobias.metrics.bootstrap.Resampling`` on
        the resolved query (:class:`geobias.query.ResolvedQuery`); its keyword options are among
        ``variant``, ``unit``, ``C``, ``classifier_seed`` (as :func:`bootstrap_query` passes them).
        ``None``: the metric offers no bootstrap.
    basic : tuple of str
        The quantities read with the basic bootstrap interval instead of the percentile one (where
        the resamples are biased the way the estimate is: :func:`geobias.metrics.bootstrap.interval_of`).
    expanded : mapping of str to tuple of str
        The quantities read with the expanded percentile interval (a mean over few units, whose
        percentile interval is too narrow: :func:`geobias.stats.bootstrap.expanded_confidence`), each
        with the sets whose units it averages (a paired group counts once). A quantity in ``basic``
        too reads the basic interval at the expanded level.
    two_way : mapping of str to pair of tuples of str
        The quantities whose resamples' spread is corrected for the crossed design before the
        interval is read (``crossed`` of :func:`geobias.stats.bootstrap.bootstrap`), each with its
        two sides, e.g. ``(("X", "Y"), ("A", "B"))`` (sets a query lacks are left out).
    bootstrapped : tuple of str
        The quantities a default run bootstraps, each with a bootstrap of its own (default: the
        first of ``quantities``); :attr:`bootstrap_passes` counts their passes.
    notes : mapping of str to str
        A note per quantity that its interval carries: why it cannot show "no bias" (a never
        negative quantity), or its coverage measured in simulation where it leaves 93–97 %
        (:func:`geobias.metrics.coverage.notes`).
    figure : FigureSpec, optional
    """

    name: str
    function: Callable[..., Any]
    result: type
    query: QueryShape
    summary: str = ""
    description: str = ""
    sets: tuple[str, ...] = ()
    paired: str = ""
    quantities: tuple[str, ...] = ()
    resampling: Callable[..., Any] | None = None
    basic: tuple[str, ...] = ()
    expanded: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    two_way: Mapping[str, tuple[tuple[str, ...], tuple[str, ...]]] = field(default_factory=dict)
    bootstrapped: tuple[str, ...] = ()
    notes: Mapping[str, str] = field(default_factory=dict)
    figure: FigureSpec | None = None

    @property
    def bootstrap_passes(self) -> int:
        """How many times a default run resamples the words, counted in passes of ``n_resamples``:
        one per quantity it bootstraps, three for a ``two_way`` one (both sides, then each side with
        the other held: :func:`geobias.stats.bootstrap.bootstrap`'s ``crossed``); 0 without a
        resampling. A command's work estimate counts the bootstrap this many times.

        >>> from geobias.metrics import get_metric
        >>> get_metric("mweat").bootstrap_passes, get_metric("weat").bootstrap_passes, get_metric("rnd").bootstrap_passes
        (9, 3, 1)
        """
        if self.resampling is None:
            return 0
        return sum(3 if q in self.two_way else 1 for q in (self.bootstrapped or self.quantities[:1]))

    @property
    def result_name(self) -> str:
        """``"package.module.ClassName"`` of :attr:`result` (how commands and renderers name it)."""
        return f"{self.result.__module__}.{self.result.__qualname__}"


_METRICS: dict[str, Metric] = {}


def declare(metric: Metric) -> Metric:
    """Register ``metric`` (a module calls it once, at import) and return it.

    Raises
    ------
    InputError
        Another metric is declared under the same name, or the default quantity is missing while
        a resampling is given.
    """
    if not isinstance(metric, Metric):
        raise InputError(f"declare() takes a Metric, not {type(metric).__name__}")
    old = _METRICS.get(metric.name)
    if old is not None and old.result_name != metric.result_name:
        raise InputError(f"a metric named {metric.name!r} is already declared ({old.result_name})")
    if metric.resampling is not None and not metric.quantities:
        raise InputError(f"metric {metric.name!r} declares a resampling but no quantity to resample")
    _METRICS[metric.name] = metric
    return metric


def get_metric(name: str) -> Metric:
    """The declaration of the metric ``name``.

    Raises
    ------
    InputError
        No metric of that name is declared (the declared ones are listed).
    """
    if name not in _METRICS:
        from geobias.metrics import load_metrics

        load_metrics()  # an in-tree metric not imported yet
    try:
        return _METRICS[name]
    except KeyError:
        raise InputError(f"no metric {name!r}; one of {', '.join(sorted(_METRICS))}") from None


def metric_of(result: type) -> Metric | None:
    """The declared metric whose result type is ``result`` (its module, imported, has declared it),
    or ``None`` — without importing any other metric module, as :func:`get_metric` may.

    >>> from geobias.metrics import MweatResult
    >>> metric_of(MweatResult).name, metric_of(dict)
    ('mweat', None)
    """
    return next((m for m in _METRICS.values() if m.result is result), None)


def declared_metrics() -> list[Metric]:
    """Every declared metric: the in-tree ones first (:data:`geobias.metrics.IN_TREE` order, each
    imported if it was not), then the others in the order they were declared."""
    from geobias.metrics import IN_TREE, load_metrics

    load_metrics()
    first = [_METRICS[n] for n in IN_TREE if n in _METRICS]
    return first + [m for m in _METRICS.values() if m not in first]


def declares_figure(result_name: str) -> bool:
    """Whether the metric whose result type is named ``result_name`` (``"geobias.metrics.mweat.MweatResult"``)
    declares a figure. A result type's module declares its metric when imported, so the in-tree
    metrics are imported (:func:`geobias.metrics.load_metrics`) only when no declared metric has
    that result type."""

    def find() -> Metric | None:
        return next((m for m in _METRICS.values() if m.result_name == result_name), None)

    found = find()
    if found is None:
        from geobias.metrics import load_metrics

        load_metrics()
        found = find()
    return found is not None and found.figure is not None


def figure_of(result: Any) -> FigureSpec | None:
    """The declared figure of ``result``'s type, or of its nearest base type that has one; ``None``."""
    by_type = {m.result_name: m.figure for m in _METRICS.values() if m.figure is not None}
    for cls in type(result).__mro__:
        found = by_type.get(f"{cls.__module__}.{cls.__qualname__}")
        if found is not None:
            return found
    return None
