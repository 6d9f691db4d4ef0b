"""`geobias vectors pool`: pooled contextual vectors of a transformer saved as a vector store."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from geobias.cli._app import vectors_app
from geobias.cli._options import OptLang, stderr, stdout
from geobias.cli.probe_association import BatchSize, Device


def _vectors_dir() -> Path:
    try:
        from geobias.sources import vectors_dir  # the sources helper's location, once it lands

        return Path(vectors_dir())
    except ImportError:
        env = os.environ.get("GEOBIAS_VECTORS_DIR")
        return Path(env) if env else Path(__file__).resolve().parents[2] / "vectors"


def output_path(out: str) -> Path:
    """``--out``: a bare name goes under the vectors directory; anything with a slash is a path."""
    if os.sep in out or "/" in out or out.startswith("."):
        return Path(out).expanduser()
    return _vectors_dir() / out


@vectors_app.command("pool")
def pool(
    model: Annotated[str, typer.Option("--model", "-m", help="Hugging Face id, local directory or registry name (minilm-l6).")],
    words: Annotated[Path, typer.Option("--words", help="Word file: one word (or tab-separated words) per line.")],
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
    overwrite: Annotated[bool, typer.Option("--overwrite", help="Replace an existing store.")] = False,
) -> None:
    """Average each word's sub-token vectors over many contexts into a store for the static metrics."""
    from geobias.contextual._files import read_words
    from geobias.contextual.models import load_encoder
    from geobias.contextual.pooling import pool_vectors
    from geobias.errors import InputError
    from geobias.store import save_store

    word_list = read_words(words)
    ctx = None
    if contexts is not None:
        if not contexts.is_file():
            raise InputError(f"contexts file not found: {contexts}")
        ctx = [ln.rstrip("\n") for ln in contexts.read_text(encoding="utf-8").splitlines()
               if ln.strip() and not ln.lstrip().startswith("#")]
    target = output_path(out)
    if target.exists() and not overwrite:
        raise InputError(f"{target} exists (pass --overwrite to replace it)")
    store = pool_vectors(load_encoder(model, device), word_list, ctx, layer=layer, batch_size=batch_size,
                         lang=lang, progress=stderr.is_terminal)
    save_store(store, target, overwrite=overwrite)
    stdout.print(f"pooled {len(store)} words x {store.dim} d from {model} into {target}")
