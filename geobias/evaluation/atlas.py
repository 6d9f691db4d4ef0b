"""The bias atlas: one battery of static-vector measures per language of a source family.

A *family* is a set of registry sources named ``<family>-<lang>`` (``use-m3-es``, ``muse-fr``);
the atlas runs one *cell* per language of :data:`geobias.languages.LANGUAGES` that the family
covers. A cell loads the language's store and computes each column of :data:`METRICS`, every
column with **one definition in every language** (:data:`DEFINITIONS`, the report's legend). Where
a kind of language cannot have a quantity the cell says ``"not applicable"`` and why; where the
language lacks a word list, ``"not available"``; where the computation failed, ``"error"``.

Every figure that can be compared with something it would show by chance carries that **null**
beside it (:class:`NullComparison`, the metric's ``versus``): the null's value, the difference, a
95 % interval of the difference, a p-value against the null and, after the atlas has run, the
Benjamini–Hochberg adjusted ``q`` over every cell of the atlas (:func:`correct_atlas`). A cell
"differs from its null" when ``q < 0.05``:

* LDA accuracy of ``d_g`` against the **suffix baseline** (a logistic regression on the nouns' last
  letters, same nouns, same folds): the difference with the corrected resampled t interval over the
  folds (Nadeau & Bengio 2003);
* the explained variance of ``d_PCA`` against the same PCA on **random word pairs**;
* cos(d_PCA, d_g) against 0 and the neuter nouns' mean on ``d_g`` against the **masculine/feminine
  midpoint**;
* occupation lean on ``d_s`` against **person nouns that are not occupations** (the language's
  ``person_nouns.txt``/``person_pairs.tsv``) and against **nouns of the same frequency band**;
* the correlations with English against the **alignment control** (the same correlation on random
  directions shared by the two stores), never against 0; a language whose ``d_s`` is not comparable
  with the English direction (:data:`COMPARABLE_COSINE`) is flagged, and the correlation is also
  computed on one **shared direction** (both languages projected on the English ``d_PCA``);
* WEAT and MWEAT against their permutation nulls.

The intervals are **hierarchical**: they resample the seed words (the definitional pairs that
define ``d_PCA``/``d_s``, the attribute sets) together with the targets, each set with replacement
(:func:`geobias.stats.bootstrap.bootstrap`); each states the Monte Carlo error of its bounds
(:func:`geobias.stats.multiplicity.quantile_mc_error`). ``d_g`` is held fixed (thousands of nouns).

References
----------
Zhou, Shi, Zhao, Huang, Chen, Cotterell & Chang (2019), "Examining Gender Bias in Languages with
Grammatical Gender", EMNLP-IJCNLP (d_PCA, d_g, d_s, MWEAT eq. 1, Figure 4). Caliskan, Bryson &
Narayanan (2017), Science 356(6334) (WEAT). Antoniak & Mimno (2021), "Bad Seeds", ACL (why the
word sets' choice must be shown). Benjamini & Hochberg (1995), JRSS B 57(1) (the correction).
Nadeau & Bengio (2003), "Inference for the generalization error", Machine Learning 52(3) (the
corrected resampled t over CV folds).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from geobias.errors import GeobiasError, InputError
from geobias.query import WordQuery
from geobias.results import Result
from geobias.stats.bootstrap import BootstrapResult
from geobias.stats.multiplicity import DIFFERS, MC_CONFIDENCE, UNDECIDED

#: The WEAT tests of a cell, in report order.
WEAT_TESTS = ("career-family", "math-arts", "science-arts")

#: Every metric of a cell, in report order: ``(key, label, grammatical-gender-aware)``.
METRICS: tuple[tuple[str, str, bool], ...] = (
    ("d_pca_explained_variance", "d_PCA explained variance", False),
    ("lda_cv_accuracy", "LDA CV accuracy (d_g)", True),
    ("cos_dpca_dg", "cos(d_PCA, d_g)", True),
    ("neuter_on_dg", "neuter nouns on d_g (mean)", True),
    *((f"weat_{t.replace('-', '_')}", f"WEAT {t} effect size", False) for t in WEAT_TESTS),
    ("mweat", "MWEAT signed, |Σ_X s| − |Σ_Y s|", True),
    ("mweat_effect_size", "MWEAT effect size", True),
    ("occupation_bias", "occupation lean on d_s (mean centred b)", True),
    ("cos_ds_en", "cos(d_s, English d_PCA)", True),
    ("corr_en_pearson", "corr. with English, Pearson", True),
    ("corr_en_spearman", "corr. with English, Spearman", True),
    ("corr_en_shared_spearman", "corr. with English on the English direction, Spearman", False),
    ("corr_en_control", "control: Spearman on random directions", False),
    ("corr_en_fig4_spearman", "Figure 4 Spearman (WEAT en vs MWEAT)", True),
)
METRIC_KEYS = ("status", "value", "p_value", "n", "reason", "interval", "set_sizes", "baselines", "details",
               "versus")

OK, NOT_AVAILABLE, NOT_APPLICABLE, ERROR = "ok", "not available", "not applicable", "error"

#: Significance level of the atlas, applied to the Benjamini–Hochberg adjusted p-values.
ALPHA = 0.05
#: A language whose cos(d_s, English d_PCA) is below this is flagged "not comparable": its gender
#: direction is another quantity than English's, and its correlation with English is read on the
#: shared direction instead. Measured on use-m3 (reproductions/atlas.json): ar 0.30, the other
#: fourteen languages 0.75 (tr) to 0.92; two random 512-d directions have |cos| ≈ 0.04.
COMPARABLE_COSINE = 0.5
#: Random directions of the alignment control (its mean, and the rank of the gender direction's ρ).
CONTROL_DIRECTIONS = 2000
#: Random directions per bootstrap resample (the control inside the excess's interval).
CONTROL_DIRECTIONS_PER_RESAMPLE = 20
#: Nouns of the same frequency band per occupation (the nearest store ranks, :func:`frequency_matched`).
MATCHED_PER_OCCUPATION = 5
#: Random word-pair sets for the explained variance's null.
RANDOM_PAIR_SETS = 200

#: How each column reads on a colour scale, as ``(scale, null)``: the colour is the column's
#: difference from its null on a diverging scale centred on that null, one range per *scale*
#: shared by the columns that measure the same quantity; ``"neutral"`` columns (controls,
#: diagnostics, a statistic without a signed difference) are drawn in grey.
SCALES: dict[str, str] = {
    "d_pca_explained_variance": "variance share", "lda_cv_accuracy": "accuracy", "cos_dpca_dg": "cosine",
    "neuter_on_dg": "projection", **{f"weat_{t.replace('-', '_')}": "effect size" for t in WEAT_TESTS},
    "mweat": "MWEAT statistic", "mweat_effect_size": "effect size", "occupation_bias": "projection",
    "cos_ds_en": "neutral", "corr_en_pearson": "correlation", "corr_en_spearman": "correlation",
    "corr_en_shared_spearman": "correlation", "corr_en_control": "neutral", "corr_en_fig4_spearman": "correlation",
}

#: The fixed half-range of a scale, where the quantity has one (else the largest |difference| of its columns).
SCALE_RANGES: dict[str, float] = {"effect size": 2.0, "correlation": 1.0, "cosine": 1.0, "accuracy": 0.5}

#: The one definition of each column, the same in every language (the report's legend).
DEFINITIONS: dict[str, str] = {
    "d_pca_explained_variance": "Share of the variance of the pair-centred definitional pairs on their first "
                                "principal component d_PCA (Zhou et al. §3). Null: the same share for as many "
                                f"random word pairs of the store (mean over {RANDOM_PAIR_SETS} draws).",
    "lda_cv_accuracy": "5-fold stratified CV accuracy of the LDA that separates the language's two noun classes "
                       "(masculine/feminine; Dutch: common/neuter) on balanced inanimate noun lists; d_g is its "
                       "direction. Null: a logistic regression on the nouns' last 1–3 letters (the suffix "
                       "baseline) on the same nouns and folds; the difference has the corrected resampled t "
                       "interval and p over the folds (Nadeau & Bengio 2003). Chance (majority class) is shown too.",
    "cos_dpca_dg": "Cosine of d_PCA and d_g. Null: 0 (two unrelated directions); the interval resamples the "
                   "definitional pairs.",
    "neuter_on_dg": "Mean projection of the neuter nouns on the masculine–feminine d_g (masculine positive); "
                    "applies to languages with masculine, feminine and neuter nouns. Null: the midpoint of the "
                    "masculine and feminine nouns' means on d_g (the axis is read from there, not from 0).",
    **{f"weat_{t.replace('-', '_')}": f"WEAT {t}: Caliskan et al.'s effect size (ddof 1) with its one-sided "
                                      "permutation p; null: no association (0). The interval resamples targets "
                                      "and attribute sets." for t in WEAT_TESTS},
    "mweat": "|Σ_x s(x)| − |Σ_y s(y)| over the two-form occupations (X masculine, Y feminine forms): Zhou et al.'s "
             "eq. 1 before its outer absolute value (eq. 1 is its size, in details), so that its interval can hold "
             "0; > 0 the masculine forms lean to the male words more than the feminine ones to the female words. "
             "Its p is eq. 1's one-sided permutation p (the signed figure's two-sided p); applies to languages "
             "with grammatical gender. Null: 0 (no association); the interval resamples the pairs and A, B.",
    "mweat_effect_size": "Ours: Caliskan's effect size on the MWEAT sets, with the p of Σ_x s − Σ_y s; null 0.",
    "occupation_bias": "Occupation lean: mean over the occupations of b, the projection of the occupation's form "
                       "midpoint (w_m + w_f)/2 on the semantic direction d_s minus the mean projection of the "
                       "store's whole vocabulary (masculine positive); d_s is d_PCA with d_g projected out where "
                       "the language has a d_g, d_PCA otherwise. Null: the same lean of the language's person "
                       "nouns that are not occupations (person_nouns.txt, person_pairs.tsv), so the cell says how "
                       f"much more occupations lean than person nouns in general; also shown: {MATCHED_PER_OCCUPATION} "
                       "nouns of the same frequency band per occupation (the null where a language has no person "
                       "nouns). The interval resamples the definitional pairs with the occupations and the nulls.",
    "cos_ds_en": "Cosine of the language's d_s with the English d_PCA (one store space). Below "
                 f"{COMPARABLE_COSINE} the language's gender direction is not comparable with English's: its "
                 "'corr. with English' compares different quantities, read the shared-direction column.",
    "corr_en_pearson": "Pearson r over the occupations that share an English translation, of the occupation's "
                       "b against <E, d_PCA(en)> of its translation in the family's English store. Null: the "
                       "alignment control (the same r on random directions); the value beside it is r minus "
                       "the control, with its interval and p.",
    "corr_en_spearman": "Spearman ρ of the same pairs. Null: the alignment control (corr. with English, control); "
                        "the difference is ρ's excess over the control, with its p against the control, not 0.",
    "corr_en_shared_spearman": "Spearman ρ with both languages projected on one shared direction, the English "
                               "d_PCA (like is compared with like, whatever the language's own direction). "
                               "Null: the alignment control.",
    "corr_en_control": f"The same Spearman ρ on random directions instead of the gender directions (mean over "
                       f"{CONTROL_DIRECTIONS:,} random unit vectors shared by both stores; needs stores of one "
                       "dimension): how much of a correlation comes from the encoder putting translations "
                       "together, whatever the direction. The null of the correlations with English.",
    "corr_en_fig4_spearman": "Zhou et al.'s Figure 4: Spearman ρ of s(E, A_en, B_en) against |s(w_m, A, B)| − "
                             "|s(w_f, A, B)| over the two-form occupations; applies to languages with grammatical "
                             "gender (with one form the difference is 0). Null: 0; the interval resamples the "
                             "occupations and both languages' attribute sets.",
}


def family_sources(family: str) -> dict[str, str]:
    """``{language code: registry name}`` of every language of ``geobias.languages.LANGUAGES``
    that the family ``family`` covers (a source named ``<family>-<code>``), in that order."""
    from geobias.languages import LANGUAGES
    from geobias.sources import SOURCES

    return {code: f"{family}-{code}" for code in LANGUAGES if f"{family}-{code}" in SOURCES}


def _float(v: Any) -> float | None:
    return None if v is None or not np.isfinite(v) else float(v)


@dataclass(frozen=True)
class NullComparison(Result):
    """A figure against what it would show by chance (its null).

    Attributes
    ----------
    null : str
        What the figure is compared with, one line ("person nouns (31)", "alignment control").
    null_value : float or None
        The null's value in the figure's units (``None`` where the null is a permutation distribution).
    difference : float or None
        Figure − null (``None`` as ``null_value``).
    low, high : float or None
        95 % interval of the difference (``None`` without one).
    p_value : float or None
        Two-sided p against the null (the permutation p of WEAT and MWEAT, one-sided as published).
    q_value : float or None
        Benjamini–Hochberg adjusted p over every cell of the atlas (:func:`correct_atlas`).
    mc_error : float or None
        Monte Carlo standard error of the interval's bounds.
    n_resamples : int or None
    method : str
        How the interval and p were obtained.
    p_interval : (float, float) or None
        Where the p of infinitely many draws lies (Clopper–Pearson at
        :data:`~geobias.stats.multiplicity.MC_CONFIDENCE` on the draws in its tail, widened by any
        randomness the draws share): another seed's p falls in it. ``None`` where the p is not a
        Monte Carlo estimate (an exact permutation test, the LDA's corrected resampled t).
    verdict : {"differs", "does not differ", "undecided"} or None
        Set by :func:`correct_atlas`: "differs" when Benjamini–Hochberg over the atlas is below
        :data:`ALPHA` at every p in the intervals, "does not differ" when at none, else "undecided"
        (the draws of this run cannot settle it; more ``--bootstrap``/``--permutations`` may).
    """

    null: str
    null_value: float | None
    difference: float | None
    low: float | None
    high: float | None
    p_value: float | None
    q_value: float | None = None
    mc_error: float | None = None
    n_resamples: int | None = None
    method: str = ""
    p_interval: tuple[float, float] | None = None
    verdict: str | None = None

    @property
    def significant(self) -> bool | None:
        """The :attr:`verdict` after the correction (``None`` when undecided); before it ``p < ALPHA``;
        ``None`` without a p."""
        if self.verdict is not None:
            return None if self.verdict == UNDECIDED else self.verdict == DIFFERS
        p = self.q_value if self.q_value is not None else self.p_value
        return None if p is None else bool(p < ALPHA)

    @property
    def undecided(self) -> bool:
        """Whether the run's draws left the verdict open (:attr:`verdict` is "undecided")."""
        return self.verdict == UNDECIDED

    @property
    def stable(self) -> bool | None:
        """Whether the interval's bound nearest 0 lies more than 3 Monte Carlo errors from 0 (so
        another resampling seed keeps the interval's verdict); ``None`` without both."""
        if self.low is None or self.high is None or self.mc_error is None:
            return None
        return bool(min(abs(self.low), abs(self.high)) > 3 * self.mc_error)


@dataclass(frozen=True)
class Metric(Result):
    """One figure of one language.

    Attributes
    ----------
    status : {"ok", "not available", "not applicable", "error"}
    value : float or None
    p_value : float or None
        The figure's own test (the permutation p of WEAT and MWEAT, the correlation's p against 0).
        Significance is decided by :attr:`versus`, against the column's null.
    n : int or None
        Items the figure rests on (words, pairs, occupations, nouns).
    reason : str or None
        Why the figure is missing (one line), for every status but ``"ok"``.
    interval : BootstrapResult or None
        The bootstrap of the figure itself (:func:`geobias.stats.bootstrap.bootstrap`): percentile
        interval, standard error, resamples, seed, set sizes.
    set_sizes : dict of str to int, or None
        Words per set the figure used (after the store's vocabulary).
    baselines : dict of str to float, or None
        LDA accuracy: ``majority`` (chance), ``orthographic`` (the suffix baseline).
    details : dict
        Everything else (folds, sums, missing words, the other null).
    versus : NullComparison or None
        The figure against its null; ``None`` for a column without one (a control, a diagnostic).
    """

    status: str = OK
    value: float | None = None
    p_value: float | None = None
    n: int | None = None
    reason: str | None = None
    interval: BootstrapResult | None = None
    set_sizes: dict[str, int] | None = None
    baselines: dict[str, float] | None = None
    details: dict = field(default_factory=dict)
    versus: NullComparison | None = None

    @property
    def significant(self) -> bool | None:
        """Whether the figure differs from its null after the atlas's correction (:attr:`versus`);
        ``None`` for a missing figure or a column without a null."""
        if self.status != OK or self.versus is None:
            return None
        return self.versus.significant


def _missing(status: str, reason: str) -> Metric:
    return Metric(status=status, reason=reason)


@dataclass(frozen=True)
class ListRecord(Result):
    """A word list a cell read: ``status`` ``"used"`` or ``"not available"``, its distinct words and
    those the store lacks."""

    status: str
    reason: str | None
    words: int
    missing: list[str]


@dataclass(frozen=True)
class OccupationRow(Result):
    """One occupation of a cell: its forms, its centred bias ``b`` and its projections (``x_*`` on
    d_PCA, ``y_*`` on d_g; ``None`` without d_g)."""

    english: str
    masculine: str
    feminine: str
    two_form: bool
    bias: float
    x_m: float
    x_f: float
    y_m: float | None
    y_f: float | None


@dataclass(frozen=True)
class LanguageCell(Result):
    """One language of the atlas.

    Attributes
    ----------
    lang, language : str
    grammatical_gender : bool
    genders : list of str
        Its noun genders (empty without grammatical gender).
    store : str
    status : {"ok", "error"}
    error : str or None
    shape : list of int or None
        ``[words, dim]`` of its store.
    lists : dict of str to ListRecord
    metrics : dict of str to Metric
        One per :data:`METRICS` key, in that order.
    occupations : list of OccupationRow
    occupation_bias_method : str or None
    vocabulary_offset : float or None
        Mean projection of the store's vocabulary (unit rows) on d_s, subtracted from every
        occupation's projection.
    comparable : bool or None
        Whether cos(d_s, English d_PCA) reaches :data:`COMPARABLE_COSINE` (``None`` for English or
        without the figure).
    """

    lang: str
    language: str
    grammatical_gender: bool
    genders: list[str]
    store: str
    status: str
    error: str | None = None
    shape: list[int] | None = None
    lists: dict[str, ListRecord] = field(default_factory=dict)
    metrics: dict[str, Metric] = field(default_factory=dict)
    occupations: list[OccupationRow] = field(default_factory=list)
    occupation_bias_method: str | None = None
    vocabulary_offset: float | None = None
    comparable: bool | None = None

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LanguageCell:
        """The cell from its JSON form (the nested dicts of results revived)."""
        data = dict(data)
        data["lists"] = {k: ListRecord.from_dict(v) for k, v in (data.get("lists") or {}).items()}
        data["metrics"] = {k: Metric.from_dict(v) for k, v in (data.get("metrics") or {}).items()}
        data["occupations"] = [OccupationRow.from_dict(r) for r in data.get("occupations") or []]
        fields = {f for f in cls.__dataclass_fields__}
        return cls(**{k: v for k, v in data.items() if k in fields})

    def metric(self, key: str) -> Metric:
        """The cell's figure ``key`` (an ``"error"`` metric for a failed cell)."""
        if self.status != OK:
            return Metric(status=ERROR, reason=self.error)
        return self.metrics[key]


@dataclass(frozen=True)
class AtlasResult(Result):
    """The atlas of one source family: one cell per language.

    Attributes
    ----------
    family : str
    engine : dict
        What ran the cells.
    options : dict
        ``permutations``, ``bootstrap`` (resamples), ``seed``, ``max_per_class``,
        ``lost_vocabulary_threshold`` (the same for every cell).
    cells : list of LanguageCell
        In language order.
    n_ok, n_failed : int
    definitions : dict of str to str
        :data:`DEFINITIONS`: what each column is.
    correction : dict
        The multiplicity correction (:func:`correct_atlas`): ``method``, ``alpha``, ``tests`` (cells
        with a p against their null), ``significant`` (cells whose verdict is "differs": ``q < alpha``
        at every p within the p-values' Monte Carlo ranges), ``undecided`` (``"lang:column"`` of the
        cells this run's draws leave open), ``q_below_alpha`` (cells with ``q < alpha`` at the p
        itself), ``monte_carlo_confidence``,
        ``bounds_within_3_mc_errors_of_0`` (``"lang:column"`` of the intervals whose verdict another
        resampling seed could change).
    rows : list of dict
        Read-only, in the JSON form too: one per language × metric (see the property).
    """

    family: str
    engine: dict
    options: dict
    cells: list[LanguageCell]
    n_ok: int
    n_failed: int
    definitions: dict[str, str] = field(default_factory=lambda: dict(DEFINITIONS))
    correction: dict = field(default_factory=dict)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> AtlasResult:
        return cls(family=data["family"], engine=data["engine"], options=data["options"],
                   cells=[LanguageCell.from_dict(c) for c in data["cells"]], n_ok=data["n_ok"],
                   n_failed=data["n_failed"], definitions=data.get("definitions") or dict(DEFINITIONS),
                   correction=data.get("correction") or {})

    #: The JSON form: the fields, then ``rows`` (the tidy rows that ``--csv`` and ``--parquet`` write,
    #: one per language × metric).
    _json_keys: ClassVar[tuple[str, ...]] = ("family", "engine", "options", "cells", "n_ok", "n_failed",
                                            "definitions", "correction", "rows")

    def tidy_rows(self) -> list[dict[str, Any]]:
        """The tidy form (``--csv``, ``--parquet``, ``to_frame()``): :attr:`rows`."""
        return self.rows

    @property
    def rows(self) -> list[dict[str, Any]]:
        """One row per language × metric (the Parquet table): ``lang``, ``language``, ``store`` (the
        cell's vector store), ``metric``,
        ``label``, ``grammatical_gender_aware``, ``status``, ``value``, ``p_value``, ``n``, ``reason``,
        ``low``, ``high``, ``standard_error`` (the figure's bootstrap interval), ``baseline_majority``,
        ``baseline_orthographic``, and the null beside the figure (:class:`NullComparison`): ``null``,
        ``null_value``, ``difference``, ``difference_low``, ``difference_high``, ``p_null``,
        ``q_value`` (Benjamini–Hochberg over the atlas), ``mc_error``, ``significant`` (``None`` when
        undecided), ``verdict`` ("differs", "does not differ", "undecided")."""
        out = []
        for cell in self.cells:
            for key, label, aware in METRICS:
                m = cell.metric(key)
                iv, base, vs = m.interval, m.baselines or {}, m.versus
                out.append({"lang": cell.lang, "language": cell.language, "store": cell.store, "metric": key, "label": label,
                            "grammatical_gender_aware": aware, "status": m.status, "value": _float(m.value),
                            "p_value": _float(m.p_value), "n": m.n, "reason": m.reason,
                            "low": None if iv is None else iv.low, "high": None if iv is None else iv.high,
                            "standard_error": None if iv is None else iv.standard_error,
                            "baseline_majority": base.get("majority"),
                            "baseline_orthographic": base.get("orthographic"),
                            "null": None if vs is None else vs.null,
                            "null_value": None if vs is None else _float(vs.null_value),
                            "difference": None if vs is None else _float(vs.difference),
                            "difference_low": None if vs is None else _float(vs.low),
                            "difference_high": None if vs is None else _float(vs.high),
                            "p_null": None if vs is None else _float(vs.p_value),
                            "q_value": None if vs is None else _float(vs.q_value),
                            "mc_error": None if vs is None else _float(vs.mc_error),
                            "significant": m.significant,
                            "verdict": None if vs is None or m.status != OK else vs.verdict})
        return out


def plan_atlas(family: str, langs: list[str] | None, options: dict[str, Any]) -> list[dict]:
    """The cells of an atlas run: one per language (``langs``, default every language of the family).

    Raises
    ------
    InputError
        The family covers none of ``langs`` (the message names the ones it covers).
    """
    from geobias.languages import get_language

    sources = family_sources(family)
    if langs is None:
        codes = list(sources)
    else:
        codes = [get_language(c).code for c in langs]
        outside = [c for c in codes if c not in sources]
        if outside:
            raise InputError(f"the {family} family has no source for {', '.join(outside)}; it covers "
                             f"{', '.join(sources) or 'no language'}")
    if not codes:
        raise InputError(f"the {family} family covers no language")
    en = sources.get("en")
    return [{"lang": c, "store": sources[c], "en_store": en, "options": dict(options)} for c in codes]


# --------------------------------------------------------------------------------------- one cell
def _error_line(exc: BaseException) -> str:
    return " ".join(str(exc).split("\n")[0].split())[:300] or type(exc).__name__


class _Lists:
    """The word lists a cell reads, each recorded once (used or not available, and its missing words)."""

    def __init__(self, store, lang: str):
        self.store, self.lang, self.record = store, lang, {}

    def get(self, name: str, reader: Callable[[], Any], words: Callable[[Any], list[str]]) -> Any:
        """``reader()``, or ``None`` when the language has no such list (an :class:`InputError`)."""
        try:
            value = reader()
        except InputError as exc:
            self.record[name] = ListRecord(NOT_AVAILABLE, _error_line(exc), 0, [])
            return None
        flat = list(dict.fromkeys(words(value)))
        self.record[name] = ListRecord("used", None, len(flat), [w for w in flat if w not in self.store])
        return value

    def unavailable(self, name: str) -> str:
        return f"no {name} for {self.lang}"


def _neuter_nouns(lang: str) -> list[str]:
    """The language's grammatically neuter nouns (``wordlists.neuter_nouns``).

    Raises
    ------
    InputError
        The language has no neuter noun list.
    """
    from geobias import wordlists

    return list(wordlists.neuter_nouns(lang))


def _occupation_list(lang: str) -> list:
    """The language's occupations as ``TwoFormWord(feminine, masculine, english)``: its two-form list,
    else (a language without grammatical gender, when ``wordlists`` has ``single_occupations``) its
    single-form list with both forms equal.

    Raises
    ------
    InputError
        Neither list exists for the language.
    """
    from geobias import wordlists

    try:
        return wordlists.occupations(lang)
    except InputError:
        single = getattr(wordlists, "single_occupations", None)
        if single is None:
            raise
        try:
            return [wordlists.TwoFormWord(word, word, english) for word, english in single(lang)]
        except InputError:
            raise InputError(f"no occupation list (two-form or single-form) for {lang}") from None


def _has_gender(language, gender: str) -> bool | None:
    """Whether ``language`` has the grammatical ``gender``; ``None`` when the language record does
    not say (no ``genders`` attribute)."""
    genders = getattr(language, "genders", None)
    return None if genders is None else gender in genders


def _unit(store, words: list[str]) -> tuple[list[str], np.ndarray]:
    lk = store.lookup(words, oov="ignore", unit=True)
    return lk.words, lk.vectors.astype(np.float64)


def _project(store, words: list[str], direction: np.ndarray | None) -> dict[str, float]:
    if direction is None or not words:
        return {}
    found, vecs = _unit(store, words)
    return dict(zip(found, (vecs @ direction.astype(np.float64)).tolist(), strict=True))


def vocabulary_offset(store, direction: np.ndarray, *, chunk: int = 65_536) -> float:
    """Mean projection of the store's whole vocabulary (unit rows) on ``direction``.

    A language whose vocabulary sits off-centre on the direction (a script or a morphology the
    encoder places on one side) would otherwise show that offset as a bias of every word.

    Parameters
    ----------
    store : VectorStore
    direction : ndarray of shape (dim,)
    chunk : int, default 65,536
        Rows normalised at a time.

    Returns
    -------
    float

    Examples
    --------
    >>> from geobias.store import VectorStore
    >>> s = VectorStore(["a", "b"], np.array([[1.0, 1.0], [1.0, -1.0]], dtype=np.float32))
    >>> round(vocabulary_offset(s, np.array([1.0, 0.0])), 4)
    0.7071
    """
    d = np.asarray(direction, dtype=np.float64)
    vecs = store.vectors
    total, n = 0.0, 0
    for start in range(0, len(vecs), chunk):
        rows = np.asarray(vecs[start:start + chunk], dtype=np.float64)
        norms = np.linalg.norm(rows, axis=1)
        keep = norms > 0
        total += float((rows[keep] @ d / norms[keep]).sum())
        n += int(keep.sum())
    return total / n if n else 0.0


def vocabulary_mean(store, *, chunk: int = 65_536) -> np.ndarray:
    """Mean of the store's unit rows (zero rows left out): ``ndarray of shape (dim,)``, float64.

    ``vocabulary_mean(store) @ d`` is :func:`vocabulary_offset` for any direction ``d``.

    Examples
    --------
    >>> from geobias.store import VectorStore
    >>> s = VectorStore(["a", "b"], np.array([[1.0, 1.0], [1.0, -1.0]], dtype=np.float32))
    >>> np.round(vocabulary_mean(s), 4)
    array([0.7071, 0.    ])
    """
    vecs = store.vectors
    total, n = np.zeros(vecs.shape[1]), 0
    for start in range(0, len(vecs), chunk):
        rows = np.asarray(vecs[start:start + chunk], dtype=np.float64)
        norms = np.linalg.norm(rows, axis=1)
        keep = norms > 0
        total += (rows[keep] / norms[keep, None]).sum(axis=0)
        n += int(keep.sum())
    return total / n if n else total


def pair_deltas(store, pairs) -> tuple[list[tuple[str, str]], np.ndarray]:
    """The definitional pairs ``(f, m)`` found in ``store`` (both words, distinct) and their rows
    ``δ = unit(m) − unit(f)``: ``ndarray of shape (k, dim)``, float64."""
    kept = [(f, m) for f, m in pairs if f in store and m in store and f != m]
    if not kept:
        return [], np.zeros((0, store.vectors.shape[1]))
    f = store.lookup([p[0] for p in kept], unit=True).vectors.astype(np.float64)
    m = store.lookup([p[1] for p in kept], unit=True).vectors.astype(np.float64)
    return kept, m - f


def pc1_batch(deltas: np.ndarray, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """d_PCA and its explained-variance ratio for each resample of the definitional pairs.

    A pair (f, m) enters the pair-centred PCA as the rows ±δ/2, δ = m − f, so the first component
    is the top eigenvector of ``Σ_i c_i δ_i δ_iᵀ`` (``c_i``: how often the resample drew pair ``i``),
    found through the small ``k × k`` matrix ``C^½ D Dᵀ C^½`` for all resamples at once.

    Parameters
    ----------
    deltas : ndarray of shape (k, dim)
        :func:`pair_deltas`.
    idx : ndarray of int, shape (b, k)
        Resampled pair indices (the identity row ``arange(k)`` gives the fitted d_PCA).

    Returns
    -------
    directions : ndarray of shape (b, dim)
        Unit, oriented so that masculine projects positive (``Σ_i c_i <δ_i, d> > 0``).
    explained : ndarray of shape (b,)
        Explained-variance ratio of the first component.

    References
    ----------
    Zhou et al. (2019) §3 (d_PCA of the pair-centred definitional pairs); Bolukbasi et al. (2016) §5.

    Examples
    --------
    >>> d = np.array([[2.0, 0.1], [2.0, -0.1]])
    >>> dirs, ev = pc1_batch(d, np.arange(2)[None, :])
    >>> np.round(dirs, 3), np.round(ev, 3)
    (array([[1., 0.]]), array([0.998]))
    """
    from geobias.stats.bootstrap import index_counts

    counts = index_counts(idx, deltas.shape[0])
    root = np.sqrt(counts)
    gram = deltas @ deltas.T
    a = root[:, :, None] * gram[None, :, :] * root[:, None, :]
    w, v = np.linalg.eigh(a)
    u = v[:, :, -1] * root
    d = u @ deltas
    norm = np.linalg.norm(d, axis=1, keepdims=True)
    d = d / np.where(norm > 0, norm, 1.0)
    sign = np.sign(np.einsum("bd,bd->b", counts @ deltas, d))
    d *= np.where(sign == 0, 1.0, sign)[:, None]
    total = w.sum(axis=1)
    return d, np.where(total > 0, w[:, -1] / np.where(total > 0, total, 1.0), np.nan)


def semantic_batch(deltas: np.ndarray, idx: np.ndarray, d_g: np.ndarray | None) -> np.ndarray:
    """d_s for each resample of the pairs: :func:`pc1_batch`'s d_PCA with the fixed ``d_g`` projected
    out and renormalised (d_PCA itself without ``d_g``); ``ndarray of shape (b, dim)``."""
    d, _ = pc1_batch(deltas, idx)
    if d_g is None:
        return d
    g = np.asarray(d_g, dtype=np.float64)
    g = g / np.linalg.norm(g)
    d = d - (d @ g)[:, None] * g[None, :]
    norm = np.linalg.norm(d, axis=1, keepdims=True)
    return d / np.where(norm > 0, norm, 1.0)


class _Recorded:
    """A bootstrap statistic that keeps every resample's value (the first call, the identity, apart)."""

    def __init__(self, statistic):
        self.statistic, self.values, self.first = statistic, [], True

    def __call__(self, ix):
        out = np.asarray(self.statistic(ix), dtype=np.float64)
        if self.first:
            self.first = False
        else:
            self.values.append(out)
        return out

    def array(self) -> np.ndarray:
        return np.concatenate(self.values) if self.values else np.zeros(0)


def _hierarchical(statistic, sizes: dict[str, int], opts: dict, *, paired=()) -> tuple[BootstrapResult | None,
                                                                                    np.ndarray]:
    """:func:`geobias.stats.bootstrap.bootstrap` of ``statistic`` over every set in ``sizes`` (seed words
    and targets alike) and the resampled values; ``(None, empty)`` when the bootstrap is off or a set
    has fewer than 2 members."""
    from geobias.stats.bootstrap import bootstrap

    n = int(opts.get("bootstrap", 1000) or 0)
    if not n or min(sizes.values()) < 2:
        return None, np.zeros(0)
    rec = _Recorded(statistic)
    res = bootstrap(rec, sizes, paired=paired, n_resamples=n, seed=opts["seed"])
    return res, rec.array()


def _mc_z() -> float:
    """Standard normal quantile of :data:`MC_CONFIDENCE` (two-sided): ≈ 3.29 standard errors."""
    from statistics import NormalDist

    return NormalDist().inv_cdf(0.5 + MC_CONFIDENCE / 2)


def _versus(null: str, null_value: float | None, difference: float | None, values: np.ndarray, *,
            method: str, shared_sd: float = 0.0) -> NullComparison:
    """The figure against its null from the bootstrap ``values`` of the difference (percentile
    interval, two-sided bootstrap p, Monte Carlo error of the bounds, the p's Monte Carlo range).
    ``shared_sd``: standard deviation over seeds of an offset that every resample shares (a null
    drawn once per run), widening the p's range by :func:`_mc_z` of it."""
    from geobias.stats.multiplicity import (
        bootstrap_p_interval,
        bootstrap_p_value,
        quantile_mc_error,
    )

    finite = values[np.isfinite(values)] if values.size else values
    if finite.size < 2:
        return NullComparison(null, _float(null_value), _float(difference), None, None, None, method=method)
    low, high = (float(v) for v in np.quantile(finite, [0.025, 0.975]))
    return NullComparison(null, _float(null_value), _float(difference), low, high, bootstrap_p_value(finite),
                          mc_error=quantile_mc_error(finite), n_resamples=int(values.size), method=method,
                          p_interval=bootstrap_p_interval(finite, shift=_mc_z() * float(shared_sd)))


def _permutation_p_interval(p: float | None, n_permutations: int | None, exact: bool | None) -> tuple[float, float] | None:
    """The Monte Carlo range of a one-sided permutation p ``(1 + k) / (1 + B)``; ``None`` for an exact test."""
    from geobias.stats.multiplicity import monte_carlo_p_interval

    if p is None or exact or not n_permutations:
        return None
    k = min(n_permutations + 1, max(1, round(p * (n_permutations + 1))))
    return monte_carlo_p_interval(k, n_permutations + 1)


def _versus_interval(null: str, value: float | None, p: float | None, iv: BootstrapResult | None, *,
                     method: str, null_value: float | None = 0.0, n_permutations: int | None = None,
                     exact: bool | None = None) -> NullComparison:
    """A figure whose null is 0 and whose test is its own (a one-sided permutation p of
    ``n_permutations`` draws, or ``exact``): the difference is the figure, its interval the figure's
    bootstrap (Monte Carlo error: the larger of its bounds')."""
    low = high = mc = n = None
    if iv is not None and iv.low is not None:
        low, high, n = iv.low, iv.high, iv.n_resamples
        errors = [e for e in (iv.low_mcse, iv.high_mcse) if e is not None]
        mc = max(errors) if errors else None
    diff = None if null_value is None or value is None else value - null_value
    return NullComparison(null, null_value, _float(diff), low, high, _float(p), mc_error=mc, n_resamples=n,
                          method=method, p_interval=_permutation_p_interval(p, n_permutations, exact))


def frequency_matched(store, targets: list[list[str]], pool: list[str], exclude: set[str], *,
                      k: int = MATCHED_PER_OCCUPATION) -> np.ndarray:
    """For each target (one or two word forms), the ``k`` words of ``pool`` nearest to it in store
    rank (the row order: frequency order for the registry's stores), none of ``exclude``.

    Parameters
    ----------
    store : VectorStore
    targets : list of list of str
        Each target's forms; its rank is the lowest row of its forms in the store.
    pool : list of str
        Candidate words (the language's noun lists, or the whole vocabulary).
    exclude : set of str
    k : int, default :data:`MATCHED_PER_OCCUPATION`

    Returns
    -------
    ndarray of int, shape (len(targets), k)
        Store rows; ``(0, k)`` when the pool has fewer than ``k`` words.

    Examples
    --------
    >>> from geobias.store import VectorStore
    >>> s = VectorStore([f"w{i}" for i in range(10)], np.eye(10, dtype=np.float32))
    >>> frequency_matched(s, [["w5"]], [f"w{i}" for i in range(10)], {"w5"}, k=2).tolist()
    [[4, 6]]
    """
    index = store.index
    rows = np.array(sorted({index[w] for w in pool if w in index and w not in exclude}), dtype=np.int64)
    if rows.size < k:
        return np.zeros((0, k), dtype=np.int64)
    out = []
    for forms in targets:
        rank = min(index[w] for w in forms if w in index)
        pos = np.searchsorted(rows, rank)
        lo, hi = max(0, pos - k), min(rows.size, pos + k)
        window = rows[lo:hi]
        order = np.argsort(np.abs(window - rank), kind="stable")[:k]
        out.append(np.sort(window[order]))
    return np.array(out, dtype=np.int64)


def random_pair_deltas(store, n_pairs: int, *, n_sets: int = RANDOM_PAIR_SETS, seed: int | None = 0,
                       top: int = 20_000) -> np.ndarray:
    """``n_sets`` sets of ``n_pairs`` random word pairs of the store's ``top`` first rows, as
    :func:`pair_deltas` rows (the null of d_PCA's explained variance): ``ndarray of shape
    (n_sets, n_pairs, dim)``, float64."""
    rng = np.random.default_rng(seed)
    n = min(top, len(store.vectors))
    out = np.empty((n_sets, n_pairs, store.vectors.shape[1]))
    for i in range(n_sets):
        rows = rng.choice(n, size=2 * n_pairs, replace=False)
        vecs = np.asarray(store.vectors[np.sort(rows)], dtype=np.float64)[rng.permutation(2 * n_pairs)]
        vecs /= np.where((nrm := np.linalg.norm(vecs, axis=1, keepdims=True)) > 0, nrm, 1.0)
        out[i] = vecs[n_pairs:] - vecs[:n_pairs]
    return out


def explained_variance_batch(grams: np.ndarray, idx: np.ndarray, which: np.ndarray | None = None) -> np.ndarray:
    """First-component explained-variance ratio of resampled pair sets from their Gram matrices.

    Parameters
    ----------
    grams : ndarray of shape (s, k, k)
        ``D Dᵀ`` of ``s`` pair sets of ``k`` pairs each.
    idx : ndarray of int, shape (b, k)
        Resampled pair indices.
    which : ndarray of int, shape (b,), optional
        The set each resample draws from (default: set 0 for all).

    Returns
    -------
    ndarray of shape (b,)

    Examples
    --------
    >>> g = np.array([[[4.0, 0.0], [0.0, 1.0]]])
    >>> explained_variance_batch(g, np.array([[0, 1], [0, 0]])).round(3).tolist()
    [0.8, 1.0]
    """
    from geobias.stats.bootstrap import index_counts

    counts = index_counts(idx, grams.shape[1])
    root = np.sqrt(counts)
    g = grams[np.zeros(len(idx), dtype=np.int64) if which is None else which]
    w = np.linalg.eigvalsh(root[:, :, None] * g * root[:, None, :])
    total = w.sum(axis=1)
    return np.where(total > 0, w[:, -1] / np.where(total > 0, total, 1.0), np.nan)


def random_pair_explained_variance(store, n_pairs: int, *, n_sets: int = RANDOM_PAIR_SETS, seed: int | None = 0,
                                   top: int = 20_000) -> np.ndarray:
    """Explained-variance ratio of the first component for ``n_sets`` sets of ``n_pairs`` random
    word pairs (:func:`random_pair_deltas`).

    Returns
    -------
    ndarray of shape (n_sets,)

    Examples
    --------
    >>> from geobias.store import VectorStore
    >>> s = VectorStore([f"w{i}" for i in range(200)],
    ...                 np.random.default_rng(0).normal(size=(200, 50)).astype(np.float32))
    >>> ev = random_pair_explained_variance(s, 10, n_sets=20)
    >>> ev.shape, bool(0.1 < ev.mean() < 0.4)
    ((20,), True)
    """
    d = random_pair_deltas(store, n_pairs, n_sets=n_sets, seed=seed, top=top)
    grams = np.einsum("skd,sjd->skj", d, d)
    return explained_variance_batch(grams, np.tile(np.arange(n_pairs), (n_sets, 1)), np.arange(n_sets))


def _rowwise_corr(a: np.ndarray, b: np.ndarray, *, rank: bool, axis: int = 1) -> np.ndarray:
    """Pearson (or, with ``rank``, Spearman) correlation of ``a`` and ``b`` along ``axis``; NaN where
    either side is constant."""
    if rank:
        from scipy.stats import rankdata

        a, b = rankdata(a, axis=axis), rankdata(b, axis=axis)
    a = a - a.mean(axis=axis, keepdims=True)
    b = b - b.mean(axis=axis, keepdims=True)
    den = np.sqrt((a * a).sum(axis=axis) * (b * b).sum(axis=axis))
    with np.errstate(divide="ignore", invalid="ignore"):
        out = (a * b).sum(axis=axis) / den
    return np.where(den > 0, out, np.nan)


def _bootstrap_opts(opts: dict) -> dict:
    return {"n_resamples": int(opts.get("bootstrap", 1000)), "seed": opts["seed"]}


def _interval(resampling, opts: dict) -> BootstrapResult | None:
    """The bootstrap of a metric's statistic, or ``None`` when a set is too small to resample or
    the bootstrap is off (``bootstrap`` 0)."""
    from geobias.metrics.bootstrap import run

    if not opts.get("bootstrap", 1000) or min(resampling.sizes.values()) < 2:
        return None
    return run(resampling, **_bootstrap_opts(opts))


def _mean_bootstrap(values: np.ndarray, opts: dict, *, absolute: bool) -> BootstrapResult | None:
    from geobias.stats.bootstrap import bootstrap

    v = np.asarray(values, dtype=np.float64)
    if not opts.get("bootstrap", 1000) or len(v) < 2:
        return None
    t = np.abs(v) if absolute else v
    return bootstrap(lambda ix: t[ix["occupations"]].mean(axis=1), {"occupations": len(v)}, **_bootstrap_opts(opts))


def _correlation_bootstrap(x: np.ndarray, y: np.ndarray, opts: dict, *, rank: bool) -> BootstrapResult | None:
    from geobias.stats.bootstrap import bootstrap

    if not opts.get("bootstrap", 1000) or len(x) < 3:
        return None
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)

    def stat(ix):
        a, b = x[ix["occupations"]], y[ix["occupations"]]
        if rank:
            from scipy.stats import rankdata

            a, b = rankdata(a, axis=1), rankdata(b, axis=1)
        a = a - a.mean(axis=1, keepdims=True)
        b = b - b.mean(axis=1, keepdims=True)
        den = np.sqrt((a * a).sum(axis=1) * (b * b).sum(axis=1))
        with np.errstate(divide="ignore", invalid="ignore"):
            out = (a * b).sum(axis=1) / den
        out[~(den > 0)] = np.nan
        return out
    return bootstrap(stat, {"occupations": len(x)}, **_bootstrap_opts(opts))


def _fields(m: Metric) -> dict:
    return {f: getattr(m, f) for f in m.__dataclass_fields__}


def _lda_versus(m: Metric, cv: int) -> Metric:
    """LDA accuracy against the suffix baseline: the mean fold difference with the corrected
    resampled t interval and two-sided p (Nadeau & Bengio 2003: variance × (1/k + n_test/n_train))."""
    from scipy import stats

    folds = np.asarray(m.details.get("folds") or [], dtype=np.float64)
    base = (m.details.get("baseline_folds") or {}).get("orthographic")
    if m.status != OK or base is None or len(folds) < 2 or len(base) != len(folds):
        return m
    diff = folds - np.asarray(base, dtype=np.float64)
    k = len(diff)
    mean, var = float(diff.mean()), float(diff.var(ddof=1))
    se = np.sqrt((1 / k + 1 / (cv - 1)) * var)
    if se > 0:
        t = mean / se
        p = float(2 * stats.t.sf(abs(t), k - 1))
        half = float(stats.t.ppf(0.975, k - 1) * se)
    else:
        p, half = (1.0 if mean == 0 else 0.0), 0.0
    vs = NullComparison("the suffix baseline (last 1–3 letters)", m.baselines["orthographic"], mean, mean - half,
                        mean + half, p, n_resamples=None,
                        method=f"corrected resampled t over the {k} CV folds (Nadeau & Bengio 2003)")
    return Metric(**{**_fields(m), "versus": vs})


def _explained_variance_versus(store, m: Metric, deltas: np.ndarray, opts: dict) -> Metric:
    """d_PCA's explained variance against the same PCA on random word pairs. Each bootstrap resample
    draws the same pair indices from the definitional pairs and from one of the random pair sets (in
    turn), so the upward bias that repeated pairs give a first eigenvalue is on both sides."""
    k = deltas.shape[0]
    if m.status != OK or k < 2:
        return m
    rand = random_pair_deltas(store, k, seed=opts["seed"])
    grams = np.einsum("skd,sjd->skj", rand, rand)
    null = explained_variance_batch(grams, np.tile(np.arange(k), (len(grams), 1)), np.arange(len(grams)))
    null_mean = float(null.mean())
    own = (deltas @ deltas.T)[None]
    turn = {"next": 0}

    def stat(ix):
        idx = ix["pairs"]
        which = (turn["next"] + np.arange(len(idx))) % len(grams)
        turn["next"] += len(idx)
        return explained_variance_batch(own, idx) - explained_variance_batch(grams, idx, which)

    _, values = _hierarchical(stat, {"pairs": k}, opts)
    details = {**m.details, "random_pairs": {"mean": null_mean, "low": float(np.quantile(null, 0.025)),
                                             "high": float(np.quantile(null, 0.975)), "sets": int(null.size)}}
    vs = _versus(f"{k} random word pairs (mean of {len(grams)} sets)", null_mean, m.value - null_mean, values,
                 method="bootstrap over the definitional pairs, each resample paired with a random pair set "
                        "resampled alike", shared_sd=float(null.std(ddof=1)) / np.sqrt(len(grams)))
    return Metric(**{**_fields(m), "details": details, "versus": vs})


def _directions(store, lang: str, language, lists: _Lists, opts: dict) -> tuple[dict[str, Metric], tuple]:
    """The direction metrics, each against its null, and ``(d_pca, d_g, d_s, classes, pairs)``
    (``None`` where absent)."""
    from geobias import wordlists
    from geobias.directions import SemanticDirection, gender_directions

    out: dict[str, Metric] = {}
    pairs = lists.get("definitional pairs", lambda: wordlists.definitional_pairs(lang),
                      lambda v: [w for p in v for w in p])
    genders = tuple(getattr(language, "genders", ()) or ())
    fm = {"masculine", "feminine"} <= set(genders)
    dutch_like = set(genders) == {"common", "neuter"}
    nouns, classes = None, None
    if fm:
        nouns = lists.get("gendered nouns", lambda: wordlists.gendered_nouns(lang), lambda v: v[0] + v[1])
        classes = ("masculine", "feminine")
    elif dutch_like:
        nouns = lists.get("common and neuter nouns", lambda: (wordlists.nouns_of_gender(lang, "common"),
                                                              wordlists.nouns_of_gender(lang, "neuter")),
                          lambda v: v[0] + v[1])
        classes = ("common", "neuter")
    has_neuter = "neuter" in genders
    neuter = lists.get("neuter nouns", lambda: _neuter_nouns(lang), lambda v: v) if fm and has_neuter else None
    if pairs is None:
        why = lists.unavailable("definitional pairs")
        for key in ("d_pca_explained_variance", "lda_cv_accuracy", "cos_dpca_dg", "neuter_on_dg"):
            out[key] = _missing(NOT_AVAILABLE, why)
        return out, (None, None, None, None, None)
    d_g = None
    if nouns is not None:
        d = gender_directions(store, lang, pairs=pairs, masculine=nouns[0], feminine=nouns[1], cv=opts.get("cv", 5),
                              random_state=opts["seed"], max_per_class=opts.get("max_per_class"), oov="ignore")
        ev, n_pairs, d_pca, d_g, d_s = d.explained_variance_ratio, d.n_pairs, d.d_pca, d.d_g, d.d_s
        base = d.lda_baselines or {}
        n_nouns = {classes[0]: d.n_nouns[d.classes[0]], classes[1]: d.n_nouns[d.classes[1]]}
        out["lda_cv_accuracy"] = Metric(
            value=d.lda_cv_accuracy, n=sum(n_nouns.values()), set_sizes=n_nouns,
            baselines={"majority": base["majority"]["accuracy"], "orthographic": base["orthographic"]["accuracy"]}
            if base else None,
            details={"classes": list(classes), "folds": d.lda_cv_fold_accuracy, "solver": d.lda_solver,
                     "baseline_folds": {k: base[k]["folds"] for k in ("majority", "orthographic")} if base else None,
                     "orthographic_model": base.get("orthographic_model"),
                     "ambiguous": d.missing.get("ambiguous_nouns", [])})
        out["cos_dpca_dg"] = Metric(value=d.cos_pca_grammatical, n=sum(n_nouns.values()),
                                    details={"classes": list(classes)})
    else:
        sem = SemanticDirection(oov="ignore").fit(store, pairs)
        ev, n_pairs, d_pca = [float(v) for v in sem.explained_variance_ratio_], len(sem.pairs_), sem.direction_
        d_s = d_pca
        if language.grammatical_gender:
            why = lists.unavailable("gendered nouns") if fm else \
                f"{language.name}'s genders ({', '.join(genders)}) have no noun lists to fit d_g on"
            out["lda_cv_accuracy"] = _missing(NOT_AVAILABLE, why)
            out["cos_dpca_dg"] = _missing(NOT_AVAILABLE, why)
        else:
            why = f"{language.name} has no grammatical gender"
            out["lda_cv_accuracy"] = _missing(NOT_APPLICABLE, why)
            out["cos_dpca_dg"] = _missing(NOT_APPLICABLE, why)
    out["d_pca_explained_variance"] = Metric(value=ev[0], n=n_pairs, details={"explained_variance_ratio": ev[:5],
                                                                              "signed": False})
    if not language.grammatical_gender:
        out["neuter_on_dg"] = _missing(NOT_APPLICABLE, f"{language.name} has no grammatical gender")
    elif not has_neuter:
        out["neuter_on_dg"] = _missing(NOT_APPLICABLE, f"{language.name} has no neuter gender")
    elif not fm:
        out["neuter_on_dg"] = _missing(NOT_APPLICABLE, f"{language.name} has no masculine–feminine d_g (its d_g "
                                                       f"separates {' from '.join(genders)} nouns)")
    elif neuter is None:
        out["neuter_on_dg"] = _missing(NOT_AVAILABLE, lists.unavailable("neuter nouns"))
    elif d_g is None:
        out["neuter_on_dg"] = _missing(NOT_AVAILABLE, lists.unavailable("gendered nouns") + " (no d_g)")
    else:
        proj = np.array(list(_project(store, neuter, d_g).values()))
        by_gender = {g: np.array(list(_project(store, words, d_g).values()))
                     for g, words in (("masculine", nouns[0]), ("feminine", nouns[1]))}
        means = {g: float(v.mean()) if v.size else float("nan") for g, v in by_gender.items()}
        if proj.size == 0:
            out["neuter_on_dg"] = _missing(ERROR, "every neuter noun is out of vocabulary")
        else:
            midpoint = (means["masculine"] + means["feminine"]) / 2
            pm, pf = by_gender["masculine"], by_gender["feminine"]

            def neuter_stat(ix):
                return (proj[ix["neuter"]].mean(axis=1)
                        - (pm[ix["masculine"]].mean(axis=1) + pf[ix["feminine"]].mean(axis=1)) / 2)

            _, values = _hierarchical(neuter_stat, {"neuter": proj.size, "masculine": pm.size, "feminine": pf.size},
                                      opts)
            out["neuter_on_dg"] = Metric(
                value=float(proj.mean()), n=int(proj.size), interval=_mean_bootstrap(proj, opts, absolute=False),
                set_sizes={"neuter": int(proj.size), "masculine": int(pm.size), "feminine": int(pf.size)},
                details={"std": float(proj.std(ddof=1)) if proj.size > 1 else None,
                         "masculine_mean": means["masculine"], "feminine_mean": means["feminine"]},
                versus=_versus("the masculine/feminine midpoint on d_g", midpoint, float(proj.mean()) - midpoint,
                               values, method="bootstrap over the neuter, masculine and feminine nouns"))
    if nouns is not None and d_g is not None:
        out["lda_cv_accuracy"] = _lda_versus(out["lda_cv_accuracy"], opts.get("cv", 5))
    kept, deltas = pair_deltas(store, pairs)
    out["d_pca_explained_variance"] = _explained_variance_versus(store, out["d_pca_explained_variance"], deltas,
                                                                 opts)
    if d_g is not None and out["cos_dpca_dg"].status == OK:
        g = np.asarray(d_g, dtype=np.float64)
        _, values = _hierarchical(lambda ix: pc1_batch(deltas, ix["pairs"])[0] @ g, {"pairs": len(kept)}, opts)
        m = out["cos_dpca_dg"]
        out["cos_dpca_dg"] = Metric(**{**_fields(m), "versus": _versus(
            "0 (unrelated directions)", 0.0, m.value, values, method="bootstrap over the definitional pairs")})
    return out, (d_pca, d_g, d_s, classes, pairs)


def _weats(store, lang: str, lists: _Lists, opts: dict) -> dict[str, Metric]:
    from geobias import wordlists
    from geobias.metrics import weat

    out: dict[str, Metric] = {}
    for test in WEAT_TESTS:
        key = f"weat_{test.replace('-', '_')}"
        sets = lists.get(f"WEAT {test}", lambda t=test: wordlists.weat_test(lang, t), lambda s: s.X + s.Y + s.A + s.B)
        if sets is None:
            out[key] = _missing(NOT_AVAILABLE, lists.unavailable(f"WEAT {test} sets"))
            continue
        try:
            query = WordQuery(sets.X, sets.Y, sets.A, sets.B, name=test,
                              lost_vocabulary_threshold=opts["lost_vocabulary_threshold"])
            r = weat(store, query, permutations=opts["permutations"], seed=opts["seed"], oov="ignore", test=test,
                     **_boot_kwargs(opts))
            out[key] = Metric(value=r.effect_size, p_value=r.p_value, n=r.n_x + r.n_y, interval=r.bootstrap,
                              set_sizes={"X": r.n_x, "Y": r.n_y, "A": r.n_a, "B": r.n_b},
                              details={"statistic": r.statistic, "effect_size_ddof": r.effect_size_ddof,
                                       "n_permutations": r.n_permutations, "exact": r.exact,
                                       "sets": {"X": sets.x_name, "Y": sets.y_name, "A": sets.a_name,
                                                "B": sets.b_name}, "missing": r.missing},
                              versus=_versus_interval("0 (no association)", r.effect_size, r.p_value, r.bootstrap,
                                                      method="permutation p (one-sided); bootstrap over X, Y, A "
                                                             "and B", n_permutations=r.n_permutations,
                                                      exact=r.exact))
        except GeobiasError as exc:
            out[key] = _missing(ERROR, _error_line(exc))
    return out


def _boot_kwargs(opts: dict) -> dict:
    n = int(opts.get("bootstrap", 1000) or 0)
    return {"bootstrap": n, "bootstrap_seed": opts["seed"]}


def _mweat(store, lang: str, language, occupations, attributes, opts: dict) -> dict[str, Metric]:
    from geobias.metrics import mweat
    from geobias.metrics.bootstrap import bootstrap_query

    keys = ("mweat", "mweat_effect_size")
    if not language.grammatical_gender:
        return dict.fromkeys(keys, _missing(NOT_APPLICABLE, f"{language.name} has no grammatical gender (see WEAT)"))
    if occupations is None or attributes is None:
        why = f"no {'occupations' if occupations is None else 'attribute words'} for {lang}"
        return dict.fromkeys(keys, _missing(NOT_AVAILABLE, why))
    two_form = [o for o in occupations if o.feminine != o.masculine]
    if len(two_form) < 2:
        return dict.fromkeys(keys, _missing(NOT_AVAILABLE, f"no two-form occupations for {lang}"))
    male, female = attributes
    try:
        query = WordQuery.two_form(occupations, male, female,
                                   lost_vocabulary_threshold=opts["lost_vocabulary_threshold"])
        r = mweat(store, query, permutations=opts["permutations"], seed=opts["seed"], oov="ignore",
                  **_boot_kwargs(opts))
        effect_interval = None
        if _boot_kwargs(opts)["bootstrap"]:
            effect_interval = bootstrap_query(query.resolve(store, oov="ignore"), "mweat", quantity="effect_size",
                                              n_resamples=_boot_kwargs(opts)["bootstrap"], seed=opts["seed"])
    except GeobiasError as exc:
        return dict.fromkeys(keys, _missing(ERROR, _error_line(exc)))
    sizes = {"pairs": r.n_pairs, "A": r.n_a, "B": r.n_b}
    common = dict(n_permutations=r.n_permutations, exact=r.exact, missing=r.missing,
                  dropped_pairs=[list(p) for p in r.dropped_pairs])
    return {
        # the signed |Σ_X s| − |Σ_Y s| (eq. 1 is its absolute value; its interval can hold 0), with eq. 1's p,
        # which is the two-sided p of the signed figure
        "mweat": Metric(value=r.signed_statistic, p_value=r.p_value, n=r.n_pairs, set_sizes=sizes,
                        interval=r.bootstrap, details={"statistic": r.statistic, "sum_masculine": r.sum_masculine,
                                                       "sum_feminine": r.sum_feminine, "signed": True, **common},
                        versus=_versus_interval("0 (no association)", r.signed_statistic, r.p_value, r.bootstrap,
                                                method="permutation p of eq. 1 (the signed figure's two-sided p); "
                                                       "bootstrap over the pairs and A, B",
                                                n_permutations=r.n_permutations, exact=r.exact)),
        "mweat_effect_size": Metric(value=r.effect_size, p_value=r.difference_p_value, n=r.n_pairs, set_sizes=sizes,
                                    interval=effect_interval, details={"difference": r.difference, **common},
                                    versus=_versus_interval("0 (no association)", r.effect_size,
                                                            r.difference_p_value, effect_interval,
                                                            method="permutation p of Σ_x s − Σ_y s; bootstrap over "
                                                                   "the pairs and A, B",
                                                            n_permutations=r.n_permutations, exact=r.exact)),
    }


def _occupations(store, occupations, d_pca, d_g, d_s) -> tuple[list[OccupationRow], str, float]:
    """Per occupation: its projections and its centred bias (see :data:`DEFINITIONS`); in list order."""
    words = [w for o in occupations for w in dict.fromkeys((o.masculine, o.feminine))]
    offset = vocabulary_offset(store, d_s)
    on_dir = _project(store, words, d_s)
    on_pca = _project(store, words, d_pca)
    on_g = _project(store, words, d_g)
    rows = []
    for o in occupations:
        if o.masculine not in on_dir or o.feminine not in on_dir:
            continue
        rows.append(OccupationRow(o.english, o.masculine, o.feminine, o.feminine != o.masculine,
                                  (on_dir[o.masculine] + on_dir[o.feminine]) / 2 - offset,
                                  on_pca[o.masculine], on_pca[o.feminine], on_g.get(o.masculine),
                                  on_g.get(o.feminine)))
    method = ("(<w_m, d> + <w_f, d>) / 2 − mean_v <v, d> over the store's vocabulary, d = "
              + ("d_s (d_PCA with d_g projected out)" if d_g is not None else "d_PCA (no d_g)"))
    return rows, method, offset


def _person_items(lang: str, exclude: set[str]) -> tuple[list[list[str]], list[str]]:
    """The language's person nouns that are not occupations, definitional or attribute words: one
    item per word of ``person_nouns.txt`` and per pair of ``person_pairs.tsv`` (its two forms), and
    the files read (``[]`` when the language has neither)."""
    from geobias import wordlists

    d = wordlists.wordlist_dir() / lang
    items: list[list[str]] = []
    seen: set[str] = set()
    files = []
    if (d / "person_pairs.tsv").is_file():
        files.append("person_pairs.tsv")
        for f, m in wordlists.read_pair_file(d / "person_pairs.tsv"):
            if not ({f, m} & exclude) and not ({f, m} & seen):
                items.append(list(dict.fromkeys((m, f))))
                seen |= {f, m}
    if (d / "person_nouns.txt").is_file():
        files.append("person_nouns.txt")
        for w in wordlists.read_word_file(d / "person_nouns.txt"):
            if w not in exclude and w not in seen:
                items.append([w])
                seen.add(w)
    return items, files


def _midpoints(store, items: list[list[str]]) -> tuple[list[list[str]], np.ndarray]:
    """Items all of whose forms are in ``store`` and the mean of their forms' unit rows."""
    kept = [it for it in items if all(w in store for w in it)]
    if not kept:
        return [], np.zeros((0, store.vectors.shape[1]))
    return kept, np.stack([store.lookup(it, unit=True).vectors.astype(np.float64).mean(axis=0) for it in kept])


def _lean_gather(ds: np.ndarray, rows: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Mean projection on each resample's direction (``ds``: (b, dim)) of the resampled ``rows``."""
    return np.take_along_axis(ds @ rows.T, idx, axis=1).mean(axis=1)


def _occupation_lean(store, lang: str, rows: list[OccupationRow], deltas: np.ndarray, d_g, d_s, offset: float,
                     exclude: set[str], nouns: list[str] | None, record: dict, opts: dict) -> Metric:
    """Occupation lean on d_s against person nouns and against nouns of the same frequency band
    (see :data:`DEFINITIONS`), with hierarchical intervals over the definitional pairs, the
    occupations and the null's words."""
    biases = np.array([r.bias for r in rows])
    lean = float(biases.mean())
    occ = np.stack([store.lookup(list(dict.fromkeys((r.masculine, r.feminine))), unit=True)
                    .vectors.astype(np.float64).mean(axis=0) for r in rows])
    d = np.asarray(d_s, dtype=np.float64)
    k = deltas.shape[0]
    details: dict[str, Any] = {"mean_abs": float(np.abs(biases).mean()), "mean_signed": lean,
                               "share_masculine": float(np.mean(biases > 0)), "signed": True}
    nulls: dict[str, NullComparison] = {}
    items, files = _person_items(lang, exclude)
    persons, prow = _midpoints(store, items)
    if files:
        flat = [w for it in items for w in it]
        record["person nouns"] = ListRecord("used", None, len(flat), [w for w in flat if w not in store])
    if len(persons) >= 2:
        pb = prow @ d - offset
        person_lean = float(pb.mean())

        def person_stat(ix):
            ds = semantic_batch(deltas, ix["pairs"], d_g)
            return _lean_gather(ds, occ, ix["occupations"]) - _lean_gather(ds, prow, ix["persons"])

        sizes = {"pairs": k, "occupations": len(rows), "persons": len(persons)}
        _, values = _hierarchical(person_stat, sizes, opts) if k >= 2 else (None, np.zeros(0))
        nulls["person nouns"] = _versus(f"person nouns that are not occupations ({len(persons)}, {', '.join(files)})",
                                        person_lean, lean - person_lean, values,
                                        method="bootstrap over the definitional pairs, occupations and person nouns")
        details["person_nouns"] = {"n": len(persons), "mean_signed": person_lean,
                                   "mean_abs": float(np.abs(pb).mean()),
                                   "abs_difference": float(np.abs(biases).mean() - np.abs(pb).mean())}
    pool = nouns if nouns else list(store.words)
    matched = frequency_matched(store, [[r.masculine, r.feminine] for r in rows], pool,
                                exclude | {w for it in items for w in it})
    if matched.shape[0] == len(rows):
        mrows = np.asarray(store.vectors[matched.ravel()], dtype=np.float64)
        mrows /= np.where((n := np.linalg.norm(mrows, axis=1, keepdims=True)) > 0, n, 1.0)
        per_occ = mrows.reshape(len(rows), matched.shape[1], -1).mean(axis=1)  # one row per occupation
        matched_lean = float((per_occ @ d - offset).mean())

        def matched_stat(ix):
            ds = semantic_batch(deltas, ix["pairs"], d_g)
            return _lean_gather(ds, occ, ix["occupations"]) - _lean_gather(ds, per_occ, ix["occupations"])

        _, values = (_hierarchical(matched_stat, {"pairs": k, "occupations": len(rows)}, opts) if k >= 2
                     else (None, np.zeros(0)))
        what = "nouns" if nouns else "words"
        nulls["frequency band"] = _versus(
            f"{what} of the same frequency band ({matched.shape[1]} per occupation)", matched_lean,
            lean - matched_lean, values, method="bootstrap over the definitional pairs and occupations "
                                                "(each with its matched words)")
        details["frequency_matched"] = {"pool": what, "per_occupation": int(matched.shape[1]),
                                        "mean_signed": matched_lean,
                                        "examples": [store.words[i] for i in matched[:3].ravel()]}
    details["nulls"] = {k: v.to_dict() for k, v in nulls.items()}
    primary = nulls.get("person nouns") or nulls.get("frequency band")
    if primary is not None and "person nouns" not in nulls:
        details["note"] = f"no person-noun list for {lang}: read against nouns of the same frequency band"
    return Metric(value=lean, n=len(rows), set_sizes={"occupations": len(rows), "pairs": k,
                                                      **({"persons": len(persons)} if len(persons) >= 2 else {})},
                  interval=_mean_bootstrap(biases, opts, absolute=False), details=details, versus=primary)


def _english(en_store, occupations_en: list[str]) -> dict[str, Any]:
    """The English side of the correlations: ``proj`` (centred ``<E, d_PCA(en)>`` by word), ``assoc``
    (``s(E, A_en, B_en)`` by word), ``direction`` (d_PCA(en)), ``deltas`` (its definitional pairs,
    :func:`pair_deltas`), ``male``/``female`` (the attribute words in the store) and ``store``."""
    from geobias import wordlists
    from geobias.directions import SemanticDirection
    from geobias.metrics import association

    pairs = wordlists.definitional_pairs("en")
    sem = SemanticDirection(oov="ignore").fit(en_store, pairs)
    offset = vocabulary_offset(en_store, sem.direction_)
    proj = {w: v - offset for w, v in _project(en_store, occupations_en, sem.direction_).items()}
    male, female = wordlists.attribute_words("en")
    male = [w for w in male if w in en_store]
    female = [w for w in female if w in en_store]
    found = [w for w in dict.fromkeys(occupations_en) if w in en_store]
    assoc = dict(zip(found, association(en_store, found, male, female).tolist(), strict=True)) if found else {}
    _, deltas = pair_deltas(en_store, pairs)
    return {"proj": proj, "assoc": assoc, "direction": np.asarray(sem.direction_, dtype=np.float64),
            "deltas": deltas, "male": male, "female": female, "store": en_store}


def _direction_rhos(local: np.ndarray, english: np.ndarray, n_directions: int, seed: int | None, *,
                    rank: bool = True) -> np.ndarray:
    """ρ (or Pearson r) of the paired rows projected on each of ``n_directions`` shared random unit
    directions: ``ndarray of shape (n_directions,)``."""
    rng = np.random.default_rng(seed)
    u = rng.normal(size=(local.shape[1], n_directions))
    u /= np.linalg.norm(u, axis=0, keepdims=True)
    return _rowwise_corr(local @ u, english @ u, rank=rank, axis=0)


def random_direction_control(local: np.ndarray, english: np.ndarray, *, n_directions: int = 100,
                             seed: int | None = 0) -> dict[str, float]:
    """Spearman ρ between two sets of paired rows projected on shared random unit directions.

    Parameters
    ----------
    local, english : ndarray of shape (n, dim)
        Row ``i`` of each: one occupation (its form midpoint) and its English translation.
    n_directions : int, default 100
    seed : int or None, default 0

    Returns
    -------
    dict
        ``mean``, ``low`` and ``high`` (2.5 % and 97.5 % quantiles over the directions) of ρ.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> w = rng.normal(size=(30, 16))
    >>> random_direction_control(w, w + 0.01 * rng.normal(size=w.shape))["mean"] > 0.9
    True
    """
    rho = _direction_rhos(local, english, n_directions, seed)
    return {"mean": float(np.nanmean(rho)), "low": float(np.nanquantile(rho, 0.025)),
            "high": float(np.nanquantile(rho, 0.975))}


def _excess_statistic(local: np.ndarray, english: np.ndarray, local_dir, english_dir, *, rank: bool,
                      control_u: np.ndarray, sub: int = 2000):
    """Bootstrap statistic: the correlation of the resampled occupations on the resampled directions
    (``local_dir(ix)``, ``english_dir(ix)``: (b, dim) each) minus the same correlation on the random
    directions ``control_u`` (dim, J), averaged over them."""
    lu, eu = local @ control_u, english @ control_u

    def stat(ix):
        idx = ix["occupations"]
        y = np.take_along_axis(local_dir(ix) @ local.T, idx, axis=1)
        x = np.take_along_axis(english_dir(ix) @ english.T, idx, axis=1)
        corr = _rowwise_corr(x, y, rank=rank)
        control = np.empty(len(idx))
        for start in range(0, len(idx), sub):  # (b, n, J) in slices: bounded memory
            part = idx[start:start + sub]
            control[start:start + sub] = np.nanmean(_rowwise_corr(lu[part], eu[part], rank=rank, axis=1), axis=1)
        return corr - control

    return stat


def _correlations(store, lang: str, language, occupations, rows: list[OccupationRow], attributes, cell: dict,
                  record: dict, opts: dict, *, deltas: np.ndarray, d_g, d_s) -> tuple[dict[str, Metric], bool | None]:
    from scipy import stats

    keys = ("cos_ds_en", "corr_en_pearson", "corr_en_spearman", "corr_en_shared_spearman", "corr_en_control",
            "corr_en_fig4_spearman")
    if lang == "en":
        return dict.fromkeys(keys, _missing(NOT_APPLICABLE, "English is the reference language")), None
    if cell.get("en_store") is None:
        return dict.fromkeys(keys, _missing(NOT_AVAILABLE, "the family has no English source")), None
    if occupations is None:
        return dict.fromkeys(keys, _missing(NOT_AVAILABLE, f"no occupations for {lang}")), None
    try:
        from geobias.sources import resolve_store

        en_store = resolve_store("en", cell["en_store"], option="--en-vectors")
        en = _english(en_store, [r.english for r in rows])
    except GeobiasError as exc:
        return dict.fromkeys(keys, _missing(ERROR, f"English store: {_error_line(exc)}")), None
    proj_en, assoc_en = en["proj"], en["assoc"]
    record["english translations"] = ListRecord(
        "used", None, len({r.english for r in rows}), [e for e in dict.fromkeys(r.english for r in rows) if e not in en_store])
    out: dict[str, Metric] = {}
    same_dim = store.vectors.shape[1] == en_store.vectors.shape[1]
    comparable = None
    if not same_dim:
        out["cos_ds_en"] = _missing(NOT_APPLICABLE, f"the stores differ in dimension ({store.vectors.shape[1]} and "
                                                    f"{en_store.vectors.shape[1]})")
    else:
        cos = float(np.asarray(d_s, dtype=np.float64) @ en["direction"])
        comparable = cos >= COMPARABLE_COSINE
        out["cos_ds_en"] = Metric(value=cos, details={"threshold": COMPARABLE_COSINE, "comparable": comparable,
                                                      "signed": True})
    seen, shared = set(), []
    for r in rows:  # several forms can share one English word: the first is kept (as `geobias correlate`)
        if r.english in proj_en and r.english not in seen:
            seen.add(r.english)
            shared.append(r)
    rest = ("corr_en_pearson", "corr_en_spearman", "corr_en_shared_spearman", "corr_en_control",
            "corr_en_fig4_spearman")
    if len(shared) < 3:
        out.update(dict.fromkeys(rest, _missing(NOT_AVAILABLE, f"only {len(shared)} occupations with an English "
                                                               "translation in both stores; need 3")))
        return out, comparable
    x = np.array([proj_en[r.english] for r in shared])
    y = np.array([r.bias for r in shared])
    sizes = {"occupations": len(shared)}
    n = len(shared)
    local = np.stack([store.lookup(list(dict.fromkeys((r.masculine, r.feminine))), unit=True)
                      .vectors.astype(np.float64).mean(axis=0) for r in shared])
    english = en_store.lookup([r.english for r in shared], unit=True).vectors.astype(np.float64)
    note = None if comparable is not False else (
        f"{language.name}'s d_s is not comparable with the English direction (cos {out['cos_ds_en'].value:.2f} < "
        f"{COMPARABLE_COSINE}): read the shared-direction column")
    if not same_dim:
        out["corr_en_control"] = _missing(NOT_APPLICABLE, out["cos_ds_en"].reason)
        out["corr_en_shared_spearman"] = _missing(NOT_APPLICABLE, out["cos_ds_en"].reason)
        for key, rank in (("corr_en_pearson", False), ("corr_en_spearman", True)):
            r_, p_ = (stats.spearmanr if rank else stats.pearsonr)(x, y)
            out[key] = Metric(value=float(r_), p_value=float(p_), n=n, set_sizes=sizes,
                              interval=_correlation_bootstrap(x, y, opts, rank=rank),
                              details={"note": "no alignment control: the stores differ in dimension"})
    else:
        rhos = {rank: _direction_rhos(local, english, CONTROL_DIRECTIONS, opts["seed"], rank=rank)
                for rank in (False, True)}
        control = {rank: float(np.nanmean(v)) for rank, v in rhos.items()}
        out["corr_en_control"] = Metric(value=control[True], n=n, set_sizes=sizes, details={
            "directions": CONTROL_DIRECTIONS, "low": float(np.nanquantile(rhos[True], 0.025)),
            "high": float(np.nanquantile(rhos[True], 0.975)), "pearson_mean": control[False]})
        rng = np.random.default_rng(None if opts["seed"] is None else opts["seed"] + 1)
        u = rng.normal(size=(local.shape[1], CONTROL_DIRECTIONS_PER_RESAMPLE))
        u /= np.linalg.norm(u, axis=0, keepdims=True)
        k, k_en = deltas.shape[0], en["deltas"].shape[0]
        boot_sizes = {"pairs": k, "en_pairs": k_en, "occupations": n}

        def local_dir(ix):
            return semantic_batch(deltas, ix["pairs"], d_g)

        def english_dir(ix):
            return pc1_batch(en["deltas"], ix["en_pairs"])[0]

        shared_y = local @ en["direction"]
        for key, rank, yy, ldir in (("corr_en_pearson", False, y, local_dir), ("corr_en_spearman", True, y, local_dir),
                                    ("corr_en_shared_spearman", True, shared_y, english_dir)):
            r_, p_ = (stats.spearmanr if rank else stats.pearsonr)(x, yy)
            r_ = float(r_)
            above = int(np.sum(rhos[rank] >= r_))
            below = int(np.sum(rhos[rank] <= r_))
            stat = _excess_statistic(local, english, ldir, english_dir, rank=rank, control_u=u)
            _, values = _hierarchical(stat, boot_sizes, opts) if min(k, k_en) >= 2 else (None, np.zeros(0))
            vs = _versus(f"the alignment control (mean over {CONTROL_DIRECTIONS:,} random directions)", control[rank],
                         r_ - control[rank], values,
                         method="bootstrap over both languages' definitional pairs and the occupations, the control "
                                f"on {CONTROL_DIRECTIONS_PER_RESAMPLE} random directions per resample",
                         # the resamples share those directions: their mean's spread over seeds
                         shared_sd=float(np.nanstd(rhos[rank], ddof=1)) / np.sqrt(CONTROL_DIRECTIONS_PER_RESAMPLE))
            details = {"share_of_random_directions_above": above / len(rhos[rank]),
                       "share_of_random_directions_below": below / len(rhos[rank]),
                       "p_against_0": float(p_)}
            if key == "corr_en_shared_spearman":
                details["direction"] = "English d_PCA for both languages"
            elif note:
                details["note"] = note
            out[key] = Metric(value=r_, p_value=float(p_), n=n, set_sizes=sizes,
                              interval=_correlation_bootstrap(x, yy, opts, rank=rank), details=details, versus=vs)
    if not language.grammatical_gender:
        out["corr_en_fig4_spearman"] = _missing(NOT_APPLICABLE, f"{language.name} has no grammatical gender: with "
                                                                "one form |s(w_m)| − |s(w_f)| is 0")
        return out, comparable
    if attributes is None:
        out["corr_en_fig4_spearman"] = _missing(NOT_AVAILABLE, f"no attribute words for {lang}")
        return out, comparable
    male = [w for w in attributes[0] if w in store]
    female = [w for w in attributes[1] if w in store]
    if not (male and female and assoc_en):
        out["corr_en_fig4_spearman"] = _missing(ERROR, "an attribute list is entirely out of vocabulary")
        return out, comparable
    out["corr_en_fig4_spearman"] = _figure4(store, shared, male, female, en, opts)
    return out, comparable


def _figure4(store, shared: list[OccupationRow], male: list[str], female: list[str], en: dict, opts: dict) -> Metric:
    """Zhou et al.'s Figure 4 correlation, with an interval that resamples the occupations and both
    languages' attribute sets."""
    from scipy import stats

    from geobias.stats.bootstrap import index_counts

    def unit(s, words):
        return s.lookup(words, unit=True).vectors.astype(np.float64)

    wm, wf = unit(store, [r.masculine for r in shared]), unit(store, [r.feminine for r in shared])
    a, b = unit(store, male), unit(store, female)
    e = unit(en["store"], [r.english for r in shared])
    a_en, b_en = unit(en["store"], en["male"]), unit(en["store"], en["female"])
    sims = {"m_a": wm @ a.T, "m_b": wm @ b.T, "f_a": wf @ a.T, "f_b": wf @ b.T, "e_a": e @ a_en.T, "e_b": e @ b_en.T}
    local_bias = np.abs(sims["m_a"].mean(1) - sims["m_b"].mean(1)) - np.abs(sims["f_a"].mean(1) - sims["f_b"].mean(1))
    en_assoc = sims["e_a"].mean(1) - sims["e_b"].mean(1)
    rho, p = stats.spearmanr(en_assoc, local_bias)

    def mean_over(sim, ix, name):  # (n, n_set) similarities → (b, n) means over the resampled set
        counts = index_counts(ix[name], sim.shape[1])
        return (counts @ sim.T) / sim.shape[1]

    def stat(ix):
        lb = (np.abs(mean_over(sims["m_a"], ix, "A") - mean_over(sims["m_b"], ix, "B"))
              - np.abs(mean_over(sims["f_a"], ix, "A") - mean_over(sims["f_b"], ix, "B")))
        ea = mean_over(sims["e_a"], ix, "A_en") - mean_over(sims["e_b"], ix, "B_en")
        idx = ix["occupations"]
        return _rowwise_corr(np.take_along_axis(ea, idx, 1), np.take_along_axis(lb, idx, 1), rank=True)

    sizes = {"occupations": len(shared), "A": len(male), "B": len(female), "A_en": len(en["male"]),
             "B_en": len(en["female"])}
    iv, values = _hierarchical(stat, sizes, opts)
    return Metric(value=float(rho), p_value=float(p), n=len(shared), set_sizes=sizes, interval=iv,
                  details={"form": "s(E, A_en, B_en) against |s(w_m, A, B)| - |s(w_f, A, B)|"},
                  versus=_versus("0 (no correlation)", 0.0, float(rho), values,
                                 method="bootstrap over the occupations and both languages' attribute sets"))


def _all_nouns(lang: str) -> list[str] | None:
    """Every noun of the language's noun lists (the frequency-matched null's pool), or ``None``."""
    from geobias import wordlists
    from geobias.languages import get_language

    words: list[str] = []
    for gender in getattr(get_language(lang), "genders", ()) or ():
        try:
            words += wordlists.nouns_of_gender(lang, gender)
        except InputError:
            continue
    return list(dict.fromkeys(words)) or None


def run_cell(cell: dict) -> LanguageCell:
    """Run one language's battery (also as a Ray task); never raises for a failing cell.

    Parameters
    ----------
    cell : dict
        ``lang``, ``store`` (registry name), ``en_store`` (or ``None``), ``options``
        (``permutations``, ``bootstrap``, ``seed``, ``max_per_class``, ``lost_vocabulary_threshold``).
        A WEAT or MWEAT whose sets lost more than ``lost_vocabulary_threshold`` of their words to the
        store (the :class:`~geobias.query.WordQuery` rule) is an ``"error"`` metric with its message.

    Returns
    -------
    LanguageCell
    """
    from geobias.languages import get_language

    lang = cell["lang"]
    language = get_language(lang)
    head = dict(lang=lang, language=language.name, grammatical_gender=language.grammatical_gender,
                genders=list(getattr(language, "genders", ()) or ()), store=cell["store"])
    try:
        from geobias import wordlists
        from geobias.sources import resolve_store

        opts = cell["options"]
        store = resolve_store(lang, cell["store"])
        lists = _Lists(store, lang)
        metrics, (d_pca, d_g, d_s, _, pairs) = _directions(store, lang, language, lists, opts)
        if d_pca is not None and not (np.all(np.isfinite(d_pca)) and np.linalg.norm(d_pca) > 0):
            raise InputError("degenerate gender direction: the definitional pairs' differences are zero or not "
                             "finite in this store")
        metrics.update(_weats(store, lang, lists, opts))
        occupations = lists.get("occupations", lambda: _occupation_list(lang),
                                lambda v: [w for o in v for w in dict.fromkeys((o.masculine, o.feminine))])
        attributes = lists.get("attribute words", lambda: wordlists.attribute_words(lang), lambda v: v[0] + v[1])
        metrics.update(_mweat(store, lang, language, occupations, attributes, opts))
        rows, method, offset, comparable = [], None, None, None
        deltas = pair_deltas(store, pairs)[1] if pairs is not None else None
        if deltas is not None and not np.any(np.linalg.norm(deltas, axis=1) > 1e-9):
            raise InputError("degenerate gender direction: every definitional pair has two identical vectors in "
                             "this store")
        if occupations is None:
            metrics["occupation_bias"] = _missing(NOT_AVAILABLE, lists.unavailable("occupations"))
        elif d_pca is None:
            metrics["occupation_bias"] = _missing(NOT_AVAILABLE, lists.unavailable("definitional pairs"))
        else:
            rows, method, offset = _occupations(store, occupations, d_pca, d_g, d_s)
            if rows:
                exclude = {w for o in occupations for w in (o.masculine, o.feminine)}
                exclude |= {w for p in pairs for w in p} | set(attributes[0] + attributes[1] if attributes else [])
                metrics["occupation_bias"] = _occupation_lean(store, lang, rows, deltas, d_g, d_s, offset, exclude,
                                                              _all_nouns(lang), lists.record, opts)
                metrics["occupation_bias"].details.update(method=method, vocabulary_offset=offset)
            else:
                metrics["occupation_bias"] = _missing(ERROR, "every occupation is out of vocabulary")
        if rows:
            corr, comparable = _correlations(store, lang, language, occupations, rows, attributes, cell, lists.record,
                                             opts, deltas=deltas, d_g=d_g, d_s=d_s)
            metrics.update(corr)
        else:
            base = metrics["occupation_bias"]
            for key in ("cos_ds_en", "corr_en_pearson", "corr_en_spearman", "corr_en_shared_spearman",
                        "corr_en_control", "corr_en_fig4_spearman"):
                metrics[key] = _missing(base.status, base.reason) if lang != "en" else \
                    _missing(NOT_APPLICABLE, "English is the reference language")
        return LanguageCell(**head, status=OK, shape=list(store.vectors.shape), lists=lists.record,
                            metrics={key: metrics[key] for key, _, _ in METRICS}, occupations=rows,
                            occupation_bias_method=method, vocabulary_offset=offset, comparable=comparable)
    except GeobiasError as exc:
        return LanguageCell(**head, status=ERROR, error=_error_line(exc))
    except MemoryError:
        return LanguageCell(**head, status=ERROR, error="out of memory")
    except Exception as exc:  # noqa: BLE001 - one failing cell must not stop the atlas
        return LanguageCell(**head, status=ERROR, error=f"internal error: {type(exc).__name__}: {_error_line(exc)}")


def _lost(cell: dict, res: Any) -> LanguageCell:
    """The cell of a task lost for good (see ``RayEngine.map_cells``)."""
    from geobias.languages import get_language

    language = get_language(cell["lang"])
    error = res.get("error", "lost") if isinstance(res, dict) else "lost"
    return LanguageCell(lang=cell["lang"], language=language.name, grammatical_gender=language.grammatical_gender,
                        genders=list(getattr(language, "genders", ()) or ()), store=cell["store"], status=ERROR,
                        error=error)


def run_atlas(family: str, cells: list[dict], engine, *, cell_fn: Callable[[dict], LanguageCell] = run_cell,
              on_done: Callable[[int, Any], None] | None = None) -> AtlasResult:
    """Run every cell on ``engine`` (an open :func:`~geobias.engine.make_engine`).

    ``cell_fn`` runs one cell (the command layer passes its own module-level function, which a Ray
    worker can import); ``on_done(i, cell)`` is called as each cell
    finishes (progress).
    """
    done = engine.map_cells(cell_fn, cells, on_done=on_done)
    ordered = [res if isinstance(res, LanguageCell) else _lost(cell, res) for cell, res in zip(cells, done, strict=True)]
    n_ok = sum(c.status == OK for c in ordered)
    options = dict(cells[0]["options"]) if cells else {}
    return correct_atlas(AtlasResult(family=family, engine=engine.describe(), options=options, cells=ordered,
                                     n_ok=n_ok, n_failed=len(ordered) - n_ok))


def correct_atlas(result: AtlasResult, *, alpha: float = ALPHA) -> AtlasResult:
    """The atlas with every cell's p against its null adjusted by Benjamini–Hochberg over all the
    atlas's cells (every language × column with a p), in each metric's ``versus.q_value``, and each
    cell's verdict (``versus.verdict``) read off the p's Monte Carlo ranges
    (:func:`geobias.stats.multiplicity.decide`): "differs" or "does not differ" only where every p
    within the ranges gives it, so that another seed cannot give the contradicting verdict unless
    a p's limit lies outside its range; otherwise "undecided" at this run's draws.

    Parameters
    ----------
    result : AtlasResult
    alpha : float, default :data:`ALPHA`
        The false-discovery rate stated in ``correction``.

    Returns
    -------
    AtlasResult
        A new result (the input is not modified) with ``correction`` filled in.

    References
    ----------
    Benjamini & Hochberg (1995), JRSS B 57(1):289–300.
    """
    from dataclasses import replace

    from geobias.stats.multiplicity import benjamini_hochberg, decide

    where, ps, ranges = [], [], []
    for i, cell in enumerate(result.cells):
        for key, m in cell.metrics.items():
            if m.status == OK and m.versus is not None and m.versus.p_value is not None:
                where.append((i, key))
                ps.append(m.versus.p_value)
                ranges.append(m.versus.p_interval)
    qs = benjamini_hochberg(ps)
    verdicts = decide(ps, ranges, alpha=alpha)
    cells = [replace(c, metrics=dict(c.metrics)) for c in result.cells]
    for (i, key), q, verdict in zip(where, qs, verdicts, strict=True):
        m = cells[i].metrics[key]
        cells[i].metrics[key] = replace(m, versus=replace(m.versus, q_value=q, verdict=verdict))
    n_sig = sum(v == DIFFERS for v in verdicts)
    undecided = [f"{cells[i].lang}:{key}" for (i, key), v in zip(where, verdicts, strict=True) if v == UNDECIDED]
    near = [f"{cells[i].lang}:{key}" for i, key in where if cells[i].metrics[key].versus.stable is False]
    correction = {"method": "Benjamini-Hochberg (scipy.stats.false_discovery_control)", "alpha": alpha,
                  "tests": len(ps), "significant": n_sig, "undecided": undecided,
                  "q_below_alpha": sum(q is not None and q < alpha for q in qs),
                  "monte_carlo_confidence": MC_CONFIDENCE,
                  "over": "every language × column of this atlas with a p-value against its null",
                  "bounds_within_3_mc_errors_of_0": near}
    return replace(result, cells=cells, correction=correction)


__all__ = ["ALPHA", "COMPARABLE_COSINE", "CONTROL_DIRECTIONS", "DEFINITIONS", "METRICS", "METRIC_KEYS", "SCALES",
           "SCALE_RANGES", "WEAT_TESTS", "AtlasResult", "LanguageCell", "ListRecord", "Metric", "NullComparison",
           "OccupationRow", "correct_atlas", "explained_variance_batch", "family_sources", "frequency_matched", "pair_deltas", "pc1_batch",
           "plan_atlas", "random_direction_control", "random_pair_deltas", "random_pair_explained_variance", "run_atlas", "run_cell",
           "semantic_batch", "vocabulary_mean", "vocabulary_offset"]
