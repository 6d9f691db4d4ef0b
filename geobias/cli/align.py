"""``geobias align``: map a source language's vectors into a target language's space."""

from __future__ import annotations

from typing import Annotated

import typer

from geobias.cli._app import app
from geobias.cli._options import Json, Limit, Quiet, TrustPickle, emit, progress, stderr


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
    from geobias.alignment import ProcrustesAligner
    from geobias.errors import InputError
    from geobias.io.atomic import check_output_path
    from geobias.sources import resolve_store, store_path
    from geobias.store import save_store

    out = store_path(out)
    if out.exists():
        raise InputError(f"{out} already exists; choose another --out")
    check_output_path(out, what="store", overwrite=False, directory=True)  # fail before loading and fitting
    ui = progress(quiet, as_json)
    with ui.stage(f"loading {src} vectors"):
        s = resolve_store(src, src_vectors, limit=limit, trust_pickle=trust_pickle, option="--src-vectors")
    with ui.stage(f"loading {tgt} vectors"):
        t = resolve_store(tgt, tgt_vectors, limit=limit, trust_pickle=trust_pickle, option="--tgt-vectors")
    with ui.stage(f"aligning (Procrustes{f', {refine} refinement rounds' if refine else ''})"):
        aligner = ProcrustesAligner(refine=refine, center=center).fit(s, t, dictionary)
        aligned = aligner.transform(s)
    aligned.provenance["aligned_to"] = t.provenance.get("source") or t.provenance.get("path") or tgt
    with ui.stage("saving the aligned store"):
        save_store(aligned, out)

    def render(console, r):
        console.print(f"aligned {len(s):,} {src} words to {tgt}: {r.n_pairs_used:,} of {r.n_pairs:,} dictionary pairs "
                      f"used ({r.n_oov_pairs:,} with an out-of-vocabulary word)")
        if r.refinements:
            console.print(f"refinement dictionary sizes: {', '.join(map(str, r.refinements))}")
        stderr.print(f"saved to {out}")

    emit(aligner.result_, as_json, render)
