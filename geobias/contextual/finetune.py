"""Continued masked-LM pre-training (optionally on a CDA/CDS corpus) as a bias mitigation.

Bartl et al. (2020, §5) fine-tune BERT with the masked-LM objective on GAP after
counterfactual data substitution and compare BEC-Pro associations before and after
(``geobias probe becpro --model ORIG --compare FINETUNED``); Hossain et al. (2025) use CDA
continued pre-training before MALoR. This module is that training step: a plain PyTorch loop
over :class:`transformers.DataCollatorForLanguageModeling` batches (BERT masking: 15 % of the
non-special tokens are chosen; of those 80 % become ``[MASK]``, 10 % a random token, 10 % stay),
AdamW with a constant learning rate, and an atomic ``save_pretrained`` of model and tokenizer.

Loss before and after training is measured on the same fixed evaluation batch (the first
``eval_size`` training sequences, masked once with a seed), so the two numbers are comparable;
it is a training-set loss, meant to show that training happened, not a held-out score.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from geobias._progress import ProgressArg
from geobias.choices import FinetuneCda as CdaChoice
from geobias.contextual.cda import CounterfactualSwapper, augment
from geobias.errors import InputError
from geobias.io.atomic import atomic_directory, check_output_path
from geobias.results import Result
from geobias.validation import check_choice


@dataclass(frozen=True)
class FinetuneResult(Result):
    """What :func:`finetune_mlm` did.

    Attributes
    ----------
    model : str
        The starting model (``--model``).
    output : str
        Directory of the fine-tuned model (``save_pretrained``: model + tokenizer).
    cda : {"cds", "cda", "none"}
        Counterfactual augmentation applied to the corpus first.
    n_documents : int
        Input documents.
    n_sequences : int
        Training sequences after augmentation (one per document, truncated to ``max_length``).
    steps : int
        Optimiser steps taken.
    epochs : int
        Passes started over the sequences (the last one may stop early at ``max_steps``).
    batch_size, lr, mlm_probability, max_length, seed : the options used
    loss_before, loss_after : float
        Mean masked-LM cross-entropy (nats per masked token) on the fixed evaluation batch,
        before and after training.
    losses : list of float
        Training loss of every step.
    n_eval_sequences : int
    device : str
    seconds : float
        Wall-clock time of the training loop.
    """

    model: str
    output: str
    cda: str
    n_documents: int
    n_sequences: int
    steps: int
    epochs: int
    batch_size: int
    lr: float
    mlm_probability: float
    max_length: int
    seed: int
    loss_before: float
    loss_after: float
    n_eval_sequences: int
    device: str
    seconds: float
    losses: list[float] = field(default_factory=list)


def _eval_loss(model, batch) -> float:
    import torch

    was_training = model.training
    model.eval()
    with torch.inference_mode():
        loss = float(model(**batch).loss)
    model.train(was_training)
    return loss


def finetune_mlm(
    model: str,
    documents: Sequence[str],
    out: str | Path,
    *,
    cda: str = "cds",
    epochs: int = 1,
    batch_size: int = 16,
    lr: float = 5e-5,
    max_steps: int | None = None,
    mlm_probability: float = 0.15,
    max_length: int = 128,
    weight_decay: float = 0.01,
    seed: int = 0,
    device: str | None = None,
    overwrite: bool = False,
    eval_size: int = 64,
    swapper: CounterfactualSwapper | None = None,
    progress: ProgressArg = False,
) -> FinetuneResult:
    """Continue masked-LM pre-training of ``model`` on ``documents`` and save it to ``out``.

    Parameters
    ----------
    model : str
        Masked LM to start from (registry name, local directory or Hugging Face id).
    documents : sequence of str
        Training corpus, one document per item.
    out : str or Path
        Output directory; written atomically (a temporary sibling, renamed when complete).
    cda : {"cds", "cda", "none"}, default "cds"
        Counterfactual augmentation of the corpus first (:func:`geobias.contextual.cda.augment`
        with ``seed``); ``"none"`` trains on the corpus as given.
    epochs : int, default 1
    batch_size : int, default 16
    lr : float, default 5e-5
        AdamW learning rate, constant.
    max_steps : int, optional
        Total optimiser steps; overrides ``epochs`` (as in ``transformers.Trainer``), passing over
        the data as many times as needed.
    mlm_probability : float, default 0.15
        Share of non-special tokens selected for prediction (BERT 80/10/10 replacement).
    max_length : int, default 128
        Documents are truncated to this many tokens (and to the model's position limit).
    weight_decay : float, default 0.01
    seed : int, default 0
        Seeds CDS draws, shuffling, masking and dropout (``torch.manual_seed``).
    device : str, optional
        Default: CUDA when available.
    overwrite : bool, default False
        Replace an existing ``out``.
    eval_size : int, default 64
        Sequences in the fixed batch on which ``loss_before``/``loss_after`` are measured.
    swapper : CounterfactualSwapper, optional
        Default: the project's English lists, names included.
    progress : Progress, bool or None, default False
        A progress bar on stderr.

    Returns
    -------
    FinetuneResult

    Raises
    ------
    InputError
        ``out`` exists without ``overwrite``, or is the starting model's own directory (even
        with ``overwrite``); no documents; a bad option value.
    ModelError
        The model cannot be loaded or has no masked-LM head.

    References
    ----------
    Devlin et al. (2019), §3.1 (masked LM); Bartl et al. (2020), §5; Maudslay et al. (2019)
    (CDS); Webster et al. (2018) (GAP, the corpus Bartl et al. fine-tune on).
    """
    import torch
    from transformers import DataCollatorForLanguageModeling

    from geobias.contextual._training import train_steps
    from geobias.models import load_masked_lm

    check_choice("cda", cda, CdaChoice)
    for name, value in (("epochs", epochs), ("batch_size", batch_size), ("max_length", max_length), ("eval_size", eval_size)):
        if value < 1:
            raise InputError(f"{name} must be at least 1; got {value}")
    if max_steps is not None and max_steps < 1:
        raise InputError(f"max_steps must be at least 1; got {max_steps}")
    if not 0.0 < mlm_probability < 1.0:
        raise InputError(f"mlm_probability must be in (0, 1); got {mlm_probability}")
    if not lr > 0:
        raise InputError(f"lr must be positive; got {lr}")
    out = check_output_path(out, what="fine-tuned model", overwrite=overwrite, directory=True)
    start_dir = Path(model).expanduser()
    if out.exists() and start_dir.is_dir() and os.path.samefile(start_dir, out):
        raise InputError(f"{out} is the model being fine-tuned; write the output to another directory")
    docs = [d for d in documents if d.strip()]
    if not docs:
        raise InputError("the corpus has no documents")
    texts = docs if cda == "none" else augment(docs, cda, seed=seed, swapper=swapper).texts

    torch.manual_seed(seed)
    lm = load_masked_lm(model, device)
    net, tok = lm.model, lm.tokenizer
    limit = min(max_length, int(getattr(net.config, "max_position_embeddings", max_length) or max_length))
    enc = tok(texts, truncation=True, max_length=limit, return_special_tokens_mask=True)
    features = [{k: enc[k][i] for k in enc.keys()} for i in range(len(texts))]
    collator = DataCollatorForLanguageModeling(tok, mlm=True, mlm_probability=mlm_probability)

    def to_device(batch):
        return {k: v.to(lm.device) for k, v in batch.items()}

    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed + 1)
        for _ in range(100):  # a very short corpus can draw no masked token at all: draw again
            eval_batch = to_device(collator(features[:eval_size]))
            if bool((eval_batch["labels"] != -100).any()):
                break
        else:
            raise InputError("the corpus is too short: no token was selected for masking")
    loss_before = _eval_loss(net, eval_batch)

    n = len(features)
    per_epoch = math.ceil(n / batch_size)
    total = epochs * per_epoch if max_steps is None else max_steps
    no_decay = ("bias", "LayerNorm.weight", "layer_norm.weight")
    groups = [
        {"params": [p for k, p in net.named_parameters() if not k.endswith(no_decay)], "weight_decay": weight_decay},
        {"params": [p for k, p in net.named_parameters() if k.endswith(no_decay)], "weight_decay": 0.0},
    ]
    optimizer = torch.optim.AdamW(groups, lr=lr)
    gen = torch.Generator().manual_seed(seed)
    net.train()
    start = time.perf_counter()

    def batch_loss(indices):
        batch = to_device(collator([features[j] for j in indices]))
        if not bool((batch["labels"] != -100).any()):
            return None  # nothing to predict (the loss would be NaN): skip, do not count
        return net(**batch).loss

    def no_step():
        raise InputError("the corpus is too short: no token was selected for masking in a whole epoch")

    losses, epoch = train_steps(optimizer, n, batch_size, total, batch_loss, generator=gen,
                                desc="fine-tuning (MLM)", progress=progress, on_empty_epoch=no_step)
    seconds = time.perf_counter() - start
    loss_after = _eval_loss(net, eval_batch)
    net.eval()

    result = FinetuneResult(
        model=model, output=str(out), cda=cda, n_documents=len(docs), n_sequences=n, steps=len(losses),
        epochs=epoch, batch_size=batch_size, lr=lr, mlm_probability=mlm_probability, max_length=limit,
        seed=seed, loss_before=loss_before, loss_after=loss_after, n_eval_sequences=min(eval_size, n),
        device=str(lm.device), seconds=seconds, losses=losses,
    )
    _save_atomic(net, tok, out, result, overwrite)
    return result


def _save_atomic(net, tok, out: Path, result: FinetuneResult, overwrite: bool) -> None:
    """``save_pretrained`` (model + tokenizer) into a temporary sibling of ``out``, renamed when complete."""
    from transformers.utils import logging as hf_logging

    bars = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()  # library code prints nothing (the shard-writing bar)
    try:
        with atomic_directory(out, what="fine-tuned model", overwrite=overwrite) as tmp:
            net.save_pretrained(tmp)
            tok.save_pretrained(tmp)
            (tmp / "geobias_finetune.json").write_text(result.to_json() + "\n", encoding="utf-8")
    finally:
        if bars:
            hf_logging.enable_progress_bar()
