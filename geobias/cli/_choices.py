"""The fixed value sets of command-line options, as string enums, so that ``--help`` shows
them (``[cosine|dot]``) and a value outside them is a usage error (exit 2), as click does.

The library keeps its ``Literal`` types and :func:`geobias.validation.check_choice`; these
enums repeat the values without importing the library (``geobias --help`` stays fast), and
``tests/test_cli_help.py`` checks that every enum here equals the library's ``Literal`` or
registry it stands for. Commands receive the plain string value (see
:func:`geobias.cli._recording`), never the enum member.
"""

from __future__ import annotations

from enum import Enum


class Choice(str, Enum):
    """A string enum whose ``str()`` is its value."""

    def __str__(self) -> str:
        return self.value


def _choice(name: str, values: tuple[str, ...]) -> type[Choice]:
    return Choice(name, [(v, v) for v in values])


#: geobias.store.vector_store.Similarity
SimilarityChoice = _choice("SimilarityChoice", ("cosine", "dot"))
#: geobias.store.vector_store.OOVPolicy (the CLI lists ignore first: it is its default)
OovChoice = _choice("OovChoice", ("ignore", "raise"))
#: geobias.stats.permutation.Method
PermutationMethod = _choice("PermutationMethod", ("auto", "exact", "monte-carlo"))
#: geobias.stats.permutation.Alternative
AlternativeChoice = _choice("AlternativeChoice", ("greater", "less", "two-sided"))
#: geobias.store.vector_store.Approx
ApproxChoice = _choice("ApproxChoice", ("exact", "ivf"))
#: geobias.store.formats.WriteFormat (in the order the help texts give)
WriteFormatChoice = _choice("WriteFormatChoice", ("w2v-text", "w2v-bin", "vec", "kv", "npz"))
#: geobias.mitigation.METHODS
MitigationMethod = _choice("MitigationMethod", (
    "shift-ori", "shift-en", "de-align", "hybrid-ori", "hybrid-en", "hard-debias", "leace",
    "leace-keep-grammar", "inlp", "inlp-keep-grammar"))
#: geobias.mitigation.hard_debias.Protect
ProtectChoice = _choice("ProtectChoice", ("paper", "extended"))
#: geobias.mitigation.bilingual.Neutralize
NeutralizeChoice = _choice("NeutralizeChoice", ("inanimate", "all-other"))
#: geobias.engine.ENGINES
EngineChoice = _choice("EngineChoice", ("local", "ray"))
#: geobias.contextual.masking.PriorMask
PriorMaskChoice = _choice("PriorMaskChoice", ("word", "subtoken"))
#: geobias.contextual.becpro.BecProLang
BecProLangChoice = _choice("BecProLangChoice", ("en", "de"))
#: geobias.contextual.malor.MalorPair
MalorPairChoice = _choice("MalorPairChoice", ("he-she", "his-her", "names"))
#: geobias.contextual.cda.CdaMode
CdaModeChoice = _choice("CdaModeChoice", ("cda", "cds"))
#: geobias.contextual.finetune.CdaChoice
FinetuneCdaChoice = _choice("FinetuneCdaChoice", ("cds", "cda", "none"))
#: geobias.contextual.sentiment_finetune.Condition
ConditionChoice = _choice("ConditionChoice", ("original", "removed", "mixed"))
#: geobias.contextual.sentiment_terms.TermSetName
TermsChoice = _choice("TermsChoice", ("pro", "weat", "all"))
#: geobias.contextual.sentiment_stats.ZeroMethod
ZeroMethodChoice = _choice("ZeroMethodChoice", ("wilcox", "pratt", "zsplit"))

#: Every enum above and the library ``Literal``/registry it mirrors ("module:NAME"), for the test.
MIRRORS: dict[type[Choice], str] = {
    SimilarityChoice: "geobias.store.vector_store:Similarity",
    OovChoice: "geobias.store.vector_store:OOVPolicy",
    PermutationMethod: "geobias.stats.permutation:Method",
    AlternativeChoice: "geobias.stats.permutation:Alternative",
    ApproxChoice: "geobias.store.vector_store:Approx",
    WriteFormatChoice: "geobias.store.formats:WriteFormat",
    MitigationMethod: "geobias.mitigation:METHODS",
    ProtectChoice: "geobias.mitigation.hard_debias:Protect",
    NeutralizeChoice: "geobias.mitigation.bilingual:Neutralize",
    EngineChoice: "geobias.engine:ENGINES",
    PriorMaskChoice: "geobias.contextual.masking:PriorMask",
    BecProLangChoice: "geobias.contextual.becpro:BecProLang",
    MalorPairChoice: "geobias.contextual.malor:MalorPair",
    CdaModeChoice: "geobias.contextual.cda:CdaMode",
    FinetuneCdaChoice: "geobias.contextual.finetune:CdaChoice",
    ConditionChoice: "geobias.contextual.sentiment_finetune:Condition",
    TermsChoice: "geobias.contextual.sentiment_terms:TermSetName",
    ZeroMethodChoice: "geobias.contextual.sentiment_stats:ZeroMethod",
}
