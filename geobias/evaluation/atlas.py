"""The bias atlas: one battery of static-vector measures per language of a source family.

A *family* is a set of registry sources named ``<family>-<lang>`` (``use-m3-es``, ``muse-fr``);
the atlas runs one *cell* per language of :data:`geobias.languages.LANGUAGES` that the family
covers. A cell loads the language's store and runs, each on the project's own word lists:

* **directions** (Zhou et al. 2019 §3): the explained-variance ratio of ``d_PCA`` (first principal
  component of the pair-centred definitional pairs); where the language has gendered noun lists,
  the 5-fold CV accuracy of the LDA behind ``d_g`` (masculine vs feminine) and
  ``cos(d_PCA, d_g)``; where it has neuter nouns, their mean projection on that masculine–feminine
  ``d_g`` (neuter is reported on its own, never a third LDA class);
* **WEAT** (Caliskan et al. 2017) effect size (ddof = 1) and one-sided permutation p-value of the
  career-family, math-arts and science-arts tests (:func:`geobias.metrics.weat`);
* **MWEAT** (Zhou et al. eq. 1) where the language has grammatical gender and two-form
  occupations (:func:`geobias.metrics.mweat`): the statistic with its p-value, and the
  Caliskan-style effect size on the same sets with the p-value of the difference statistic;
* **per-occupation bias**: the projection on the semantic direction. Without grammatical gender,
  ``<w, d_PCA>``; with it, the grammatical-gender-aware form ``(<w_m, d_s> + <w_f, d_s>) / 2`` on
  ``d_s = normalise(d_PCA − <d_PCA, d_g> d_g)``: the offset of the pair's midpoint that Shift Ori
  (Zhou et al. eq. 4, anchor at the origin) removes; a single-form occupation is ``<w, d_s>``;
* **correlation with English** over the occupations that share an English translation (Zhou et al.
  Figure 4, generalised): Pearson and Spearman of the per-occupation projection bias against
  ``<E, d_PCA(en)>`` in the family's English store, and Figure 4's own form, Spearman of
  ``s(E, A_en, B_en)`` against ``|s(w_m, A, B)| − |s(w_f, A, B)|`` (as ``geobias correlate``;
  against ``s(w, A, B)`` in a language without grammatical gender, whose occupations have one
  form: ``wordlists.single_occupations`` where the module has it).

Every metric of a cell has the same keys (:data:`METRIC_KEYS`): ``status`` is ``"ok"``,
``"not available"`` (a word list the language does not have: the reason names it),
``"not applicable"`` (MWEAT without grammatical gender, the English correlation of English) or
``"error"`` (one line). A cell records the word lists it read and, per list, the words its store
lacks. A failed cell is an ``"error"`` cell; the atlas goes on.

References
----------
Zhou, Shi, Zhao, Huang, Chen, Cotterell & Chang (2019), "Examining Gender Bias in Languages with
Grammatical Gender", EMNLP-IJCNLP. Caliskan, Bryson & Narayanan (2017), Science 356(6334).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from geobias.errors import GeobiasError, InputError
from geobias.query import WordQuery
from geobias.results import Result

#: The WEAT tests of a cell, in report order.
WEAT_TESTS = ("career-family", "math-arts", "science-arts")

#: Every metric of a cell, in report order: ``(key, label, grammatical-gender-aware)``.
METRICS: tuple[tuple[str, str, bool], ...] = (
    ("d_pca_explained_variance", "d_PCA explained variance", False),
    ("lda_cv_accuracy", "LDA CV accuracy (d_g)", True),
    ("cos_dpca_dg", "cos(d_PCA, d_g)", True),
    ("neuter_on_dg", "neuter nouns on d_g (mean)", True),
    *((f"weat_{t.replace('-', '_')}", f"WEAT {t} effect size", False) for t in WEAT_TESTS),
    ("mweat", "MWEAT statistic (eq. 1)", True),
    ("mweat_effect_size", "MWEAT effect size", True),
    ("occupation_bias", "occupation bias, mean |projection|", True),
    ("corr_en_pearson", "corr. with English, Pearson", True),
    ("corr_en_spearman", "corr. with English, Spearman", True),
    ("corr_en_fig4_spearman", "Figure 4 Spearman (WEAT en vs MWEAT)", True),
)
METRIC_KEYS = ("status", "value", "p_value", "n", "reason", "details")

OK, NOT_AVAILABLE, NOT_APPLICABLE, ERROR = "ok", "not available", "not applicable", "error"

#: What the occupation-bias metric computes, per kind of language.
BIAS_PLAIN = "<w, d_PCA> (no grammatical gender: projection on the semantic direction)"
BIAS_AWARE = ("(<w_m, d_s> + <w_f, d_s>) / 2 with d_s = d_PCA orthogonalised against d_g (Zhou et al. §3): the "
              "pair midpoint's offset that Shift Ori (eq. 4) removes; <w, d_s> for a single-form occupation")


def family_sources(family: str) -> dict[str, str]:
    """``{language code: registry name}`` of every language of :data:`~geobias.languages.LANGUAGES`
    that the family ``family`` covers (a source named ``<family>-<code>``), in that order."""
    from geobias.languages import LANGUAGES
    from geobias.sources import SOURCES

    return {code: f"{family}-{code}" for code in LANGUAGES if f"{family}-{code}" in SOURCES}


@dataclass(frozen=True)
class AtlasResult(Result):
    """The atlas of one source family: one cell per language.

    Attributes
    ----------
    family : str
    engine : dict
        What ran the cells.
    options : dict
        ``permutations``, ``seed``, ``max_per_class``, ``lost_vocabulary_threshold`` (the same for
        every cell).
    cells : list of dict
        In language order: ``lang``, ``language``, ``grammatical_gender``, ``store``, ``status``
        (``"ok"`` or ``"error"``), then ``shape``, ``lists`` (per word list: ``status``, ``words``,
        ``missing``), ``metrics`` (per :data:`METRICS` key: the :data:`METRIC_KEYS`),
        ``occupations`` (per occupation: ``english``, ``masculine``, ``feminine``, ``bias`` and the
        projections ``x_m``, ``x_f`` on d_PCA and ``y_m``, ``y_f`` on d_g, ``None`` where absent)
        and ``occupation_bias_method``; or ``error`` (one line).
    n_ok, n_failed : int
    """

    family: str
    engine: dict
    options: dict
    cells: list[dict]
    n_ok: int
    n_failed: int

    def rows(self) -> list[dict[str, Any]]:
        """One row per language × metric (the Parquet table): ``lang``, ``language``, ``metric``,
        ``label``, ``grammatical_gender_aware``, ``status``, ``value``, ``p_value``, ``n``, ``reason``."""
        out = []
        for cell in self.cells:
            for key, label, aware in METRICS:
                if cell["status"] == OK:
                    m = cell["metrics"][key]
                else:
                    m = {"status": ERROR, "value": None, "p_value": None, "n": None, "reason": cell.get("error")}
                out.append({"lang": cell["lang"], "language": cell.get("language", cell["lang"]), "metric": key,
                            "label": label, "grammatical_gender_aware": aware, "status": m["status"],
                            "value": _float(m.get("value")), "p_value": _float(m.get("p_value")),
                            "n": m.get("n"), "reason": m.get("reason")})
        return out


def _float(v: Any) -> float | None:
    return None if v is None or not np.isfinite(v) else float(v)


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
def _metric(status: str = OK, value: Any = None, p_value: Any = None, n: Any = None, reason: str | None = None,
            **details: Any) -> dict[str, Any]:
    return {"status": status, "value": _float(value) if value is not None else None,
            "p_value": _float(p_value) if p_value is not None else None, "n": n, "reason": reason,
            "details": details}


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
            self.record[name] = {"status": NOT_AVAILABLE, "reason": _error_line(exc), "words": 0, "missing": []}
            return None
        flat = list(dict.fromkeys(words(value)))
        self.record[name] = {"status": "used", "reason": None, "words": len(flat),
                             "missing": [w for w in flat if w not in self.store]}
        return value

    def unavailable(self, name: str) -> str:
        return f"no {name} for {self.lang}"


def _neuter_nouns(lang: str) -> list[str]:
    """The language's grammatically neuter nouns (``wordlists.neuter_nouns`` when the module has it,
    else its ``nouns_neuter.txt``).

    Raises
    ------
    InputError
        The language has no neuter noun list.
    """
    from geobias import wordlists
    from geobias.languages import get_language

    reader = getattr(wordlists, "neuter_nouns", None)
    if reader is not None:
        return list(reader(lang))
    code = get_language(lang).code
    path = wordlists.wordlist_dir() / code / "nouns_neuter.txt"
    if not path.is_file():
        raise InputError(f"no word list 'nouns_neuter.txt' for language {code!r}")
    return wordlists.read_word_file(path)


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


def _directions(store, lang: str, language, lists: _Lists, opts: dict, out: dict) -> tuple:
    """Fill the direction metrics; return ``(d_pca, d_g, d_s)`` (``None`` where absent)."""
    from geobias import wordlists
    from geobias.directions import SemanticDirection, gender_directions

    pairs = lists.get("definitional pairs", lambda: wordlists.definitional_pairs(lang),
                      lambda v: [w for p in v for w in p])
    nouns = None
    # a language whose genders exclude masculine/feminine (Dutch: common/neuter) has no d_g to fit
    no_fm = language.grammatical_gender and (_has_gender(language, "masculine") is False
                                             or _has_gender(language, "feminine") is False)
    no_fm_why = f"{language.name} has no masculine/feminine noun classes (its genders: " \
                f"{', '.join(getattr(language, 'genders', ()))})"
    if language.grammatical_gender and not no_fm:
        nouns = lists.get("gendered nouns", lambda: wordlists.gendered_nouns(lang), lambda v: v[0] + v[1])
    has_neuter = _has_gender(language, "neuter")
    neuter = lists.get("neuter nouns", lambda: _neuter_nouns(lang), lambda v: v) \
        if language.grammatical_gender and has_neuter is not False else None
    if pairs is None:
        why = lists.unavailable("definitional pairs")
        for key in ("d_pca_explained_variance", "lda_cv_accuracy", "cos_dpca_dg", "neuter_on_dg"):
            out[key] = _metric(NOT_AVAILABLE, reason=why)
        return None, None, None
    if nouns is not None:
        d = gender_directions(store, lang, pairs=pairs, masculine=nouns[0], feminine=nouns[1], cv=opts.get("cv", 5),
                              random_state=opts["seed"], max_per_class=opts.get("max_per_class"), oov="ignore")
        ev, n_pairs, d_pca, d_g, d_s = d.explained_variance_ratio, d.n_pairs, d.d_pca, d.d_g, d.d_s
        out["lda_cv_accuracy"] = _metric(value=d.lda_cv_accuracy, n=sum(d.n_nouns.values()),
                                         folds=d.lda_cv_fold_accuracy, n_nouns=d.n_nouns, solver=d.lda_solver,
                                         ambiguous=d.missing.get("ambiguous_nouns", []))
        out["cos_dpca_dg"] = _metric(value=d.cos_pca_grammatical, n=sum(d.n_nouns.values()))
    else:
        sem = SemanticDirection(oov="ignore").fit(store, pairs)
        ev, n_pairs, d_pca, d_g = [float(v) for v in sem.explained_variance_ratio_], len(sem.pairs_), \
            sem.direction_, None
        d_s = d_pca
        if no_fm:
            out["lda_cv_accuracy"] = _metric(NOT_APPLICABLE, reason=no_fm_why)
            out["cos_dpca_dg"] = _metric(NOT_APPLICABLE, reason=no_fm_why)
        elif language.grammatical_gender:
            why = lists.unavailable("gendered nouns")
            out["lda_cv_accuracy"] = _metric(NOT_AVAILABLE, reason=why)
            out["cos_dpca_dg"] = _metric(NOT_AVAILABLE, reason=why)
        else:
            why = f"{language.name} has no grammatical gender"
            out["lda_cv_accuracy"] = _metric(NOT_APPLICABLE, reason=why)
            out["cos_dpca_dg"] = _metric(NOT_APPLICABLE, reason=why)
    out["d_pca_explained_variance"] = _metric(value=ev[0], n=n_pairs, explained_variance_ratio=ev[:5])
    if not language.grammatical_gender:
        out["neuter_on_dg"] = _metric(NOT_APPLICABLE, reason=f"{language.name} has no grammatical gender")
    elif has_neuter is False:
        out["neuter_on_dg"] = _metric(NOT_APPLICABLE, reason=f"{language.name} has no neuter gender")
    elif neuter is None:
        out["neuter_on_dg"] = _metric(NOT_AVAILABLE, reason=lists.unavailable("neuter nouns"))
    elif d_g is None and no_fm:
        out["neuter_on_dg"] = _metric(NOT_APPLICABLE, reason=no_fm_why + ": no masculine-feminine d_g")
    elif d_g is None:
        out["neuter_on_dg"] = _metric(NOT_AVAILABLE, reason=lists.unavailable("gendered nouns") + " (no d_g)")
    else:
        proj = np.array(list(_project(store, neuter, d_g).values()))
        means = {g: float(np.mean(list(_project(store, words, d_g).values()) or [np.nan]))
                 for g, words in (("masculine", nouns[0]), ("feminine", nouns[1]))}
        if proj.size == 0:
            out["neuter_on_dg"] = _metric(ERROR, reason="every neuter noun is out of vocabulary")
        else:
            out["neuter_on_dg"] = _metric(value=float(proj.mean()), n=int(proj.size), std=float(proj.std(ddof=1))
                                          if proj.size > 1 else None, masculine_mean=means["masculine"],
                                          feminine_mean=means["feminine"])
    return d_pca, d_g, d_s


def _store_name(store) -> str:
    return str((getattr(store, "provenance", None) or {}).get("source") or "this store")


def _guarded(guard, counts: dict, threshold: float, minimum: dict, test: str, store_name: str, unit=None) -> None:
    if guard is not None:
        guard(counts, threshold, minimum=minimum, test=test, store=store_name, unit=unit or "words")


def _weats(store, lang: str, lists: _Lists, opts: dict, guard, out: dict) -> None:
    from geobias import wordlists
    from geobias.metrics import weat

    for test in WEAT_TESTS:
        key = f"weat_{test.replace('-', '_')}"
        sets = lists.get(f"WEAT {test}", lambda t=test: wordlists.weat_test(lang, t), lambda s: s.X + s.Y + s.A + s.B)
        if sets is None:
            out[key] = _metric(NOT_AVAILABLE, reason=lists.unavailable(f"WEAT {test} sets"))
            continue
        try:
            counts = {name: (sum(w not in store for w in dict.fromkeys(ws)), len(dict.fromkeys(ws)))
                      for name, ws in (("X", sets.X), ("Y", sets.Y), ("A", sets.A), ("B", sets.B))}
            _guarded(guard, counts, opts["lost_vocabulary_threshold"], {"X": 2, "Y": 2, "A": 2, "B": 2},
                     f"WEAT {test}", _store_name(store))
            r = weat(store, WordQuery(sets.X, sets.Y, sets.A, sets.B), n_permutations=opts["permutations"], seed=opts["seed"],
                     oov="ignore", test=test)
            out[key] = _metric(value=r.effect_size, p_value=r.p_value, n=r.n_x + r.n_y, statistic=r.statistic,
                               effect_size_ddof=r.effect_size_ddof, n_permutations=r.n_permutations, exact=r.exact,
                               sets={"X": sets.x_name, "Y": sets.y_name, "A": sets.a_name, "B": sets.b_name},
                               missing=r.missing)
        except GeobiasError as exc:
            out[key] = _metric(ERROR, reason=_error_line(exc))


def _occupation_rows(occupations) -> list[tuple[str, str, str]]:
    return [(o.feminine, o.masculine, o.english) for o in occupations]


def _mweat(store, lang: str, language, occupations, attributes, opts: dict, guard, out: dict) -> None:
    from geobias.metrics import mweat

    if not language.grammatical_gender:
        for key in ("mweat", "mweat_effect_size"):
            out[key] = _metric(NOT_APPLICABLE, reason=f"{language.name} has no grammatical gender (see WEAT)")
        return
    if occupations is None or attributes is None:
        why = f"no {'occupations' if occupations is None else 'attribute words'} for {lang}"
        for key in ("mweat", "mweat_effect_size"):
            out[key] = _metric(NOT_AVAILABLE, reason=why)
        return
    two_form = [o for o in occupations if o.feminine != o.masculine]
    if len(two_form) < 2:
        for key in ("mweat", "mweat_effect_size"):
            out[key] = _metric(NOT_AVAILABLE, reason=f"no two-form occupations for {lang}")
        return
    male, female = attributes
    try:
        lost = sum(any(w not in store for w in (o.masculine, o.feminine)) for o in occupations)
        counts = {"the occupation pairs (X and Y)": (lost, len(occupations)),
                  "A (male words)": (sum(w not in store for w in dict.fromkeys(male)), len(dict.fromkeys(male))),
                  "B (female words)": (sum(w not in store for w in dict.fromkeys(female)), len(dict.fromkeys(female)))}
        _guarded(guard, counts, opts["lost_vocabulary_threshold"],
                 {"the occupation pairs (X and Y)": 2, "A (male words)": 2, "B (female words)": 2}, "MWEAT",
                 _store_name(store),
                 unit={"the occupation pairs (X and Y)": "pairs"})
        r = mweat(store, WordQuery.two_form(occupations, male, female), n_permutations=opts["permutations"], seed=opts["seed"],
                  oov="ignore")
    except GeobiasError as exc:
        for key in ("mweat", "mweat_effect_size"):
            out[key] = _metric(ERROR, reason=_error_line(exc))
        return
    common = dict(n_permutations=r.n_permutations, exact=r.exact, missing=r.missing,
                  dropped_pairs=[list(p) for p in r.dropped_pairs])
    out["mweat"] = _metric(value=r.statistic, p_value=r.p_value, n=r.n_pairs, sum_masculine=r.sum_masculine,
                           sum_feminine=r.sum_feminine, **common)
    out["mweat_effect_size"] = _metric(value=r.effect_size, p_value=r.difference_p_value, n=r.n_pairs,
                                       difference=r.difference, **common)


def _occupations(store, language, occupations, d_pca, d_g, d_s) -> tuple[list[dict], str]:
    """Per occupation: its projections and its bias (see the module docstring); in list order."""
    aware = language.grammatical_gender and d_g is not None
    direction = d_s if aware else d_pca
    words = [w for o in occupations for w in dict.fromkeys((o.masculine, o.feminine))]
    on_dir = _project(store, words, direction)
    on_pca = _project(store, words, d_pca)
    on_g = _project(store, words, d_g)
    rows = []
    for o in occupations:
        if o.masculine not in on_dir or o.feminine not in on_dir:
            continue
        bias = (on_dir[o.masculine] + on_dir[o.feminine]) / 2
        rows.append({"english": o.english, "masculine": o.masculine, "feminine": o.feminine,
                     "two_form": o.feminine != o.masculine, "bias": bias,
                     "x_m": on_pca[o.masculine], "x_f": on_pca[o.feminine],
                     "y_m": on_g.get(o.masculine), "y_f": on_g.get(o.feminine)})
    return rows, BIAS_AWARE if aware else BIAS_PLAIN


def _english(en_store, occupations_en: list[str], opts: dict) -> tuple[dict[str, float], dict[str, float]]:
    """``<E, d_PCA(en)>`` and ``s(E, A_en, B_en)`` of the English translations found in ``en_store``."""
    from geobias import wordlists
    from geobias.directions import SemanticDirection
    from geobias.metrics import association

    sem = SemanticDirection(oov="ignore").fit(en_store, wordlists.definitional_pairs("en"))
    proj = _project(en_store, occupations_en, sem.direction_)
    male, female = wordlists.attribute_words("en")
    male = [w for w in male if w in en_store]
    female = [w for w in female if w in en_store]
    found = [w for w in dict.fromkeys(occupations_en) if w in en_store]
    assoc = dict(zip(found, association(en_store, found, male, female).tolist(), strict=True)) if found else {}
    return proj, assoc


def _correlations(store, lang: str, language, occupations, rows: list[dict], attributes, cell: dict, out: dict,
                  record: dict) -> None:
    from scipy import stats

    keys = ("corr_en_pearson", "corr_en_spearman", "corr_en_fig4_spearman")
    if lang == "en":
        for key in keys:
            out[key] = _metric(NOT_APPLICABLE, reason="English is the reference language")
        return
    if cell.get("en_store") is None:
        for key in keys:
            out[key] = _metric(NOT_AVAILABLE, reason="the family has no English source")
        return
    if occupations is None:
        for key in keys:
            out[key] = _metric(NOT_AVAILABLE, reason=f"no occupations for {lang}")
        return
    try:
        from geobias.sources import resolve_store

        en = resolve_store("en", cell["en_store"], option="--en-vectors")
        proj_en, assoc_en = _english(en, [r["english"] for r in rows], cell["options"])
    except GeobiasError as exc:
        for key in keys:
            out[key] = _metric(ERROR, reason=f"English store: {_error_line(exc)}")
        return
    record["english translations"] = {
        "status": "used", "reason": None, "words": len({r["english"] for r in rows}),
        "missing": [e for e in dict.fromkeys(r["english"] for r in rows) if e not in en]}
    seen, shared = set(), []
    for r in rows:  # several forms can share one English word: the first is kept (as `geobias correlate`)
        if r["english"] in proj_en and r["english"] not in seen:
            seen.add(r["english"])
            shared.append(r)
    if len(shared) < 3:
        for key in keys:
            out[key] = _metric(NOT_AVAILABLE, reason=f"only {len(shared)} occupations with an English translation "
                                                     "in both stores; need 3")
        return
    x = np.array([proj_en[r["english"]] for r in shared])
    y = np.array([r["bias"] for r in shared])
    pr, pp = stats.pearsonr(x, y)
    sr, sp = stats.spearmanr(x, y)
    out["corr_en_pearson"] = _metric(value=float(pr), p_value=float(pp), n=len(shared))
    out["corr_en_spearman"] = _metric(value=float(sr), p_value=float(sp), n=len(shared))
    if attributes is None:
        out["corr_en_fig4_spearman"] = _metric(NOT_AVAILABLE, reason=f"no attribute words for {lang}")
        return
    male = [w for w in attributes[0] if w in store]
    female = [w for w in attributes[1] if w in store]
    if not (male and female and assoc_en):
        out["corr_en_fig4_spearman"] = _metric(ERROR, reason="an attribute list is entirely out of vocabulary")
        return
    from geobias.metrics import association

    s_m = association(store, [r["masculine"] for r in shared], male, female)
    s_f = association(store, [r["feminine"] for r in shared], male, female)
    if language.grammatical_gender:  # Figure 4: the signed MWEAT bias |s(w_m)| − |s(w_f)|
        local, form = np.abs(s_m) - np.abs(s_f), "|s(w_m, A, B)| - |s(w_f, A, B)|"
    else:  # one form per occupation: its own association, WEAT against WEAT
        local, form = s_m, "s(w, A, B)"
    rho, p = stats.spearmanr([assoc_en[r["english"]] for r in shared], local)
    out["corr_en_fig4_spearman"] = _metric(value=float(rho), p_value=float(p), n=len(shared),
                                           form=f"s(E, A_en, B_en) against {form}")


def run_cell(cell: dict, guard: Callable[..., None] | None = None) -> dict:
    """Run one language's battery (also as a Ray task); never raises for a failing cell.

    Parameters
    ----------
    cell : dict
        ``lang``, ``store`` (registry name), ``en_store`` (or ``None``), ``options``
        (``permutations``, ``seed``, ``max_per_class``, ``lost_vocabulary_threshold``).
    guard : callable, optional
        The lost-vocabulary check of the command layer (``check_lost_vocabulary(counts,
        threshold, minimum=..., test=..., store=..., unit=...)``): a WEAT or MWEAT whose sets lost
        too much of their words is an ``"error"`` metric with its message.

    Returns
    -------
    dict
        See :attr:`AtlasResult.cells`.
    """
    from geobias.languages import get_language

    lang = cell["lang"]
    language = get_language(lang)
    out: dict[str, Any] = {"lang": lang, "language": language.name, "grammatical_gender": language.grammatical_gender,
                           "store": cell["store"]}
    try:
        from geobias import wordlists
        from geobias.sources import resolve_store

        opts = cell["options"]
        store = resolve_store(lang, cell["store"])
        lists = _Lists(store, lang)
        metrics: dict[str, dict] = {}
        d_pca, d_g, d_s = _directions(store, lang, language, lists, opts, metrics)
        _weats(store, lang, lists, opts, guard, metrics)
        occupations = lists.get("occupations", lambda: _occupation_list(lang),
                                lambda v: [w for o in v for w in dict.fromkeys((o.masculine, o.feminine))])
        attributes = lists.get("attribute words", lambda: wordlists.attribute_words(lang), lambda v: v[0] + v[1])
        _mweat(store, lang, language, occupations, attributes, opts, guard, metrics)
        rows, method = [], None
        if occupations is None:
            metrics["occupation_bias"] = _metric(NOT_AVAILABLE, reason=lists.unavailable("occupations"))
        elif d_pca is None:
            metrics["occupation_bias"] = _metric(NOT_AVAILABLE, reason=lists.unavailable("definitional pairs"))
        else:
            rows, method = _occupations(store, language, occupations, d_pca, d_g, d_s)
            values = np.abs([r["bias"] for r in rows])
            metrics["occupation_bias"] = _metric(value=float(values.mean()) if rows else None, n=len(rows),
                                                 method=method) if rows else \
                _metric(ERROR, reason="every occupation is out of vocabulary")
        if rows:
            _correlations(store, lang, language, occupations, rows, attributes, cell, metrics, lists.record)
        else:
            for key in ("corr_en_pearson", "corr_en_spearman", "corr_en_fig4_spearman"):
                metrics[key] = _metric(metrics["occupation_bias"]["status"] if lang != "en" else NOT_APPLICABLE,
                                       reason=metrics["occupation_bias"]["reason"] if lang != "en"
                                       else "English is the reference language")
        out.update(status=OK, shape=list(store.vectors.shape), lists=lists.record,
                   metrics={key: metrics[key] for key, _, _ in METRICS}, occupations=rows,
                   occupation_bias_method=method)
    except GeobiasError as exc:
        out.update(status=ERROR, error=_error_line(exc))
    except MemoryError:
        out.update(status=ERROR, error="out of memory")
    except Exception as exc:  # noqa: BLE001 - one failing cell must not stop the atlas
        out.update(status=ERROR, error=f"internal error: {type(exc).__name__}: {_error_line(exc)}")
    return out


def run_atlas(family: str, cells: list[dict], engine, *, cell_fn: Callable[[dict], dict] = run_cell,
              on_done: Callable[[int, dict], None] | None = None) -> AtlasResult:
    """Run every cell on ``engine`` (an open :func:`~geobias.engine.make_engine`).

    ``cell_fn`` runs one cell (the command layer passes :func:`run_cell` with its guard bound, as a
    module-level function a Ray worker can import); ``on_done(i, cell)`` is called as each cell
    finishes (progress).
    """
    done = engine.map_cells(cell_fn, cells, on_done=on_done)
    ordered = []
    for cell, res in zip(cells, done, strict=True):
        if "status" not in res:  # a task lost for good (see RayEngine.map_cells)
            res = {"lang": cell["lang"], "store": cell["store"], "status": ERROR, "error": res.get("error", "lost")}
        ordered.append(res)
    n_ok = sum(c["status"] == OK for c in ordered)
    options = dict(cells[0]["options"]) if cells else {}
    return AtlasResult(family=family, engine=engine.describe(), options=options, cells=ordered, n_ok=n_ok,
                       n_failed=len(ordered) - n_ok)


__all__ = ["AtlasResult", "METRICS", "METRIC_KEYS", "WEAT_TESTS", "family_sources", "plan_atlas", "run_atlas",
           "run_cell"]
