"""ECT, the embedding coherence test of Dev & Phillips (2019)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from geobias.errors import InputError
from geobias.metrics._query import MetricVariant, PairScore, pair_scores, query_rows
from geobias.metrics._result import VariantResult
from geobias.metrics.bootstrap import bootstrap_query, ect_resampling
from geobias.metrics.coverage import notes as coverage_notes
from geobias.metrics.declaration import Metric, declare
from geobias.query import WordQuery
from geobias.results import Result
from geobias.stats.bootstrap import bootstrap_lines
from geobias.store import VectorStore

__all__ = ["EctResult", "EctWord", "ect"]


@dataclass(frozen=True)
class EctWord(Result):
    """One target word's similarity to the two group means (grammatical variant: ``word`` is
    ``"masculine/feminine"``, ``similarity_a`` the masculine form's, ``similarity_b`` the feminine's)."""

    word: str
    similarity_a: float
    similarity_b: float


@dataclass(frozen=True)
class EctResult(VariantResult):
    """Embedding coherence test.

    Attributes
    ----------
    ect : float
        Spearman's ρ between the two similarity profiles over the targets; 1 means the targets
        rank the same against both groups (Dev & Phillips read it as no bias, lower as more bias).
        No value of ρ means "no bias": each word's own position lowers ρ without any bias (the
        calibration's simulation: 0.68 both without and with a planted bias), so ρ compares stores
        or methods on the same words and is not tested against 1 (:data:`NO_NULL`, printed under
        it). No p-value: ρ is a rank correlation of two profiles, not a statistic of a partition,
        so the shared permutation test does not apply, and the t-test of ρ = 0 that
        ``scipy.stats.spearmanr`` reports tests a null that means nothing for ECT.
    variant : str
    n_targets : int
        Items ranked (words; two-form words in the grammatical variant).
    n_a, n_b : int
    per_word : list of EctWord
        The two profiles.
    per_pair : list of PairScore
        Grammatical variant: ``cos(ā, m_i)``, ``cos(b̄, f_i)`` and their difference.
    missing, dropped_pairs, bootstrap, bootstrap_note
        As every association result (:class:`geobias.metrics._result.VariantResult`).
    """

    ect: float
    variant: str
    n_targets: int
    n_a: int
    n_b: int
    per_word: list[EctWord]

    def __rich__(self):
        """The CLI's table: ρ and the profiles of the ten targets whose profiles differ most."""
        from rich.console import Group
        from rich.table import Table

        t = Table(title=f"ECT (Dev & Phillips 2019), {self.variant} variant: Spearman ρ of the similarity "
                        "profiles (higher: more alike; 1: every target ranks the same against A and B)",
                  title_justify="left")
        t.add_column("word")
        t.add_column("cos(·, mean A)", justify="right")
        t.add_column("cos(·, mean B)", justify="right")
        for e in sorted(self.per_word, key=lambda e: -abs(e.similarity_a - e.similarity_b))[:10]:
            t.add_row(e.word, f"{e.similarity_a:+.4f}", f"{e.similarity_b:+.4f}")
        return Group(t, f"ECT ρ = {self.ect:+.4f} over {self.n_targets} targets (A {self.n_a}, B {self.n_b} "
                        f"words); missing {len(self.missing)}; no p-value (see the docs)", NO_NULL,
                     *bootstrap_lines(self))


#: What ECT's ρ (and its interval) cannot say, printed under it: there is no value "no bias" gives.
NO_NULL = ("ρ has no value that means no bias: 1 needs every target to rank the same against A and B, and "
           "each word's own position lowers ρ without any bias (in the calibration's simulation ρ was 0.68 "
           "with no bias and 0.68 with bias); compare ρ between stores or methods on the same words, not with 1")


def _cos_to_mean(rows: np.ndarray, group: np.ndarray) -> np.ndarray:
    mean = group.mean(axis=0)
    norm = np.linalg.norm(mean)
    if norm == 0:
        raise InputError("the mean vector of an attribute set is zero; cosine undefined")
    return rows @ (mean / norm)  # rows are unit


def ect(
    store: VectorStore,
    query: WordQuery,
    *,
    variant: MetricVariant = "english",
    oov: Literal["raise", "ignore"] = "raise",
    bootstrap: int = 0,
    bootstrap_seed: int | None = 0,
) -> EctResult:
    """Embedding coherence test: ``ρ_Spearman( [cos(ā, t)]_t , [cos(b̄, t)]_t )`` over targets t.

    ā and b̄ are the means of the unit vectors of A and B; t runs over X and Y (English variant).
    Spearman's ρ with average ranks for ties (``scipy.stats.spearmanr``).

    Parameters
    ----------
    store : VectorStore
    query : WordQuery
        X and Y (or none) the target words (grammatical variant: masculine and feminine forms paired by
        position); A and B (below); its lost-vocabulary rule applies with ``oov="ignore"``.
    query.A, query.B
        The two groups (e.g. male and female words).
    variant : {"english", "grammatical"}, default "english"
        Grammatical: the profiles are ``cos(ā, m_i)`` of the masculine forms and ``cos(b̄, f_i)``
        of the feminine forms over the two-form words i: each form against its own gender's words,
        so agreement, which raises both, does not decide the ranks. The two profiles then come
        from two different vectors per word, whose own noise (a rare feminine form, say) lowers ρ
        even without bias: compare grammatical ρ between stores, not with an English ρ.
    oov : {"raise", "ignore"}, default "raise"
    bootstrap : int, default 0
        Resamples of the bootstrap over the words (:func:`geobias.metrics.bootstrap.bootstrap_query`;
        the grammatical variant resamples the two-form words as pairs); 0 computes none.
    bootstrap_seed : int or None, default 0

    Returns
    -------
    EctResult

    Raises
    ------
    InputError
        Fewer than 3 targets, or a constant profile (ρ undefined); see also
        :func:`geobias.metrics._query.query_rows`.

    References
    ----------
    Dev & Phillips (2019), "Attenuating Bias in Word Vectors", AISTATS, §5 (ECT: Spearman
    coefficient between the similarities of the targets to the mean vectors of the two groups).

    Examples
    --------
    >>> import numpy as np
    >>> from geobias.store import VectorStore
    >>> s = VectorStore(["he", "she", "a", "b", "c"],
    ...                 np.array([[1.0, 0, 0], [0, 1, 0], [3, 2, 1], [1, 1, 1], [1, 3, 1]]))
    >>> ect(s, WordQuery(["a", "b", "c"], None, ["he"], ["she"])).ect  # cos ranks (3, 2, 1) against (1, 2, 3)
    -1.0
    """
    from scipy.stats import spearmanr

    rows = query_rows(store, query, variant=variant, oov=oov)
    per_pair: list[PairScore] = []
    if variant == "grammatical":
        prof_a, prof_b = _cos_to_mean(rows.x, rows.a), _cos_to_mean(rows.y, rows.b)
        labels = [f"{m}/{f}" for m, f in zip(rows.x_words, rows.y_words, strict=True)]
        per_pair = pair_scores(rows, prof_a, prof_b, prof_a - prof_b)
    else:
        targets = rows.targets
        prof_a, prof_b = _cos_to_mean(targets, rows.a), _cos_to_mean(targets, rows.b)
        labels = rows.target_words
    if len(labels) < 3:
        raise InputError(f"ECT ranks the targets and needs at least 3; got {len(labels)}")
    if np.ptp(prof_a) == 0 or np.ptp(prof_b) == 0:
        raise InputError("a similarity profile is constant over the targets; Spearman's ρ is undefined")
    rho = float(spearmanr(prof_a, prof_b).statistic)
    boot = None if not bootstrap else bootstrap_query(rows, "ect", variant=variant,
                                                     n_resamples=bootstrap, seed=bootstrap_seed)
    return EctResult(
        ect=rho, variant=variant, n_targets=len(labels), n_a=len(rows.a_words), n_b=len(rows.b_words),
        missing=rows.missing, dropped_pairs=rows.dropped_pairs,
        per_word=[EctWord(w, float(a), float(b)) for w, a, b in zip(labels, prof_a, prof_b, strict=True)],
        per_pair=per_pair,
        bootstrap=boot,
    )


def _resampling(rows, *, variant: str = "english", quantity: str | None = None):
    """The targets (as pairs in the grammatical variant), A and B (:func:`geobias.metrics.bootstrap.ect_resampling`)."""
    return ect_resampling(rows.x, rows.y, rows.a, rows.b, variant=variant, quantity=quantity)


METRIC = declare(Metric(
    "ect", ect, EctResult, "sets",
    summary="ECT: Spearman ρ of the targets' similarity to the mean of A and to the mean of B (Dev & Phillips 2019).",
    description="Returns a :class:`geobias.metrics.ect.EctResult` (no p-value: see its docstring).",
    sets=("X", "Y", "A", "B"), paired="X with Y in the grammatical variant", quantities=("ect",),
    resampling=_resampling, two_way={"ect": (("X", "Y"), ("A", "B"))}, notes=coverage_notes("ect"),
))
