"""The choice options of the command line, as string enums built from :mod:`geobias.choices`, so
that ``--help`` shows them (``[cosine|dot]``) and a value outside them is a usage error (exit 2),
as click does. :mod:`geobias.choices` imports nothing, so ``geobias --help`` stays fast; commands
receive the plain string value (see :func:`geobias.cli._plain_options`), never the enum member.
"""

from __future__ import annotations

from enum import Enum
from typing import get_args

from geobias import choices


class Choice(str, Enum):
    """A string enum whose ``str()`` is its value."""

    def __str__(self) -> str:
        return self.value


def _choice(name: str, values: tuple[str, ...]) -> type[Choice]:
    return Choice(name, [(v, v) for v in values])


SimilarityChoice = _choice("SimilarityChoice", get_args(choices.Similarity))
OovChoice = _choice("OovChoice", get_args(choices.OOVPolicy))
PermutationMethod = _choice("PermutationMethod", get_args(choices.PermutationMethod))
AlternativeChoice = _choice("AlternativeChoice", get_args(choices.Alternative))
ApproxChoice = _choice("ApproxChoice", get_args(choices.Approx))
WriteFormatChoice = _choice("WriteFormatChoice", get_args(choices.WriteFormat))
MitigationMethod = _choice("MitigationMethod", get_args(choices.MitigationMethod))
ProtectChoice = _choice("ProtectChoice", get_args(choices.Protect))
HardDebiasListsChoice = _choice("HardDebiasListsChoice", get_args(choices.HardDebiasLists))
NeutralizeChoice = _choice("NeutralizeChoice", get_args(choices.Neutralize))
EngineChoice = _choice("EngineChoice", get_args(choices.Engine))
PriorMaskChoice = _choice("PriorMaskChoice", get_args(choices.PriorMask))
BecProLangChoice = _choice("BecProLangChoice", get_args(choices.BecProLang))
MalorPairChoice = _choice("MalorPairChoice", get_args(choices.MalorPair))
CdaModeChoice = _choice("CdaModeChoice", get_args(choices.CdaMode))
FinetuneCdaChoice = _choice("FinetuneCdaChoice", get_args(choices.FinetuneCda))
ConditionChoice = _choice("ConditionChoice", get_args(choices.Condition))
TermsChoice = _choice("TermsChoice", get_args(choices.TermSet))
ZeroMethodChoice = _choice("ZeroMethodChoice", get_args(choices.ZeroMethod))

#: Method names of the evaluation tables: ``original`` and the registered mitigation methods, in
#: their one spelling (hyphens). ``shift_ori`` is a hidden alias, rewritten by the command layer.
TABLE_METHODS: tuple[str, ...] = ("original", *get_args(choices.MitigationMethod))


def hyphens(token: str) -> str:
    """Click's ``token_normalize_func`` for commands taking method names: the underscore spelling of
    a choice (``shift_ori``) is accepted as a hidden alias of the hyphen one (``shift-ori``)."""
    return token.replace("_", "-")
