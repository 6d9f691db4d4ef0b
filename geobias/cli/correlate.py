"""``geobias correlate``: English WEAT vs signed MWEAT per occupation (Zhou et al. 2019, §4.4, Figure 4)."""

from __future__ import annotations

from typing import Annotated

import typer

from geobias.cli._app import app
from geobias.cli._options import Json, Limit, Plot, TrustPickle, Vectors, emit


@app.command("correlate")
def correlate_command(
    lang: Annotated[str, typer.Option("--lang", "-l", help="The gendered language (fr, es, de).")],
    vectors: Vectors = None,
    en_vectors: Annotated[str | None, typer.Option("--en-vectors", help="English vectors: registry name or path.")] = None,
    plot: Plot = None,
    limit: Limit = None,
    trust_pickle: TrustPickle = False,
    as_json: Json = False,
) -> None:
    """Spearman correlation of per-occupation bias in English and in LANG, with its p-value
    (Zhou et al. 2019, Figure 4; --plot draws that scatter).

    Example: geobias correlate --lang fr --en-vectors en-w2v-gnews
    """
    from geobias import wordlists

    if plot is not None:
        from geobias.io.atomic import check_output_path

        check_output_path(plot, what="plot")
    from geobias.evaluation import correlate
    from geobias.sources import resolve_store

    src = resolve_store(lang, vectors, limit=limit, trust_pickle=trust_pickle)
    en = resolve_store("en", en_vectors, limit=limit, trust_pickle=trust_pickle, option="--en-vectors")
    result = correlate(src, en, wordlists.occupations(lang), wordlists.attribute_words(lang),
                       wordlists.attribute_words("en"))
    if plot is not None:
        from geobias.report.plots import plot_correlation, save_figure

        rows = result.per_occupation
        save_figure(plot_correlation([r["english"] for r in rows], [r["weat_en"] for r in rows],
                                     [r["mweat_signed"] for r in rows], rho=result.spearman, p_value=result.p_value,
                                     lang=lang), plot)

    from geobias.report.tables import correlation_table, render

    emit(result, as_json, lambda console, r: render(console, correlation_table(r)))
