"""Utility and bilingual-bias evaluation (Zhou et al. 2019, §4.3–4.4), erasure evaluation and
audit grids (:mod:`~geobias.evaluation.audit`).

Names are imported on first use (PEP 562): ``from geobias.evaluation import evaluate`` loads
:mod:`~geobias.evaluation.bilingual` only, and importing :mod:`geobias.evaluation.audit` (audit
grids, on any engine) does not pay for the bilingual evaluation and its mitigation imports.
:func:`correlate` is the exception: it shares its name with its module, so it is bound here
(a first import of the submodule would otherwise leave the module under that name).
"""

from __future__ import annotations

import importlib

from geobias.evaluation.correlate import CorrelationResult, correlate

_NAMES = {
    "METHOD_KEYS": "geobias.evaluation.bilingual",
    "METRIC_LABELS": "geobias.evaluation.bilingual",
    "N_ADJECTIVES": "geobias.evaluation.analogy",
    "AnalogyResult": "geobias.evaluation.analogy",
    "EvaluationResult": "geobias.evaluation.bilingual",
    "SimilarityResult": "geobias.evaluation.similarity",
    "crosslingual_mweat": "geobias.evaluation.bilingual",
    "inanimate_bias": "geobias.evaluation.bilingual",
    "monolingual_mweat": "geobias.evaluation.bilingual",
    "evaluate": "geobias.evaluation.bilingual",
    "read_similarity_file": "geobias.evaluation.similarity",
    "select_adjectives": "geobias.evaluation.analogy",
    "word_pair_translation": "geobias.evaluation.analogy",
    "word_similarity": "geobias.evaluation.similarity",
}

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


def __getattr__(name: str):
    module = _NAMES.get(name)
    if module is None:
        raise AttributeError(f"module 'geobias.evaluation' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
