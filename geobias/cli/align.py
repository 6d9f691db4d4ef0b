"""``geobias align``: map a source language's vectors into a target language's space."""

from __future__ import annotations

from typing import Annotated

import typer

from geobias.cli._app import app
from geobias.cli._options import Json, Limit, Quiet, TrustPickle
from geobias.cli._run import invoke


@app.command("align")
def align_command(
    src: Annotated[str, typer.Option("--src", help="Source language (e.g. fr).")],
    tgt: Annotated[str, typer.Option("--tgt", help="Target language (e.g. en).")],
    dictionary: Annotated[str, typer.Option("--dictionary", help="MUSE dictionary 'src tgt' per line, or 'identical'.")],
    out: Annotated[str, typer.Option("--out", help="Store name (saved under the vectors directory; use it as --src-vectors NAME) or a directory path.")],
    refine: Annotated[int, typer.Option("--refine", help="Refinement rounds (mutual CSLS nearest neighbours).")] = 0,
    center: Annotated[bool, typer.Option("--center", help="Mean-centre unit rows before Procrustes.")] = False,
    src_vectors: Annotated[str | None, typer.Option("--src-vectors", help="Source vectors (default: the language's).")] = None,
    tgt_vectors: Annotated[str | None, typer.Option("--tgt-vectors", help="Target vectors (default: the language's).")] = None,
    limit: Limit = None,
    trust_pickle: TrustPickle = False,
    quiet: Quiet = False,
    as_json: Json = False,
) -> None:
    """Orthogonal Procrustes on a bilingual dictionary (MUSE supervised mode); saves the aligned store.

    Example: geobias align --src fr --tgt en --dictionary fr-en.0-5000.txt --refine 1 --out fr-aligned
    """
    invoke("align", locals())
