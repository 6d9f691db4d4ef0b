"""`geobias becpro generate`: write the BEC-Pro corpus (Bartl et al. 2020) as TSV."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from geobias.cli._app import becpro_app
from geobias.cli._choices import BecProLangChoice
from geobias.cli._options import Json
from geobias.cli._run import invoke


@becpro_app.command("generate")
def generate(
    lang: Annotated[BecProLangChoice, typer.Option("--lang", "-l", help="Language of the BEC-Pro templates.")] = "en",
    out: Annotated[Path, typer.Option("--out", "-o", help="Output TSV file.")] = Path("becpro.tsv"),
    overwrite: Annotated[bool, typer.Option("--overwrite", help="Replace an existing file.")] = False,
    as_json: Json = False,
) -> None:
    """Write 5 templates x 18 person words x 60 professions with T-, A- and T+A-masked variants.

    Example: geobias becpro generate --lang de --out becpro_de.tsv
    """
    invoke("becpro generate", locals())
