"""What the default 95 % bootstrap intervals are measured to hold: the note an interval carries
when its coverage in simulation leaves the 93–97 % target.

The calibration suite (:mod:`geobias.evaluation.calibration`, ``benchmarks/bench_calibration.py``)
simulates word vectors with a known truth in five scenarios (agreement without bias, symmetric and
asymmetric; bias without agreement; both; neither), sized like the French occupation query (27
occupation pairs, 11 + 11 attribute words, 15 definitional pairs), and counts how often each
default interval holds the true value. Its 1,000-data-set run is committed as
``reproductions/calibration.json``; ``scripts/coverage_notes.py`` turns it into
:data:`geobias.metrics._coverage_measured.COVERAGE` (a test keeps the two in step), and each metric
declares the notes :func:`notes` makes from it (:attr:`geobias.metrics.declaration.Metric.notes`),
so the figure a user reads says, beside its interval, how far its 95 % is from what was measured.

A query smaller than the French one is not what that run measured. A second run, with 8 pairs (or
target words) and 8 attribute words per set (``reproductions/calibration-8-words.json``, the size
of most of Caliskan et al.'s WEAT sets), gives :data:`SMALL_COVERAGE`; an interval whose smallest
resampled set has fewer words than the French query's smallest (:data:`CALIBRATED_SMALLEST`, 11)
carries :func:`small_set_note` beside its own: that run's coverage where it leaves the target, and,
below 8 words, that no run measured it.

A conservative interval (above 97 %) is still a true 95 % statement, only wider than it needs to be
(resampling the target words and the attribute words together counts their interaction more than
once, Owen 2007, "The pigeonhole bootstrap", *Ann. Appl. Stat.* 1(2); the intervals a metric
declares ``two_way`` correct for it). A short one (below 93 %) is not: its bounds are approximate.

Examples
--------
>>> coverage("mac", "mac") is not None, coverage("mweat", "statistic")
(True, None)
>>> note("rnd", "rnd")  # in target in every scenario: no note
''
"""

from __future__ import annotations

from geobias.metrics._coverage_measured import COVERAGE, RUN, SMALL_COVERAGE, SMALL_RUN

__all__ = ["CALIBRATED_SMALLEST", "COVERAGE", "RUN", "SMALL_COVERAGE", "SMALL_RUN", "TARGET", "coverage", "note",
           "notes", "small_set_note"]

#: The smallest set of the French-sized run (its 11 attribute words; 27 occupation pairs): a query
#: whose smallest resampled set is at least this large is within what :data:`COVERAGE` measured.
CALIBRATED_SMALLEST = 11

#: The coverage a nominal 95 % interval should reach, low and high (issue of record: 93–97 %).
TARGET = (0.93, 0.97)


def coverage(metric: str, quantity: str) -> tuple[float, float] | None:
    """The lowest and highest coverage measured for ``(metric, quantity)``'s default interval over the
    calibration scenarios, or ``None`` where the suite does not calibrate it."""
    return COVERAGE.get((metric, quantity))


def note(metric: str, quantity: str) -> str:
    """The note of ``(metric, quantity)``'s interval: its measured coverage when that leaves
    :data:`TARGET` in some scenario, else ``""``.

    Returns
    -------
    str
        E.g. ``"in simulation (sets sized like the French occupation query) this 95% interval held
        the true value in 96.8-98.3% of data sets (above 97% in some: conservative, wider than it
        needs to be; docs: calibration)"``.
    """
    measured = coverage(metric, quantity)
    if measured is None:
        return ""
    low, high = measured
    said = _said(low, high)
    if not said:
        return ""
    return (f"in simulation (sets sized like the French occupation query) this 95% interval held the true value "
            f"in {100 * low:.1f}-{100 * high:.1f}% of data sets ({'; '.join(said)}; docs: calibration)")


def notes(metric: str) -> dict[str, str]:
    """Every note of ``metric``'s calibrated quantities (:func:`note`), by quantity; what a metric
    declares as :attr:`~geobias.metrics.declaration.Metric.notes`.

    >>> sorted(notes("mweat")) == sorted(q for (m, q) in COVERAGE if m == "mweat" and note(m, q))
    True
    """
    return {q: text for (m, q) in COVERAGE if m == metric and (text := note(m, q))}


def _said(low: float, high: float) -> list[str]:
    said = []
    if low < TARGET[0]:
        said.append("below 93% in some: read its bounds as approximate")
    if high > TARGET[1]:
        said.append("above 97% in some: conservative, wider than it needs to be")
    return said


def small_set_note(metric: str, quantity: str, smallest: int) -> str:
    """The note of an interval whose smallest resampled set has ``smallest`` words (or pairs), fewer
    than the French query's: what the run with 8 per set measured where it leaves :data:`TARGET`,
    and below 8 that nothing measured it. ``""`` from :data:`CALIBRATED_SMALLEST` words up, for a
    quantity the suite does not calibrate, and for 8 to 10 words where the 8-word run is in target.

    Parameters
    ----------
    metric, quantity : str
        A calibrated interval (:data:`COVERAGE`'s keys).
    smallest : int
        The fewest words (or pairs) in any set the bootstrap resampled.

    Returns
    -------
    str

    Examples
    --------
    >>> small_set_note("weat", "effect_size", 27)
    ''
    >>> "fewer than any calibrated" in small_set_note("weat", "effect_size", 4)
    True
    """
    if smallest >= CALIBRATED_SMALLEST or coverage(metric, quantity) is None:
        return ""
    size = SMALL_RUN["pairs"]
    measured = SMALL_COVERAGE.get((metric, quantity))
    said = _said(*measured) if measured is not None else []
    at = (f"with {size} words (or pairs) per set this 95% interval held the true value in "
          f"{100 * measured[0]:.1f}-{100 * measured[1]:.1f}% of simulated data sets") if measured else ""
    if smallest >= size:
        if not said:
            return ""
        return f"its smallest resampled set has {smallest} words or pairs: {at} ({'; '.join(said)}; docs: calibration)"
    text = (f"its smallest resampled set has {smallest} words or pairs, fewer than any calibrated ({size}): its "
            "coverage is not measured, and a bootstrap over fewer words covers less")
    return text + (f"; {at}" if at else "") + f" ({'; '.join([*said, 'docs: calibration'])})"

