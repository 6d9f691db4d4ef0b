"""``geobias translate-eval``: word translation P@1/5/10 (nearest neighbour and CSLS)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from geobias.cli._app import app
from geobias.cli._options import Csv, Json, Limit, Quiet, TrustPickle
from geobias.cli._run import invoke


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
    as_csv: Csv = False,
) -> None:
    """P@1, P@5, P@10 of src → tgt word translation; a query is correct if any gold translation is retrieved.

    Example: geobias translate-eval --src fr --tgt en --dictionary fr-en.5000-6500.txt --src-vectors fr-aligned
    """
    invoke("translate-eval", locals())
