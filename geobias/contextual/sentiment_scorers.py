"""Sentiment scorers for the sentiment-difference probe: a Hugging Face sequence classifier
(:class:`ClassifierScorer`, loaded by :func:`load_classifier`) and VADER (:class:`VaderScorer`),
a lexicon baseline that cannot show pronoun bias (its lexicon holds no pronoun or kinship word).

References
----------
Hutto, Gilbert (2014), *VADER: A Parsimonious Rule-based Model for Sentiment Analysis of Social
Media Text*, ICWSM.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from geobias._progress import ProgressArg
from geobias.errors import InputError, ModelError

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


def load_classifier(name: str, device: str | None = None, positive: str | int | None = None, *,
                    trust_pickle: bool = False) -> LoadedClassifier:
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
    trust_pickle : bool, default False
        Allow a local folder with only pickled ``pytorch_model.bin`` weights (safetensors are
        loaded by default; :func:`geobias.models.weights_kwargs`).

    Raises
    ------
    ModelError
        Unknown id or path; a checkpoint without classification head (the head's weights would be
        initialised randomly); an unidentifiable or out-of-range positive class; a folder with only
        pickled weights and no opt-in; a hub id neither installed nor reachable.
    """
    from geobias.models import (
        REGISTRY,
        _load_tokenizer,
        _loading,
        resolve_device,
        resolve_model,
        weights_kwargs,
    )

    source, local, entry = resolve_model(name, trust_pickle=trust_pickle)
    if entry is not None or name in REGISTRY:
        raise ModelError(
            f"model {name} has no sequence-classification head (an encoder only: train one with "
            "`geobias finetune-classifier`)"
        )
    from transformers import AutoModelForSequenceClassification

    with _loading(name):
        model, info = AutoModelForSequenceClassification.from_pretrained(
            source, local_files_only=local, output_loading_info=True, **weights_kwargs(source, name, trust_pickle)
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

    def score(self, texts: Sequence[str], *, progress: ProgressArg = False) -> np.ndarray:
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

    def score(self, texts: Sequence[str], *, progress: ProgressArg = False) -> np.ndarray:
        distinct = list(dict.fromkeys(texts))
        values = {}
        with _progress(len(distinct), "scoring (vader)", progress) as bar:
            for t in distinct:
                values[t] = (self._analyzer.polarity_scores(t)["compound"] + 1.0) / 2.0
                bar.update(1)
        return np.fromiter((values[t] for t in texts), dtype=np.float64, count=len(texts))
