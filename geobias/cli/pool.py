"""`geobias vectors pool`: pooled contextual vectors of a transformer saved as a vector store."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from geobias.cli._app import vectors_app
from geobias.cli._engine import Actors, EngineOpt, RayAddress, Threads, open_engine
from geobias.cli._options import Json, OptLang, Quiet, emit, progress_enabled, stderr
from geobias.cli.probe_association import BatchSize, Device


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
    from geobias.contextual.pooling import PooledStoreFile, pool_vectors
    from geobias.io.atomic import check_output_path
    from geobias.languages import get_language
    from geobias.sources import store_path
    from geobias.store import save_store
    from geobias.wordlists import read_lines, read_words

    # Every input and the output location are checked before the model is loaded.
    word_list = read_words(words)
    ctx = read_lines(contexts, what="contexts") if contexts is not None else None
    code = get_language(lang).code if lang is not None else None
    target = check_output_path(store_path(out), what="store", overwrite=overwrite, directory=True)
    with open_engine(engine, ray_address, threads, actors) as eng:
        store = pool_vectors(eng.load_encoder(model, device, trust_pickle=trust_pickle), word_list, ctx,
                             layer=layer, batch_size=batch_size, lang=code,
                             progress=progress_enabled(quiet, as_json))
    save_store(store, target, overwrite=overwrite)
    res = PooledStoreFile(model, str(target), len(store), store.dim, layer, None if ctx is None else len(ctx))
    emit(res, as_json, lambda _c, r: stderr.print(
        f"pooled {r.n_words} words x {r.dim} d from {r.model} into {r.path}"))
