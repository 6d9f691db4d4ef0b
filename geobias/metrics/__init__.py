"""Association metrics and the shared permutation test."""

from geobias.metrics.mweat import MweatResult, PairBias, mweat, word_bias
from geobias.metrics.weat import WeatResult, WordAssociation, association, weat
from geobias.stats.permutation import PermutationResult, permutation_test

__all__ = [
    "MweatResult",
    "PairBias",
    "PermutationResult",
    "WeatResult",
    "WordAssociation",
    "association",
    "mweat",
    "permutation_test",
    "weat",
    "word_bias",
]
