"""Bilingual alignment (orthogonal Procrustes, MUSE supervised mode) and word translation
evaluation with nearest-neighbour and CSLS retrieval."""

from geobias.alignment.csls import CslsIndex, mean_knn_similarity, unit_rows
from geobias.alignment.dictionary import (
    Dictionary,
    ResolvedDictionary,
    check_language_order,
    identical_dictionary,
    load_dictionary,
    read_dictionary,
    resolve,
)
from geobias.alignment.procrustes import (
    AlignmentResult,
    ProcrustesAligner,
    mutual_csls_pairs,
    procrustes,
)
from geobias.alignment.translation import (
    TranslateEvalResult,
    TranslationResult,
    looks_aligned,
    translation_accuracy,
)

__all__ = [
    "AlignmentResult",
    "check_language_order",
    "CslsIndex",
    "Dictionary",
    "ProcrustesAligner",
    "ResolvedDictionary",
    "TranslateEvalResult",
    "TranslationResult",
    "identical_dictionary",
    "load_dictionary",
    "looks_aligned",
    "mean_knn_similarity",
    "mutual_csls_pairs",
    "procrustes",
    "read_dictionary",
    "resolve",
    "translation_accuracy",
    "unit_rows",
]
