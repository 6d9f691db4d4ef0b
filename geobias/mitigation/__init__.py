"""Gender-bias mitigation estimators (Zhou et al. 2019 §3; Bolukbasi et al. 2016) and their
registry: a new method is one class plus one line in :data:`METHODS`."""

from __future__ import annotations

from geobias.choices import MitigationMethod
from geobias.errors import InputError
from geobias.mitigation._erasure import ErasureMitigation, ErasureProjection
from geobias.mitigation.base import Mitigation
from geobias.mitigation.bilingual import (
    BilingualMitigation,
    DeAlign,
    HybridEN,
    HybridOri,
    MitigationReport,
    ShiftEN,
    ShiftOri,
)
from geobias.mitigation.hard_debias import (
    DirectBiasResult,
    HardDebias,
    HardDebiasReport,
    direct_bias,
    hard_debias_report,
)
from geobias.mitigation.inlp import Inlp, InlpKeepGrammar
from geobias.mitigation.leace import Leace, LeaceKeepGrammar
from geobias.mitigation.lexicon import GenderLexicon

#: Every method by its name; the names are declared in :data:`geobias.choices.MitigationMethod`
#: (a test checks that both agree).
METHODS: dict[MitigationMethod, type[Mitigation]] = {
    "shift-ori": ShiftOri,
    "shift-en": ShiftEN,
    "de-align": DeAlign,
    "hybrid-ori": HybridOri,
    "hybrid-en": HybridEN,
    "hard-debias": HardDebias,
    "leace": Leace,
    "leace-keep-grammar": LeaceKeepGrammar,
    "inlp": Inlp,
    "inlp-keep-grammar": InlpKeepGrammar,
}


def get_method(name: str) -> type[Mitigation]:
    """The estimator class registered under ``name``.

    Raises
    ------
    InputError
        Unknown name; the message lists the registered ones.
    """
    try:
        return METHODS[name]
    except KeyError:
        raise InputError(f"unknown mitigation method {name!r}; choose one of {', '.join(METHODS)}") from None


__all__ = [
    "METHODS",
    "BilingualMitigation",
    "DeAlign",
    "DirectBiasResult",
    "ErasureMitigation",
    "ErasureProjection",
    "GenderLexicon",
    "HardDebias",
    "HardDebiasReport",
    "HybridEN",
    "HybridOri",
    "Inlp",
    "InlpKeepGrammar",
    "Leace",
    "LeaceKeepGrammar",
    "Mitigation",
    "MitigationReport",
    "ShiftEN",
    "ShiftOri",
    "direct_bias",
    "get_method",
    "hard_debias_report",
]
