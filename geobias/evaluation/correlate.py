"""Correlation of English and gendered-language occupation bias (Zhou et al. 2019, §4.4)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from geobias.errors import InputError
from geobias.evaluation.analogy import split_triples
from geobias.results import Result
from geobias.store import VectorStore


@dataclass(frozen=True)
class CorrelationResult(Result):
    """Spearman correlation of per-occupation bias in English and in the gendered language.

    Attributes
    ----------
    spearman : float
    p_value : float
        Two-sided (scipy.stats.spearmanr).
    n_occupations : int
    per_occupation : list of dict
        ``english``, ``feminine``, ``masculine``, ``weat_en`` = s(E, A_en, B_en), ``mweat_signed`` =
        |s(w_m, A, B)| − |s(w_f, A, B)| in the gendered language.
    missing : list of str
    """

    spearman: float
    p_value: float
    n_occupations: int
    per_occupation: list[dict] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)


def correlate(src: VectorStore, en: VectorStore, occupations: Sequence, attributes: tuple[Sequence[str], Sequence[str]],
              en_attributes: tuple[Sequence[str], Sequence[str]]) -> CorrelationResult:
    """Spearman correlation between per-occupation WEAT association in English, s(E, A, B), and the
    signed MWEAT bias of the same occupation in the gendered language.

    Parameters
    ----------
    src, en : VectorStore
        Monolingual stores (no alignment needed: each score is within one language).
    occupations : sequence of (feminine, masculine, english)
    attributes, en_attributes : (male words, female words) of each language.

    Returns
    -------
    CorrelationResult

    Raises
    ------
    InputError
        ``src`` is English, an attribute list entirely out of vocabulary, or fewer than 3
        occupations with all three words in vocabulary.

    References
    ----------
    Zhou, Shi, Zhao, Huang, Chen, Cotterell & Chang (2019), §4.4 and Figure 4 (Spearman ρ of
    WEAT(EN) vs MWEAT(ES/FR) per occupation).
    """
    from geobias.metrics import association

    if src.lang == "en":
        raise InputError("correlate compares English with a gendered language; --lang must be fr, es or de, not en")

    male, female = attributes
    en_male, en_female = en_attributes
    male = [w for w in male if w in src]
    female = [w for w in female if w in src]
    en_male = [w for w in en_male if w in en]
    en_female = [w for w in en_female if w in en]
    if not (male and female and en_male and en_female):
        raise InputError("an attribute list is entirely out of vocabulary")
    used, missing = split_triples(occupations, src, en)
    # several forms can share one English word; keep the first
    seen, uniq = set(), []
    for t in used:
        if t[2] not in seen:
            seen.add(t[2])
            uniq.append(t)
    if len(uniq) < 3:
        raise InputError(f"only {len(uniq)} occupations are in both vocabularies; need ≥ 3")
    s_en = association(en, [e for _, _, e in uniq], en_male, en_female)
    s_m = association(src, [m for _, m, _ in uniq], male, female)
    s_f = association(src, [f for f, _, _ in uniq], male, female)
    signed = np.abs(s_m) - np.abs(s_f)
    from scipy import stats  # here: the package imports this module eagerly (see its __init__)

    rho, p = stats.spearmanr(s_en, signed)
    per = [{"english": e, "feminine": f, "masculine": m, "weat_en": float(a), "mweat_signed": float(b)}
           for (f, m, e), a, b in zip(uniq, s_en, signed, strict=True)]
    return CorrelationResult(float(rho), float(p), len(uniq), per, missing)
