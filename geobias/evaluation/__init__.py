"""Utility and bilingual-bias evaluation (Zhou et al. 2019, §4.3–4.4), erasure evaluation and
audit grids (:mod:`~geobias.evaluation.audit`).

Names are imported on first use (PEP 562): ``from geobias.evaluation import evaluate`` loads
:mod:`~geobias.evaluation.bilingual` only, and importing :mod:`geobias.evaluation.audit` (audit
grids, on any engine) does not pay for the bilingual evaluation and its mitigation imports.
:func:`correlate` is the exception: it shares its name with its module, so it is bound here
(a first import of the submodule would otherwise leave the module under that name).
"""

from __future__ import annotations

from geobias.evaluation.correlate import CorrelationResult, correlate

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
    """A public name, imported from its submodule on first use (explicit imports, so the import graph
    shows them)."""
    if name in {'crosslingual_mweat', 'METRIC_LABELS', 'METHOD_KEYS', 'EvaluationResult', 'evaluate', 'monolingual_mweat', 'inanimate_bias'}:
        from geobias.evaluation import bilingual as module
    elif name in {'AnalogyResult', 'select_adjectives', 'N_ADJECTIVES', 'word_pair_translation'}:
        from geobias.evaluation import analogy as module
    elif name in {'read_similarity_file', 'word_similarity', 'SimilarityResult'}:
        from geobias.evaluation import similarity as module
    else:
        raise AttributeError(f"module 'geobias.evaluation' has no attribute {name!r}")
    value = getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
