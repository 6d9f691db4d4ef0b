"""MAC, the mean average cosine distance of Manzini, Lim, Tsvetkov & Black (2019)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from geobias.metrics._query import MetricVariant, PairScore, pair_scores, query_rows
from geobias.metrics._result import VariantResult
from geobias.metrics.bootstrap import bootstrap_query, mac_resampling
from geobias.metrics.coverage import notes as coverage_notes
from geobias.metrics.declaration import Metric, declare
from geobias.query import WordQuery
from geobias.results import Result
from geobias.stats.bootstrap import bootstrap_lines
from geobias.store import VectorStore

__all__ = ["MacResult", "MacWord", "mac"]


@dataclass(frozen=True)
class MacWord(Result):
    """One target word's mean cosine distance to each attribute set: ``S(t, A)``, ``S(t, B)``."""

    word: str
    target: str
    distance_a: float
    distance_b: float


@dataclass(frozen=True)
class MacResult(VariantResult):
    """Mean average cosine distance.

    Attributes
    ----------
    mac : float
        ``MAC(T, {A, B})``: the mean of ``S(t, A_j)`` over target words and attribute sets
        (grammatical variant: see :func:`mac`). 1 is orthogonal, i.e. no association; lower
        means the targets sit closer to the attribute words. No p-value: MAC compares no two
        groups, so there is no partition for the shared permutation test (Manzini et al. test
        the change of MAC under debiasing with a paired t-test across targets, not MAC itself).
    variant : str
    n_x, n_y, n_a, n_b : int
    per_word : list of MacWord
    per_pair : list of PairScore
        Grammatical variant: ``S̄(m_i)``, ``S̄(f_i)`` (each form's mean over A and B) and their mean.
    missing, dropped_pairs, bootstrap, bootstrap_note
        As every association result (:class:`geobias.metrics._result.VariantResult`).
    """

    mac: float
    variant: str
    n_x: int
    n_y: int
    n_a: int
    n_b: int
    per_word: list[MacWord]

    def __rich__(self):
        """The CLI's table: MAC and the ten targets closest to the attribute words."""
        from rich.console import Group
        from rich.table import Table

        t = Table(title=f"MAC (Manzini et al. 2019), {self.variant} variant: mean cosine distance of the targets "
                        "to the attribute sets (1 = orthogonal)", title_justify="left")
        for c in ("word", "set", "S(t, A)", "S(t, B)"):
            t.add_column(c, justify="right" if c.startswith("S") else "left")
        for e in sorted(self.per_word, key=lambda e: e.distance_a + e.distance_b)[:10]:
            t.add_row(e.word, e.target, f"{e.distance_a:.4f}", f"{e.distance_b:.4f}")
        return Group(t, f"MAC = {self.mac:.4f} (X {self.n_x}, Y {self.n_y}, A {self.n_a}, B {self.n_b} words; "
                        f"missing {len(self.missing)}); no p-value (see the docs)", *bootstrap_lines(self))


def mac(
    store: VectorStore,
    query: WordQuery,
    *,
    variant: MetricVariant = "english",
    oov: Literal["raise", "ignore"] = "raise",
    bootstrap: int = 0,
    bootstrap_seed: int | None = 0,
) -> MacResult:
    """Mean average cosine distance of the target words to the attribute sets.

    ``S(t, A_j) = (1/|A_j|) Σ_{a ∈ A_j} (1 − cos(t, a))`` and
    ``MAC(T, A) = (1 / (|T| |A|)) Σ_{t ∈ T} Σ_{A_j ∈ A} S(t, A_j)`` with T = X ∪ Y and
    A = {A, B} (English variant, as WEFE).

    Parameters
    ----------
    store : VectorStore
    query : WordQuery
        X and Y (or none) the target words (grammatical variant: masculine and feminine forms paired by
        position); A and B (below); its lost-vocabulary rule applies with ``oov="ignore"``.
    query.A, query.B
        Attribute sets.
    variant : {"english", "grammatical"}, default "english"
        Grammatical: the two-form words enter **pair-balanced**, each with both forms:
        ``MAC = mean_i (S̄(m_i) + S̄(f_i)) / 2`` with ``S̄(t) = (S(t, A) + S(t, B)) / 2``, which is
        the English MAC over both forms once every pair is complete (a pair with a form out of
        vocabulary is dropped as a whole). MAC has no gendered direction: it averages over both
        attribute sets, so agreement, which pulls the masculine form toward A and away from B and
        the feminine form the other way, cancels to first order once both forms enter. Scoring the
        masculine form against A only and the feminine against B only (MWEAT's pairing) would
        instead measure agreement itself: it lowers both distances.
    oov : {"raise", "ignore"}, default "raise"
    bootstrap : int, default 0
        Resamples of the bootstrap over the words (:func:`geobias.metrics.bootstrap.bootstrap_query`;
        the grammatical variant resamples the two-form words as pairs); 0 computes none.
    bootstrap_seed : int or None, default 0

    Returns
    -------
    MacResult

    Raises
    ------
    OutOfVocabularyError, InputError
        See :func:`geobias.metrics._query.query_rows`.

    References
    ----------
    Manzini, Lim, Tsvetkov & Black (2019), "Black is to Criminal as Caucasian is to Police:
    Detecting and Removing Multiclass Bias in Word Embeddings", NAACL, §4 (MAC, with S(t, A_j)
    the mean cosine distance of a target word to an attribute set).

    Examples
    --------
    >>> import numpy as np
    >>> from geobias.store import VectorStore
    >>> s = VectorStore(["he", "she", "nurse"], np.array([[1.0, 0], [0, 1], [0, 1]]))
    >>> mac(s, WordQuery(["nurse"], None, ["he"], ["she"])).mac  # (1 + 0) / 2
    0.5
    """
    rows = query_rows(store, query, variant=variant, oov=oov)

    def dist(t: np.ndarray, group: np.ndarray) -> np.ndarray:
        return (1.0 - t @ group.T).mean(axis=1)

    per_word = [MacWord(w, "X", float(da), float(db)) for w, da, db in
                zip(rows.x_words, dist(rows.x, rows.a), dist(rows.x, rows.b), strict=True)]
    if rows.y is not None:
        per_word += [MacWord(w, "Y", float(da), float(db)) for w, da, db in
                     zip(rows.y_words, dist(rows.y, rows.a), dist(rows.y, rows.b), strict=True)]
    per_pair: list[PairScore] = []
    if variant == "grammatical":
        s_m = (dist(rows.x, rows.a) + dist(rows.x, rows.b)) / 2
        s_f = (dist(rows.y, rows.a) + dist(rows.y, rows.b)) / 2
        combined = (s_m + s_f) / 2
        per_pair = pair_scores(rows, s_m, s_f, combined)
        value = float(combined.mean())
    else:
        t = rows.targets
        value = float(np.concatenate([dist(t, rows.a), dist(t, rows.b)]).mean())
    boot = None if not bootstrap else bootstrap_query(rows, "mac", variant=variant,
                                                     n_resamples=bootstrap, seed=bootstrap_seed)
    return MacResult(
        mac=value, variant=variant, n_x=len(rows.x_words), n_y=len(rows.y_words), n_a=len(rows.a_words),
        n_b=len(rows.b_words), missing=rows.missing, dropped_pairs=rows.dropped_pairs, per_word=per_word,
        per_pair=per_pair,
        bootstrap=boot,
    )


def _resampling(rows, *, variant: str = "english", quantity: str | None = None):
    """The targets (as pairs in the grammatical variant), A and B (:func:`geobias.metrics.bootstrap.mac_resampling`)."""
    return mac_resampling(rows.x, rows.y, rows.a, rows.b, variant=variant, quantity=quantity)


METRIC = declare(Metric(
    "mac", mac, MacResult, "sets",
    summary="MAC: mean cosine distance of the target words to the attribute sets (Manzini et al. 2019).",
    description="Returns a :class:`geobias.metrics.mac.MacResult` (no p-value: see its docstring).",
    sets=("X", "Y", "A", "B"), paired="X with Y in the grammatical variant", quantities=("mac",),
    resampling=_resampling, expanded={"mac": ("X", "Y")}, notes=coverage_notes("mac"),
))
