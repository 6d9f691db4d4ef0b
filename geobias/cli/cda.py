"""`geobias cda`: counterfactual data augmentation / substitution of a corpus file."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from geobias.cli._app import app
from geobias.cli._choices import CdaModeChoice
from geobias.cli._options import Json, Seed
from geobias.cli._run import invoke


@app.command("cda")
def cda(
    input: Annotated[Path, typer.Option("--input", "-i", help="Corpus: text (one document per line) or TSV with --column.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Output file (never the input).")],
    mode: Annotated[
        CdaModeChoice, typer.Option("--mode", help="cda: keep each document and add its counterfactual; cds: substitute with probability 0.5.")
    ] = "cda",
    column: Annotated[
        str | None, typer.Option("--column", help="TSV input: the header name of the text column to swap (e.g. Text for GAP).")
    ] = None,
    no_names: Annotated[bool, typer.Option("--no-names", help="Swap gendered words only, not first names.")] = False,
    seed: Seed = 0,
    overwrite: Annotated[bool, typer.Option("--overwrite", help="Replace an existing output file.")] = False,
    as_json: Json = False,
) -> None:
    """Swap gendered words and first names (Zhao et al. 2018 CDA; Maudslay et al. 2019 CDS).

    Example: geobias cda --input gap-development.tsv --column Text --mode cds --out gap-cds.tsv
    """
    invoke("cda", locals())
