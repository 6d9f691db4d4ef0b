"""Utility and bilingual-bias evaluation (Zhou et al. 2019, §4.3–4.4)."""

from geobias.evaluation.analogy import (
    N_ADJECTIVES,
    AnalogyResult,
    select_adjectives,
    word_pair_translation,
)
from geobias.evaluation.bilingual import (
    METHOD_KEYS,
    METRIC_LABELS,
    EvaluationResult,
    crosslingual_mweat,
    evaluate,
    inanimate_bias,
    monolingual_mweat,
)
from geobias.evaluation.correlate import CorrelationResult, correlate
from geobias.evaluation.similarity import SimilarityResult, read_similarity_file, word_similarity

__all__ = [
    "METHOD_KEYS",
    "METRIC_LABELS",
    "N_ADJECTIVES",
    "AnalogyResult",
    "CorrelationResult",
    "EvaluationResult",
    "SimilarityResult",
    "crosslingual_mweat",
    "inanimate_bias",
    "monolingual_mweat",
    "correlate",
    "evaluate",
    "read_similarity_file",
    "select_adjectives",
    "word_pair_translation",
    "word_similarity",
]
