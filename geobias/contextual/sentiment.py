"""Sentiment-difference gender bias of a sentiment scorer (Jentzsch & Turan 2022).

Every text is rated twice, as its male version M and its female version F
(:mod:`geobias.contextual.sentiment_terms`); the per-sample bias is

    bias_i = sent(M_i) − sent(F_i)                                   (eq. 1–2)

with ``sent`` ∈ [0, 1], the positive-class probability of a classifier. Per condition (a scorer
on a corpus with a term set) the table reports, as the paper's Table 3:

- total bias = mean_i bias_i (eq. 3) and absolute bias = mean_i |bias_i| (eq. 4), with the
  standard deviation (ddof=1), over **all samples** and over the **non-zero samples** only
  (texts with no listed term have M = F, hence bias exactly 0);
- the counts N<0, N=0, N>0;
- the Wilcoxon signed-rank test of the paired sent(M), sent(F) (``scipy.stats.wilcoxon``,
  two-sided, ``method="auto"``). Zero differences: ``zero_method="wilcox"`` by default (scipy's
  default: zeros are discarded, so the "all samples" and "non-zero samples" tests coincide);
  ``"pratt"`` ranks the zeros then drops them, ``"zsplit"`` splits them between the signs — with
  most differences 0 the choice decides the p-value, so it is an option and it is reported;
- Bonferroni across all conditions of one run (p × number of tests, capped at 1), and the
  paper's significance stars on the corrected p: * < 0.05, ** < 0.01, *** < 0.001.

A positive total bias means the male versions are rated more positively.

Scorers: any Hugging Face sequence classifier (:class:`ClassifierScorer`, the paper's kind), and
VADER (:class:`VaderScorer`) as a lexicon baseline only — VADER's lexicon holds no pronoun or
kinship word, so its bias on the ``pro`` and ``weat`` sets is exactly 0 on every text: a lexicon
scorer cannot show pronoun bias, which is why the method needs learned classifiers.

References
----------
Jentzsch, Turan (2022), *Gender Bias in BERT — Measuring and Analysing Biases through Sentiment
Rating in a Realistic Downstream Classification Task*, GeBNLP (eq. 1–4, Table 3, Fig. 3).
Kiritchenko, Mohammad (2018), *Examining Gender and Race Bias in Two Hundred Sentiment Analysis
Systems*, *SEM (the Equity Evaluation Corpus, EEC).
Hutto, Gilbert (2014), *VADER: A Parsimonious Rule-based Model for Sentiment Analysis of Social
Media Text*, ICWSM.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from geobias._progress import ProgressArg
from geobias.contextual.sentiment_corpora import eec_pairs
from geobias.contextual.sentiment_stats import SentimentBias, ZeroMethod, bias_row, bonferroni
from geobias.contextual.sentiment_terms import GenderRewriter, load_terms
from geobias.errors import InputError
from geobias.results import Result
from geobias.validation import check_choice

# the probe


@dataclass(frozen=True)
class SentimentProbeResult(Result):
    """Sentiment-difference bias for every (scorer, corpus, term set) condition of one run.

    Attributes
    ----------
    rows : list of SentimentBias
        Bonferroni-corrected across all rows.
    n_tests : int
        Rows with a defined Wilcoxon p (the Bonferroni factor).
    zero_method : str
    texts_without_terms : str
        ``"kept"``: texts with no listed term stay in the sample (bias 0, counted in N=0 and
        ``n_without_terms``).
    differences : dict of str to list of float
        Per-sample bias_i of each row, keyed ``scorer | corpus | terms`` (omitted from JSON unless
        asked; used by the plot).
    """

    rows: list[SentimentBias]
    n_tests: int
    zero_method: str
    texts_without_terms: str = "kept"
    differences: dict[str, list[float]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        d = super().to_dict()
        d.pop("differences", None)
        return d


def row_key(r: SentimentBias) -> str:
    return f"{r.scorer} | {r.corpus} | {r.terms}"


def versions(texts: Sequence[str], rewriter: GenderRewriter) -> tuple[list[str], list[str], int]:
    """Male versions, female versions, and the number of texts holding no listed term."""
    male = [rewriter.male(t) for t in texts]
    female = [rewriter.female(t) for t in texts]
    n_without = sum(rewriter.count(t) == 0 for t in texts)
    return male, female, n_without


def sentiment_probe(
    scorers: Sequence,
    corpora: Sequence[tuple[str, Sequence[str]]],
    terms: Sequence[str] = ("all",),
    *,
    zero_method: str = "wilcox",
    progress: ProgressArg = False,
    extra_rows: Sequence[SentimentBias] = (),
) -> SentimentProbeResult:
    """Bias table of every scorer × corpus × term set, Bonferroni across all of them.

    Parameters
    ----------
    scorers : sequence of ClassifierScorer or VaderScorer
    corpora : sequence of (label, texts)
    terms : sequence of {"pro", "weat", "all"}, default ("all",)
    zero_method : {"wilcox", "pratt", "zsplit"}, default "wilcox"
    progress : Progress, bool or None, default False
    extra_rows : sequence of SentimentBias
        Rows measured elsewhere (e.g. :func:`eec_paired_rows`) that join the Bonferroni family.

    Returns
    -------
    SentimentProbeResult

    Notes
    -----
    Texts whose male and female versions are identical (no listed term, or only terms that
    the two maps leave alike) are not scored: their bias is 0 by construction and they enter
    the table as zeros (N=0, "all samples" columns, Wilcoxon zero handling).

    Raises
    ------
    InputError
        An unknown term set or zero method; an empty corpus; no scorer.
    """
    check_choice("zero_method", zero_method, ZeroMethod)
    if not scorers:
        raise InputError("no scorer given (pass --model and/or --vader)")
    rewriters = {t: load_terms(t) for t in dict.fromkeys(terms)}
    rows: list[SentimentBias] = []
    diffs: dict[str, list[float]] = {}
    for label, texts in corpora:
        if not texts:
            raise InputError(f"corpus {label}: no texts")
    for label, texts in corpora:
        prepared = {t: versions(texts, rw) for t, rw in rewriters.items()}
        for sc in scorers:
            # one scoring call per scorer and corpus: every distinct M/F text of every term set
            # once; a text whose two versions are equal is not scored (its bias is 0 by construction)
            pool = [x for m, f, _ in prepared.values() for a, b in zip(m, f, strict=True) if a != b for x in (a, b)]
            scores = dict(zip(pool, sc.score(pool, progress=progress), strict=True)) if pool else {}
            for t, (m, f, n_without) in prepared.items():
                changed = np.array([a != b for a, b in zip(m, f, strict=True)])
                sm = np.array([scores[a] if c else 0.0 for a, c in zip(m, changed, strict=True)])
                sf = np.array([scores[b] if c else 0.0 for b, c in zip(f, changed, strict=True)])
                r = bias_row(sm, sf, scorer=sc.name, corpus=label, terms=t, n_without_terms=n_without,
                             zero_method=zero_method, scored=changed)
                rows.append(r)
                diffs[row_key(r)] = (sm - sf).tolist()
    rows = bonferroni([*rows, *extra_rows])
    return SentimentProbeResult(rows=rows, n_tests=sum(r.p_value is not None for r in rows), zero_method=zero_method, differences=diffs)


# --------------------------------------------------------------------------------------------
# EEC's own paired view

def eec_paired_rows(scorers: Sequence, path: str | Path, *, zero_method: str = "wilcox", progress: ProgressArg = False) -> list[SentimentBias]:
    """EEC's own paired view: sent(male sentence) − sent(female sentence), one row per scorer
    (``terms="eec-persons"``; Bonferroni not yet applied)."""
    male, female, _ = eec_pairs(path)
    rows = []
    for sc in scorers:
        s = sc.score([*male, *female], progress=progress)
        rows.append(bias_row(s[: len(male)], s[len(male) :], scorer=sc.name, corpus="eec-paired", terms="eec-persons", zero_method=zero_method))
    return rows
