"""``geobias correlate``: English WEAT vs signed MWEAT per occupation (Zhou et al. 2019, §4.4, Figure 4)."""

from __future__ import annotations

from typing import Annotated

import typer

from geobias.cli._app import app
from geobias.cli._options import Csv, Json, Limit, Plot, PlotForce, TrustPickle, Vectors
from geobias.cli._run import invoke


@app.command("correlate")
def correlate_command(
    lang: Annotated[str, typer.Option("--lang", "-l", help="The gendered language (fr, es, de).")],
    vectors: Vectors = None,
    en_vectors: Annotated[str | None, typer.Option("--en-vectors", help="English vectors: registry name or path.")] = None,
    plot: Plot = None,
    force: PlotForce = False,
    limit: Limit = None,
    trust_pickle: TrustPickle = False,
    as_json: Json = False,
    as_csv: Csv = False,
) -> None:
    """Spearman correlation of per-occupation bias in English and in LANG, with its p-value
    (Zhou et al. 2019, Figure 4; --plot draws that scatter).

    Example: geobias correlate --lang fr --en-vectors en-w2v-gnews
    """
    invoke("correlate", locals())
