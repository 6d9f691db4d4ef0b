"""``geobias weat``: WEAT (Caliskan et al. 2017) on a built-in test."""

from __future__ import annotations

from typing import Annotated

import typer

from geobias.cli._app import app
from geobias.cli._choices import AlternativeChoice
from geobias.cli._options import (
    Json,
    Limit,
    Oov,
    OptLang,
    Quiet,
    Seed,
    Similarity,
    Subwords,
    TrustPickle,
    Vectors,
    emit,
    need_lang,
    progress,
    word_set,
)
from geobias.cli._permutations import (
    Force,
    MethodOpt,
    Permutations,
    check_permutations,
    plan_permutations,
    run_with_progress,
)

ROLES = (("x", "--targets-x"), ("y", "--targets-y"), ("a", "--attributes-a"), ("b", "--attributes-b"))


def _set_option(option: str, help: str):
    return typer.Option(option, help=f"{help}: a file (one word per line, # comments) or a comma list.")


@app.command("weat")
def weat_command(
    lang: OptLang = None,
    test: Annotated[
        str | None,
        typer.Option("--test", "-t", help="career-family (WEAT 6, names; the default), career-family-terms (gendered terms), math-arts, science-arts or flowers-insects (control)."),
    ] = None,
    targets_x: Annotated[str | None, _set_option("--targets-x", "Your own target set X (e.g. male names)")] = None,
    targets_y: Annotated[str | None, _set_option("--targets-y", "Target set Y")] = None,
    attributes_a: Annotated[str | None, _set_option("--attributes-a", "Attribute set A (e.g. career words)")] = None,
    attributes_b: Annotated[str | None, _set_option("--attributes-b", "Attribute set B")] = None,
    vectors: Vectors = None,
    limit: Limit = None,
    trust_pickle: TrustPickle = False,
    subwords: Subwords = False,
    permutations: Permutations = 100_000,
    method: MethodOpt = "auto",
    force: Force = False,
    seed: Seed = 0,
    similarity: Similarity = "cosine",
    alternative: Annotated[AlternativeChoice, typer.Option("--alternative", help="greater (Caliskan et al.), less or two-sided.")] = "greater",
    oov: Oov = "ignore",
    quiet: Quiet = False,
    as_json: Json = False,
) -> None:
    """WEAT: statistic, effect size (ddof=1; ddof=0 also given) and permutation p-value.

    A built-in test (--test, needs --lang) or your own four sets (--targets-x, --targets-y,
    --attributes-a, --attributes-b: files or comma lists).

    Example: geobias weat --lang en --test career-family-terms
    """
    from geobias import wordlists
    from geobias.metrics import weat
    from geobias.report.tables import render, weat_table

    own = {role: value for (role, _), value in zip(ROLES, (targets_x, targets_y, attributes_a, attributes_b), strict=True)}
    given = [opt for (role, opt) in ROLES if own[role] is not None]
    if given and len(given) != 4:
        missing = [opt for (role, opt) in ROLES if own[role] is None]
        raise typer.BadParameter(f"your own WEAT needs all four sets; missing {', '.join(missing)}")
    if given and test is not None:
        raise typer.BadParameter("give --test or your own sets (--targets-x ...), not both")
    check_permutations(permutations)
    if given:
        X, Y, A, B = (word_set(own[role], opt) for role, opt in ROLES)
        name = "custom"
    else:
        sets = wordlists.weat_test(need_lang(lang, "WEAT tests"), test or "career-family")
        X, Y, A, B, name = sets.X, sets.Y, sets.A, sets.B, sets.name
    draws = plan_permutations(len(X) + len(Y), len(X), permutations, method, force=force)
    from geobias.sources import resolve_store

    ui = progress(quiet, as_json)
    with ui.stage("loading vectors"):
        store = resolve_store(lang, vectors, limit=limit, trust_pickle=trust_pickle,
                              subword_words=[*X, *Y, *A, *B] if subwords else None)
    result = run_with_progress(ui, draws, len(X) + len(Y), len(X), False, lambda advance: weat(
        store, X, Y, A, B,
        n_permutations=permutations, seed=seed, similarity=similarity, oov=oov,
        alternative=alternative, method=method, test=name, progress=advance,
    ))
    emit(result, as_json, lambda console, r: render(console, weat_table(r)))
