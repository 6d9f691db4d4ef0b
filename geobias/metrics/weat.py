"""WEAT (Caliskan et al. 2017) and the association score it rests on."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, Literal

import numpy as np

from geobias._progress import ProgressArg
from geobias.errors import InputError
from geobias.metrics._result import AssociationResult
from geobias.metrics.bootstrap import weat_resampling
from geobias.metrics.coverage import notes as coverage_notes
from geobias.metrics.declaration import Bars, FigureSpec, Metric, declare
from geobias.query import WordQuery, lookup_sets
from geobias.results import Result
from geobias.stats.permutation import (
    PERMUTATION_KEYS,
    Alternative,
    Method,
    PermutationFields,
    PermutationResult,
    permutation_test,
)
from geobias.store import VectorStore
from geobias.validation import renamed_keywords

__all__ = ["WeatResult", "WordAssociation", "association", "association_scores", "weat"]


def association_scores(words: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``s(w, A, B) = mean_a <w, a> − mean_b <w, b>`` for rows already normalised as wanted.

    One matrix product: ``words @ (mean(a) − mean(b))``.

    Parameters
    ----------
    words : ndarray of shape (n, dim)
    a : ndarray of shape (n_a, dim)
    b : ndarray of shape (n_b, dim)

    Returns
    -------
    ndarray of shape (n,), float64

    References
    ----------
    Caliskan, Bryson & Narayanan (2017), "Semantics derived automatically from language
    corpora contain human-like biases", Science 356(6334): s(w, A, B), supplementary materials.
    """
    w = np.asarray(words, dtype=np.float64)
    diff = np.asarray(a, dtype=np.float64).mean(axis=0) - np.asarray(b, dtype=np.float64).mean(axis=0)
    return w @ diff


def association(
    store: VectorStore,
    words: Sequence[str],
    A: Sequence[str],
    B: Sequence[str],
    similarity: Literal["cosine", "dot"] = "cosine",
) -> np.ndarray:
    """Association of each word with attribute set A versus B (Caliskan et al. 2017).

    ``s(w, A, B) = mean_{a∈A} cos(w, a) − mean_{b∈B} cos(w, b)``, computed for all words as
    one matrix product on unit-normalised float32 rows.

    Parameters
    ----------
    store : VectorStore
    words : sequence of str, length n
    A, B : sequence of str
        Attribute words.
    similarity : {"cosine", "dot"}, default "cosine"
        ``"dot"`` uses raw dot products (only to reproduce notebooks that did).

    Returns
    -------
    ndarray of shape (n,), float64

    Raises
    ------
    OutOfVocabularyError
        Any word is missing (use :func:`weat` / :func:`~geobias.metrics.mweat` for an OOV policy).
    InputError
        An empty word list, or an unknown ``similarity``.

    References
    ----------
    Caliskan, Bryson & Narayanan (2017), "Semantics derived automatically from language
    corpora contain human-like biases", Science 356(6334): s(w, A, B), supplementary materials.
    """
    vecs, _, _ = lookup_sets(store, {"words": words, "A": A, "B": B}, oov="raise", similarity=similarity)
    return association_scores(vecs["words"], vecs["A"], vecs["B"])


@dataclass(frozen=True)
class WordAssociation(Result):
    """One target word's association ``s(w, A, B)``; ``target`` is ``"X"`` or ``"Y"``."""

    word: str
    target: str
    s: float


@dataclass(frozen=True)
class WeatResult(PermutationFields, AssociationResult):
    """Word Embedding Association Test result.

    Attributes
    ----------
    permutation : PermutationResult
        The shared permutation test (:func:`~geobias.stats.permutation_test`) of the statistic
        ``Σ_{x∈X} s(x, A, B) − Σ_{y∈Y} s(y, A, B)``: partitions of X∪Y into groups of the
        original sizes. Its figures read as attributes of the result too (``statistic``,
        ``p_value``, ``p_value_ci``, ``p_value_se``, ``n_permutations``, ``exact``, ``seed``,
        ``alternative``) and sit at the top level of the JSON form.
    effect_size : float or None
        ``(mean_x s − mean_y s) / std_{w∈X∪Y} s(w)`` with the sample std (``ddof = 1``,
        as in Caliskan et al.'s code). ``None`` (JSON null) when the std is 0.
    effect_size_ddof : int
        The ddof of ``effect_size`` (1).
    effect_size_ddof0 : float or None
        The same with the population std (``ddof = 0``), which some peers use.
    similarity : str
    test : str or None
        Name of the test, when known.
    n_x, n_y, n_a, n_b : int
        Words used per set.
    per_word : list of WordAssociation
    missing, bootstrap, bootstrap_note
        As every association result (:class:`geobias.metrics._result.AssociationResult`); the
        bootstrap is of the effect size.
    """

    permutation: PermutationResult
    effect_size: float | None
    effect_size_ddof: int
    effect_size_ddof0: float | None
    similarity: str
    test: str | None
    n_x: int
    n_y: int
    n_a: int
    n_b: int
    per_word: list[WordAssociation]

    #: The JSON form: flat, the permutation test's keys beside the result's own (the schema of
    #: ``--json``, the service and the README; see :class:`~geobias.stats.permutation.PermutationFields`).
    _json_keys: ClassVar[tuple[str, ...]] = (
        "statistic", "effect_size", "effect_size_ddof", "effect_size_ddof0", *PERMUTATION_KEYS[1:],
        "similarity", "test", "n_x", "n_y", "n_a", "n_b", "missing", "per_word", "bootstrap", "bootstrap_note",
    )


def _effect(s_x: np.ndarray, s_y: np.ndarray, ddof: int) -> float | None:
    both = np.concatenate([s_x, s_y])
    if both.size <= ddof:
        return None
    sd = float(both.std(ddof=ddof))
    if sd == 0.0:
        return None
    return float((s_x.mean() - s_y.mean()) / sd)


@renamed_keywords(n_permutations="permutations", method="permutation_method")
def weat(
    store: VectorStore,
    query: WordQuery,
    *,
    permutations: int = 100_000,
    seed: int | None = 0,
    similarity: Literal["cosine", "dot"] = "cosine",
    oov: Literal["raise", "ignore"] = "raise",
    alternative: Alternative = "greater",
    permutation_method: Method = "auto",
    progress: ProgressArg = None,
    test: str | None = None,
    bootstrap: int = 0,
    bootstrap_seed: int | None = 0,
) -> WeatResult:
    """Word Embedding Association Test.

    Parameters
    ----------
    store : VectorStore
    query : WordQuery
        Target sets X, Y (e.g. career and family words) and attribute sets A, B (e.g. male and
        female words); with ``oov="ignore"`` its lost-vocabulary rule applies (WEFE's 0.2 per set
        by default; see :mod:`geobias.query`).
    permutations : int, default 100_000
        Monte-Carlo permutations; an exact test is run when ``C(|X|+|Y|, |X|)`` is smaller.
        (Formerly ``n_permutations``, still read with a ``DeprecationWarning``: one name on every
        front door.)
    seed : int or None, default 0
    similarity : {"cosine", "dot"}, default "cosine"
    oov : {"raise", "ignore"}, default "raise"
    alternative : {"greater", "less", "two-sided"}, default "greater"
        Caliskan et al. use the one-sided ``"greater"``.
    permutation_method : {"auto", "exact", "monte-carlo"}, default "auto"
        See :func:`~geobias.stats.permutation_test` (formerly ``method``, still read with a
        ``DeprecationWarning``).
    progress : Progress, bool or None, optional
        Where the permutation test shows its partitions (:data:`geobias._progress.ProgressArg`).
    test : str, optional
        A name recorded in the result (default: the query's name, unless it is ``"custom"``).
    bootstrap : int, default 0
        Resamples of the bootstrap over the words (:func:`geobias.metrics.bootstrap.bootstrap_query`:
        each set resampled with replacement); 0 computes none. Its percentile interval and
        standard error are the result's ``bootstrap``. The command line and the service default to
        1,000; a library call computes no interval unless asked, because the library's own analyses
        (the atlas, the audit, the erasure table) call this function for the figures alone
        (docs/library.md, "Library and command defaults").
    bootstrap_seed : int or None, default 0

    Returns
    -------
    WeatResult

    Raises
    ------
    OutOfVocabularyError
        ``oov="raise"`` and a word is missing.
    LostVocabularyError
        ``oov="ignore"`` and a set lost more of its words than the query allows.
    InputError
        An empty set, a set entirely out of vocabulary, no Y set, fewer than 3 target words in X and Y
        together (the effect size of one word against one is ±√2 whatever the vectors), a word in two
        sets (:class:`~geobias.query.WordQuery`), ``permutations <= 0``.

    References
    ----------
    Caliskan, Bryson & Narayanan (2017), "Semantics derived automatically from language
    corpora contain human-like biases", Science 356(6334): test statistic, effect size and
    one-sided permutation p-value (supplementary materials).

    Examples
    --------
    >>> import numpy as np
    >>> from geobias.store import VectorStore
    >>> s = VectorStore(["x1", "x2", "y1", "y2", "he", "she"],
    ...                 np.array([[1, .1], [1, .2], [.1, 1], [.2, 1], [1, 0], [0, 1]], dtype=np.float32))
    >>> r = weat(s, WordQuery(["x1", "x2"], ["y1", "y2"], ["he"], ["she"]))
    >>> r.n_permutations, r.exact  # C(4, 2) = 6 partitions: the exact test
    (6, True)
    """
    if not isinstance(query, WordQuery):
        raise InputError(f"expected a WordQuery, got {type(query).__name__} (build one with WordQuery(X, Y, A, B))")
    if query.Y is None:
        raise InputError("WEAT needs two target sets (X and Y)")
    rows = query.resolve(store, oov=oov, similarity=similarity, paired=False, test=test and f"WEAT {test}")
    if test is None and query.name != "custom":
        test = query.name
    found = {"X": rows.x_words, "Y": rows.y_words, "A": rows.a_words, "B": rows.b_words}
    missing = rows.missing
    s = association_scores(np.concatenate([rows.x, rows.y]), rows.a, rows.b)
    n_x = len(found["X"])
    if n_x + len(found["Y"]) < 3:  # the pooled deviation of two scores is |s_x − s_y| / √2
        raise InputError("WEAT needs at least 3 target words in X and Y together: with one in each, the effect "
                         "size is ±√2 (ddof 1) whatever the vectors, and the permutation test has 2 partitions")
    s_x, s_y = s[:n_x], s[n_x:]
    perm = permutation_test(
        s,
        n_x,
        statistic="difference",
        alternative=alternative,
        n_permutations=permutations,
        seed=seed,
        method=permutation_method,
        progress=progress,
    )
    per_word = [WordAssociation(w, "X", float(v)) for w, v in zip(found["X"], s_x, strict=True)]
    per_word += [WordAssociation(w, "Y", float(v)) for w, v in zip(found["Y"], s_y, strict=True)]
    boot = None
    if bootstrap:
        from geobias.metrics.bootstrap import bootstrap_query

        boot = bootstrap_query(rows, "weat", n_resamples=bootstrap, seed=bootstrap_seed)
    return WeatResult(
        permutation=perm,
        effect_size=_effect(s_x, s_y, 1),
        effect_size_ddof=1,
        effect_size_ddof0=_effect(s_x, s_y, 0),
        similarity=similarity,
        test=test,
        n_x=n_x,
        n_y=len(found["Y"]),
        n_a=len(found["A"]),
        n_b=len(found["B"]),
        missing=missing,
        per_word=per_word,
        bootstrap=boot,
    )


def _resampling(rows, *, quantity: str | None = None):
    """X, Y, A and B each resampled on their own (:func:`geobias.metrics.bootstrap.weat_resampling`)."""
    return weat_resampling(rows.x, rows.y, rows.a, rows.b, quantity=quantity, metric="weat")


def _bars(data: dict) -> Bars | None:
    """Every word's association s(w, A, B), largest first (blue: X, orange: Y)."""
    per_word = data.get("per_word") or []
    if not per_word:
        return None
    words = sorted(per_word, key=lambda w: -(w.get("s") or 0))
    colours = ["#1f77b4" if w["target"] == "X" else "#ff7f0e" for w in words]
    return Bars([w["word"] for w in words], [w["s"] for w in words],
                "WEAT association s(w, A, B) (blue: X, orange: Y)", "s", colours)


METRIC = declare(Metric(
    "weat", weat, WeatResult, "sets",
    summary="WEAT: statistic, effect size (ddof=1; ddof=0 also given) and permutation p-value.",
    sets=("X", "Y", "A", "B"), quantities=("effect_size", "statistic"), resampling=_resampling,
    basic=("effect_size",), expanded={"effect_size": ("A", "B")}, two_way={"effect_size": (("X", "Y"), ("A", "B"))},
    notes=coverage_notes("weat"),
    figure=FigureSpec("per-word association bars", _bars),
))
