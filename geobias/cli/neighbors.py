"""`geobias neighbors WORD`: exact cosine nearest neighbours (faiss inner product on unit vectors)."""

from __future__ import annotations

from typing import Annotated

import typer

from geobias.cli._app import app
from geobias.cli._choices import ApproxChoice
from geobias.cli._options import Json, Limit, OptLang, TrustPickle, Vectors, emit


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
) -> None:
    """Nearest neighbours of WORD by cosine similarity.

    Example: geobias neighbors femme --lang fr -k 5
    """
    from geobias.errors import InputError
    from geobias.sources import resolve_store
    from geobias.store.neighbors import nearest_neighbors

    if k <= 0:
        raise InputError(f"-k must be positive; got {k}")
    store = resolve_store(lang, vectors, limit=limit, trust_pickle=trust_pickle)
    result = nearest_neighbors(store, word, k, approx=approx, source=vectors)
    emit(result, as_json, _render)


def _render(console, r) -> None:
    from rich.table import Table

    table = Table(title=f"nearest neighbours of {r.word!r} ({r.source})")
    table.add_column("#", justify="right")
    table.add_column("word")
    table.add_column("cosine", justify="right")
    for i, n in enumerate(r.neighbors, 1):
        table.add_row(str(i), n.word, f"{n.similarity:.4f}")
    console.print(table)
