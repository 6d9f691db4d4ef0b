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

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np

from geobias.contextual.sentiment_terms import GenderRewriter, load_terms
from geobias.errors import InputError, ModelError
from geobias.io.atomic import read_text
from geobias.results import Result
from geobias.validation import check_choice

ZeroMethod = Literal["wilcox", "pratt", "zsplit"]


# --------------------------------------------------------------------------------------------
# scorers


@dataclass(frozen=True)
class LoadedClassifier:
    """A sequence classifier with its tokenizer, in eval mode on ``device``.

    Attributes
    ----------
    name : str
    model, tokenizer : transformers objects
    device : torch.device
    positive_index : int
        Class whose probability is ``sent``.
    labels : list of str
        ``config.id2label`` in index order.
    """

    name: str
    model: Any
    tokenizer: Any
    device: Any
    positive_index: int
    labels: list[str]


def _positive_index(labels: list[str], positive: str | int | None, name: str) -> int:
    if positive is None:
        hits = [i for i, lab in enumerate(labels) if lab.lower().startswith("pos")]
        if len(hits) == 1:
            return hits[0]
        if len(labels) == 2:
            return 1
        raise ModelError(
            f"model {name}: cannot tell the positive class among {len(labels)} labels "
            f"({', '.join(labels)}); pass --positive-class INDEX|LABEL"
        )
    if isinstance(positive, int) or (isinstance(positive, str) and positive.lstrip("-").isdigit()):
        idx = int(positive)
        if not 0 <= idx < len(labels):
            raise ModelError(f"model {name}: positive class index {idx} out of range (0..{len(labels) - 1})")
        return idx
    low = [lab.lower() for lab in labels]
    if positive.lower() not in low:
        raise ModelError(f"model {name}: no class {positive!r} (classes: {', '.join(labels)})")
    return low.index(positive.lower())


def load_classifier(name: str, device: str | None = None, positive: str | int | None = None) -> LoadedClassifier:
    """Load a Hugging Face sequence classifier (``AutoModelForSequenceClassification``).

    Same resolution and one-line errors as the masked-LM probes
    (:func:`geobias.models.resolve_model`).

    Parameters
    ----------
    name : str
        Local directory or Hugging Face id (registry encoders have no classification head).
    device : str, optional
        Default: CUDA when available.
    positive : int or str, optional
        Positive class, by index or label name. Default: the one label starting with "pos",
        else index 1 of a two-class model.

    Raises
    ------
    ModelError
        Unknown id or path; a checkpoint without classification head (the head's weights would be
        initialised randomly); an unidentifiable or out-of-range positive class.
    """
    from geobias.models import (
        REGISTRY,
        _load_tokenizer,
        _loading,
        resolve_device,
        resolve_model,
    )

    source, local, entry = resolve_model(name)
    if entry is not None or name in REGISTRY:
        raise ModelError(
            f"model {name} has no sequence-classification head (an encoder only: train one with "
            "`geobias finetune-classifier`)"
        )
    from transformers import AutoModelForSequenceClassification

    with _loading(name):
        model, info = AutoModelForSequenceClassification.from_pretrained(
            source, local_files_only=local, output_loading_info=True
        )
    prefix = getattr(model, "base_model_prefix", "")
    head_missing = [k for k in info.get("missing_keys", []) if not (prefix and k.startswith(prefix + "."))]
    if head_missing:
        raise ModelError(
            f"model {name} has no sequence-classification head (checkpoint lacks {head_missing[0]}; "
            "train one with `geobias finetune-classifier`)"
        )
    tokenizer = _load_tokenizer(source, local, name)
    n = int(model.config.num_labels)
    labels = [str(model.config.id2label.get(i, f"LABEL_{i}")) for i in range(n)]
    idx = _positive_index(labels, positive, name)
    dev = resolve_device(device)
    model.to(dev).eval()
    return LoadedClassifier(name=name, model=model, tokenizer=tokenizer, device=dev, positive_index=idx, labels=labels)


def _progress(total: int, desc: str, enabled):
    from geobias._progress import loop_bar

    return loop_bar(enabled, total, desc)


class ClassifierScorer:
    """sent(text) = P(positive class | text) of a Hugging Face sequence classifier.

    Distinct texts are run once, sorted by length and batched (padding to the longest of a batch).
    A one-logit model is read through a sigmoid.

    Parameters
    ----------
    clf : LoadedClassifier
    batch_size : int, default 32
    max_length : int, default 256
        Texts are truncated to this many tokens (and to the model's position limit).
    """

    kind = "classifier"

    def __init__(self, clf: LoadedClassifier, *, batch_size: int = 32, max_length: int = 256):
        if batch_size < 1:
            raise InputError(f"batch size must be >= 1; got {batch_size}")
        self.clf = clf
        self.batch_size = batch_size
        self.max_length = max_length
        self.name = clf.name

    def score(self, texts: Sequence[str], *, progress: bool = False) -> np.ndarray:
        """Positive-class probabilities.

        Returns
        -------
        ndarray of shape (len(texts),), float64, in [0, 1]
        """
        import torch

        distinct = sorted(set(texts), key=lambda t: (len(t), t))  # deterministic batches
        limit = min(self.max_length, int(getattr(self.clf.model.config, "max_position_embeddings", 512) or 512))
        values: dict[str, float] = {}
        with torch.inference_mode(), _progress(len(distinct), f"scoring ({self.name})", progress) as bar:
            for b0 in range(0, len(distinct), self.batch_size):
                batch = distinct[b0 : b0 + self.batch_size]
                enc = self.clf.tokenizer(batch, truncation=True, max_length=limit, padding=True, return_tensors="pt")
                enc = {k: v.to(self.clf.device) for k, v in enc.items()}
                logits = self.clf.model(**enc).logits.double()
                if logits.shape[-1] == 1:
                    p = torch.sigmoid(logits[:, 0])
                else:
                    p = torch.softmax(logits, dim=-1)[:, self.clf.positive_index]
                for t, v in zip(batch, p.cpu().numpy(), strict=True):
                    values[t] = float(v)
                bar.update(len(batch))
        return np.fromiter((values[t] for t in texts), dtype=np.float64, count=len(texts))


class VaderScorer:
    """sent(text) = (compound + 1) / 2 of VADER (``vaderSentiment``), a lexicon baseline.

    The compound score ∈ [−1, 1] is mapped to [0, 1] so that differences live on the same scale
    as a classifier's probability. VADER's lexicon holds no pronoun and no kinship word: with the
    ``pro`` and ``weat`` term sets every bias is exactly 0. It cannot show pronoun bias.

    Raises
    ------
    ModelError
        ``vaderSentiment`` is not installed.
    """

    kind = "lexicon"
    name = "vader"

    def __init__(self):
        try:
            from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer
        except ImportError:
            raise ModelError("the VADER scorer needs the package vaderSentiment (pip install vaderSentiment==3.3.2)") from None
        self._analyzer = SentimentIntensityAnalyzer()

    def score(self, texts: Sequence[str], *, progress: bool = False) -> np.ndarray:
        distinct = list(dict.fromkeys(texts))
        values = {}
        with _progress(len(distinct), "scoring (vader)", progress) as bar:
            for t in distinct:
                values[t] = (self._analyzer.polarity_scores(t)["compound"] + 1.0) / 2.0
                bar.update(1)
        return np.fromiter((values[t] for t in texts), dtype=np.float64, count=len(texts))


# --------------------------------------------------------------------------------------------
# statistics


@dataclass(frozen=True)
class BiasStats:
    """Total/absolute bias over a set of samples (one column group of Table 3).

    Attributes
    ----------
    n : int
    total_bias : float
        mean of bias_i (eq. 3); NaN (null in JSON) when ``n`` is 0.
    absolute_bias : float
        mean of |bias_i| (eq. 4).
    std : float
        Standard deviation of bias_i, ddof=1 (NaN when n < 2).
    """

    n: int
    total_bias: float
    absolute_bias: float
    std: float


def _stats(d: np.ndarray) -> BiasStats:
    n = int(d.size)
    if n == 0:
        return BiasStats(0, float("nan"), float("nan"), float("nan"))
    return BiasStats(n, float(d.mean()), float(np.abs(d).mean()), float(d.std(ddof=1)) if n > 1 else float("nan"))


def stars(p: float | None) -> str:
    """Significance stars of the paper: * p < 0.05, ** p < 0.01, *** p < 0.001."""
    if p is None or not np.isfinite(p):
        return ""
    return "***" if p < 0.001 else "**" if p < 0.01 else "*" if p < 0.05 else ""


@dataclass(frozen=True)
class SentimentBias(Result):
    """Sentiment-difference bias of one condition (one row of Table 3).

    Attributes
    ----------
    scorer : str
        Model path/id or ``"vader"``.
    corpus : str
        Corpus label (file name, or ``eec-paired``).
    terms : str
        Term set (``pro``, ``weat``, ``all``; ``eec-persons`` for EEC's own pairs).
    n_samples : int
    n_negative, n_zero, n_positive : int
        Counts of bias_i < 0, = 0 (exactly), > 0.
    n_without_terms : int
        Texts holding no listed term (M = F = text; kept, so they count in N=0 and "all samples").
    all_samples, non_zero : BiasStats
        Over every sample; over the samples with bias ≠ 0.
    wilcoxon_statistic : float or None
    p_value : float or None
        Two-sided Wilcoxon signed-rank p of the paired sent(M), sent(F) with ``zero_method``;
        None when every difference is 0 (the test is undefined).
    p_bonferroni : float or None
        ``min(1, p · n_tests)``.
    significance : str
        Stars on ``p_bonferroni``.
    p_value_non_zero, p_bonferroni_non_zero : float or None
        The same test on the non-zero pairs only (the "non-zero samples" column). Even with
        ``zero_method="wilcox"`` it can differ from ``p_value``: with zeros present scipy's
        ``method="auto"`` uses the normal approximation, without them the exact distribution
        (n ≤ 50).
    zero_method : str
    mean_sent_male, mean_sent_female : float
        Mean sent(M), sent(F) over the samples that were scored: those whose two versions differ
        (:func:`sentiment_probe` does not score a text with M = F — its bias is 0 by construction).
    """

    scorer: str
    corpus: str
    terms: str
    n_samples: int
    n_negative: int
    n_zero: int
    n_positive: int
    n_without_terms: int
    all_samples: BiasStats
    non_zero: BiasStats
    wilcoxon_statistic: float | None
    p_value: float | None
    p_bonferroni: float | None
    significance: str
    p_value_non_zero: float | None
    p_bonferroni_non_zero: float | None
    zero_method: str
    mean_sent_male: float
    mean_sent_female: float


def bias_row(
    sent_male: np.ndarray,
    sent_female: np.ndarray,
    *,
    scorer: str = "",
    corpus: str = "",
    terms: str = "",
    n_without_terms: int = 0,
    zero_method: str = "wilcox",
    scored: np.ndarray | None = None,
) -> SentimentBias:
    """Table-3 statistics of paired scores (Bonferroni not yet applied: ``p_bonferroni = p``).

    Parameters
    ----------
    sent_male, sent_female : array-like of shape (n,), float
        sent(M_i), sent(F_i).
    zero_method : {"wilcox", "pratt", "zsplit"}, default "wilcox"
        Passed to ``scipy.stats.wilcoxon``.
    scored : array of bool of shape (n,), optional
        Which pairs hold real scores; the others must be equal placeholders (M = F, bias 0). Only
        ``mean_sent_male``/``mean_sent_female`` use it. Default: all.

    Raises
    ------
    InputError
        No samples, arrays of different lengths, non-finite scores, an unknown zero method.

    References
    ----------
    Jentzsch & Turan (2022), eq. 1–4 and Table 3.
    """
    from scipy.stats import wilcoxon

    check_choice("zero_method", zero_method, ZeroMethod)
    m = np.asarray(sent_male, dtype=np.float64)
    f = np.asarray(sent_female, dtype=np.float64)
    if m.shape != f.shape or m.ndim != 1:
        raise InputError(f"paired scores differ in shape: {m.shape} vs {f.shape}")
    if m.size == 0:
        raise InputError("no samples to measure")
    if not (np.isfinite(m).all() and np.isfinite(f).all()):
        raise InputError("a sentiment score is not finite")
    d = m - f
    sel = np.ones(d.size, dtype=bool) if scored is None else np.asarray(scored, dtype=bool)
    if sel.shape != d.shape or (d[~sel] != 0).any():
        raise InputError("unscored pairs must have equal placeholder scores")
    nz = d[d != 0]
    stat = p = p_nz = None
    if nz.size:
        res = wilcoxon(m, f, zero_method=zero_method, alternative="two-sided", method="auto")
        stat, p = float(res.statistic), float(res.pvalue)
        if not np.isfinite(p):
            stat = p = None
        keep = d != 0
        p_nz = float(wilcoxon(m[keep], f[keep], alternative="two-sided", method="auto").pvalue)
        if not np.isfinite(p_nz):
            p_nz = None
    return SentimentBias(
        scorer=scorer, corpus=corpus, terms=terms, n_samples=int(d.size),
        n_negative=int((d < 0).sum()), n_zero=int((d == 0).sum()), n_positive=int((d > 0).sum()),
        n_without_terms=int(n_without_terms), all_samples=_stats(d), non_zero=_stats(nz),
        wilcoxon_statistic=stat, p_value=p, p_bonferroni=p, significance=stars(p), p_value_non_zero=p_nz,
        p_bonferroni_non_zero=p_nz, zero_method=zero_method,
        mean_sent_male=float(m[sel].mean()) if sel.any() else float("nan"),
        mean_sent_female=float(f[sel].mean()) if sel.any() else float("nan"),
    )


def bonferroni(rows: Sequence[SentimentBias]) -> list[SentimentBias]:
    """Bonferroni across every row that has a p-value: p · k capped at 1, stars recomputed.

    ``k`` is the number of rows with a defined p-value (a condition whose differences are all 0
    tests nothing); the non-zero-samples p-values are corrected with the same ``k``.
    """
    from dataclasses import replace

    k = sum(r.p_value is not None for r in rows)
    out = []
    for r in rows:
        padj = None if r.p_value is None else min(1.0, r.p_value * k)
        pnz = None if r.p_value_non_zero is None else min(1.0, r.p_value_non_zero * k)
        out.append(replace(r, p_bonferroni=padj, significance=stars(padj), p_bonferroni_non_zero=pnz))
    return out


# --------------------------------------------------------------------------------------------
# corpora


def read_corpus(path: str | Path, column: str | None = None) -> list[str]:
    """Texts of a corpus: a ``.csv`` (quoted fields, header, ``column`` required), a TSV with
    header (``column``; tab-split, no quoting, as :func:`geobias.contextual.cda.read_documents`),
    or plain text (one text per non-blank line, no ``column``).

    Raises
    ------
    InputError
        Missing, empty or non-UTF-8 file; missing column (the message lists the columns); a
        ``.csv`` without ``column``; no texts.
    """
    from geobias.contextual.cda import read_documents

    p = Path(path)
    if p.suffix.lower() != ".csv":
        docs, _, _ = read_documents(p, column)
        return docs
    if column is None:
        raise InputError(f"{p}: a CSV corpus needs --column (the text column)")
    text = read_text(p, what="corpus")
    reader = csv.DictReader(io.StringIO(text))
    if reader.fieldnames is None:
        raise InputError(f"{p}: empty file (expected a header row with column {column!r})")
    if column not in reader.fieldnames:
        raise InputError(f"{p}: line 1: no column {column!r} (columns: {', '.join(reader.fieldnames)})")
    docs = [row[column] for row in reader if row.get(column) and row[column].strip()]
    if not docs:
        raise InputError(f"{p}: no texts in column {column!r}")
    return docs


# --------------------------------------------------------------------------------------------
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
    progress: bool = False,
    extra_rows: Sequence[SentimentBias] = (),
) -> SentimentProbeResult:
    """Bias table of every scorer × corpus × term set, Bonferroni across all of them.

    Parameters
    ----------
    scorers : sequence of ClassifierScorer or VaderScorer
    corpora : sequence of (label, texts)
    terms : sequence of {"pro", "weat", "all"}, default ("all",)
    zero_method : {"wilcox", "pratt", "zsplit"}, default "wilcox"
    progress : bool, default False
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

#: EEC's male and female person noun phrases, paired in order (Kiritchenko & Mohammad 2018).
EEC_PERSON_PAIRS = [
    ("he", "she"), ("this man", "this woman"), ("this boy", "this girl"), ("my brother", "my sister"),
    ("my son", "my daughter"), ("my husband", "my wife"), ("my boyfriend", "my girlfriend"),
    ("my father", "my mother"), ("my uncle", "my aunt"), ("my dad", "my mom"),
]


def eec_pairs(path: str | Path) -> tuple[list[str], list[str], list[str]]:
    """EEC sentence pairs that differ only in the person's gender.

    Noun phrases pair one to one (:data:`EEC_PERSON_PAIRS`) within a template and emotion word;
    first names do not pair one to one, so each male name sentence is paired with the female name
    sentence of the same template, emotion word, race and name rank (the i-th male name of a race
    in file order with the i-th female name).

    Returns
    -------
    male, female : list of str
        The paired sentences.
    keys : list of str
        ``template | emotion word | person pair`` of each pair.

    Raises
    ------
    InputError
        Not the EEC layout (missing Sentence/Template/Person/Gender/Race/Emotion word columns).
    """
    text = read_text(Path(path), what="EEC corpus")
    reader = csv.DictReader(io.StringIO(text))
    need = ("Sentence", "Template", "Person", "Gender", "Race", "Emotion word")
    missing = [c for c in need if c not in (reader.fieldnames or [])]
    if missing:
        raise InputError(f"{path}: not the EEC layout: missing column(s) {', '.join(missing)}")
    rows = list(reader)
    names: dict[tuple[str, str], list[str]] = {}
    for r in rows:
        if r["Race"]:
            lst = names.setdefault((r["Race"], r["Gender"]), [])
            if r["Person"] not in lst:
                lst.append(r["Person"])
    partner: dict[str, str] = {m: f for m, f in EEC_PERSON_PAIRS}
    for (race, gender), lst in names.items():
        if gender == "male":
            for m, f in zip(lst, names.get((race, "female"), []), strict=False):
                partner[m] = f
    index = {(r["Template"], r["Emotion word"], r["Person"]): r["Sentence"] for r in rows}
    male, female, keys = [], [], []
    for r in rows:
        if r["Gender"] != "male" or r["Person"] not in partner:
            continue
        f = index.get((r["Template"], r["Emotion word"], partner[r["Person"]]))
        if f is None:
            continue
        male.append(r["Sentence"])
        female.append(f)
        keys.append(f"{r['Template']} | {r['Emotion word']} | {r['Person']}/{partner[r['Person']]}")
    if not male:
        raise InputError(f"{path}: no male/female sentence pairs found")
    return male, female, keys


def eec_paired_rows(scorers: Sequence, path: str | Path, *, zero_method: str = "wilcox", progress: bool = False) -> list[SentimentBias]:
    """EEC's own paired view: sent(male sentence) − sent(female sentence), one row per scorer
    (``terms="eec-persons"``; Bonferroni not yet applied)."""
    male, female, _ = eec_pairs(path)
    rows = []
    for sc in scorers:
        s = sc.score([*male, *female], progress=progress)
        rows.append(bias_row(s[: len(male)], s[len(male) :], scorer=sc.name, corpus="eec-paired", terms="eec-persons", zero_method=zero_method))
    return rows
