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

from geobias.metrics._coverage_measured import COVERAGE, RUN

__all__ = ["COVERAGE", "RUN", "TARGET", "coverage", "note", "notes"]

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
    said = []
    if low < TARGET[0]:
        said.append("below 93% in some: read its bounds as approximate")
    if high > TARGET[1]:
        said.append("above 97% in some: conservative, wider than it needs to be")
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
