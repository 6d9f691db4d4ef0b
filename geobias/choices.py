"""The fixed value sets of geobias's options, declared once.

Each is a ``Literal`` type. The library's functions annotate their options with it and check
values against it (:func:`geobias.validation.check_choice`); the command layer's parameter
models use it as the field type; the command line builds its choice lists from it
(:mod:`geobias.cli._choices`). This module imports nothing, so the command line can read it
without loading the library.

Examples
--------
>>> from typing import get_args
>>> get_args(Similarity)
('cosine', 'dot')
"""

from __future__ import annotations

from typing import Literal

#: Similarity of word vectors: cosine on unit rows, or raw dot products (to reproduce notebooks).
Similarity = Literal["cosine", "dot"]
#: What to do with out-of-vocabulary words: stop at the first one, or skip and list them.
OOVPolicy = Literal["raise", "ignore"]
#: The permutation test: every partition, random permutations, or exact when affordable.
PermutationMethod = Literal["auto", "exact", "monte-carlo"]
#: The alternative hypothesis of a permutation test.
Alternative = Literal["greater", "less", "two-sided"]
#: Nearest-neighbour search: brute force, or a faiss IVF index.
Approx = Literal["exact", "ivf"]
#: Vector file formats geobias writes.
WriteFormat = Literal["w2v-text", "vec", "w2v-bin", "kv", "npz"]
#: Vector file formats geobias reads (``auto`` detects the format).
ReadFormat = Literal["auto", "w2v-text", "vec", "w2v-bin", "fasttext-bin", "kv", "npz", "cache"]
#: The registered mitigation methods (:data:`geobias.mitigation.METHODS` has one estimator each).
MitigationMethod = Literal["shift-ori", "shift-en", "de-align", "hybrid-ori", "hybrid-en", "hard-debias", "leace",
                           "leace-keep-grammar", "inlp", "inlp-keep-grammar"]
#: Hard debias's protected set: the paper's gender-specific words, or ours extended.
Protect = Literal["paper", "extended"]
#: Whose English word lists hard debias fits on: Bolukbasi et al.'s own (the paper) or ours.
HardDebiasLists = Literal["bolukbasi", "geobias"]
#: The words Shift neutralises (eq. 2): the inanimate nouns (the paper), or every other word (ours).
Neutralize = Literal["inanimate", "all-other"]
#: Where model batches run.
Engine = Literal["local", "ray"]
#: Source families of the atlas: registry sources named ``<family>-<lang>``.
AtlasFamily = Literal["use-m3", "fasttext-wiki", "muse"]
#: p_prior's mask of a multi-token attribute: one [MASK] per word (Bartl et al.) or per sub-token.
PriorMask = Literal["word", "subtoken"]
#: Languages of the BEC-Pro templates.
BecProLang = Literal["en", "de"]
#: The gendered words MALoR compares.
MalorPair = Literal["he-she", "his-her", "names"]
#: Counterfactual augmentation (add the swapped copy) or substitution (swap with p = 0.5).
CdaMode = Literal["cda", "cds"]
#: The counterfactual step before masked-LM fine-tuning.
FinetuneCda = Literal["cds", "cda", "none"]
#: Training conditions of the sentiment classifier (Jentzsch & Turan 2022 §2.1).
Condition = Literal["original", "removed", "mixed"]
#: Gender term sets of the sentiment-difference probe.
TermSet = Literal["pro", "weat", "all"]
#: Zero handling of the Wilcoxon signed-rank test.
ZeroMethod = Literal["wilcox", "pratt", "zsplit"]

__all__ = ["Alternative", "Approx", "AtlasFamily", "BecProLang", "CdaMode", "Condition", "Engine", "FinetuneCda", "MalorPair",
           "MitigationMethod", "Neutralize", "OOVPolicy", "PermutationMethod", "PriorMask", "Protect", "ReadFormat",
           "Similarity", "TermSet", "WriteFormat", "ZeroMethod"]
