"""`geobias finetune`: continued masked-LM pre-training on a (CDA/CDS) corpus, saved as a model."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from geobias.cli._app import app
from geobias.cli._choices import FinetuneCdaChoice
from geobias.cli._options import Json, ModelTrustPickle, Seed
from geobias.cli._run import invoke
from geobias.cli.probe_association import Device, ModelOpt


@app.command("finetune")
def finetune(
    model: ModelOpt,
    corpus: Annotated[Path, typer.Option("--corpus", help="Training text: one document per line, or TSV with --column.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Output directory for the fine-tuned model and tokenizer.")],
    cda: Annotated[
        FinetuneCdaChoice, typer.Option("--cda", help="Counterfactual augmentation first: cds (substitute, p = 0.5), cda (add), none.")
    ] = "cds",
    column: Annotated[str | None, typer.Option("--column", help="TSV corpus: the text column (e.g. Text for GAP).")] = None,
    epochs: Annotated[int, typer.Option("--epochs", help="Passes over the corpus.")] = 1,
    batch_size: Annotated[int, typer.Option("--batch-size", help="Sequences per optimiser step.")] = 16,
    lr: Annotated[float, typer.Option("--lr", help="AdamW learning rate (constant).")] = 5e-5,
    max_steps: Annotated[int | None, typer.Option("--max-steps", help="Total optimiser steps (overrides --epochs).")] = None,
    mlm_probability: Annotated[float, typer.Option("--mlm-probability", help="Share of tokens selected for prediction.")] = 0.15,
    max_length: Annotated[int, typer.Option("--max-length", help="Truncate documents to this many tokens.")] = 128,
    seed: Seed = 0,
    device: Device = "auto",
    overwrite: Annotated[bool, typer.Option("--overwrite", help="Replace an existing output directory.")] = False,
    trust_pickle: ModelTrustPickle = False,
    as_json: Json = False,
) -> None:
    """Continue MLM pre-training (Bartl et al. 2020 §5: CDS on GAP, then fine-tuning) and save the model.

    Example: geobias finetune --model bert-base-uncased --corpus gap-development.tsv --column Text --cda cds --out bert-cds/
    """
    invoke("finetune", locals())
