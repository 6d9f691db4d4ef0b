"""Calibration of CrowS-Pairs' and StereoSet's intervals and tests of "no preference" on simulated
choices with a known truth.

A model's choice between a more and a less stereotypical sentence is simulated directly (the
scores themselves do not matter, only which one is higher), so the figures are exactly those the
two commands compute from the same choices (:func:`geobias.stats.preference.sign_test`, which
:func:`geobias.contextual.crows_pairs.score_pairs` calls, and
:func:`geobias.stats.preference.clustered_test`, which :func:`geobias.contextual.stereoset.ss_inference`
calls on each target term's percentages):

- **CrowS-Pairs** (:data:`CROWS_SCENARIOS`): ``n_pairs`` independent pairs (default 262, the number
  of gender pairs in the published CSV), each neutral with probability ``ties`` and otherwise
  preferring ``sent_more`` with probability ``share``. Truth: ``100 · share``, the quantity of
  :attr:`~geobias.stats.preference.PreferenceTest.share`. Figures: its Clopper–Pearson interval's
  coverage and the sign test's rejection rate at 5 %.
- **StereoSet** (:data:`STEREOSET_SCENARIOS`): ``n_terms`` target terms (default 40) with 3 to 10
  examples each (uniform), each example a tie with probability ``ties`` (2 %) and otherwise for the
  stereotype with the term's probability ``p_t = clip(mean + spread · z, 0.02, 0.98)``, ``z`` standard
  normal: ``spread`` 0 makes every example a fair coin under no preference; a ``spread`` above 0
  makes the terms lean both ways alike. Truth: SS's expectation over terms and examples,
  ``100 (1 − ties) E[p_t]`` (``E[p_t]``, a censored normal's mean, in closed form), for the
  interval; the test's null is ``E[p_t] = 1/2``. Each example also makes its two comparisons with the unrelated word, each won by
  the related word with the term's probability ``r_t = clip(related + related_spread · z', 0.02,
  0.98)``. Truths: LMS ``100 E[r_t]`` and ICAT ``LMS · min(SS, 100 − SS) / 50`` of the two truths.
  Figures: SS's interval's coverage (the expanded percentile interval, as the command reads it),
  the sign-flip test's rejection rate at 5 %, and the coverage of LMS's interval and of ICAT's
  (:func:`geobias.stats.preference.lms_icat_intervals`). The scenario without ties puts SS's truth
  at exactly 50, ICAT's peak, where a bootstrap of ICAT itself would fail.

Targets, as for the embedding metrics (:mod:`geobias.evaluation.calibration`): coverage 93–97 %, a
false-positive rate at most 5.5 % for a nominal 5 %. The Clopper–Pearson interval and the sign test
are exact, so their coverage is at least 95 % and their false-positive rate at most 5 % by
construction; the simulation checks the code, and measures the StereoSet intervals, which are not
exact (ICAT's, at least 95 % by construction, is expected "conservative").

References
----------
Clopper & Pearson (1934), Biometrika 26(4). Efron & Tibshirani (1993), *An Introduction to the
Bootstrap*, §13. Nangia et al. (2020), EMNLP (CrowS-Pairs). Nadeem et al. (2021), ACL (StereoSet).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from geobias._progress import ProgressArg, loop_bar
from geobias.errors import ParameterError
from geobias.results import Result

__all__ = ["CROWS_SCENARIOS", "FIGURES", "STEREOSET_SCENARIOS", "ChoiceScenario", "PreferenceCalibrationRow",
           "calibrate_preference"]


@dataclass(frozen=True)
class ChoiceScenario:
    """One simulated world of pairwise choices (see the module docstring)."""

    name: str
    share: float  # the untied choices' probability for the stereotype (StereoSet: the terms' mean)
    spread: float = 0.0  # StereoSet: the terms' standard deviation about ``share`` (before clipping)
    ties: float = 0.0
    related: float = 0.85  # StereoSet: the terms' mean probability that a related word beats the unrelated one
    related_spread: float = 0.08  # StereoSet: the terms' standard deviation about ``related`` (before clipping)

    @property
    def null(self) -> bool:
        """Whether "no preference" holds (the share, or the terms' mean, is 1/2)."""
        return self.share == 0.5


CROWS_SCENARIOS: dict[str, ChoiceScenario] = {s.name: s for s in (
    ChoiceScenario("no preference", 0.5, ties=0.03),
    ChoiceScenario("preference 0.6", 0.6, ties=0.03),
)}

STEREOSET_SCENARIOS: dict[str, ChoiceScenario] = {s.name: s for s in (
    ChoiceScenario("no preference, each example a coin", 0.5, 0.0, ties=0.02),
    ChoiceScenario("no preference, terms lean both ways", 0.5, 0.15, ties=0.02),
    ChoiceScenario("preference 0.6, terms vary", 0.6, 0.15, ties=0.02),
    ChoiceScenario("no preference, no ties (SS at ICAT's peak)", 0.5, 0.15),
)}


@dataclass(frozen=True)
class PreferenceCalibrationRow(Result):
    """One figure's calibration in one scenario.

    Attributes
    ----------
    study : {"CrowS-Pairs", "StereoSet"}
    scenario : str
    kind : {"interval", "test"}
        For an interval the rate is its coverage of ``truth``; for a test, its rejection rate at 5 %.
        (StereoSet's LMS and ICAT intervals: ``null_holds`` says whether SS's null holds.)
    figure : str
        What was calibrated (:data:`FIGURES`).
    truth : float or None
        The true value the interval should hold; ``None`` for a test.
    rate : float
        Coverage or rejection rate over the data sets.
    standard_error : float
        Binomial ``sqrt(rate (1 − rate) / n)``.
    n_datasets : int
    null_holds : bool
        Whether "no preference" holds (a test's rejection rate is then its false-positive rate).
    verdict : str
        Against the targets, as :func:`geobias.evaluation.calibration.verdict` says.
    """

    study: str
    scenario: str
    kind: str
    figure: str
    truth: float | None
    rate: float
    standard_error: float
    n_datasets: int
    null_holds: bool
    verdict: str


#: What each study's intervals and test are: ``(kind, figure)`` per row, in the order calibrated.
FIGURES = {
    "CrowS-Pairs": (("interval", "Clopper–Pearson 95 % interval of the untied share"),
                    ("test", "exact sign test of 50 %")),
    "StereoSet": (("interval", "expanded percentile 95 % interval of SS over the target terms"),
                  ("test", "sign-flip test over the target terms"),
                  ("interval", "expanded percentile 95 % interval of LMS over the target terms"),
                  ("interval", "ICAT's interval (LMS's and SS's 97.5 % intervals projected)")),
}


def _crows(scenario: ChoiceScenario, rng: np.random.Generator, n_pairs: int) -> tuple[bool, ...]:
    from geobias.stats.preference import sign_test

    tied = rng.random(n_pairs) < scenario.ties
    won = ~tied & (rng.random(n_pairs) < scenario.share)
    t = sign_test(int(won.sum()), int((~tied).sum() - won.sum()), int(tied.sum()))
    truth = 100.0 * scenario.share
    covered = t.share_ci is not None and t.share_ci[0] <= truth <= t.share_ci[1]
    return covered, t.p_value is not None and t.p_value < 0.05


def _clipped(mean: float, spread: float, rng: np.random.Generator, n: int) -> np.ndarray:
    return np.clip(mean + spread * rng.standard_normal(n), 0.02, 0.98)


def _clipped_mean(mean: float, spread: float, low: float = 0.02, high: float = 0.98) -> float:
    """``E[clip(mean + spread · Z, low, high)]``, Z standard normal, in closed form (a censored normal's
    mean: 0.5 exactly where the clipping is symmetric about 0.5, which 10^6 draws were not).

    >>> _clipped_mean(0.5, 0.15), round(_clipped_mean(0.9, 0.1), 6), _clipped_mean(0.6, 0.0)
    (0.5, 0.887979, 0.6)
    """
    from scipy.stats import norm

    if spread == 0.0:
        return float(np.clip(mean, low, high))
    a, b = (low - mean) / spread, (high - mean) / spread
    inside = mean * (norm.cdf(b) - norm.cdf(a)) + spread * (norm.pdf(a) - norm.pdf(b))
    return float(low * norm.cdf(a) + high * norm.sf(b) + inside)


def _stereoset_truth(scenario: ChoiceScenario) -> list[float | None]:
    """The truths of the StereoSet rows, in :data:`FIGURES`' order (``None`` for the test)."""
    ss = 100.0 * (1.0 - scenario.ties) * _clipped_mean(scenario.share, scenario.spread)
    lms = 100.0 * _clipped_mean(scenario.related, scenario.related_spread)
    return [ss, None, lms, lms * min(ss, 100.0 - ss) / 50.0]


def _covers(interval: list, truth: float) -> bool:
    return interval[0] is not None and interval[0] <= truth <= interval[1]


def _stereoset(scenario: ChoiceScenario, rng: np.random.Generator, n_terms: int, truth: list, *,
               n_permutations: int, n_resamples: int, seed: int) -> tuple[bool, ...]:
    from geobias.stats.preference import clustered_test, lms_icat_intervals

    examples = rng.integers(3, 11, size=n_terms)
    tied = rng.binomial(examples, scenario.ties)
    pro = rng.binomial(examples - tied, _clipped(scenario.share, scenario.spread, rng, n_terms))
    related = rng.binomial(2 * examples, _clipped(scenario.related, scenario.related_spread, rng, n_terms))
    got = clustered_test(100.0 * pro / examples, 100.0 * (examples - tied - pro) / examples, 100.0 * tied / examples,
                         n_permutations=n_permutations, n_resamples=n_resamples, seed=seed)
    more = lms_icat_intervals(100.0 * related / (2 * examples), 100.0 * pro / examples, n_resamples=n_resamples,
                              seed=seed)
    return (_covers(got.interval, truth[0]), got.p_value < 0.05, _covers(more["lms_ci"], truth[2]),
            _covers(more["icat_ci"], truth[3]))


def calibrate_preference(*, n_datasets: int = 1000, n_pairs: int = 262, n_terms: int = 40,
                         n_permutations: int = 10_000, n_resamples: int = 1_000, seed: int = 0,
                         progress: ProgressArg = None) -> list[PreferenceCalibrationRow]:
    """Coverage and rejection rates of CrowS-Pairs' and StereoSet's default interval and test.

    Parameters
    ----------
    n_datasets : int, default 1000
        Simulated data sets per scenario.
    n_pairs : int, default 262
        CrowS-Pairs pairs per data set.
    n_terms : int, default 40
        StereoSet target terms per data set (3 to 10 examples each).
    n_permutations, n_resamples : int
        StereoSet's sign-flip draws and bootstrap resamples (the command's: 10,000 and 1,000).
    seed : int, default 0
        The simulation's seed (each data set's test and bootstrap use seed 0, as the command does).
    progress : Progress, bool or None
        A bar of the data sets done.

    Returns
    -------
    list of PreferenceCalibrationRow
        Per scenario, a row per figure of its study (:data:`FIGURES`).

    Raises
    ------
    ParameterError
        ``n_datasets``, ``n_pairs`` or ``n_terms`` below 1 (``n_terms`` below 2: no interval).

    Examples
    --------
    >>> rows = calibrate_preference(n_datasets=20, n_permutations=199, n_resamples=199)
    >>> sorted({r.study for r in rows}), len(rows)
    (['CrowS-Pairs', 'StereoSet'], 20)
    """
    from geobias.evaluation.calibration import verdict

    if n_datasets < 1 or n_pairs < 1 or n_terms < 2:
        raise ParameterError(f"need n_datasets ≥ 1, n_pairs ≥ 1 and n_terms ≥ 2; got {n_datasets}, {n_pairs}, {n_terms}")
    rng = np.random.default_rng(seed)
    out: list[PreferenceCalibrationRow] = []
    total = n_datasets * (len(CROWS_SCENARIOS) + len(STEREOSET_SCENARIOS))

    def rows(study: str, scenario: ChoiceScenario, truths: list, hits: np.ndarray) -> None:
        for (kind, figure), truth, rate in zip(FIGURES[study], truths, hits.mean(axis=0), strict=True):
            rate = float(rate)
            mark = verdict({"kind": kind, "rate": rate, "null_holds": scenario.null, "metric": study, "figure": figure})
            out.append(PreferenceCalibrationRow(
                study, scenario.name, kind, figure, truth, rate,
                float(np.sqrt(rate * (1.0 - rate) / n_datasets)), n_datasets, scenario.null, mark))

    with loop_bar(progress, total, "simulated data sets") as bar:
        for scenario in CROWS_SCENARIOS.values():
            hits = np.array([_crows(scenario, rng, n_pairs) for _ in range(n_datasets)])
            bar.update(n_datasets)
            rows("CrowS-Pairs", scenario, [100.0 * scenario.share, None], hits)
        for scenario in STEREOSET_SCENARIOS.values():
            truth = _stereoset_truth(scenario)
            hits = np.array([_stereoset(scenario, rng, n_terms, truth, n_permutations=n_permutations,
                                        n_resamples=n_resamples, seed=0) for _ in range(n_datasets)])
            bar.update(n_datasets)
            rows("StereoSet", scenario, truth, hits)
    return out
