"""``geobias directions``: semantic, grammatical and orthogonalised gender directions."""

from __future__ import annotations

from typing import Annotated

import typer

from geobias.cli._app import app
from geobias.cli._options import (
    Json,
    Lang,
    Limit,
    Oov,
    Plot,
    Quiet,
    Seed,
    Subwords,
    TrustPickle,
    Vectors,
    emit,
    progress,
    stderr,
)

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
    quiet: Quiet = False,
    as_json: Json = False,
) -> None:
    """d_PCA (PCA on centred definitional pairs), d_g (LDA on gendered nouns) and d_s.

    Example: geobias directions --lang fr --plot fr.png
    """
    import numpy as np

    from geobias import wordlists
    from geobias.directions import gender_directions
    from geobias.errors import InputError
    from geobias.io.atomic import check_output_path
    from geobias.languages import get_language
    from geobias.report.tables import directions_table, render
    from geobias.sources import resolve_store

    language = get_language(lang)
    if plot is not None and not language.grammatical_gender:
        raise InputError(f"--plot needs a grammatical direction; {language.name} has no grammatical gender")
    if plot is not None:
        check_output_path(plot, what="plot")  # fail before the fit, not after it
    wanted = None
    if subwords:
        wanted = [w for pair in wordlists.definitional_pairs(language.code) for w in pair]
        if language.grammatical_gender:
            wanted += [w for nouns in wordlists.gendered_nouns(language.code) for w in nouns]
    ui = progress(quiet, as_json)
    with ui.stage("loading vectors"):
        store = resolve_store(language.code, vectors, limit=limit, trust_pickle=trust_pickle, subword_words=wanted)
    with ui.stage("fitting d_PCA, d_g (LDA, cross-validated) and d_s"):
        result = gender_directions(
            store, language.code, cv=cv, random_state=seed, max_per_class=max_per_class, oov=oov
        )
    if plot is not None:
        from geobias.report.plots import plot_gender_plane, save_figure

        words, gender, kind = [], [], []
        for occ in wordlists.occupations(language.code):
            for w, g in ((occ.masculine, "masculine"), (occ.feminine, "feminine")):
                if w in store and w not in words:
                    words.append(w)
                    gender.append(g)
                    kind.append("occupation")
        masc, fem = wordlists.gendered_nouns(language.code)
        for nouns, g in ((masc, "masculine"), (fem, "feminine")):
            chosen = [w for w in nouns if w in store and w not in words][:N_PLOT_NOUNS]
            words += chosen
            gender += [g] * len(chosen)
            kind += ["noun"] * len(chosen)
        unit = store.lookup(words, unit=True).vectors.astype(np.float64)
        with ui.stage("plotting"):
            path = save_figure(plot_gender_plane(
                words, unit @ result.d_s.astype(np.float64), unit @ result.d_g.astype(np.float64),
                gender, kind, title=f"{language.name}: semantic × grammatical gender ({store.provenance.get('source', 'vectors')})",
            ), plot)
        stderr.print(f"plot written to {path}")
    emit(result, as_json, lambda console, r: render(console, directions_table(r)))
