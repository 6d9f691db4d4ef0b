"""``geobias translate-eval``: word translation P@1/5/10 (nearest neighbour and CSLS)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from geobias.cli._app import app
from geobias.cli._options import Json, Limit, Quiet, TrustPickle, emit, progress, stderr


@app.command("translate-eval")
def translate_eval_command(
    src: Annotated[str, typer.Option("--src", help="Source language.")],
    tgt: Annotated[str, typer.Option("--tgt", help="Target language.")],
    dictionary: Annotated[Path, typer.Option("--dictionary", help="MUSE test dictionary 'src tgt' per line.")],
    src_vectors: Annotated[str | None, typer.Option("--src-vectors", help="ALIGNED source vectors (e.g. the output of geobias align).")] = None,
    tgt_vectors: Annotated[str | None, typer.Option("--tgt-vectors", help="Target vectors.")] = None,
    train_dictionary: Annotated[str | None, typer.Option(
        "--train-dictionary",
        help="Align the source to the target first (Procrustes) on this MUSE dictionary, or 'identical'.")] = None,
    csls_k: Annotated[int, typer.Option("--csls-k", help="CSLS neighbourhood size.")] = 10,
    limit: Limit = None,
    trust_pickle: TrustPickle = False,
    quiet: Quiet = False,
    as_json: Json = False,
) -> None:
    """P@1, P@5, P@10 of src → tgt word translation; a query is correct if any gold translation is retrieved.

    Example: geobias translate-eval --src fr --tgt en --dictionary fr-en.5000-6500.txt --src-vectors fr-aligned
    """
    from geobias.alignment import (
        ProcrustesAligner,
        TranslateEvalResult,
        looks_aligned,
        read_dictionary,
        translation_accuracy,
    )
    from geobias.errors import InputError
    from geobias.sources import resolve_store

    if csls_k <= 0:
        raise InputError(f"--csls-k must be positive; got {csls_k}")
    dico = read_dictionary(dictionary)
    ui = progress(quiet, as_json)
    with ui.stage(f"loading {src} vectors"):
        s = resolve_store(src, src_vectors, limit=limit, trust_pickle=trust_pickle, option="--src-vectors")
    with ui.stage(f"loading {tgt} vectors"):
        t = resolve_store(tgt, tgt_vectors, limit=limit, trust_pickle=trust_pickle, option="--tgt-vectors")
    if train_dictionary is not None:
        with ui.stage("aligning (Procrustes)"):
            s = ProcrustesAligner().fit(s, t, train_dictionary).transform(s)
    with ui.stage("nearest-neighbour retrieval"):
        nn = translation_accuracy(s, t, dico, method="nn")
    with ui.stage(f"CSLS retrieval (k={csls_k})"):
        cs = translation_accuracy(s, t, dico, method="csls", csls_k=csls_k)
    if train_dictionary is None and not looks_aligned(s, t):
        # only once the evaluation succeeded: an input error stays the one line on stderr
        stderr.print(
            f"warning: the {src} vectors do not look aligned to the {tgt} ones (not MUSE-aligned, not from "
            "`geobias align`); pass --train-dictionary PATH to align them first, or precision will be near 0"
        )
    result = TranslateEvalResult(src, tgt, nn.to_dict(), cs.to_dict())

    def render(console, r):
        from rich.table import Table

        tab = Table(title=f"Word translation {src} → {tgt}")
        tab.add_column("retrieval")
        for k in nn.precision:
            tab.add_column(k.replace("p_at_", "P@"), justify="right")
        for res in (nn, cs):
            tab.add_row(res.method.upper(), *(f"{100 * v:.1f}" for v in res.precision.values()))
        console.print(tab)
        console.print(f"queries covered: {nn.n_queries:,} of {nn.n_source_words:,} source words "
                      f"({100 * nn.coverage:.1f}%); {nn.n_oov_pairs:,} pairs with an out-of-vocabulary word")

    emit(result, as_json, render)
