"""The erasure table: can semantic gender be erased from a grammatical-gender language while its
grammar is kept? Every method on one table, measured on words the erasers never saw, over
several seeds with confidence intervals.

Protocol (per seed; stated here once, printed in ``settings``)
--------------------------------------------------------------
- **Space.** The gendered store is unit-normalised and aligned to English by orthogonal
  Procrustes on the training dictionary (MUSE supervised mode); every eraser is fitted and
  applied in that shared space (Procrustes is a rotation, so erasing before or after aligning
  is the same map up to that rotation), and English is left unchanged except by the methods
  that change it (Hybrid). Erased rows are not re-normalised; cosine metrics normalise.
- **Fit words** (semantic gender): our person pairs (``wordlists/<lang>/person_pairs.tsv``)
  and the definitional pairs that contain no attribute word, a random ``fit_fraction`` of the
  pairs per seed. **Never fitted on**: the MWEAT attribute words A/B and the occupations —
  MWEAT and the semantic probe are scored on them (an eraser fitted on the attribute words
  equalises their means, so in-sample MWEAT is low by construction).
- **Grammatical nouns** (inanimate, ``nouns_*.txt``): balanced, at most ``max_nouns`` per
  gender, split in half per seed; d_g (LDA) and the probes are trained on one half and tested
  on the other. The keep-grammar erasers keep the d_g learned on the training half.
- **MWEAT** (Zhou et al. 2019 eq. 1), monolingual: X/Y = masculine/feminine occupation forms,
  A/B = the language's male/female attribute words; one-sided permutation p-value; and the
  companion ``Σ_X s − Σ_Y s`` (MWEAT's absolute values can hide a bias that remains).
- **Grammatical probe**: logistic regression, accuracy on the held-out nouns — *retrained* on
  the erased vectors, and *frozen* (trained on the original vectors, applied to erased ones);
  also the frozen LDA classifier whose direction is d_g (the subspace the keep-grammar
  erasers keep).
- **Semantic probe**: on the held-out person words (attribute words and occupation forms),
  5-fold cross-validation with both forms of a pair in the same fold; retrained and frozen;
  accuracy also split into attribute (kinship) words and occupation forms.
- **Distortion**: mean |Δcos| over ``n_pairs`` random word pairs of the vocabulary.
- **Utility**: P@1 NN and CSLS (k = 10) source → English on the test dictionary; word
  similarity (Spearman) of the source language; the flowers/insects WEAT (control; Caliskan et
  al. 2017 WEAT 1, effect size ddof = 1 as in :func:`geobias.metrics.weat`), not available (its
  rows ``None``, the reason in ``coverage["control_weat"]["not_available"]``) where a set lost more
  than the lost-vocabulary threshold of every metric (WEFE's 20% per set).
- **Intervals** (:func:`seed_summary`): quantities in [0, 1] (p-values, accuracies, P@1) as the
  median and range (min–max) over seeds; the others as the mean and a 95% Student-t interval of
  the mean across seeds, cut at the quantity's range, so no interval leaves its range (what
  varies: the fit-word subsample, the noun split, INLP's classifiers, the random pairs, the
  permutation draws).

Methods: ``original``; ``hard-debias`` (Bolukbasi et al. 2016 with the fit pairs as
definitional and equalise pairs and the fit words as gender-specific words: every other word is
neutralised, inanimate nouns included); Zhou et al.'s ``shift-ori``, ``shift-en``, ``de-align``,
``hybrid-ori``, ``hybrid-en`` (d_PCA from the fit pairs of the source language plus the English
definitional pairs; they move the occupation pairs by design, so their MWEAT is in-sample);
``leace``, ``leace-keep-grammar``, ``inlp``, ``inlp-keep-grammar``; ``inlp-35`` (table only: INLP
with 35 iterations and no stopping rule, Ravfogel et al.'s word-embedding setting).
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from geobias._progress import ProgressArg, reporter
from geobias.errors import InputError
from geobias.evaluation.recovery import RECOVERY_METRICS, RecoveryRows
from geobias.query import WordQuery
from geobias.results import Result
from geobias.stats.probes import (
    grouped_cv_predictions,
    logistic_probe,
    mean_abs_dcos,
    probe_accuracy,
)
from geobias.stats.summary import mean_ci  # noqa: F401 (part of this module's API)
from geobias.stats.summary import seed_summary as summarise_seeds
from geobias.store import VectorStore

if TYPE_CHECKING:
    from geobias.directions.subspace import GenderSubspace
    from geobias.metrics.weat import WeatResult

#: The table's own configurations of a registered method: name → (registry name, parameters
#: set after :meth:`~geobias.mitigation.Mitigation.from_fit_pairs`).
TABLE_VARIANTS = {"inlp-35": ("inlp", {"n_iterations": 35, "stop_at_chance": False})}
#: Method names of the erasure table (``original``, every registry name of
#: :data:`geobias.mitigation.METHODS` and :data:`TABLE_VARIANTS`; a test checks they agree), in
#: column order.
ERASURE_METHODS = ("original", "hard-debias", "shift-ori", "shift-en", "de-align", "hybrid-ori", "hybrid-en",
                   "leace", "leace-keep-grammar", "inlp", "inlp-keep-grammar", "inlp-35")
#: Methods that only this table evaluates (``geobias evaluate --methods`` routes here when one is named).
ERASURE_ONLY = ("hard-debias", "leace", "leace-keep-grammar", "inlp", "inlp-keep-grammar")
DEFAULT_METHODS = ("original", "hard-debias", "hybrid-ori", "leace", "leace-keep-grammar", "inlp", "inlp-keep-grammar")

#: Row order → labels.
ERASURE_METRICS = {
    "mweat_statistic": "MWEAT statistic (held-out)",
    "mweat_p_value": "MWEAT p-value",
    "sum_x_minus_sum_y": "Σ_X s − Σ_Y s (held-out)",
    "grammar_probe_retrained": "Grammatical probe, retrained",
    "grammar_probe_frozen": "Grammatical probe, frozen",
    "grammar_probe_frozen_lda": "Grammatical LDA (d_g), frozen",
    "semantic_probe_retrained": "Semantic probe, retrained",
    "semantic_probe_retrained_attributes": "  … on attribute words",
    "semantic_probe_retrained_occupations": "  … on occupation forms",
    "semantic_probe_frozen": "Semantic probe, frozen",
    "distortion_mean_abs_dcos": "Distortion mean |Δcos|",
    "p_at_1_nn": "P@1 NN src→en",
    "p_at_1_csls": "P@1 CSLS src→en",
    "similarity_spearman": "Similarity Spearman",
    "control_weat_effect_size": "Control WEAT (flowers/insects) d",
    "control_weat_p_value": "Control WEAT p-value",
    "rank_removed": "Dimensions removed",
}


@dataclass(frozen=True)
class ErasureTableResult(Result):
    """The erasure table.

    Attributes
    ----------
    lang : str
    table : dict
        ``table[method][metric] = {"mean", "median", "center", "ci_low", "ci_high", "interval", "clipped",
        "values"}`` (see :func:`seed_summary`: median and min–max for quantities in [0, 1], else the
        mean and its 95% t-interval cut at the quantity's range; ``values`` per seed; ``None`` where
        not computable).
    settings : dict
        Seeds, word counts, permutations, dictionaries and the protocol choices.
    coverage : dict
    timings : dict
        Seconds per method (all seeds).
    """

    lang: str
    table: dict
    settings: dict = field(default_factory=dict)
    coverage: dict = field(default_factory=dict)
    timings: dict = field(default_factory=dict)


#: The range of each quantity of the tables (an interval never leaves it).
_UNIT = (0.0, 1.0)
METRIC_RANGES: dict[str, tuple[float, float]] = {
    "mweat_statistic": (0.0, np.inf),
    "mweat_p_value": _UNIT,
    "sum_x_minus_sum_y": (-np.inf, np.inf),
    "grammar_probe_retrained": _UNIT,
    "grammar_probe_frozen": _UNIT,
    "grammar_probe_frozen_lda": _UNIT,
    "semantic_probe_retrained": _UNIT,
    "semantic_probe_retrained_attributes": _UNIT,
    "semantic_probe_retrained_occupations": _UNIT,
    "semantic_probe_frozen": _UNIT,
    "distortion_mean_abs_dcos": (0.0, 2.0),  # |cos a − cos b| with both cosines in [−1, 1]
    "p_at_1_nn": _UNIT,
    "p_at_1_csls": _UNIT,
    "similarity_spearman": (-1.0, 1.0),
    "control_weat_effect_size": (-2.0, 2.0),  # WEAT's d is bounded by 2 in absolute value
    "control_weat_p_value": _UNIT,
    "rank_removed": (0.0, np.inf),
    "direct_bias": _UNIT,
    "recover_cluster_accuracy": _UNIT,
    "recover_classifier_accuracy": _UNIT,
    "recover_neighbour_r": (-1.0, 1.0),
    "recover_profession_r": (-1.0, 1.0),
}


def metric_range(metric: str) -> tuple[float, float]:
    """The range of a table quantity: ``(low, high)``, possibly infinite.

    p-values, accuracies, P@1 and DirectBias lie in [0, 1]; WEAT effect sizes in [−2, 2];
    Spearman in [−1, 1]; unknown quantities are unbounded.
    """
    if metric in METRIC_RANGES:
        return METRIC_RANGES[metric]
    if metric.endswith("_p_value"):
        return _UNIT
    if metric.startswith("weat_") and metric.endswith("_effect_size"):
        return (-2.0, 2.0)
    return (-np.inf, np.inf)


def seed_summary(values: Sequence[float | None], metric: str, level: float = 0.95) -> dict:
    """The summary over seeds of one table quantity, inside its range (:func:`metric_range`):
    :func:`geobias.stats.summary.seed_summary` with the quantity's bounds.

    Examples
    --------
    >>> seed_summary([0.178, 0.215, 0.0002, 0.0085, 0.0004], "mweat_p_value")["ci_low"]
    0.0002
    """
    return summarise_seeds(values, metric_range(metric), level)


#: How the tables summarise seeds (recorded in each result's settings).
INTERVALS = ("quantities in [0, 1] (p-values, accuracies, P@1, DirectBias): median and range (min–max) over seeds; "
             "others: mean and 95% Student-t interval of the mean over seeds, cut at the quantity's range")


# ------------------------------------------------------------------------------- words
@dataclass(frozen=True)
class ErasureWords:
    """The word sets of the protocol for one language (see the module docstring)."""

    fit_pairs: list  # (feminine, masculine)
    attributes_male: list
    attributes_female: list
    occupations: list  # (feminine, masculine, english)
    nouns_masculine: list
    nouns_feminine: list

    @classmethod
    def for_language(cls, lang: str, store: VectorStore) -> ErasureWords:
        from geobias import wordlists

        male, female = wordlists.attribute_words(lang)
        attrs = set(male) | set(female)
        occ = [(o.feminine, o.masculine, o.english) for o in wordlists.occupations(lang) if o.feminine != o.masculine]
        occ_words = {w for o in occ for w in o[:2]}
        pairs = list(wordlists.definitional_pairs(lang))
        extra = wordlists.wordlist_dir() / lang / "person_pairs.tsv"
        if extra.exists():
            pairs += wordlists.read_pair_file(extra)
        fit = []
        for f, m in dict.fromkeys(pairs):
            if {f, m} & (attrs | occ_words) or f == m or f not in store or m not in store:
                continue
            fit.append((f, m))
        nm, nf = wordlists.gendered_nouns(lang)
        nm = [w for w in nm if w in store and w not in occ_words and w not in attrs]
        nf = [w for w in nf if w in store and w not in occ_words and w not in attrs]
        return cls(fit, [w for w in male if w in store], [w for w in female if w in store],
                   [o for o in occ if o[0] in store and o[1] in store], nm, nf)


# ------------------------------------------------------------------------------- fitting a method
def _fit_method(name: str, aligned: VectorStore, src: VectorStore, en: VectorStore, dictionary, *,
                fit_pairs: list, g_src: GenderSubspace, d_g: np.ndarray,
                nouns: tuple[list, list], seed: int, lexicon_two_form: list) -> tuple[VectorStore, VectorStore, int]:
    """Fit ``name`` (a registry name or a :data:`TABLE_VARIANTS` key) from the seed's fit words.

    A method that aligns with a dictionary (``needs_dictionary`` other than ``"never"``) is
    fitted on the unaligned gendered store ``src`` with ``g_src`` (it aligns the store and
    carries d_g over itself); every other method on ``aligned``, the shared space, with the
    aligned ``d_g``. English and the dictionary are passed to every method (those that do not
    use them ignore them).

    Returns
    -------
    (VectorStore, VectorStore, int)
        The erased source store in the shared space, the English store (debiased where the
        method changes English) and the dimensions removed.

    Raises
    ------
    InputError
        What the method's ``fit`` raises.
    """
    from geobias.mitigation import METHODS

    if name == "original":
        return aligned, en, 0
    registered, params = TABLE_VARIANTS.get(name, (name, {}))
    cls = METHODS[registered]
    aligns = cls.needs_dictionary != "never"
    est = cls.from_fit_pairs(fit_pairs, lang=src.lang or "xx", grammatical=g_src if aligns else d_g,
                             nouns=nouns, two_form=lexicon_two_form, random_state=seed).set_params(**params)
    s_out, e_out = est.fit_transform_pair(src if aligns else aligned, en=en, dictionary=dictionary)
    return s_out, e_out, est.dimensions_removed_



# ------------------------------------------------------------------------------- one seed's draw
@dataclass(frozen=True)
class _HeldOutPersons:
    """The semantic probe's held-out person words: the attribute words (paired by position when
    the lists are parallel) and both forms of each occupation; a pair is one group (one fold).

    ``y`` is 1 for masculine and 0 for feminine; ``kind`` is ``"attribute"`` or ``"occupation"``
    (ndarrays of shape (n,), aligned with ``words``).
    """

    words: list
    y: np.ndarray
    group: np.ndarray
    kind: np.ndarray

    @classmethod
    def of(cls, w: ErasureWords) -> _HeldOutPersons:
        words, y, group, kind = [], [], [], []
        for k, wm in enumerate(w.attributes_male):
            words.append(wm), y.append(1), group.append(f"a{k}"), kind.append("attribute")
        for k, wf in enumerate(w.attributes_female):
            words.append(wf), y.append(0), group.append(f"a{k}"), kind.append("attribute")
        for k, (f, m, _) in enumerate(w.occupations):
            words += [m, f]
            y += [1, 0]
            group += [f"o{k}", f"o{k}"]
            kind += ["occupation", "occupation"]
        return cls(words, np.array(y), np.array(group), np.array(kind))


@dataclass(frozen=True)
class _SeedDraw:
    """One seed's random draw: the fit pairs, then the balanced grammatical nouns (masculine
    draw first), split in half into probe train / test."""

    fit_pairs: list
    nouns_masculine: list
    nouns_feminine: list

    @property
    def half(self) -> int:
        return len(self.nouns_masculine) // 2

    @property
    def train_nouns(self) -> tuple[list, list]:
        return self.nouns_masculine[:self.half], self.nouns_feminine[:self.half]

    @property
    def train_words(self) -> list:
        return self.nouns_masculine[:self.half] + self.nouns_feminine[:self.half]

    @property
    def test_words(self) -> list:
        return self.nouns_masculine[self.half:] + self.nouns_feminine[self.half:]

    @property
    def train_y(self) -> np.ndarray:
        return np.array([1] * self.half + [0] * self.half)

    @property
    def test_y(self) -> np.ndarray:
        rest = len(self.nouns_masculine) - self.half
        return np.array([1] * rest + [0] * rest)


def _draw_seed(w: ErasureWords, seed: int, *, fit_fraction: float, max_nouns: int) -> _SeedDraw:
    """The seed's fit pairs (a sorted ``fit_fraction`` subsample, at least 4) and ``max_nouns``
    nouns per gender at most, drawn in that order from ``default_rng(seed)``."""
    rng = np.random.default_rng(seed)
    n_fit = max(4, int(round(fit_fraction * len(w.fit_pairs))))
    fit_pairs = [w.fit_pairs[i] for i in sorted(rng.choice(len(w.fit_pairs), n_fit, replace=False))]
    n_noun = min(max_nouns, len(w.nouns_masculine), len(w.nouns_feminine))
    nm = [w.nouns_masculine[i] for i in rng.choice(len(w.nouns_masculine), n_noun, replace=False)]
    nf = [w.nouns_feminine[i] for i in rng.choice(len(w.nouns_feminine), n_noun, replace=False)]
    return _SeedDraw(fit_pairs, nm, nf)


def _grammatical_direction(src: VectorStore, aligner, draw: _SeedDraw) -> tuple[GenderSubspace, np.ndarray]:
    """d_g (LDA) of the seed's training nouns in the source space, and carried into the shared
    space by the alignment (float64, unit norm)."""
    from geobias.mitigation._directions import grammatical_direction

    g_src = grammatical_direction(src, *draw.train_nouns)
    d_g = g_src.direction.astype(np.float64) @ aligner.W_
    return g_src, d_g / np.linalg.norm(d_g)


@dataclass(frozen=True)
class _SeedProbes:
    """What a seed fixes before any method: d_g, the frozen grammatical classifiers (trained on
    the original training nouns) and the original rows of the held-out person words."""

    g_src: GenderSubspace
    d_g: np.ndarray
    grammar_logreg: object
    grammar_lda: object
    persons_original: np.ndarray


def _seed_probes(src: VectorStore, aligned: VectorStore, aligner, draw: _SeedDraw,
                 persons: _HeldOutPersons) -> _SeedProbes:
    """d_g of the seed's training nouns and the probes trained on the original space (:class:`_SeedProbes`)."""
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

    g_src, d_g = _grammatical_direction(src, aligner, draw)
    x_tr0 = aligned[draw.train_words].astype(np.float64)
    tr_y = draw.train_y
    frozen_g = logistic_probe().fit(x_tr0, tr_y)
    frozen_lda = LinearDiscriminantAnalysis().fit(x_tr0, tr_y)
    return _SeedProbes(g_src, d_g, frozen_g, frozen_lda, aligned[persons.words].astype(np.float64))


# ------------------------------------------------------------------------------- rows of one method
@dataclass(frozen=True)
class _TableInputs:
    """What every (seed, method) cell of :func:`erasure_table` measures with, the same for every seed:
    the shared (aligned) original space, the test dictionary, the word sets, the control WEAT
    test, the similarity pairs (``None`` without a file), the counts and the recovery rows."""

    aligned: VectorStore
    test_dictionary: object
    words: ErasureWords
    persons: _HeldOutPersons
    control: object
    sim_pairs: list | None
    n_permutations: int
    n_pairs: int
    csls_k: int
    recover: RecoveryRows | None


def _mweat_rows(s_out: VectorStore, w: ErasureWords, *, n_permutations: int, seed: int) -> tuple[dict, dict]:
    """MWEAT on the held-out occupations and attribute words, with its coverage."""
    from geobias.metrics import mweat

    mw = mweat(s_out, WordQuery.two_form(w.occupations, w.attributes_male, w.attributes_female),
               permutations=n_permutations, seed=seed, oov="ignore")
    rows = {"mweat_statistic": mw.statistic, "mweat_p_value": mw.p_value,
            "sum_x_minus_sum_y": mw.sum_masculine - mw.sum_feminine}
    return rows, {"n_pairs": mw.n_pairs, "missing": list(mw.missing)}


def _grammar_rows(s_out: VectorStore, draw: _SeedDraw, probes: _SeedProbes) -> dict:
    """Grammatical probes on the held-out nouns: retrained, frozen logistic, frozen LDA."""
    x_tr = s_out[draw.train_words].astype(np.float64)
    x_te = s_out[draw.test_words].astype(np.float64)
    te_y = draw.test_y
    return {"grammar_probe_retrained": probe_accuracy(x_tr, draw.train_y, x_te, te_y),
            "grammar_probe_frozen": float(probes.grammar_logreg.score(x_te, te_y)),
            "grammar_probe_frozen_lda": float(probes.grammar_lda.score(x_te, te_y))}


def _semantic_rows(s_out: VectorStore, persons: _HeldOutPersons, probes: _SeedProbes, seed: int) -> dict:
    """Semantic probe on the held-out person words (grouped 5-fold): retrained (overall, on
    attribute words, on occupation forms) and frozen (trained on the original rows)."""
    hp1 = s_out[persons.words].astype(np.float64)
    pred = grouped_cv_predictions(hp1, hp1, persons.y, persons.group, seed=seed)
    ok = pred == persons.y
    rows = {"semantic_probe_retrained": float(ok.mean()),
            "semantic_probe_retrained_attributes": float(ok[persons.kind == "attribute"].mean()),
            "semantic_probe_retrained_occupations": float(ok[persons.kind == "occupation"].mean())}
    pred_f = grouped_cv_predictions(probes.persons_original, hp1, persons.y, persons.group, seed=seed)
    rows["semantic_probe_frozen"] = float((pred_f == persons.y).mean())
    return rows


def _translation_rows(s_out: VectorStore, e_out: VectorStore, test_dictionary, csls_k: int) -> tuple[dict, dict]:
    """P@1 source → English by nearest neighbour and by CSLS on one index, with the coverage."""
    from geobias.alignment import CslsIndex, translation_accuracy

    index = CslsIndex(s_out.unit_vectors, e_out.unit_vectors, k=csls_k)
    rows, coverage = {}, {}
    for how in ("nn", "csls"):
        r = translation_accuracy(s_out, e_out, test_dictionary, method=how, ks=(1,), csls_k=csls_k, index=index)
        rows[f"p_at_1_{how}"] = r.precision["p_at_1"]
        coverage = {"queries": r.n_queries, "coverage": r.coverage}
    return rows, coverage


def _similarity_rows(s_out: VectorStore, sim_pairs: list | None) -> tuple[dict, dict | None]:
    """Word-similarity Spearman of the source language (``None`` without a similarity file)."""
    from geobias.evaluation.similarity import word_similarity

    if sim_pairs is None:
        return {"similarity_spearman": None}, None
    sim = word_similarity(s_out, sim_pairs)
    return {"similarity_spearman": sim.spearman}, {"covered": sim.n_covered, "pairs": sim.n_pairs}


def _rule_weat(store: VectorStore, sets, words: str, *, n_permutations: int,
               seed: int) -> tuple[WeatResult | None, dict, str | None]:
    """One WEAT of the erasure tables under the lost-vocabulary rule of every metric
    (:data:`geobias.query.LOST_VOCABULARY_THRESHOLD`, WEFE's 0.2 per set), or why it is not available.

    Returns
    -------
    result : WeatResult or None
        ``None`` where a set lost more than the rule allows (or fell below its minimum size): a
        WEAT on what is left describes a handful of words, not the sets.
    kept : dict of str to int
        Words of each set (``"X"``, ``"Y"``, ``"A"``, ``"B"``) the store has.
    reason : str or None
        One line naming each set that lost too much and how many of its words it kept
        (``"not available: too few science-arts words in vocabulary (X keeps 6 of 8; …)"``); ``None``
        when the WEAT ran. ``words`` names the test in it.
    """
    from geobias.metrics import weat
    from geobias.query import LostVocabularyError

    query = WordQuery(sets.X, sets.Y, sets.A, sets.B)
    kept = {k: n - m for k, (m, n) in query.lost_shares(store).items()}
    try:
        r = weat(store, query, permutations=n_permutations, seed=seed, oov="ignore")
    except LostVocabularyError as exc:
        lost = ", ".join(f"{name} keeps {n - m} of {n}" for name, (m, n) in exc.lost.items())
        return None, kept, (f"not available: too few {words} words in vocabulary ({lost}; the lost-vocabulary "
                            f"threshold is {exc.threshold:.0%} per set)")
    return r, kept, None


def _control_weat_rows(s_out: VectorStore, control, *, n_permutations: int, seed: int) -> tuple[dict, dict]:
    """The flowers/insects control WEAT, with its coverage.

    The lost-vocabulary rule of every metric holds here too (:func:`_rule_weat`): where a set lost
    more, the rows are ``None`` and the coverage says why (``not_available``) (fr-spacy-md keeps 2
    of 24 flowers and 4 of 24 insects, whose exact p cannot fall below 1/15).
    """
    cw, kept, reason = _rule_weat(s_out, control, "flowers/insects", n_permutations=n_permutations, seed=seed)
    if cw is None:
        rows = {"control_weat_effect_size": None, "control_weat_p_value": None}
        return rows, {"n_x": kept["X"], "n_y": kept["Y"], "n_a": kept["A"], "n_b": kept["B"], "not_available": reason}
    rows = {"control_weat_effect_size": cw.effect_size, "control_weat_p_value": cw.p_value}
    return rows, {"n_x": cw.n_x, "n_y": cw.n_y, "n_a": cw.n_a, "n_b": cw.n_b, "exact": cw.exact}


def _method_rows(name: str, s_out: VectorStore, e_out: VectorStore, rank: int, t: _TableInputs,
                 draw: _SeedDraw, probes: _SeedProbes, seed: int) -> tuple[dict, dict]:
    """Every row of one (seed, method) cell, and the coverage it reports.

    Returns
    -------
    (dict, dict)
        ``{metric: value}`` for each key of :data:`ERASURE_METRICS` (and the recovery metrics
        when ``t.recover`` is set); coverage keyed ``translation``, ``similarity`` (with a
        similarity file), ``mweat``, ``control_weat``.
    """
    rows: dict = {"rank_removed": rank}
    mweat_rows, mweat_coverage = _mweat_rows(s_out, t.words, n_permutations=t.n_permutations, seed=seed)
    rows |= mweat_rows
    rows |= _grammar_rows(s_out, draw, probes)
    rows |= _semantic_rows(s_out, t.persons, probes, seed)
    rows["distortion_mean_abs_dcos"] = mean_abs_dcos(t.aligned, s_out, n_pairs=t.n_pairs, seed=seed)
    translation_rows, coverage = _translation_rows(s_out, e_out, t.test_dictionary, t.csls_k)
    rows |= translation_rows
    similarity_rows, similarity_coverage = _similarity_rows(s_out, t.sim_pairs)
    rows |= similarity_rows
    control_rows, control_coverage = _control_weat_rows(s_out, t.control, n_permutations=t.n_permutations, seed=seed)
    rows |= control_rows
    if t.recover is not None:
        rows |= t.recover.row(name, s_out, seed)
    cell_coverage = {"translation": coverage}
    if similarity_coverage is not None:
        cell_coverage["similarity"] = similarity_coverage
    cell_coverage |= {"mweat": mweat_coverage, "control_weat": control_coverage}
    return rows, cell_coverage


# ------------------------------------------------------------------------------- the table
def _check_table_request(src: VectorStore, en: VectorStore, methods: Sequence[str], seeds: Sequence[int],
                         fit_fraction: float) -> None:
    """Raise :class:`InputError` for a request :func:`erasure_table` cannot serve."""
    if src.lang == "en":
        raise InputError("the erasure table is for a grammatical-gender language (fr, es, de); got en")
    unknown = [m for m in methods if m not in ERASURE_METHODS]
    if unknown:
        raise InputError(f"unknown method(s) {', '.join(unknown)}; choose from {', '.join(ERASURE_METHODS)}")
    if not seeds:
        raise InputError("no seed given")
    if not 0 < fit_fraction <= 1:
        raise InputError(f"fit_fraction must be in (0, 1]; got {fit_fraction}")
    if src.dim != en.dim:
        raise InputError(f"dimensions differ: {src.lang} {src.dim}, en {en.dim}")


def _summarise(per: dict[str, dict[str, list]]) -> dict:
    """``table[method][metric]`` = :func:`seed_summary` of the per-seed values."""
    return {m: {k: seed_summary(v, k) for k, v in rows.items()} for m, rows in per.items()}


def _append_rows(row: dict[str, list], values: dict) -> None:
    for k, v in values.items():
        row[k].append(v)


def erasure_table(
    src: VectorStore,
    en: VectorStore,
    dictionary,
    test_dictionary,
    *,
    similarity: str | os.PathLike | None = None,
    methods: Sequence[str] = DEFAULT_METHODS,
    seeds: Sequence[int] = (0, 1, 2, 3, 4),
    fit_fraction: float = 0.8,
    max_nouns: int = 2000,
    n_permutations: int = 10_000,
    n_pairs: int = 20_000,
    csls_k: int = 10,
    words: ErasureWords | None = None,
    recoverability: bool = False,
    recovery_options: dict | None = None,
    progress: ProgressArg = None,
) -> ErasureTableResult:
    """Every method on the erasure table (protocol in the module docstring).

    Parameters
    ----------
    src : VectorStore
        The gendered language (fr, es, de), original (unaligned) vectors.
    en : VectorStore
        English vectors of the same dimension.
    dictionary, test_dictionary : Dictionary
        Source → English training (alignment) and test (P@1) pairs.
    similarity : path, optional
        Word-similarity file of the source language (``w1 w2 score``).
    methods : sequence of str, default :data:`DEFAULT_METHODS`
        Names of :data:`ERASURE_METHODS`.
    seeds : sequence of int, default (0, 1, 2, 3, 4)
    fit_fraction : float, default 0.8
        Share of the fit pairs drawn per seed.
    max_nouns : int, default 2000
        Grammatical nouns per gender (balanced), split in half into probe train/test.
    n_permutations : int, default 10_000
        MWEAT and control WEAT permutations.
    n_pairs : int, default 20_000
        Random word pairs of the distortion measure.
    csls_k : int, default 10
    words : ErasureWords, optional
        Default: :meth:`ErasureWords.for_language`.
    recoverability : bool, default False
        Add Gonen & Goldberg's (2019) recovery tests as rows per seed
        (:data:`~geobias.evaluation.recovery.RECOVERY_METRICS`; bias = projection on d_s in the
        original space, inanimate nouns and gender-definitional words left out).
    recovery_options : dict, optional
        ``n_biased``, ``n_classify``, ``n_train``, ``k`` (default the paper's).
    progress : Progress, bool or None, optional
        Shows the (seed, method) being evaluated (a stage whose text changes; see
        :data:`geobias._progress.ProgressArg`).

    Returns
    -------
    ErasureTableResult

    Raises
    ------
    InputError
        ``src`` is English or lacks gendered nouns; unknown method; no seed; dimensions differ;
        a dictionary without pairs in vocabulary; fewer than 4 fit pairs.

    References
    ----------
    Zhou et al. (2019) eq. 1 (MWEAT), §4.3 (P@1, similarity); Caliskan et al. (2017) (WEAT);
    Belrose et al. (2023) (LEACE); Ravfogel et al. (2020) (INLP); Bolukbasi et al. (2016).
    """
    from geobias import wordlists
    from geobias.alignment import ProcrustesAligner
    from geobias.evaluation.similarity import read_similarity_file

    _check_table_request(src, en, methods, seeds, fit_fraction)
    lang = src.lang or "xx"
    src = src.normalized()
    en = en.normalized()
    w = words or ErasureWords.for_language(lang, src)
    if len(w.fit_pairs) < 4:
        raise InputError(f"only {len(w.fit_pairs)} fit pairs in the vocabulary; need at least 4")
    sim_pairs = read_similarity_file(similarity) if similarity is not None else None
    control = wordlists.weat_test(lang, "flowers-insects")
    two_form = [(o.feminine, o.masculine, o.english) for o in wordlists.occupations(lang)]
    aligner = ProcrustesAligner().fit(src, en, dictionary)
    aligned = aligner.transform(src)
    persons = _HeldOutPersons.of(w)
    keys = [*ERASURE_METRICS, *(RECOVERY_METRICS if recoverability else ())]
    per: dict[str, dict[str, list]] = {m: {k: [] for k in keys} for m in methods}
    timings = dict.fromkeys(methods, 0.0)
    coverage: dict = {}
    recover = RecoveryRows(src, lang, recovery_options) if recoverability else None
    inputs = _TableInputs(aligned, test_dictionary, w, persons, control, sim_pairs, n_permutations, n_pairs, csls_k,
                          recover)
    with reporter(progress).status('erasing') as update:
        for seed in seeds:
            draw = _draw_seed(w, seed, fit_fraction=fit_fraction, max_nouns=max_nouns)
            probes = _seed_probes(src, aligned, aligner, draw, persons)
            for name in methods:
                update(f"seed {seed}: {name}")
                t0 = time.perf_counter()
                s_out, e_out, rank = _fit_method(name, aligned, src, en, dictionary, fit_pairs=draw.fit_pairs,
                                                 g_src=probes.g_src, d_g=probes.d_g, nouns=draw.train_nouns,
                                                 seed=seed, lexicon_two_form=two_form)
                rows, cell_coverage = _method_rows(name, s_out, e_out, rank, inputs, draw, probes, seed)
                _append_rows(per[name], rows)
                coverage |= cell_coverage
                timings[name] += time.perf_counter() - t0
            coverage.setdefault("fit_pairs_per_seed", {})[str(seed)] = [list(p) for p in draw.fit_pairs]
    settings = _table_settings(w, dictionary, test_dictionary, similarity=similarity, seeds=seeds,
                               fit_fraction=fit_fraction, max_nouns=max_nouns, n_permutations=n_permutations,
                               n_pairs=n_pairs, csls_k=csls_k)
    return ErasureTableResult(lang, _summarise(per), settings, coverage, timings)


def _table_settings(w: ErasureWords, dictionary, test_dictionary, *, similarity, seeds: Sequence[int],
                    fit_fraction: float, max_nouns: int, n_permutations: int, n_pairs: int, csls_k: int) -> dict:
    """The settings recorded with :func:`erasure_table`'s result."""
    return {
        "seeds": list(seeds), "fit_fraction": fit_fraction, "n_fit_pairs_pool": len(w.fit_pairs),
        "n_fit_pairs_per_seed": max(4, int(round(fit_fraction * len(w.fit_pairs)))),
        "n_attribute_words": [len(w.attributes_male), len(w.attributes_female)],
        "n_occupations": len(w.occupations), "nouns_per_gender": min(max_nouns, len(w.nouns_masculine), len(w.nouns_feminine)),
        "noun_split": "half train / half test", "n_permutations": n_permutations, "n_distortion_pairs": n_pairs,
        "csls_k": csls_k, "dictionary": getattr(dictionary, "source", None),
        "test_dictionary": getattr(test_dictionary, "source", None),
        "similarity": str(similarity) if similarity else None, "interval": INTERVALS,
        "space": "source unit-normalised and Procrustes-aligned to English; erasers fitted there",
    }


# ------------------------------------------------------------------------------- English
ENGLISH_METHODS = ("original", "hard-debias", "leace", "inlp")
#: WEAT 6 with names (``career-family``) is left out: 2 of its 8 male and 1 of its 8 female names are
#: in en-w2v-gnews, too few for a test.
ENGLISH_WEATS = ("career-family-terms", "math-arts", "science-arts", "flowers-insects")

#: Row order → labels of the English table.
ENGLISH_METRICS = {
    "direct_bias": "DirectBias (c=1), occupations",
    **{f"weat_{t}_effect_size": f"WEAT {t} d" for t in ENGLISH_WEATS},
    **{f"weat_{t}_p_value": f"WEAT {t} p" for t in ENGLISH_WEATS},
    "semantic_probe_retrained": "Semantic probe, retrained (held-out)",
    "distortion_mean_abs_dcos": "Distortion mean |Δcos|",
    "similarity_spearman": "Similarity Spearman",
    "rank_removed": "Dimensions removed",
}


def english_erasure_table(
    en: VectorStore,
    *,
    methods: Sequence[str] = ENGLISH_METHODS,
    seeds: Sequence[int] = (0, 1, 2, 3, 4),
    fit_fraction: float = 0.8,
    similarity: str | os.PathLike | None = None,
    n_permutations: int = 10_000,
    n_pairs: int = 20_000,
    recoverability: bool = False,
    recovery_options: dict | None = None,
    progress: ProgressArg = None,
) -> ErasureTableResult:
    """DirectBias and WEAT before/after each eraser on English vectors (with ``recoverability``,
    Gonen & Goldberg's recovery tests too; bias = projection on d_PCA; see :func:`erasure_table`).

    Fit words: our English semantic-gender words (definitional and equalise pairs, attribute
    words) minus every word of the definitional pairs, the attribute words and the WEAT tests
    (held out), a random ``fit_fraction`` per seed. ``hard-debias`` is Bolukbasi et al.'s method
    with the project's full lists (its definitional pairs and gender-specific words include the
    held-out words: in-sample by construction). DirectBias (Bolukbasi et al. 2016 §5.2, c = 1) is
    measured on the one-form English occupations along g = d_PCA of the definitional pairs
    recomputed on the evaluated vectors. The semantic probe is 5-fold cross-validated on the
    held-out definitional pairs and attribute words. Each WEAT obeys the lost-vocabulary rule of
    every metric (WEFE's 20% per set): where a set lost more, its rows are ``None`` and
    ``coverage["weat_<test>"]["not_available"]`` says which set kept how many of its words
    (en-w2v-gnews keeps 6 of 8 science words and 2 of 25 flowers).

    Parameters
    ----------
    en : VectorStore
    methods : sequence of {"original", "hard-debias", "leace", "inlp"}
    seeds, fit_fraction, similarity, n_permutations, n_pairs, progress
        As :func:`erasure_table`.

    Returns
    -------
    ErasureTableResult
        ``lang = "en"``; metrics keyed as :data:`ENGLISH_METRICS`.

    Raises
    ------
    InputError
        Unknown method (the ``*-keep-grammar`` methods need grammatical gender), no seed.

    References
    ----------
    Bolukbasi et al. (2016), §5.2 (DirectBias); Caliskan et al. (2017) (WEAT).
    """
    from geobias.evaluation.similarity import read_similarity_file

    unknown = [m for m in methods if m not in ENGLISH_METHODS]
    if unknown:
        raise InputError(f"method(s) {', '.join(unknown)} not available for English; choose from {', '.join(ENGLISH_METHODS)} "
                         "(keeping grammar needs a grammatical-gender language)")
    if not seeds:
        raise InputError("no seed given")
    en = en.normalized()
    ew = _EnglishWords.for_store(en)
    sim_pairs = read_similarity_file(similarity) if similarity is not None else None
    keys = [*ENGLISH_METRICS, *(RECOVERY_METRICS if recoverability else ())]
    per: dict[str, dict[str, list]] = {m: {k: [] for k in keys} for m in methods}
    recover = RecoveryRows(en, "en", recovery_options) if recoverability else None
    timings = dict.fromkeys(methods, 0.0)
    coverage = {f"weat_{t}": {k: sum(w in en for w in getattr(sets, k)) for k in "XYAB"} for t, sets in ew.tests.items()}
    with reporter(progress).status('erasing') as update:
        for seed in seeds:
            fit_words = _draw_english_fit(ew, seed, fit_fraction)
            for name in methods:
                update(f"en seed {seed}: {name}")
                t0 = time.perf_counter()
                out, rank = _fit_english_method(name, en, fit_words)
                rows = {"rank_removed": rank}
                english_rows, not_available = _english_rows(out, en, ew, sim_pairs, n_permutations=n_permutations,
                                                             n_pairs=n_pairs, seed=seed)
                rows |= english_rows
                for t, reason in not_available.items():
                    coverage[f"weat_{t}"]["not_available"] = reason
                if recover is not None:
                    rows |= recover.row(name, out, seed)
                _append_rows(per[name], rows)
                timings[name] += time.perf_counter() - t0
    settings = {"seeds": list(seeds), "fit_fraction": fit_fraction, "n_fit_pool": [len(ew.masculine), len(ew.feminine)],
                "n_heldout_person_words": len(ew.persons_words), "n_neutral_occupations": len(ew.neutral),
                "n_permutations": n_permutations, "n_distortion_pairs": n_pairs,
                "similarity": str(similarity) if similarity else None, "interval": INTERVALS,
                "hard_debias": "Bolukbasi et al. 2016 with the project's full English lists (in-sample)"}
    return ErasureTableResult("en", _summarise(per), settings, coverage, timings)


@dataclass(frozen=True)
class _EnglishWords:
    """The word sets of :func:`english_erasure_table`: the WEAT tests, the definitional pairs in
    the store, the fit pool (semantic-gender words minus every held-out word), the one-form
    occupations of DirectBias and the held-out person words of the semantic probe (``y`` 1 for
    masculine, 0 for feminine; one group per word)."""

    tests: dict
    defs: list
    masculine: list
    feminine: list
    neutral: list
    persons_words: list
    persons_y: np.ndarray
    persons_group: np.ndarray

    @classmethod
    def for_store(cls, en: VectorStore) -> _EnglishWords:
        from geobias import wordlists
        from geobias.mitigation._erasure import semantic_gender_words

        tests = {t: wordlists.weat_test("en", t) for t in ENGLISH_WEATS}
        defs = [p for p in wordlists.definitional_pairs("en") if p[0] in en and p[1] in en]
        male, female = wordlists.attribute_words("en")
        held = {w for p in defs for w in p} | set(male) | set(female)
        for t in tests.values():
            held |= set(t.X) | set(t.Y) | set(t.A) | set(t.B)
        masc_all, fem_all = semantic_gender_words("en", exclude=sorted(held))
        masc_all = [w for w in masc_all if w in en]
        fem_all = [w for w in fem_all if w in en]
        neutral = [o.masculine for o in wordlists.occupations("en") if o.feminine == o.masculine]
        hp = [(m, 1) for _, m in defs] + [(f, 0) for f, _ in defs]
        hp += [(w, 1) for w in male if w in en] + [(w, 0) for w in female if w in en]
        hp = list(dict(hp).items())
        return cls(tests, defs, masc_all, fem_all, neutral, [w for w, _ in hp], np.array([y for _, y in hp]),
                   np.arange(len(hp)))


def _draw_english_fit(ew: _EnglishWords, seed: int, fit_fraction: float) -> dict:
    """The seed's fit words (a sorted ``fit_fraction`` subsample of each gender, at least 2,
    masculine drawn first from ``default_rng(seed)``) as the parameters a method takes."""
    rng = np.random.default_rng(seed)
    masc_all, fem_all = ew.masculine, ew.feminine
    fm = [masc_all[i] for i in sorted(rng.choice(len(masc_all), max(2, int(round(fit_fraction * len(masc_all)))), replace=False))]
    ff = [fem_all[i] for i in sorted(rng.choice(len(fem_all), max(2, int(round(fit_fraction * len(fem_all)))), replace=False))]
    return {"masculine": fm, "feminine": ff, "random_state": seed}


def _fit_english_method(name: str, en: VectorStore, fit_words: dict) -> tuple[VectorStore, int]:
    """The English store after method ``name`` and the dimensions it removed; a method takes the
    parameters of ``fit_words`` it has (hard debias takes none: the project's lists)."""
    from geobias.mitigation import METHODS

    if name == "original":
        return en, 0
    est = METHODS[name]()
    est.set_params(**{k: v for k, v in fit_words.items() if k in est.get_params()})
    return est.fit_transform_pair(en)[0], est.dimensions_removed_


def _english_rows(out: VectorStore, en: VectorStore, ew: _EnglishWords, sim_pairs: list | None, *,
                  n_permutations: int, n_pairs: int, seed: int) -> tuple[dict, dict]:
    """DirectBias, the WEAT rows, the semantic probe, distortion and similarity of one English space,
    and ``{test: reason}`` for each WEAT that is not available (:func:`_rule_weat`; its rows ``None``)."""
    from geobias.evaluation.similarity import word_similarity
    from geobias.mitigation import direct_bias
    from geobias.mitigation._directions import semantic_direction

    g = semantic_direction(out.normalized(), ew.defs).direction.astype(np.float64)
    rows = {"direct_bias": direct_bias(out, g, ew.neutral).direct_bias}
    not_available = {}
    for t, sets in ew.tests.items():
        r, _, reason = _rule_weat(out, sets, t, n_permutations=n_permutations, seed=seed)
        rows[f"weat_{t}_effect_size"] = None if r is None else r.effect_size
        rows[f"weat_{t}_p_value"] = None if r is None else r.p_value
        if reason is not None:
            not_available[t] = reason
    x = out[ew.persons_words].astype(np.float64)
    pred = grouped_cv_predictions(x, x, ew.persons_y, ew.persons_group, seed=seed)
    rows["semantic_probe_retrained"] = float((pred == ew.persons_y).mean())
    rows["distortion_mean_abs_dcos"] = mean_abs_dcos(en, out, n_pairs=n_pairs, seed=seed)
    rows["similarity_spearman"] = word_similarity(out, sim_pairs).spearman if sim_pairs else None
    return rows, not_available


# ------------------------------------------------------------------------------- plot
PLANE_METHODS = ("original", "leace", "leace-keep-grammar", "inlp-keep-grammar")


@dataclass(frozen=True)
class ErasurePlane(Result):
    """Held-out words on the semantic × grammatical plane, per erasure method
    (:func:`erasure_plane`; drawn by :func:`geobias.report.plots.plot_erasure_plane`).

    Attributes
    ----------
    lang : str
    seed : int
    points : dict
        ``points[method][kind][gender] = (x, y)``: ``kind`` ``"inanimate nouns"`` or
        ``"person words"``, ``gender`` ``"masculine"`` or ``"feminine"``; ``x = ⟨w, d_s⟩`` and
        ``y = ⟨w, d_g⟩`` (ndarrays of shape (n,), float64) of the unit-normalised erased rows.
    d_pca : (float, float)
        d_PCA in the plane: ``(⟨d_PCA, d_s⟩, ⟨d_PCA, d_g⟩)``.
    """

    lang: str
    seed: int
    points: dict
    d_pca: tuple[float, float]


def erasure_plane(src: VectorStore, en: VectorStore, dictionary, *,
                  methods: Sequence[str] = PLANE_METHODS, seed: int = 0, fit_fraction: float = 0.8,
                  n_nouns: int = 150, words: ErasureWords | None = None) -> ErasurePlane:
    """Projection plane before/after erasure: the points of one panel per method.

    x = ⟨w, d_s⟩ (semantic direction: d_PCA of the seed's fit pairs, orthogonalised to d_g),
    y = ⟨w, d_g⟩ (LDA grammatical direction of the training nouns), both fixed from the
    original aligned space so the panels are comparable. Points: ``n_nouns`` held-out inanimate
    nouns per gender and the held-out person words (attribute words and occupation forms).

    Returns
    -------
    ErasurePlane

    Raises
    ------
    InputError
        See :func:`erasure_table`.
    """
    from geobias.alignment import ProcrustesAligner
    from geobias.mitigation._directions import orthogonal_semantic, semantic_direction

    lang = src.lang or "xx"
    src = src.normalized()
    en = en.normalized()
    w = words or ErasureWords.for_language(lang, src)
    aligner = ProcrustesAligner().fit(src, en, dictionary)
    aligned = aligner.transform(src)
    draw = _draw_seed(w, seed, fit_fraction=fit_fraction, max_nouns=2000)
    fit_pairs, nm, nf, half = draw.fit_pairs, draw.nouns_masculine, draw.nouns_feminine, draw.half
    g_src, d_g = _grammatical_direction(src, aligner, draw)
    d_pca = semantic_direction(aligned, fit_pairs).direction.astype(np.float64)
    d_s = orthogonal_semantic(d_pca, d_g)
    nouns = nm[half:half + n_nouns] + nf[half:half + n_nouns]
    noun_g = ["masculine"] * len(nm[half:half + n_nouns]) + ["feminine"] * len(nf[half:half + n_nouns])
    persons = list(w.attributes_male) + [o[1] for o in w.occupations] + list(w.attributes_female) + [o[0] for o in w.occupations]
    person_g = ["masculine"] * (len(w.attributes_male) + len(w.occupations)) + ["feminine"] * (len(w.attributes_female) + len(w.occupations))
    points: dict = {}
    for name in methods:
        out, _, _ = _fit_method(name, aligned, src, en, dictionary, fit_pairs=fit_pairs, g_src=g_src, d_g=d_g,
                                nouns=(nm[:half], nf[:half]), seed=seed, lexicon_two_form=[])
        points[name] = {}
        for ws, gs, label in ((nouns, noun_g, "inanimate nouns"), (persons, person_g, "person words")):
            v = out[ws].astype(np.float64)
            v /= np.linalg.norm(v, axis=1, keepdims=True)
            points[name][label] = {}
            for g in ("masculine", "feminine"):
                sel = [i for i, gi in enumerate(gs) if gi == g]
                points[name][label][g] = (v[sel] @ d_s, v[sel] @ d_g)
    return ErasurePlane(lang, seed, points, (float(d_pca @ d_s), float(d_pca @ d_g)))
