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

from dataclasses import dataclass
from typing import Literal

import numpy as np

from geobias.choices import OOVPolicy
from geobias.errors import InputError
from geobias.query import ResolvedQuery, WordQuery
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


def query_rows(
    store: VectorStore,
    query: WordQuery,
    *,
    variant: MetricVariant = "english",
    oov: Literal["raise", "ignore"] = "raise",
) -> ResolvedQuery:
    """Resolve a query for one variant: the grammatical variant reads X/Y as pairs, the english one as sets.

    Unit rows (float64); the lost-vocabulary rule of :meth:`geobias.query.WordQuery.resolve` applies.

    Raises
    ------
    OutOfVocabularyError
        ``oov="raise"`` and a word is missing (all are named).
    LostVocabularyError
        ``oov="ignore"`` and a set lost more than the query's threshold.
    InputError
        An empty set or a set entirely out of vocabulary; in the grammatical variant, Y missing,
        X and Y of different lengths, or no pair with both forms in the vocabulary.
    """
    check_choice("variant", variant, MetricVariant)
    check_choice("oov", oov, OOVPolicy)
    if not isinstance(query, WordQuery):
        raise InputError(f"expected a WordQuery, got {type(query).__name__} (build one with WordQuery(X, Y, A, B))")
    if variant == "grammatical" and (query.Y is None or len(query.X) != len(query.Y)):
        raise InputError("the grammatical variant needs the masculine forms (X) and the feminine forms (Y) of the "
                         "same words, paired by position")
    return query.resolve(store, oov=oov, paired=variant == "grammatical")


def pair_scores(rows: ResolvedQuery, s_m: np.ndarray, s_f: np.ndarray, combined: np.ndarray) -> list[PairScore]:
    """The per-pair table of a grammatical-variant result."""
    return [PairScore(m, f, float(a), float(b), float(c))
            for m, f, a, b, c in zip(rows.x_words, rows.y_words, s_m, s_f, combined, strict=True)]
