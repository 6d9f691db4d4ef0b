"""``geobias directions``: semantic, grammatical and orthogonalised gender directions."""

from __future__ import annotations

from typing import Annotated

import typer

from geobias.cli._app import app
from geobias.cli._options import (
    Csv,
    Json,
    Lang,
    Limit,
    Oov,
    Plot,
    PlotForce,
    Quiet,
    Seed,
    Subwords,
    TrustPickle,
    Vectors,
)
from geobias.cli._run import invoke

N_PLOT_NOUNS = 25  # inanimate nouns of each gender drawn on the plot


@app.command("directions")
def directions_command(
    lang: Lang,
    vectors: Vectors = None,
    limit: Limit = None,
    trust_pickle: TrustPickle = False,
    subwords: Subwords = False,
    seed: Seed = 0,
    cv: Annotated[int, typer.Option("--cv", help="Cross-validation folds of the LDA.")] = 5,
    max_per_class: Annotated[int | None, typer.Option("--max-per-class", help="Cap the nouns per gender.")] = None,
    oov: Oov = "ignore",
    plot: Plot = None,
    force: PlotForce = False,
    quiet: Quiet = False,
    as_json: Json = False,
    as_csv: Csv = False,
) -> None:
    """d_PCA (PCA on centred definitional pairs), d_g (LDA on gendered nouns) and d_s.

    Example: geobias directions --lang fr --plot fr.png
    """
    invoke("directions", locals())
