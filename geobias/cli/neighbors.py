"""`geobias neighbors WORD`: exact cosine nearest neighbours (faiss inner product on unit vectors)."""

from __future__ import annotations

from typing import Annotated

import typer

from geobias.cli._app import app
from geobias.cli._choices import ApproxChoice
from geobias.cli._options import Csv, Json, Limit, OptLang, TrustPickle, Vectors
from geobias.cli._run import invoke


@app.command("neighbors")
def neighbors_cmd(
    word: Annotated[str, typer.Argument(help="The query word.")],
    lang: OptLang = None,
    k: Annotated[int, typer.Option("-k", "--k", help="Number of neighbours.")] = 10,
    approx: Annotated[ApproxChoice, typer.Option("--approx", help="exact (default, brute force) or ivf (approximate faiss IVF index for multi-million-word stores, built on first use and saved with an installed store).")] = "exact",
    vectors: Vectors = None,
    limit: Limit = None,
    trust_pickle: TrustPickle = False,
    as_json: Json = False,
    as_csv: Csv = False,
) -> None:
    """Nearest neighbours of WORD by cosine similarity.

    Example: geobias neighbors femme --lang fr -k 5
    """
    invoke("neighbors", locals())
