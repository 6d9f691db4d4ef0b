"""MALoR — mean absolute log ratio of gendered-term probabilities (Hossain et al. 2025).

For each occupation o and template t, the gendered slot is masked and the model's probabilities
of a male and a female term are read: MALoR = (1/M) Σ_o | (1/N) Σ_t log2(P(male)/P(female)) |.
For first names, P(male) is the mean probability over the male name set (same for female).
The reverse probe masks the occupation instead and compares P(o | male context) with
P(o | female context).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from geobias._progress import ProgressArg
from geobias.choices import MalorPair
from geobias.engine.masked import MaskedQuery, masked_log_probs
from geobias.errors import InputError, ModelError
from geobias.results import Result
from geobias.validation import check_choice
from geobias.wordlists import own_table

_EXPERIMENT = {"he-she": "subject", "his-her": "possessive", "names": "subject"}


def log_mean_prob(log_p: np.ndarray, axis: int = -1) -> np.ndarray:
    """ln of the mean probability over ``axis`` (stable: logsumexp − ln K)."""
    from scipy.special import logsumexp

    log_p = np.asarray(log_p, dtype=np.float64)
    return logsumexp(log_p, axis=axis) - math.log(log_p.shape[axis])


def malor_score(log_p_male: np.ndarray, log_p_female: np.ndarray) -> tuple[float, np.ndarray]:
    """MALoR from natural-log probabilities.

    Parameters
    ----------
    log_p_male, log_p_female : ndarray of shape (M, N) or (M, N, K)
        ln P of the male / female term for M occupations × N templates; with a trailing axis of
        K terms (a name set) the probabilities are first averaged over K (mean probability, not
        mean log-probability). The two K may differ.

    Returns
    -------
    malor : float
        (1/M) Σ_o | (1/N) Σ_t log2(P_m / P_f) |  (bits).
    per_occupation : ndarray of shape (M,), float64
        The signed inner means (1/N) Σ_t log2(P_m / P_f); positive = male-leaning.

    References
    ----------
    Hossain et al. (2025), the MALoR definition (mean absolute log ratio, base 2).
    """
    lm = np.asarray(log_p_male, dtype=np.float64)
    lf = np.asarray(log_p_female, dtype=np.float64)
    if lm.ndim == 3:
        lm = log_mean_prob(lm)
    if lf.ndim == 3:
        lf = log_mean_prob(lf)
    if lm.shape != lf.shape or lm.ndim != 2:
        raise InputError(f"male and female log-probabilities must be (M, N); got {lm.shape} and {lf.shape}")
    per = ((lm - lf) / math.log(2.0)).mean(axis=1)
    return float(np.abs(per).mean()), per


@dataclass(frozen=True)
class MalorOccupation(Result):
    """Per-occupation signed log2 ratios (positive = male-leaning)."""

    occupation: str
    log2_ratio: float
    reverse_log2_ratio: float | None  # None: occupation is not a single token (not maskable)


@dataclass(frozen=True)
class MalorResult(Result):
    """MALoR of one model for one gendered pair.

    Attributes
    ----------
    model, pair : str
    malor : float
        Bits; 0 = no preference for either gendered term on average per occupation.
    reverse_malor : float or None
        Same with the occupation masked: (1/M') Σ_o |(1/N) Σ_t log2(P(o|male)/P(o|female))| over the
        M' single-token occupations; None when there are none.
    n_templates, n_occupations : int
    male_terms, female_terms : list of str
        The terms used (names in the model's vocabulary).
    missing_names : list of str
        Names that are not a single token of the model (left out of the sets, listed here).
    missing_occupations : list of str
        Occupations that are not a single token (used in the forward probe, excluded from the reverse
        probe).
    per_occupation : list of MalorOccupation
    """

    model: str
    pair: str
    malor: float
    reverse_malor: float | None
    n_templates: int
    n_occupations: int
    male_terms: list[str]
    female_terms: list[str]
    missing_names: list[str]
    missing_occupations: list[str]
    per_occupation: list[MalorOccupation]


def _article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def _fill(template: str, g: str, occ: str, article: str) -> str:
    text = template.replace("{occ}", occ).replace("{a}", article)
    if text.startswith("{g}"):
        g = g[:1].upper() + g[1:]
    return text.replace("{g}", g)


def _single_token_id(tokenizer, word: str) -> int | None:
    ids = tokenizer(word, add_special_tokens=False)["input_ids"]
    return ids[0] if len(ids) == 1 and ids[0] != tokenizer.unk_token_id else None


def _masked_query_input(tokenizer, text: str, mask_id: int) -> tuple[tuple[int, ...], int]:
    ids = tuple(tokenizer(text)["input_ids"])
    positions = [i for i, t in enumerate(ids) if t == mask_id]
    if len(positions) != 1:
        raise InputError(f"template must contain exactly one masked slot: {text!r}")
    return ids, positions[0]


def malor_terms(pair: str) -> tuple[list[str], list[str]]:
    """Male and female terms of a pair (names from ``wordlists/en/malor_names.tsv``)."""
    check_choice("pair", pair, MalorPair)
    if pair == "he-she":
        return ["he"], ["she"]
    if pair == "his-her":
        return ["his"], ["her"]
    rows = own_table("en", "malor_names", ("male", "female"))
    return [r["male"] for r in rows], [r["female"] for r in rows]


def malor_probe(
    lm,
    pair: str = "he-she",
    *,
    occupations: list[str] | None = None,
    templates: list[str] | None = None,
    batch_size: int = 32,
    progress: ProgressArg = False,
) -> MalorResult:
    """MALoR and the reverse probe on a masked LM.

    Parameters
    ----------
    lm : LoadedModel
    pair : {"he-she", "his-her", "names"}
    occupations : list of str, optional
        Default: ``wordlists/en/malor_occupations.tsv``.
    templates : list of str, optional
        With ``{g}``, ``{occ}`` and optional ``{a}``; default: the experiment's templates in
        ``wordlists/en/malor_templates.tsv`` (subject templates for he-she and names, possessive
        for his-her).
    batch_size : int, default 32
    progress : Progress, bool or None, default False

    Returns
    -------
    MalorResult

    Raises
    ------
    ModelError
        A pronoun that is not a single token, or a name set with no single-token name.

    References
    ----------
    Hossain et al. (2025): MALoR = (1/M) Σ_occ |(1/N) Σ_sent log2(P(male)/P(female))|, names
    averaged over the name set; the reverse probe masks the occupation given a gendered context.
    """
    male, female = malor_terms(pair)
    if occupations is None:
        occupations = [r["occupation"] for r in own_table("en", "malor_occupations", ("occupation",))]
    if templates is None:
        templates = [
            r["template"]
            for r in own_table("en", "malor_templates", ("experiment", "template"))
            if r["experiment"] == _EXPERIMENT[pair]
        ]
    if not occupations or not templates:
        raise InputError("MALoR needs at least one occupation and one template")
    tok = lm.tokenizer
    mask_tok, mask_id = tok.mask_token, lm.mask_token_id

    # the gendered slot may be sentence-initial (capitalised) or not: a term is usable only when
    # every surface form the templates need is a single token
    caps = sorted({t.startswith("{g}") for t in templates})

    def surface(term: str, cap: bool) -> str:
        return term[:1].upper() + term[1:] if cap else term

    def usable(term: str) -> bool:
        return all(_single_token_id(tok, surface(term, c)) is not None for c in caps)

    missing = [t for t in male + female if not usable(t)]
    male_kept = [t for t in male if t not in missing]
    female_kept = [t for t in female if t not in missing]
    if pair != "names" and missing:
        raise ModelError(f"gendered term(s) {', '.join(missing)} not a single token in model {lm.name}")
    if not male_kept or not female_kept:
        raise ModelError(f"no single-token {'male' if not male_kept else 'female'} names in model {lm.name}")

    # forward: mask the gendered slot, read every male and female term there
    term_ids = {c: [_single_token_id(tok, surface(t, c)) for t in male_kept + female_kept] for c in caps}
    queries: list[MaskedQuery] = []
    for occ in occupations:
        for tpl in templates:
            ids, pos = _masked_query_input(tok, _fill(tpl, mask_tok, occ, _article(occ)), mask_id)
            queries.extend(MaskedQuery(ids, pos, t) for t in term_ids[tpl.startswith("{g}")])
    lp = masked_log_probs(lm, queries, batch_size=batch_size, progress=progress, desc="MALoR")
    k_m, k_f = len(male_kept), len(female_kept)
    lp = lp.reshape(len(occupations), len(templates), k_m + k_f)
    score, per = malor_score(lp[..., :k_m], lp[..., k_m:])

    # reverse: mask the occupation given a gendered context
    occ_ids = {o: _single_token_id(tok, o) for o in occupations}
    single = [o for o in occupations if occ_ids[o] is not None]
    missing_occ = [o for o in occupations if occ_ids[o] is None]
    reverse: dict[str, float] = {}
    rev_score = None
    if single:
        # the masked context depends on the occupation only through its article: tokenise each
        # (template, term, article) once
        contexts: dict[tuple[str, str, str], tuple[tuple[int, ...], int]] = {}
        rq: list[MaskedQuery] = []
        for occ in single:
            art = _article(occ)
            for tpl in templates:
                for t in male_kept + female_kept:
                    key = (tpl, t, art)
                    if key not in contexts:
                        contexts[key] = _masked_query_input(tok, _fill(tpl, t, mask_tok, art), mask_id)
                    ids, pos = contexts[key]
                    rq.append(MaskedQuery(ids, pos, occ_ids[occ]))
        rlp = masked_log_probs(lm, rq, batch_size=batch_size, progress=progress, desc="MALoR reverse")
        rlp = rlp.reshape(len(single), len(templates), k_m + k_f)
        rev_score, rev_per = malor_score(rlp[..., :k_m], rlp[..., k_m:])
        reverse = dict(zip(single, rev_per.tolist(), strict=True))
    per_occ = [MalorOccupation(o, float(per[i]), reverse.get(o)) for i, o in enumerate(occupations)]
    return MalorResult(
        model=lm.name,
        pair=pair,
        malor=score,
        reverse_malor=rev_score,
        n_templates=len(templates),
        n_occupations=len(occupations),
        male_terms=male_kept,
        female_terms=female_kept,
        missing_names=missing if pair == "names" else [],
        missing_occupations=missing_occ,
        per_occupation=per_occ,
    )
