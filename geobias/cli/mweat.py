"""``geobias mweat``: MWEAT (Zhou et al. 2019) on a store."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from geobias.cli._app import app
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
from geobias.errors import InputError


@app.command("mweat")
def mweat_command(
    lang: OptLang = None,
    vectors: Vectors = None,
    limit: Limit = None,
    trust_pickle: TrustPickle = False,
    subwords: Subwords = False,
    targets: Annotated[
        Path | None,
        typer.Option("--targets", help="TSV of occupations: feminine<TAB>masculine[<TAB>english] per line; # comments."),
    ] = None,
    attributes: Annotated[
        Path | None,
        typer.Option("--attributes", help="TSV of attribute words: male<TAB>female per line (a cell may be empty or '-')."),
    ] = None,
    permutations: Permutations = 100_000,
    method: MethodOpt = "auto",
    force: Force = False,
    seed: Seed = 0,
    similarity: Similarity = "cosine",
    paired: Annotated[bool, typer.Option("--paired", help="Permute only within each pair (an extension; the paper permutes X∪Y).")] = False,
    oov: Oov = "ignore",
    top: Annotated[int, typer.Option("--top", help="Pairs shown in the table.")] = 10,
    targets_x: Annotated[str | None, typer.Option(
        "--targets-x", help="Masculine forms: a file (one per line) or a comma list; with --targets-y, "
        "paired by position, instead of --targets.")] = None,
    targets_y: Annotated[str | None, typer.Option(
        "--targets-y", help="Feminine forms, same length and order as --targets-x.")] = None,
    attributes_a: Annotated[str | None, typer.Option(
        "--attributes-a", help="Male attribute words: a file or a comma list (with --attributes-b, instead of --attributes).")] = None,
    attributes_b: Annotated[str | None, typer.Option(
        "--attributes-b", help="Female attribute words: a file or a comma list.")] = None,
    quiet: Quiet = False,
    as_json: Json = False,
) -> None:
    """MWEAT: | |Σ s(masculine forms)| − |Σ s(feminine forms)| | with a one-sided permutation p-value.

    Example: geobias mweat --lang fr --json
    """
    from geobias import wordlists
    from geobias.metrics import mweat
    from geobias.report.tables import mweat_table, render
    from geobias.wordlists import read_attribute_file

    if (targets_x is None) != (targets_y is None):
        raise typer.BadParameter("give both --targets-x and --targets-y, or neither")
    if (attributes_a is None) != (attributes_b is None):
        raise typer.BadParameter("give both --attributes-a and --attributes-b, or neither")
    if targets_x is not None and targets is not None:
        raise typer.BadParameter("give --targets or --targets-x/--targets-y, not both")
    if attributes_a is not None and attributes is not None:
        raise typer.BadParameter("give --attributes or --attributes-a/--attributes-b, not both")
    check_permutations(permutations)
    if targets_x is not None:
        masc, fem = word_set(targets_x, "--targets-x"), word_set(targets_y, "--targets-y")
        if len(masc) != len(fem):
            raise InputError(f"--targets-x has {len(masc)} words and --targets-y {len(fem)}; "
                             "they pair masculine and feminine forms by position")
        from geobias.wordlists import Occupation

        occupations = [Occupation(f, m, m) for m, f in zip(masc, fem, strict=True)]
    elif targets is not None:
        occupations = wordlists.read_occupation_file(targets)
    else:
        occupations = wordlists.occupations(need_lang(lang, "occupation list"))
    if attributes_a is not None:
        male, female = word_set(attributes_a, "--attributes-a"), word_set(attributes_b, "--attributes-b")
    elif attributes is not None:
        male, female = read_attribute_file(attributes)
    else:
        male, female = wordlists.attribute_words(need_lang(lang, "attribute words"))
    n_items = 2 * len(occupations)
    draws = plan_permutations(n_items, len(occupations), permutations, method, paired=paired, force=force)
    from geobias.sources import resolve_store

    ui = progress(quiet, as_json)
    wanted = [w for o in occupations for w in (o.masculine, o.feminine)] + male + female
    with ui.stage("loading vectors"):
        store = resolve_store(lang, vectors, limit=limit, trust_pickle=trust_pickle,
                              subword_words=wanted if subwords else None)
    result = run_with_progress(ui, draws, n_items, len(occupations), paired, lambda advance: mweat(
        store, occupations, male, female,
        n_permutations=permutations, seed=seed, similarity=similarity, paired=paired, oov=oov,
        method=method, progress=advance,
    ))
    emit(result, as_json, lambda console, r: render(console, mweat_table(r, top=top)))
