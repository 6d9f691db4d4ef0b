"""The query of the WEFE-style metrics (RND, RNSB, ECT, MAC): its word sets as unit rows.

Two variants read the same four sets differently:

``"english"``
    The metric as its paper (and WEFE) defines it: X and Y are target sets (Y optional), A and B
    the two attribute groups; every target word is scored on its own.
``"grammatical"``
    For languages with grammatical gender: X holds the masculine and Y the feminine forms of the
    same two-form words, paired by position (*infirmier*/*infirmière*), A the male and B the
    female attribute words. Each metric then compares the masculine form with the male attribute
    words and the feminine form with the female ones, as MWEAT does (Zhou et al. 2019, §4.2), so
    that grammatical agreement (a feminine form sits near feminine words because it agrees with
    them) does not pass for bias. An occupation with an out-of-vocabulary form is left out as a
    whole (listed in ``dropped_pairs``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from geobias.choices import OOVPolicy
from geobias.errors import InputError, OutOfVocabularyError
from geobias.metrics.weat import lookup_sets
from geobias.results import Result
from geobias.store import VectorStore
from geobias.validation import check_choice

#: How a metric reads its query (see the module docstring).
MetricVariant = Literal["english", "grammatical"]


@dataclass(frozen=True)
class PairScore(Result):
    """One two-form word in the grammatical variant: each form's score and the pair's.

    ``score_masculine`` is the masculine form's score against the male attribute words,
    ``score_feminine`` the feminine form's against the female ones (or each form's score as the
    metric defines it; its docstring says which); ``score`` combines them.
    """

    masculine: str
    feminine: str
    score_masculine: float
    score_feminine: float
    score: float


@dataclass(frozen=True)
class QueryRows:
    """Unit-normalised float64 rows of a resolved query.

    ``y`` is ``None`` when the query has one target set. In the grammatical variant ``x[i]`` and
    ``y[i]`` are the two forms of one word.
    """

    x: np.ndarray
    y: np.ndarray | None
    a: np.ndarray
    b: np.ndarray
    x_words: list[str]
    y_words: list[str]
    a_words: list[str]
    b_words: list[str]
    missing: list[str]
    dropped_pairs: list[tuple[str, str]]
    variant: str

    @property
    def targets(self) -> np.ndarray:
        """X then Y, shape (n_x + n_y, dim)."""
        return self.x if self.y is None else np.concatenate([self.x, self.y])

    @property
    def target_words(self) -> list[str]:
        return [*self.x_words, *self.y_words]


def query_rows(
    store: VectorStore,
    X: Sequence[str],
    Y: Sequence[str] | None,
    A: Sequence[str],
    B: Sequence[str],
    *,
    variant: MetricVariant = "english",
    oov: Literal["raise", "ignore"] = "raise",
) -> QueryRows:
    """Look up a query's sets under one OOV policy, as unit rows (float64).

    Raises
    ------
    OutOfVocabularyError
        ``oov="raise"`` and a word is missing (all are named).
    InputError
        An empty set or a set entirely out of vocabulary; in the grammatical variant, Y missing,
        X and Y of different lengths, or no pair with both forms in the vocabulary.
    """
    check_choice("variant", variant, MetricVariant)
    check_choice("oov", oov, OOVPolicy)
    if variant == "english":
        sets = {"X": list(X), "A": list(A), "B": list(B)}
        if Y is not None:
            sets["Y"] = list(Y)
        vecs, found, missing = lookup_sets(store, sets, oov=oov, similarity="cosine")
        f64 = {k: np.asarray(v, dtype=np.float64) for k, v in vecs.items()}
        return QueryRows(f64["X"], f64.get("Y"), f64["A"], f64["B"], found["X"], found.get("Y", []),
                         found["A"], found["B"], missing, [], variant)
    if Y is None or len(X) != len(Y):
        raise InputError("the grammatical variant needs the masculine forms (X) and the feminine forms (Y) of the "
                         "same words, paired by position")
    if len(X) == 0:
        raise InputError("word list X is empty")
    kept, dropped, pair_missing = [], [], []
    for m, f in zip(X, Y, strict=True):
        miss = [w for w in dict.fromkeys((m, f)) if w not in store]
        pair_missing.extend(w for w in miss if w not in pair_missing)
        (dropped if miss else kept).append((m, f))
    attr_missing = [w for w in [*A, *B] if w not in store]
    if oov == "raise" and (pair_missing or attr_missing):
        raise OutOfVocabularyError(list(dict.fromkeys(pair_missing + attr_missing)), "in the two-form words/attributes")
    if not kept:
        raise InputError(f"all {len(X)} two-form words have a form out of vocabulary; no pair to score")
    vecs, found, missing = lookup_sets(
        store, {"X (masculine forms)": [m for m, _ in kept], "Y (feminine forms)": [f for _, f in kept],
                "A": list(A), "B": list(B)}, oov="ignore", similarity="cosine")
    return QueryRows(np.asarray(vecs["X (masculine forms)"], dtype=np.float64),
                     np.asarray(vecs["Y (feminine forms)"], dtype=np.float64),
                     np.asarray(vecs["A"], dtype=np.float64), np.asarray(vecs["B"], dtype=np.float64),
                     [m for m, _ in kept], [f for _, f in kept], found["A"], found["B"],
                     list(dict.fromkeys(pair_missing + missing)), dropped, variant)


def pair_scores(rows: QueryRows, s_m: np.ndarray, s_f: np.ndarray, combined: np.ndarray) -> list[PairScore]:
    """The per-pair table of a grammatical-variant result."""
    return [PairScore(m, f, float(a), float(b), float(c))
            for m, f, a, b, c in zip(rows.x_words, rows.y_words, s_m, s_f, combined, strict=True)]
