"""``geobias weat``: WEAT (Caliskan et al. 2017) on a built-in test."""

from __future__ import annotations

from typing import Annotated

import typer

from geobias.cli._app import app
from geobias.cli._options import Json, Limit, OptLang, Seed, Subwords, TrustPickle, Vectors, emit
from geobias.cli.mweat import Oov, Permutations, Similarity, check_permutations, need_lang


@app.command("weat")
def weat_command(
    lang: OptLang = None,
    test: Annotated[
        str,
        typer.Option("--test", "-t", help="career-family (WEAT 6, names), career-family-terms (gendered terms), math-arts, science-arts or flowers-insects (control)."),
    ] = "career-family",
    vectors: Vectors = None,
    limit: Limit = None,
    trust_pickle: TrustPickle = False,
    subwords: Subwords = False,
    permutations: Permutations = 100_000,
    seed: Seed = 0,
    similarity: Similarity = "cosine",
    alternative: Annotated[str, typer.Option("--alternative", help="greater (Caliskan et al.), less or two-sided.")] = "greater",
    oov: Oov = "ignore",
    as_json: Json = False,
) -> None:
    """WEAT: statistic, effect size (ddof=1; ddof=0 also given) and permutation p-value."""
    from geobias import wordlists
    from geobias.metrics import weat
    from geobias.report.tables import render, weat_table

    check_permutations(permutations)
    sets = wordlists.weat_test(need_lang(lang, "WEAT tests"), test)
    from geobias.sources import resolve_store

    store = resolve_store(lang, vectors, limit=limit, trust_pickle=trust_pickle,
                          subword_words=[*sets.X, *sets.Y, *sets.A, *sets.B] if subwords else None)
    result = weat(
        store, sets.X, sets.Y, sets.A, sets.B,
        n_permutations=permutations, seed=seed, similarity=similarity, oov=oov,
        alternative=alternative, test=sets.name,
    )
    emit(result, as_json, lambda console, r: render(console, weat_table(r)))
