"""Utility and bilingual-bias evaluation (Zhou et al. 2019, §4.3–4.4)."""

from geobias.evaluation.analogy import (
    NEUTRAL_SEEDS,
    AnalogyResult,
    seed_pairs,
    word_pair_translation,
)
from geobias.evaluation.bilingual import (
    METHOD_KEYS,
    METRIC_LABELS,
    EvaluationResult,
    bilingual_mweat,
    evaluate,
)
from geobias.evaluation.correlate import CorrelationResult, correlate
from geobias.evaluation.similarity import SimilarityResult, read_similarity_file, word_similarity

__all__ = [
    "METHOD_KEYS",
    "METRIC_LABELS",
    "NEUTRAL_SEEDS",
    "AnalogyResult",
    "CorrelationResult",
    "EvaluationResult",
    "SimilarityResult",
    "bilingual_mweat",
    "correlate",
    "evaluate",
    "read_similarity_file",
    "seed_pairs",
    "word_pair_translation",
    "word_similarity",
]
