"""Kurita et al. (2019) association: log(p_T / p_prior) from a masked language model."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from geobias._progress import ProgressArg
from geobias.contextual.masking import PriorMask, ProbeSentence, encode_probe
from geobias.engine.masked import (
    MaskedQuery,
    count_distinct,
    masked_log_probs,
    naive_masked_log_probs,
)
from geobias.errors import InputError
from geobias.results import Result


@dataclass(frozen=True)
class AssociationResult(Result):
    """Association scores of a list of probe sentences.

    Attributes
    ----------
    model : str
    sentences : list of str
    log_p_target : ndarray of shape (n,), float64
        ln p_T: target probability with only the target masked.
    log_p_prior : ndarray of shape (n,), float64
        ln p_prior: target probability with the target and the attribute masked (per
        ``prior_mask``).
    association : ndarray of shape (n,), float64
        ln(p_T / p_prior) (natural log).
    n_distinct_target_masked, n_distinct_prior_masked : int
        Distinct masked inputs (forward passes) of each kind.
    """

    model: str
    sentences: list[str]
    log_p_target: np.ndarray
    log_p_prior: np.ndarray
    association: np.ndarray
    n_distinct_target_masked: int
    n_distinct_prior_masked: int
    prior_mask: str = "word"


def build_queries(lm, sentences: Sequence[ProbeSentence], prior_mask: PriorMask = "word"
                  ) -> tuple[list[MaskedQuery], list[MaskedQuery]]:
    """The T-masked and T+A-masked queries of each sentence (same order as ``sentences``).

    ``prior_mask``: ``"word"`` (Bartl et al. 2020: one [MASK] per attribute word, the default)
    or ``"subtoken"`` (ours: every attribute sub-token masked in place).

    Raises
    ------
    InputError
        A sentence without attribute span.
    ModelError
        A target that is not a single token.
    """
    from geobias.validation import check_choice

    check_choice("prior_mask", prior_mask, PriorMask)
    mask = lm.mask_token_id
    tm, tam = [], []
    cache: dict[ProbeSentence, object] = {}
    for s in sentences:
        if s.attribute is None:
            raise InputError(f"sentence {s.text!r} has no attribute to mask for the prior")
        enc = cache.get(s)
        if enc is None:
            enc = cache[s] = encode_probe(lm.tokenizer, s, lm.name)
        tm.append(MaskedQuery(enc.masked(mask, attribute=False), enc.target_index, enc.target_id))
        prior_ids, prior_target = enc.masked_prior(mask, prior_mask)
        tam.append(MaskedQuery(prior_ids, prior_target, enc.target_id))
    return tm, tam


def kurita_association(
    lm,
    sentences: Sequence[ProbeSentence],
    *,
    batch_size: int = 32,
    progress: ProgressArg = False,
    naive: bool = False,
    prior_mask: PriorMask = "word",
) -> AssociationResult:
    """Association of each sentence's target with its attribute.

    association = ln(p_T / p_prior), where p_T = P(target | sentence with the target masked) and
    p_prior = P(target | sentence with the target and the attribute masked). Only the target
    token is masked, never its determiner.

    Parameters
    ----------
    lm : LoadedModel
        From :func:`geobias.models.load_masked_lm`.
    sentences : sequence of ProbeSentence
        Each with target and attribute spans.
    batch_size : int, default 32
    progress : Progress, bool or None, default False
        Progress bar on stderr.
    naive : bool, default False
        Use the one-sentence-at-a-time reference (no deduplication, no batching) — for tests
        and benchmarks.
    prior_mask : {"word", "subtoken"}, default "word"
        The attribute mask of p_prior: one [MASK] per attribute word (Bartl et al. 2020's
        ``Sent_TAM``, the default) or every sub-token masked in place (ours).

    Returns
    -------
    AssociationResult

    References
    ----------
    Kurita, Vyas, Pareek, Black, Tsvetkov (2019). Measuring Bias in Contextualized Word
    Representations. GeBNLP, §3 ("increased log probability score"). Bartl, Nissim & Gatt
    (2020). Unmasking Contextual Stereotypes. GeBNLP, §3 (one [MASK] per attribute word).
    """
    if not sentences:
        raise InputError("no sentences to probe")
    tm, tam = build_queries(lm, sentences, prior_mask)
    if naive:
        lp_t = naive_masked_log_probs(lm, tm)
        lp_p = naive_masked_log_probs(lm, tam)
    else:
        both = masked_log_probs(lm, tm + tam, batch_size=batch_size, progress=progress, desc="association")
        lp_t, lp_p = both[: len(tm)], both[len(tm) :]
    return AssociationResult(
        model=lm.name,
        sentences=[s.text for s in sentences],
        log_p_target=lp_t,
        log_p_prior=lp_p,
        association=lp_t - lp_p,
        n_distinct_target_masked=count_distinct(tm),
        n_distinct_prior_masked=count_distinct(tam),
        prior_mask=prior_mask,
    )


def read_probe_tsv(path: str | Path) -> list[ProbeSentence]:
    """Read probe sentences from a TSV with a header naming the columns sentence, target and
    attribute (aliases, any case: Person for target, Profession for attribute; BEC-Pro files
    read as they are). Blank lines are skipped.

    Parameters
    ----------
    path : str or Path
        Tab-separated text file.

    Returns
    -------
    list of ProbeSentence
        One per data row, in file order.

    Raises
    ------
    InputError
        Unreadable or empty file, a missing column, a row with too few fields or whose target
        or attribute is not in its sentence (the message names the line), or no sentences.
    """
    from geobias.io.atomic import read_text

    aliases = {"sentence": "sentence", "target": "target", "person": "target", "attribute": "attribute", "profession": "attribute"}
    reader = csv.reader(io.StringIO(read_text(path, what="sentences")), delimiter="\t")
    header = next(reader, None)
    if header is None:
        raise InputError(f"{path}: empty file")
    cols = {aliases[h.strip().lower()]: i for i, h in enumerate(header) if h.strip().lower() in aliases}
    missing = [c for c in ("sentence", "target", "attribute") if c not in cols]
    if missing:
        raise InputError(f"{path}: line 1: missing column(s) {', '.join(missing)} (need sentence, target, attribute)")
    out = []
    for row in reader:
        if not row or not any(f.strip() for f in row):
            continue
        try:
            out.append(ProbeSentence.from_words(row[cols["sentence"]], row[cols["target"]], row[cols["attribute"]]))
        except IndexError:
            raise InputError(f"{path}: line {reader.line_num}: too few fields") from None
        except InputError as exc:
            raise InputError(f"{path}: line {reader.line_num}: {exc}") from None
    if not out:
        raise InputError(f"{path}: no sentences")
    return out
