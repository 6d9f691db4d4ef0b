"""``geobias mitigate``: apply a Zhou et al. (2019) / Bolukbasi et al. (2016) method and write
the debiased vectors."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from geobias.cli._app import app
from geobias.cli._choices import MitigationMethod, WriteFormatChoice, hyphens
from geobias.cli._options import Json, Limit, Quiet, TrustPickle, Vectors
from geobias.cli._run import invoke


@app.command("mitigate", context_settings={"token_normalize_func": hyphens})
def mitigate_command(
    method: Annotated[MitigationMethod, typer.Option("--method", help="Zhou et al. (shift-*, de-align, hybrid-*), Bolukbasi et al. (hard-debias) or an eraser (leace*, inlp*).", show_choices=True)],
    lang: Annotated[str, typer.Option("--lang", "-l", help="The gendered language (fr, es, de); en for hard-debias.")],
    out: Annotated[Path, typer.Option("--out", help="New (or empty) directory for the debiased vectors.")],
    vectors: Vectors = None,
    en_vectors: Annotated[str | None, typer.Option("--en-vectors", help="English vectors: registry name or path.")] = None,
    dictionary: Annotated[str | None, typer.Option("--dictionary", help="MUSE dictionary LANG→en (or 'identical') for alignment.")] = None,
    fmt: Annotated[WriteFormatChoice, typer.Option("--format", help="Vector file format.")] = "w2v-text",
    refine: Annotated[int, typer.Option("--refine", help="Procrustes refinement rounds.")] = 0,
    drop_whitespace_words: Annotated[bool, typer.Option(
        "--drop-whitespace-words",
        help="Leave out words containing whitespace, which word2vec/fastText formats cannot hold; they are "
        "listed in mitigation.json. Whitespace-only words (e.g. U+2009 in spaCy's French vocabulary) are "
        "always left out, with a warning.")] = False,
    limit: Limit = None,
    trust_pickle: TrustPickle = False,
    quiet: Quiet = False,
    as_json: Json = False,
) -> None:
    """Debias vectors and write them (both sides when the method changes English too).

    The gendered language is aligned to English (Procrustes on --dictionary) before Shift, as in
    Zhou et al.'s bilingual setting; shift-ori without --dictionary and --en-vectors works
    monolingually. Files keep the original vocabulary order.

    Example: geobias mitigate --method leace-keep-grammar --lang fr --out fr-erased/
    """
    invoke("mitigate", locals(), format=fmt, fmt=None)
