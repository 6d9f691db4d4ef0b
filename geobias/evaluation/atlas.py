"""The bias atlas: one battery of static-vector measures per language of a source family.

A *family* is a set of registry sources named ``<family>-<lang>`` (``use-m3-es``, ``muse-fr``);
the atlas runs one *cell* per language of :data:`geobias.languages.LANGUAGES` that the family
covers. A cell loads the language's store and computes each column of :data:`METRICS`, every
column with **one definition in every language** (:data:`DEFINITIONS`, the report's legend). Where
a kind of language cannot have a quantity the cell says ``"not applicable"`` and why; where the
language lacks a word list, ``"not available"``; where the computation failed, ``"error"``.

Beside each figure a cell keeps what it is to be read against:

* the LDA accuracy of ``d_g`` has its **baselines** on the same nouns and the same CV folds: the
  majority class (chance) and a logistic regression on the nouns' last letters (spelling);
* every association figure (WEAT, MWEAT, occupation bias, correlations) has a **bootstrap interval
  over its words** (:mod:`geobias.stats.bootstrap`: each word set resampled with replacement,
  occupation pairs as pairs) and the sizes of the sets it used;
* the correlation with English has a **control** for the encoder's translation alignment: the same
  correlation on random directions shared by the two stores.

References
----------
Zhou, Shi, Zhao, Huang, Chen, Cotterell & Chang (2019), "Examining Gender Bias in Languages with
Grammatical Gender", EMNLP-IJCNLP (d_PCA, d_g, d_s, MWEAT eq. 1, Figure 4). Caliskan, Bryson &
Narayanan (2017), Science 356(6334) (WEAT). Antoniak & Mimno (2021), "Bad Seeds", ACL (why the
word sets' choice must be shown).
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
    ("occupation_bias", "occupation bias, mean |centred projection|", True),
    ("corr_en_pearson", "corr. with English, Pearson", True),
    ("corr_en_spearman", "corr. with English, Spearman", True),
    ("corr_en_control", "control: Spearman on random directions", False),
    ("corr_en_fig4_spearman", "Figure 4 Spearman (WEAT en vs MWEAT)", True),
)
METRIC_KEYS = ("status", "value", "p_value", "n", "reason", "interval", "set_sizes", "baselines", "details")

OK, NOT_AVAILABLE, NOT_APPLICABLE, ERROR = "ok", "not available", "not applicable", "error"

#: How each column reads on a colour scale: ``"accuracy"`` (anchored at its chance baseline),
#: ``"correlation"`` (diverging at 0 on the fixed range −1..1: cosines and correlations),
#: ``"signed"`` (diverging at 0, symmetric over the column) or ``"magnitude"`` (from 0 up).
SCALES: dict[str, str] = {
    "d_pca_explained_variance": "magnitude", "lda_cv_accuracy": "accuracy", "cos_dpca_dg": "correlation",
    "neuter_on_dg": "signed", **{f"weat_{t.replace('-', '_')}": "signed" for t in WEAT_TESTS},
    "mweat": "signed", "mweat_effect_size": "signed", "occupation_bias": "magnitude",
    "corr_en_pearson": "correlation", "corr_en_spearman": "correlation", "corr_en_control": "correlation",
    "corr_en_fig4_spearman": "correlation",
}

#: The one definition of each column, the same in every language (the report's legend).
DEFINITIONS: dict[str, str] = {
    "d_pca_explained_variance": "Share of the variance of the pair-centred definitional pairs on their first "
                                "principal component d_PCA (Zhou et al. §3).",
    "lda_cv_accuracy": "5-fold stratified CV accuracy of the LDA that separates the language's two noun classes "
                       "(masculine/feminine; Dutch: common/neuter) on balanced inanimate noun lists; d_g is its "
                       "direction. Read it against its two baselines on the same nouns and folds: the majority "
                       "class (chance) and a logistic regression on the nouns' last 1–3 letters (spelling).",
    "cos_dpca_dg": "Cosine of d_PCA and d_g.",
    "neuter_on_dg": "Mean projection of the neuter nouns on the masculine–feminine d_g (masculine positive); "
                    "applies to languages with masculine, feminine and neuter nouns.",
    **{f"weat_{t.replace('-', '_')}": f"WEAT {t}: Caliskan et al.'s effect size (ddof 1) with its one-sided "
                                      "permutation p." for t in WEAT_TESTS},
    "mweat": "|Σ_x s(x)| − |Σ_y s(y)| over the two-form occupations (X masculine, Y feminine forms): Zhou et al.'s "
             "eq. 1 before its outer absolute value (eq. 1 is its size, in details), so that its interval can hold "
             "0; > 0 the masculine forms lean to the male words more than the feminine ones to the female words. "
             "Its p is eq. 1's one-sided permutation p (the signed figure's two-sided p); applies to languages "
             "with grammatical gender.",
    "mweat_effect_size": "Ours: Caliskan's effect size on the MWEAT sets, with the p of Σ_x s − Σ_y s.",
    "occupation_bias": "Mean over the occupations of |b|, b the projection of the occupation's form midpoint "
                       "(w_m + w_f)/2 on the semantic direction d_s, minus the mean projection of the store's "
                       "whole vocabulary (so a vocabulary that sits off-centre on the direction adds nothing); "
                       "d_s is d_PCA with d_g projected out where the language has a d_g, d_PCA otherwise.",
    "corr_en_pearson": "Pearson r over the occupations that share an English translation, of the occupation's "
                       "centred b against the centred <E, d_PCA(en)> of its translation in the family's English "
                       "store.",
    "corr_en_spearman": "Spearman ρ of the same pairs.",
    "corr_en_control": "The same Spearman ρ on random directions instead of the gender directions (mean over 100 "
                       "random unit vectors shared by both stores; needs stores of one dimension): how much of a "
                       "correlation comes from the encoder putting translations together, whatever the "
                       "direction. Compare corr. with English with it, not with 0.",
    "corr_en_fig4_spearman": "Zhou et al.'s Figure 4: Spearman ρ of s(E, A_en, B_en) against |s(w_m, A, B)| − "
                             "|s(w_f, A, B)| over the two-form occupations; applies to languages with grammatical "
                             "gender (with one form the difference is 0).",
}


def family_sources(family: str) -> dict[str, str]:
    """``{language code: registry name}`` of every language of :data:`~geobias.languages.LANGUAGES`
    that the family ``family`` covers (a source named ``<family>-<code>``), in that order."""
    from geobias.languages import LANGUAGES
    from geobias.sources import SOURCES

    return {code: f"{family}-{code}" for code in LANGUAGES if f"{family}-{code}" in SOURCES}


def _float(v: Any) -> float | None:
    return None if v is None or not np.isfinite(v) else float(v)


@dataclass(frozen=True)
class Metric(Result):
    """One figure of one language.

    Attributes
    ----------
    status : {"ok", "not available", "not applicable", "error"}
    value : float or None
    p_value : float or None
        The permutation p (WEAT, MWEAT) or the correlation's p.
    n : int or None
        Items the figure rests on (words, pairs, occupations, nouns).
    reason : str or None
        Why the figure is missing (one line), for every status but ``"ok"``.
    interval : BootstrapResult or None
        The bootstrap over the words (:func:`geobias.stats.bootstrap.bootstrap`) of an association
        figure: percentile interval, standard error, resamples, seed, set sizes.
    set_sizes : dict of str to int, or None
        Words per set the figure used (after the store's vocabulary).
    baselines : dict of str to float, or None
        What the figure is to be read against (LDA accuracy: ``majority``, ``orthographic``).
    details : dict
        Everything else (folds, sums, missing words).
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

    @property
    def significant(self) -> bool | None:
        """False when the figure's permutation p is 0.05 or more, or its signed interval holds 0;
        ``None`` when it has neither."""
        if self.status != OK:
            return None
        verdicts = []
        if self.p_value is not None:
            verdicts.append(self.p_value < 0.05)
        if self.interval is not None and self.interval.crosses_zero is not None and (self.value or 0) != 0 \
                and self.details.get("signed", True):
            verdicts.append(not self.interval.crosses_zero)
        return None if not verdicts else all(verdicts)


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

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> AtlasResult:
        return cls(family=data["family"], engine=data["engine"], options=data["options"],
                   cells=[LanguageCell.from_dict(c) for c in data["cells"]], n_ok=data["n_ok"],
                   n_failed=data["n_failed"], definitions=data.get("definitions") or dict(DEFINITIONS))

    #: The JSON form: the fields, then ``rows`` (the tidy rows that ``--csv`` and ``--parquet`` write,
    #: one per language × metric).
    _json_keys: ClassVar[tuple[str, ...]] = ("family", "engine", "options", "cells", "n_ok", "n_failed",
                                            "definitions", "rows")

    def tidy_rows(self) -> list[dict[str, Any]]:
        """The tidy form (``--csv``, ``--parquet``, ``to_frame()``): :attr:`rows`."""
        return self.rows

    @property
    def rows(self) -> list[dict[str, Any]]:
        """One row per language × metric (the Parquet table): ``lang``, ``language``, ``metric``,
        ``label``, ``grammatical_gender_aware``, ``status``, ``value``, ``p_value``, ``n``, ``reason``,
        ``low``, ``high``, ``standard_error`` (the bootstrap interval), ``baseline_majority``,
        ``baseline_orthographic``."""
        out = []
        for cell in self.cells:
            for key, label, aware in METRICS:
                m = cell.metric(key)
                iv, base = m.interval, m.baselines or {}
                out.append({"lang": cell.lang, "language": cell.language, "metric": key, "label": label,
                            "grammatical_gender_aware": aware, "status": m.status, "value": _float(m.value),
                            "p_value": _float(m.p_value), "n": m.n, "reason": m.reason,
                            "low": None if iv is None else iv.low, "high": None if iv is None else iv.high,
                            "standard_error": None if iv is None else iv.standard_error,
                            "baseline_majority": base.get("majority"),
                            "baseline_orthographic": base.get("orthographic")})
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


def _directions(store, lang: str, language, lists: _Lists, opts: dict) -> tuple[dict[str, Metric], tuple]:
    """The direction metrics and ``(d_pca, d_g, d_s, classes)`` (``None`` where absent)."""
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
        return out, (None, None, None, None)
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
        means = {g: float(np.mean(list(_project(store, words, d_g).values()) or [np.nan]))
                 for g, words in (("masculine", nouns[0]), ("feminine", nouns[1]))}
        if proj.size == 0:
            out["neuter_on_dg"] = _missing(ERROR, "every neuter noun is out of vocabulary")
        else:
            out["neuter_on_dg"] = Metric(value=float(proj.mean()), n=int(proj.size),
                                         interval=_mean_bootstrap(proj, opts, absolute=False),
                                         set_sizes={"neuter": int(proj.size)},
                                         details={"std": float(proj.std(ddof=1)) if proj.size > 1 else None,
                                                  "masculine_mean": means["masculine"],
                                                  "feminine_mean": means["feminine"]})
    return out, (d_pca, d_g, d_s, classes)


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
            r = weat(store, query, n_permutations=opts["permutations"], seed=opts["seed"], oov="ignore", test=test,
                     **_boot_kwargs(opts))
            out[key] = Metric(value=r.effect_size, p_value=r.p_value, n=r.n_x + r.n_y, interval=r.bootstrap,
                              set_sizes={"X": r.n_x, "Y": r.n_y, "A": r.n_a, "B": r.n_b},
                              details={"statistic": r.statistic, "effect_size_ddof": r.effect_size_ddof,
                                       "n_permutations": r.n_permutations, "exact": r.exact,
                                       "sets": {"X": sets.x_name, "Y": sets.y_name, "A": sets.a_name,
                                                "B": sets.b_name}, "missing": r.missing})
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
        r = mweat(store, query, n_permutations=opts["permutations"], seed=opts["seed"], oov="ignore",
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
                                                       "sum_feminine": r.sum_feminine, "signed": True, **common}),
        "mweat_effect_size": Metric(value=r.effect_size, p_value=r.difference_p_value, n=r.n_pairs, set_sizes=sizes,
                                    interval=effect_interval, details={"difference": r.difference, **common}),
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


def _english(en_store, occupations_en: list[str]) -> tuple[dict[str, float], dict[str, float], Any]:
    """Centred ``<E, d_PCA(en)>`` and ``s(E, A_en, B_en)`` of the English translations found in
    ``en_store``, and the English unit rows by word."""
    from geobias import wordlists
    from geobias.directions import SemanticDirection
    from geobias.metrics import association

    sem = SemanticDirection(oov="ignore").fit(en_store, wordlists.definitional_pairs("en"))
    offset = vocabulary_offset(en_store, sem.direction_)
    proj = {w: v - offset for w, v in _project(en_store, occupations_en, sem.direction_).items()}
    male, female = wordlists.attribute_words("en")
    male = [w for w in male if w in en_store]
    female = [w for w in female if w in en_store]
    found = [w for w in dict.fromkeys(occupations_en) if w in en_store]
    assoc = dict(zip(found, association(en_store, found, male, female).tolist(), strict=True)) if found else {}
    return proj, assoc, en_store


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
    from scipy.stats import rankdata

    rng = np.random.default_rng(seed)
    u = rng.normal(size=(local.shape[1], n_directions))
    u /= np.linalg.norm(u, axis=0, keepdims=True)
    a, b = rankdata(local @ u, axis=0), rankdata(english @ u, axis=0)
    a -= a.mean(axis=0)
    b -= b.mean(axis=0)
    rho = (a * b).sum(axis=0) / np.sqrt((a * a).sum(axis=0) * (b * b).sum(axis=0))
    return {"mean": float(rho.mean()), "low": float(np.quantile(rho, 0.025)), "high": float(np.quantile(rho, 0.975))}


def _correlations(store, lang: str, language, occupations, rows: list[OccupationRow], attributes, cell: dict,
                  record: dict, opts: dict) -> dict[str, Metric]:
    from scipy import stats

    keys = ("corr_en_pearson", "corr_en_spearman", "corr_en_control", "corr_en_fig4_spearman")
    if lang == "en":
        return dict.fromkeys(keys, _missing(NOT_APPLICABLE, "English is the reference language"))
    if cell.get("en_store") is None:
        return dict.fromkeys(keys, _missing(NOT_AVAILABLE, "the family has no English source"))
    if occupations is None:
        return dict.fromkeys(keys, _missing(NOT_AVAILABLE, f"no occupations for {lang}"))
    try:
        from geobias.sources import resolve_store

        en = resolve_store("en", cell["en_store"], option="--en-vectors")
        proj_en, assoc_en, en_store = _english(en, [r.english for r in rows])
    except GeobiasError as exc:
        return dict.fromkeys(keys, _missing(ERROR, f"English store: {_error_line(exc)}"))
    record["english translations"] = ListRecord(
        "used", None, len({r.english for r in rows}), [e for e in dict.fromkeys(r.english for r in rows) if e not in en])
    seen, shared = set(), []
    for r in rows:  # several forms can share one English word: the first is kept (as `geobias correlate`)
        if r.english in proj_en and r.english not in seen:
            seen.add(r.english)
            shared.append(r)
    if len(shared) < 3:
        return dict.fromkeys(keys, _missing(NOT_AVAILABLE, f"only {len(shared)} occupations with an English "
                                                           "translation in both stores; need 3"))
    out: dict[str, Metric] = {}
    x = np.array([proj_en[r.english] for r in shared])
    y = np.array([r.bias for r in shared])
    pr, pp = stats.pearsonr(x, y)
    sr, sp = stats.spearmanr(x, y)
    sizes = {"occupations": len(shared)}
    out["corr_en_pearson"] = Metric(value=float(pr), p_value=float(pp), n=len(shared), set_sizes=sizes,
                                    interval=_correlation_bootstrap(x, y, opts, rank=False))
    out["corr_en_spearman"] = Metric(value=float(sr), p_value=float(sp), n=len(shared), set_sizes=sizes,
                                     interval=_correlation_bootstrap(x, y, opts, rank=True))
    if store.vectors.shape[1] != en_store.vectors.shape[1]:
        out["corr_en_control"] = _missing(NOT_APPLICABLE, f"the stores differ in dimension "
                                                          f"({store.vectors.shape[1]} and {en_store.vectors.shape[1]})")
    else:
        local = (_unit(store, [r.masculine for r in shared])[1] + _unit(store, [r.feminine for r in shared])[1]) / 2
        english = _unit(en_store, [r.english for r in shared])[1]
        ctl = random_direction_control(local, english, seed=opts["seed"])
        out["corr_en_control"] = Metric(value=ctl["mean"], n=len(shared), set_sizes=sizes,
                                        details={"directions": 100, "low": ctl["low"], "high": ctl["high"]})
    if not language.grammatical_gender:
        out["corr_en_fig4_spearman"] = _missing(NOT_APPLICABLE, f"{language.name} has no grammatical gender: with "
                                                                "one form |s(w_m)| − |s(w_f)| is 0")
        return out
    if attributes is None:
        out["corr_en_fig4_spearman"] = _missing(NOT_AVAILABLE, f"no attribute words for {lang}")
        return out
    male = [w for w in attributes[0] if w in store]
    female = [w for w in attributes[1] if w in store]
    if not (male and female and assoc_en):
        out["corr_en_fig4_spearman"] = _missing(ERROR, "an attribute list is entirely out of vocabulary")
        return out
    from geobias.metrics import association

    s_m = association(store, [r.masculine for r in shared], male, female)
    s_f = association(store, [r.feminine for r in shared], male, female)
    local_bias = np.abs(s_m) - np.abs(s_f)
    en_assoc = np.array([assoc_en[r.english] for r in shared])
    rho, p = stats.spearmanr(en_assoc, local_bias)
    out["corr_en_fig4_spearman"] = Metric(value=float(rho), p_value=float(p), n=len(shared), set_sizes=sizes,
                                          interval=_correlation_bootstrap(en_assoc, local_bias, opts, rank=True),
                                          details={"form": "s(E, A_en, B_en) against |s(w_m, A, B)| - |s(w_f, A, B)|"})
    return out


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
        metrics, (d_pca, d_g, d_s, _) = _directions(store, lang, language, lists, opts)
        metrics.update(_weats(store, lang, lists, opts))
        occupations = lists.get("occupations", lambda: _occupation_list(lang),
                                lambda v: [w for o in v for w in dict.fromkeys((o.masculine, o.feminine))])
        attributes = lists.get("attribute words", lambda: wordlists.attribute_words(lang), lambda v: v[0] + v[1])
        metrics.update(_mweat(store, lang, language, occupations, attributes, opts))
        rows, method, offset = [], None, None
        if occupations is None:
            metrics["occupation_bias"] = _missing(NOT_AVAILABLE, lists.unavailable("occupations"))
        elif d_pca is None:
            metrics["occupation_bias"] = _missing(NOT_AVAILABLE, lists.unavailable("definitional pairs"))
        else:
            rows, method, offset = _occupations(store, occupations, d_pca, d_g, d_s)
            biases = np.array([r.bias for r in rows])
            metrics["occupation_bias"] = Metric(
                value=float(np.abs(biases).mean()), n=len(rows), set_sizes={"occupations": len(rows)},
                interval=_mean_bootstrap(biases, opts, absolute=True),
                details={"method": method, "vocabulary_offset": offset, "mean_signed": float(biases.mean()),
                         "signed": False}) if rows else _missing(ERROR, "every occupation is out of vocabulary")
        if rows:
            metrics.update(_correlations(store, lang, language, occupations, rows, attributes, cell, lists.record,
                                         opts))
        else:
            base = metrics["occupation_bias"]
            for key in ("corr_en_pearson", "corr_en_spearman", "corr_en_control", "corr_en_fig4_spearman"):
                metrics[key] = _missing(base.status, base.reason) if lang != "en" else \
                    _missing(NOT_APPLICABLE, "English is the reference language")
        return LanguageCell(**head, status=OK, shape=list(store.vectors.shape), lists=lists.record,
                            metrics={key: metrics[key] for key, _, _ in METRICS}, occupations=rows,
                            occupation_bias_method=method, vocabulary_offset=offset)
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
    return AtlasResult(family=family, engine=engine.describe(), options=options, cells=ordered, n_ok=n_ok,
                       n_failed=len(ordered) - n_ok)


__all__ = ["DEFINITIONS", "METRICS", "METRIC_KEYS", "SCALES", "WEAT_TESTS", "AtlasResult", "LanguageCell",
           "ListRecord", "Metric", "OccupationRow", "family_sources", "plan_atlas", "random_direction_control",
           "run_atlas", "run_cell", "vocabulary_offset"]
