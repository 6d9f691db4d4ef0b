"""MWEAT: the WEAT variant of Zhou et al. (2019) for languages with grammatical gender."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

import numpy as np

from geobias._progress import ProgressArg
from geobias.choices import OOVPolicy, Similarity
from geobias.errors import InputError
from geobias.metrics._result import AssociationResult
from geobias.metrics.bootstrap import mweat_resampling, non_negative
from geobias.metrics.coverage import notes as coverage_notes
from geobias.metrics.declaration import Bars, FigureSpec, Metric, declare
from geobias.metrics.weat import association_scores
from geobias.query import WordQuery
from geobias.results import Result
from geobias.stats.bootstrap import BootstrapResult
from geobias.stats.permutation import (
    PERMUTATION_KEYS,
    Method,
    PermutationFields,
    PermutationResult,
    permutation_test,
)
from geobias.store import VectorStore
from geobias.validation import check_choice, renamed_keywords

__all__ = ["MweatResult", "PairBias", "mweat", "normalize_pairs", "word_bias"]


def word_bias(s_masculine: Any, s_feminine: Any = None, *, two_form: Any = None) -> np.ndarray:
    """Per-word bias of Zhou et al. (2019), §4.2.

    ``b_w = | |s(w_m)| − |s(w_f)| |`` for a noun with two forms and ``b_w = |s(w)|`` for a
    noun with one form (inanimate nouns, epicene occupations).

    Parameters
    ----------
    s_masculine : array-like of shape (n,)
        Association scores of the masculine (or only) forms.
    s_feminine : array-like of shape (n,), optional
        Scores of the feminine forms; omitted → every noun has one form.
    two_form : array-like of bool, shape (n,), optional
        Which nouns have two distinct forms (default: all, when ``s_feminine`` is given).

    Returns
    -------
    ndarray of shape (n,), float64, non-negative

    Raises
    ------
    InputError
        ``s_masculine`` and ``s_feminine`` differ in shape.

    References
    ----------
    Zhou, Shi, Zhao, Huang, Chen, Cotterell & Chang (2019), "Examining Gender Bias in Languages
    with Grammatical Gender", EMNLP-IJCNLP, §4.2 (per-word bias of two-form and inanimate nouns).
    """
    sm = np.abs(np.asarray(s_masculine, dtype=np.float64))
    if s_feminine is None:
        return sm
    sf = np.abs(np.asarray(s_feminine, dtype=np.float64))
    if sf.shape != sm.shape:
        raise InputError(f"score arrays differ in shape: {sm.shape} and {sf.shape}")
    mask = np.ones(sm.shape, dtype=bool) if two_form is None else np.asarray(two_form, dtype=bool)
    return np.where(mask, np.abs(sm - sf), sm)


def normalize_pairs(occupations: Sequence[Any]) -> list[tuple[str, str, str]]:
    """TwoFormWord-like items → ``(feminine, masculine, english)`` string triples.

    Accepts objects with ``feminine``/``masculine``[/``english``] attributes (e.g.
    ``geobias.wordlists.TwoFormWord``) or tuples ``(feminine, masculine[, english])``.
    """
    out = []
    for item in occupations:
        if hasattr(item, "feminine") and hasattr(item, "masculine"):
            f, m, en = item.feminine, item.masculine, getattr(item, "english", "") or ""
        else:
            t = tuple(item)
            if len(t) not in (2, 3):
                raise InputError(f"an occupation needs (feminine, masculine[, english]); got {item!r}")
            f, m = t[0], t[1]
            en = t[2] if len(t) == 3 else ""
        if not f or not m:
            raise InputError(f"an occupation has an empty form: {item!r}")
        out.append((str(f), str(m), str(en)))
    return out


@dataclass(frozen=True)
class PairBias(Result):
    """One occupation's forms, their association scores and its bias ``b_w``."""

    masculine: str
    feminine: str
    english: str
    s_masculine: float
    s_feminine: float
    bias: float


@dataclass(frozen=True)
class MweatResult(PermutationFields, AssociationResult):
    """MWEAT result (Zhou et al. 2019, eq. 1).

    Attributes
    ----------
    permutation : PermutationResult
        The one-sided (``"greater"``) shared permutation test of the statistic
        ``| |Σ_{x∈X} s(x, A, B)| − |Σ_{y∈Y} s(y, A, B)| |``, X the masculine and Y the
        feminine forms of the same occupations, A male and B female attribute words. Its
        figures read as attributes of the result too (``statistic``, ``p_value``,
        ``p_value_ci``, ``p_value_se``, ``n_permutations``, ``exact``, ``seed``,
        ``alternative``, ``paired``: whether permutations only swapped the two forms within
        each pair, an extension) and sit at the top level of the JSON form.
    n_pairs : int
        TwoFormWord pairs used (both forms in the vocabulary).
    sum_masculine, sum_feminine : float
        ``Σ_x s(x)`` and ``Σ_y s(y)``.
    missing : list of str
        Out-of-vocabulary words (forms and attribute words) that were skipped
        (:class:`geobias.metrics._result.AssociationResult`, as ``bootstrap_note``).
    dropped_pairs : list of (feminine, masculine, english)
        Occupations left out because a form is out of vocabulary.
    per_word : list of PairBias
        In input order; ``bias`` per :func:`word_bias`.
    similarity : str
    n_a, n_b : int
    difference : float or None
        Ours, not in the paper: the Caliskan-style ``Σ_x s(x) − Σ_y s(y)`` (signed; positive =
        the masculine forms lean to the male attribute words more than the feminine ones).
    difference_p_value : float or None
        Its one-sided (``"greater"``) permutation p-value over the same partitions (same seed).
    effect_size : float or None
        Ours: ``(mean_x s − mean_y s) / std_{X∪Y} s`` (ddof = 1), Caliskan's effect size on the
        MWEAT sets.
    signed_statistic : float or None
        ``|Σ_x s| − |Σ_y s|``: eq. 1 before its outer absolute value, so ``statistic ==
        abs(signed_statistic)``. > 0: the masculine forms lean to their side (the male attribute
        words) more than the feminine forms lean to theirs; < 0 the reverse; 0 no difference. The
        quantity the interval is of: it can contain 0 where eq. 1, never negative, cannot.
    bootstrap : BootstrapResult or None
        The bootstrap over the words of ``signed_statistic`` (occupations resampled as pairs, the
        male and female attribute words each within their set): percentile interval, standard
        error, Monte Carlo error of its bounds, resamples, seed and set sizes; ``None`` unless
        asked for. Eq. 1 itself has no percentile interval: never negative, it could not
        contain 0 (``bootstrap_query(..., quantity="statistic")`` gives one, with that note).
    bootstrap_sums : dict of str to BootstrapResult or None
        ``{"sum_masculine": ..., "sum_feminine": ...}``: the same resamples' intervals of the two
        sums (same seed, so the same draws); ``None`` unless a bootstrap was asked for.
    """

    permutation: PermutationResult
    n_pairs: int
    sum_masculine: float
    sum_feminine: float
    dropped_pairs: list[tuple[str, str, str]]
    per_word: list[PairBias]
    similarity: str
    n_a: int
    n_b: int
    difference: float | None = None
    difference_p_value: float | None = None
    effect_size: float | None = None
    signed_statistic: float | None = None
    bootstrap_sums: dict[str, BootstrapResult] | None = None

    #: The JSON form: flat, the permutation test's keys beside the result's own (the schema of
    #: ``--json``, the service and the README; see :class:`~geobias.stats.permutation.PermutationFields`).
    _json_keys: ClassVar[tuple[str, ...]] = (
        *PERMUTATION_KEYS, "signed_statistic", "n_pairs", "sum_masculine", "sum_feminine", "missing",
        "dropped_pairs", "per_word", "similarity", "paired", "n_a", "n_b", "difference", "difference_p_value",
        "effect_size", "bootstrap", "bootstrap_sums", "bootstrap_note",
    )


@renamed_keywords(n_permutations="permutations", method="permutation_method")
def mweat(
    store: VectorStore,
    query: WordQuery,
    *,
    permutations: int = 100_000,
    seed: int | None = 0,
    similarity: Literal["cosine", "dot"] = "cosine",
    paired: bool = False,
    oov: Literal["raise", "ignore"] = "raise",
    permutation_method: Method = "auto",
    progress: ProgressArg = None,
    bootstrap: int = 0,
    bootstrap_seed: int | None = 0,
) -> MweatResult:
    """Modified WEAT for grammatical-gender languages (Zhou et al. 2019, eq. 1 and §4.2).

    Parameters
    ----------
    store : VectorStore
    query : WordQuery
        A paired query (:meth:`WordQuery.two_form` builds one from TwoFormWord or
        ``(feminine, masculine[, english])`` rows): X = the masculine forms, Y = the feminine forms
        (same order), A, B = the male and female attribute (definition) words. With
        ``oov="ignore"`` its lost-vocabulary rule applies (pairs counted as pairs).
    permutations : int, default 100_000
        Monte-Carlo permutations (formerly ``n_permutations``, still read with a
        ``DeprecationWarning``: one name on every front door).
    seed : int or None, default 0
    similarity : {"cosine", "dot"}, default "cosine"
    paired : bool, default False
        ``False`` (the paper): permute the union X∪Y into two groups of the original sizes.
        ``True`` (an extension of ours, not in the paper): only swap the two forms within
        each occupation, a test conditional on the pairing.
    oov : {"raise", "ignore"}, default "raise"
        With ``"ignore"`` an occupation with an out-of-vocabulary form is left out as a whole
        and listed in ``dropped_pairs``; its missing forms are listed in ``missing``.
    permutation_method : {"auto", "exact", "monte-carlo"}, default "auto"
        See :func:`~geobias.stats.permutation_test` (formerly ``method``, still read with a
        ``DeprecationWarning``).
    progress : Progress, bool or None, optional
        Where the permutation test shows its partitions (:data:`geobias._progress.ProgressArg`).
    bootstrap : int, default 0
        Resamples of the bootstrap over the words (:func:`geobias.metrics.bootstrap.bootstrap_query`:
        each set resampled with replacement, the occupations as pairs); 0 computes none. The
        percentile interval of ``signed_statistic`` is the result's ``bootstrap``, those of the two
        sums its ``bootstrap_sums``. The command line and the service default to 1,000; a library
        call computes no interval unless asked, because the library's own analyses (the atlas,
        ``evaluate``, the erasure table, the calibration suite) call this function for the figures
        alone (docs/library.md, "Library and command defaults").
    bootstrap_seed : int or None, default 0

    Returns
    -------
    MweatResult

    Raises
    ------
    OutOfVocabularyError
        ``oov="raise"`` and a form or attribute word is missing.
    InputError
        Fewer than 2 occupation pairs usable (with one the effect size is ±√2 whatever the vectors),
        an attribute list entirely missing, a word in two sets, ``permutations <= 0``.

    Notes
    -----
    **The ceiling.** With ``T = Σ_x s + Σ_y s`` (fixed under every permutation), the statistic
    satisfies ``| |Σ_x| − |Σ_y| | <= |T|``, with equality exactly when the two group sums have
    opposite signs (or one is 0). So when the observed sums straddle zero (on our French
    vectors: Σ s(masculine) > 0 > Σ s(feminine)) the statistic is at its maximum, every
    re-partition whose sums also straddle zero ties it up to float rounding, and the p-value is
    the share of such partitions. Tie handling therefore decides the p-value: the shared test
    counts statistics within ``1e-10 · max(1, Σ|s|)`` of the observed one as ties (a plain float
    ``>=`` would miss about half of them at random). Eq. 1 stays the paper's statistic; beside it
    the result carries the Caliskan-style ``Σ_x s − Σ_y s`` with its own permutation p-value
    and effect size (``difference``, ``difference_p_value``, ``effect_size``: ours, not in
    the paper), which has no such ceiling.

    References
    ----------
    Zhou, Shi, Zhao, Huang, Chen, Cotterell & Chang (2019), "Examining Gender Bias in Languages
    with Grammatical Gender", EMNLP-IJCNLP, eq. (1) and §4.2. Caliskan, Bryson & Narayanan
    (2017), Science 356(6334) (the difference statistic and effect size).
    """
    check_choice("oov", oov, OOVPolicy)
    check_choice("similarity", similarity, Similarity)
    if not isinstance(query, WordQuery):
        raise InputError(f"expected a WordQuery, got {type(query).__name__} "
                         "(build one with WordQuery.two_form(occupations, A, B))")
    if not query.paired:
        raise InputError("MWEAT needs a paired query of two-form words (WordQuery.two_form(occupations, A, B))")
    rows = query.resolve(store, oov=oov, similarity=similarity, test="MWEAT")
    glosses = rows.glosses or rows.x_words
    kept = list(zip(rows.y_words, rows.x_words, glosses, strict=True))
    gloss_of = dict(zip(zip(query.X, query.Y, strict=True), query.glosses or query.X, strict=True))
    dropped = [(f, m, gloss_of[(m, f)]) for m, f in rows.dropped_pairs]
    x_vecs, y_vecs = rows.x, rows.y
    vecs = {"A": rows.a, "B": rows.b}
    found = {"A": rows.a_words, "B": rows.b_words}
    s = association_scores(np.concatenate([x_vecs, y_vecs]), vecs["A"], vecs["B"])
    n = len(kept)
    if n < 2:  # one pair: two scores, whose pooled deviation is |s_m − s_f| / √2
        raise InputError(f"MWEAT needs at least 2 occupation pairs; got {n}: with one, the effect size is ±√2 "
                         "whatever the vectors, and the permutation test has 2 partitions")
    s_m, s_f = s[:n], s[n:]
    perm = permutation_test(
        s,
        n,
        statistic="mweat",
        alternative="greater",
        n_permutations=permutations,
        seed=seed,
        paired=paired,
        method=permutation_method,
        progress=progress,
    )
    diff = permutation_test(s, n, statistic="difference", alternative="greater",
                            n_permutations=permutations, seed=seed, paired=paired, method=permutation_method)
    sd = float(np.std(s, ddof=1)) if len(s) > 1 else 0.0
    effect = float((s_m.mean() - s_f.mean()) / sd) if sd > 0 else None
    two_form = np.array([f != m for f, m, _ in kept])
    bias = word_bias(s_m, s_f, two_form=two_form)
    per_word = [
        PairBias(m, f, en, float(sm), float(sf), float(b))
        for (f, m, en), sm, sf, b in zip(kept, s_m, s_f, bias, strict=True)
    ]
    boot = sums = None
    if bootstrap:
        from geobias.metrics.bootstrap import bootstrap_query

        boot = bootstrap_query(rows, "mweat", n_resamples=bootstrap, seed=bootstrap_seed)
        if boot is not None:  # the same seed and sizes: the same draws for each sum
            sums = {q: bootstrap_query(rows, "mweat", quantity=q, n_resamples=bootstrap, seed=bootstrap_seed)
                    for q in ("sum_masculine", "sum_feminine")}
    return MweatResult(
        permutation=perm,
        n_pairs=n,
        sum_masculine=float(s_m.sum()),
        sum_feminine=float(s_f.sum()),
        missing=rows.missing,
        dropped_pairs=dropped,
        per_word=per_word,
        similarity=similarity,
        n_a=len(found["A"]),
        n_b=len(found["B"]),
        difference=float(diff.statistic),
        difference_p_value=float(diff.p_value),
        effect_size=effect,
        bootstrap=boot,
        signed_statistic=float(abs(s_m.sum()) - abs(s_f.sum())),
        bootstrap_sums=sums,
    )


def _resampling(rows, *, quantity: str | None = None):
    """The occupations resampled as pairs, A and B on their own (:func:`geobias.metrics.bootstrap.mweat_resampling`)."""
    return mweat_resampling(rows.x, rows.y, rows.a, rows.b, quantity=quantity)


def _bars(data: dict) -> Bars | None:
    """The 25 most biased pairs' b = ||s(m)| − |s(f)|| (blue: the masculine form more gendered)."""
    per_word = data.get("per_word") or []
    if not per_word:
        return None
    top = sorted(per_word, key=lambda p: -(p.get("bias") or 0))[:25]
    labels = [f"{p['masculine']}/{p['feminine']}" for p in top]
    colours = ["#1f77b4" if abs(p["s_masculine"] or 0) > abs(p["s_feminine"] or 0) else "#ff7f0e" for p in top]
    return Bars(labels, [p["bias"] for p in top],
                "MWEAT per-pair bias b = ||s(m)| − |s(f)|| (top 25; blue: masculine form more gendered)", "bias", colours)


METRIC = declare(Metric(
    "mweat", mweat, MweatResult, "two-form",
    summary="MWEAT: | |Σ s(masculine forms)| − |Σ s(feminine forms)| | with a one-sided permutation p-value.",
    sets=("X", "Y", "A", "B"), paired="X with Y (the two forms of one occupation)",
    quantities=("signed_statistic", "statistic", "difference", "effect_size", "sum_masculine", "sum_feminine"),
    resampling=_resampling, basic=("effect_size", "signed_statistic"),
    expanded={q: ("A", "B") for q in ("effect_size", "signed_statistic")},
    two_way={q: (("X", "Y"), ("A", "B")) for q in ("effect_size", "signed_statistic", "sum_masculine", "sum_feminine")},
    bootstrapped=("signed_statistic", "sum_masculine", "sum_feminine"),
    notes={"statistic": non_negative("read the interval of signed_statistic, |Σ_X s| − |Σ_Y s|, which can"),
           **coverage_notes("mweat")},
    figure=FigureSpec("per-pair bias bars", _bars),
))
