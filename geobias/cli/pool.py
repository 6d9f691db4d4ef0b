"""`geobias vectors pool`: pooled contextual vectors of a transformer saved as a vector store."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from geobias.cli._app import vectors_app
from geobias.cli._engine import Actors, EngineOpt, RayAddress, Threads
from geobias.cli._options import Json, OptLang, Quiet
from geobias.cli._run import invoke
from geobias.cli.probe_association import BatchSize, Device


@vectors_app.command("pool")
def pool(
    model: Annotated[str, typer.Option("--model", "-m", help="Hugging Face id, local directory or registry name (minilm-l6).")],
    words: Annotated[str, typer.Option("--words", help="Word file: one word (or tab-separated words) per line; or a comma list.")],
    out: Annotated[str, typer.Option("--out", "-o", help="Store name (under the vectors directory) or a path.")],
    contexts: Annotated[
        Path | None, typer.Option("--contexts", help="Context templates, one per line, '{}' marks the word.")
    ] = None,
    layer: Annotated[
        int | None, typer.Option("--layer", help="Hidden-state index (0 = embeddings); default: mean of the last four.")
    ] = None,
    lang: OptLang = None,
    batch_size: BatchSize = 32,
    device: Device = "auto",
    engine: EngineOpt = "local",
    ray_address: RayAddress = "local",
    threads: Threads = None,
    actors: Actors = None,
    overwrite: Annotated[bool, typer.Option("--overwrite", help="Replace an existing store.")] = False,
    trust_pickle: Annotated[bool, typer.Option(
        "--trust-pickle", help="Allow a local model folder with only pickled pytorch_model.bin weights "
        "(unpickling can run arbitrary code); safetensors weights are always preferred.")] = False,
    quiet: Quiet = False,
    as_json: Json = False,
) -> None:
    """Average each word's sub-token vectors over many contexts into a store for the static metrics.

    Example: geobias vectors pool --model minilm-l6 --words words.txt --out minilm-pooled
    """
    invoke("vectors pool", locals())
