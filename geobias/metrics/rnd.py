"""RND, the relative norm distance of Garg, Schiebinger, Jurafsky & Zou (2018)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from geobias._progress import ProgressArg
from geobias.errors import InputError
from geobias.metrics._query import MetricVariant, pair_scores, query_rows
from geobias.metrics._result import VariantResult
from geobias.metrics.bootstrap import bootstrap_query, rnd_resampling
from geobias.metrics.coverage import notes as coverage_notes
from geobias.metrics.declaration import Metric, declare
from geobias.query import WordQuery
from geobias.results import Result
from geobias.stats.bootstrap import bootstrap_lines
from geobias.stats.permutation import Alternative, Method, PermutationResult, permutation_test
from geobias.store import VectorStore
from geobias.validation import renamed_keywords

__all__ = ["SIGN_FLIP_CAVEAT", "RndResult", "WordScore", "relative_norm_distances", "rnd"]

#: What the grammatical variant's sign-flip p is (printed under it): a test given these attribute
#: words, measured in simulation (:mod:`geobias.evaluation.calibration`, 1,000 data sets per scenario).
SIGN_FLIP_CAVEAT = ("the sign-flip p holds the attribute words fixed: it asks whether these targets sit closer to "
                    "this A's mean than to this B's, and a chance difference between the two means moves every "
                    "word alike; in simulation with no association in the population it rejected in 22-26% of "
                    "data sets at the 5% level. The p-value RND reports with a bootstrap is the bootstrap test, "
                    "which resamples A and B too (docs: calibration)")


def relative_norm_distances(words: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``r(w) = ‖w − ā‖₂ − ‖w − b̄‖₂`` for each row ``w``, ā and b̄ the mean rows of ``a`` and ``b``.

    Parameters
    ----------
    words : ndarray of shape (n, dim)
    a, b : ndarray of shape (n_a, dim) and (n_b, dim)
        The two groups' rows (unit-normalised by the caller, as in the paper).

    Returns
    -------
    ndarray of shape (n,), float64
        Negative: ``w`` is closer to group A's mean than to group B's.
    """
    w = np.asarray(words, dtype=np.float64)
    a_mean = np.asarray(a, dtype=np.float64).mean(axis=0)
    b_mean = np.asarray(b, dtype=np.float64).mean(axis=0)
    return np.linalg.norm(w - a_mean, axis=1) - np.linalg.norm(w - b_mean, axis=1)


@dataclass(frozen=True)
class WordScore(Result):
    """One target word's score; ``target`` is ``"X"`` or ``"Y"``."""

    word: str
    target: str
    score: float


@dataclass(frozen=True)
class RndResult(VariantResult):
    """Relative norm distance.

    Attributes
    ----------
    rnd : float
        Garg et al.'s relative norm distance, the **sum** over the scored items of
        ``r(w) = ‖w − ā‖ − ‖w − b̄‖`` (English variant: every target word of X and Y; grammatical
        variant: every two-form word, scored ``r(w_m) + r(w_f)``). Negative: closer to A.
    rnd_mean : float
        The same averaged over the items: WEFE's ``RND`` (it divides by the number of words).
    rnd_x, rnd_y : float or None
        The sums over X and over Y alone (``rnd_y`` is ``None`` without Y).
    permutation : PermutationResult or None
        Ours, not in the paper (Garg et al. report no test). English variant with two target sets:
        the shared permutation test of ``Σ_X r − Σ_Y r`` over partitions of X∪Y into groups of the
        original sizes (WEAT's test with distances for cosines). Grammatical variant: a sign-flip
        test of ``Σ_i (r(m_i) + r(f_i))`` (swapping A and B for one word flips its sign; run as the
        shared engine's paired test of the scores ``±(r(m_i) + r(f_i))/2``). ``None`` with one
        target set. The sign-flip test holds A and B fixed (:data:`SIGN_FLIP_CAVEAT`): it is not a
        test of association in the population of attribute words; with a bootstrap, :attr:`p_value`
        is the bootstrap's test instead (:attr:`population_test`).
    variant : str
        ``"english"`` or ``"grammatical"``.
    n_x, n_y, n_a, n_b : int
    per_word : list of WordScore
        ``r(w)`` of every target word used.
    per_pair : list of PairScore
        Grammatical variant: ``r(m_i)``, ``r(f_i)`` and their sum.
    missing, dropped_pairs, bootstrap, bootstrap_note
        As every association result (:class:`geobias.metrics._result.VariantResult`).
    """

    rnd: float
    rnd_mean: float
    rnd_x: float
    rnd_y: float | None
    permutation: PermutationResult | None
    variant: str
    n_x: int
    n_y: int
    n_a: int
    n_b: int
    per_word: list[WordScore]

    @property
    def population_test(self) -> bool:
        """Whether :attr:`p_value` is the bootstrap test (grammatical variant or one target set, with
        a bootstrap that gave one) rather than the permutation test."""
        return ((self.variant == "grammatical" or self.rnd_y is None) and self.bootstrap is not None
                and self.bootstrap.p_value is not None)

    @property
    def p_value(self) -> float | None:
        """The p-value of "no association".

        English variant with X and Y: the permutation test of ``Σ_X r − Σ_Y r``. Grammatical variant
        and one target set, with a bootstrap: the bootstrap test of ``RND = 0`` (the test inverting
        the bootstrap interval, which resamples the targets, A and B: association in the population
        of words, at the 5 % level rejecting in 3.0–3.4 % of simulated data sets without it); without
        a bootstrap, the grammatical variant's sign-flip p (:data:`SIGN_FLIP_CAVEAT`) or ``None``.
        """
        if self.population_test:
            return self.bootstrap.p_value
        return None if self.permutation is None else self.permutation.p_value

    def __rich__(self):
        """The CLI's table: the summary and the ten items with the largest |score|."""
        from rich.console import Group
        from rich.table import Table

        t = Table(title=f"RND (Garg et al. 2018), {self.variant} variant: Σ ‖w − mean A‖ − ‖w − mean B‖ "
                        "(negative: closer to A)", title_justify="left")
        t.add_column("quantity")
        t.add_column("value", justify="right")
        gram = self.variant == "grammatical"
        two_sets = self.rnd_y is not None and not gram
        t.add_row("RND (sum over X and Y, Garg et al.)" if two_sets else "RND (sum, Garg et al.)", f"{self.rnd:+.4f}")
        b = self.bootstrap
        if b is not None and b.p_value is not None:  # the headline's own test, next to it
            t.add_row(f"p of RND = 0 (bootstrap test over the targets, A and B, {b.n_resamples:,} resamples)",
                      f"{b.p_value:.4g}")
        t.add_row("RND mean (WEFE)", f"{self.rnd_mean:+.4f}")
        t.add_row("Σ over the masculine forms (X)" if gram else "Σ over X", f"{self.rnd_x:+.4f}")
        if self.rnd_y is not None:
            t.add_row("Σ over the feminine forms (Y)" if gram else "Σ over Y", f"{self.rnd_y:+.4f}")
        if two_sets:  # what the permutation test is of: X against Y, not the headline sum
            t.add_row("Σ_X − Σ_Y (X against Y)", f"{self.rnd_x - self.rnd_y:+.4f}")
        if self.permutation is not None:
            p = self.permutation
            test = "sign-flip, given these A and B" if gram else "Σ_X − Σ_Y, permutation of X ∪ Y"
            t.add_row(f"p ({test}, {p.alternative}, {'exact' if p.exact else f'{p.n_permutations:,} draws'})",
                      f"{p.p_value:.4g}")
            if gram:
                t.caption, t.caption_justify = f"note: {SIGN_FLIP_CAVEAT}", "left"
        elif not self.population_test:
            t.add_row("p-value", "none (one target set; a bootstrap gives its test)")
        t.add_row("words", f"X {self.n_x}, Y {self.n_y}, A {self.n_a}, B {self.n_b}; missing {len(self.missing)}")
        rows = Table(title="largest |score|", title_justify="left")
        if self.per_pair:
            for c in ("masculine", "feminine", "r(m)", "r(f)", "r(m) + r(f)"):
                rows.add_column(c, justify="right" if c.startswith("r") else "left")
            for e in sorted(self.per_pair, key=lambda e: -abs(e.score))[:10]:
                rows.add_row(e.masculine, e.feminine, f"{e.score_masculine:+.4f}", f"{e.score_feminine:+.4f}",
                             f"{e.score:+.4f}")
        else:
            for c in ("word", "set", "r(w)"):
                rows.add_column(c, justify="right" if c == "r(w)" else "left")
            for e in sorted(self.per_word, key=lambda e: -abs(e.score))[:10]:
                rows.add_row(e.word, e.target, f"{e.score:+.4f}")
        return Group(t, rows, *bootstrap_lines(self))


@renamed_keywords(n_permutations="permutations", method="permutation_method")
def rnd(
    store: VectorStore,
    query: WordQuery,
    *,
    variant: MetricVariant = "english",
    oov: Literal["raise", "ignore"] = "raise",
    permutations: int = 100_000,
    seed: int | None = 0,
    alternative: Alternative = "two-sided",
    permutation_method: Method = "auto",
    progress: ProgressArg = None,
    bootstrap: int = 0,
    bootstrap_seed: int | None = 0,
) -> RndResult:
    """Relative norm distance of target words between two attribute groups.

    ``RND = Σ_{w} ( ‖w − ā‖₂ − ‖w − b̄‖₂ )`` over the target words ``w``, with every vector
    unit-normalised and ā, b̄ the (not re-normalised) means of the unit vectors of A and B.

    Parameters
    ----------
    store : VectorStore
    query : WordQuery
        X (grammatical variant: the masculine forms), Y or none (grammatical variant: the feminine
        forms, paired with X by position), A and B the two groups (e.g. male and female words).
        With ``oov="ignore"`` its lost-vocabulary rule applies (see :mod:`geobias.query`).
    variant : {"english", "grammatical"}, default "english"
        See :mod:`geobias.metrics._query`. Grammatical: each word scores ``r(m) + r(f)``: the
        masculine form's lean to the male words ``−r(m)`` against the feminine form's lean to the
        female words ``r(f)``, so agreement, which pulls the two forms equally apart, cancels.
    oov : {"raise", "ignore"}, default "raise"
    permutations, seed, alternative, permutation_method, progress
        The permutation test (see :class:`RndResult`); ``alternative`` defaults to
        ``"two-sided"``. (``permutations`` and ``permutation_method`` were ``n_permutations`` and
        ``method``, still read with a ``DeprecationWarning``.)
    bootstrap : int, default 0
        Resamples of the bootstrap over the words (:func:`geobias.metrics.bootstrap.bootstrap_query`;
        the grammatical variant resamples the two-form words as pairs); 0 computes none. In the
        grammatical variant and with one target set it also gives the p-value (its test of
        ``RND = 0``, ``bootstrap.p_value``), the permutation test there holding A and B fixed.
    bootstrap_seed : int or None, default 0

    Returns
    -------
    RndResult

    Raises
    ------
    OutOfVocabularyError
        ``oov="raise"`` and a word is missing.
    InputError
        An empty set or a set entirely out of vocabulary.

    References
    ----------
    Garg, Schiebinger, Jurafsky & Zou (2018), "Word embeddings quantify 100 years of gender and
    ethnic stereotypes", PNAS 115(16): E3635–E3644, relative norm distance
    ``Σ_{v_m ∈ M} ‖v_m − v_1‖₂ − ‖v_m − v_2‖₂`` with ``v_1``, ``v_2`` the average vectors of the
    two groups' (normalised) words.

    Examples
    --------
    >>> import numpy as np
    >>> from geobias.store import VectorStore
    >>> s = VectorStore(["he", "she", "nurse"], np.array([[1.0, 0], [0, 1], [0, 1]]))
    >>> round(rnd(s, WordQuery(["nurse"], None, ["he"], ["she"])).rnd, 4)  # √2 − 0
    1.4142
    """
    rows = query_rows(store, query, variant=variant, oov=oov)
    r_x = relative_norm_distances(rows.x, rows.a, rows.b)
    r_y = None if rows.y is None else relative_norm_distances(rows.y, rows.a, rows.b)
    per_word = [WordScore(w, "X", float(v)) for w, v in zip(rows.x_words, r_x, strict=True)]
    if r_y is not None:
        per_word += [WordScore(w, "Y", float(v)) for w, v in zip(rows.y_words, r_y, strict=True)]
    perm, per_pair = None, []
    if variant == "grammatical":
        items = r_x + r_y
        per_pair = pair_scores(rows, r_x, r_y, items)
        perm = permutation_test(np.concatenate([items / 2, -items / 2]), len(items), statistic="difference",
                                alternative=alternative, n_permutations=permutations, seed=seed, paired=True,
                                method=permutation_method, progress=progress)
    else:
        items = r_x if r_y is None else np.concatenate([r_x, r_y])
        if r_y is not None:
            perm = permutation_test(items, len(r_x), statistic="difference", alternative=alternative,
                                    n_permutations=permutations, seed=seed, method=permutation_method, progress=progress)
    if items.size == 0:
        raise InputError("no target word to score")
    # where no permutation test is one of association in the population, the bootstrap's is the p
    boot = None if not bootstrap else bootstrap_query(rows, "rnd", variant=variant, n_resamples=bootstrap,
                                                     seed=bootstrap_seed, test_zero=True)
    return RndResult(
        rnd=float(items.sum()), rnd_mean=float(items.mean()), rnd_x=float(r_x.sum()),
        rnd_y=None if r_y is None else float(r_y.sum()), permutation=perm, variant=variant,
        n_x=len(rows.x_words), n_y=len(rows.y_words), n_a=len(rows.a_words), n_b=len(rows.b_words),
        missing=rows.missing, dropped_pairs=rows.dropped_pairs, per_word=per_word, per_pair=per_pair,
        bootstrap=boot,
    )


def _resampling(rows, *, variant: str = "english", quantity: str | None = None):
    """The targets (as pairs in the grammatical variant), A and B (:func:`geobias.metrics.bootstrap.rnd_resampling`)."""
    return rnd_resampling(rows.x, rows.y, rows.a, rows.b, variant=variant, quantity=quantity)


METRIC = declare(Metric(
    "rnd", rnd, RndResult, "sets",
    summary="RND: relative norm distance Σ ‖w − mean A‖ − ‖w − mean B‖ (Garg et al. 2018), with a permutation p-value.",
    sets=("X", "Y", "A", "B"), paired="X with Y in the grammatical variant", quantities=("rnd",),
    # a resampled A or B holds duplicates, so its mean is longer than the sample's and every distance
    # moves: the resamples are biased the way no estimate is (percentile coverage 97.8-99.1 %, basic
    # 95.7-96.8 % in simulation)
    resampling=_resampling, basic=("rnd",), notes=coverage_notes("rnd"),
))
