"""``geobias mweat``: MWEAT (Zhou et al. 2019) on a store."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from geobias.cli._app import app
from geobias.cli._options import Json, Limit, OptLang, Seed, Subwords, TrustPickle, Vectors, emit
from geobias.errors import InputError

Permutations = Annotated[int, typer.Option("--permutations", "-n", help="Monte-Carlo permutations (exact test when fewer partitions exist).")]
Similarity = Annotated[str, typer.Option("--similarity", help="cosine, or dot (raw dot products, to reproduce notebooks).")]
Oov = Annotated[
    str,
    typer.Option(
        "--oov",
        help="Out-of-vocabulary words: ignore (skip and list them in the result; a list whose words "
        "are all missing is an error) or raise (stop at the first missing word).",
    ),
]


def check_permutations(n: int) -> None:
    if n <= 0:
        raise InputError(f"--permutations must be a positive integer; got {n}")


def need_lang(lang: str | None, what: str) -> str:
    if lang is None:
        raise InputError(f"pass --lang to use the built-in {what} (or give your own file)")
    return lang


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
    seed: Seed = 0,
    similarity: Similarity = "cosine",
    paired: Annotated[bool, typer.Option("--paired", help="Permute only within each pair (an extension; the paper permutes X∪Y).")] = False,
    oov: Oov = "ignore",
    top: Annotated[int, typer.Option("--top", help="Pairs shown in the table.")] = 10,
    as_json: Json = False,
) -> None:
    """MWEAT: | |Σ s(masculine forms)| − |Σ s(feminine forms)| | with a one-sided permutation p-value."""
    from geobias import wordlists
    from geobias.metrics import mweat
    from geobias.report.tables import mweat_table, render
    from geobias.wordlists import read_attribute_file

    check_permutations(permutations)
    if targets is not None:
        occupations = wordlists.read_occupation_file(targets)
    else:
        occupations = wordlists.occupations(need_lang(lang, "occupation list"))
    if attributes is not None:
        male, female = read_attribute_file(attributes)
    else:
        male, female = wordlists.attribute_words(need_lang(lang, "attribute words"))
    from geobias.sources import resolve_store

    wanted = [w for o in occupations for w in (o.masculine, o.feminine)] + male + female
    store = resolve_store(lang, vectors, limit=limit, trust_pickle=trust_pickle,
                          subword_words=wanted if subwords else None)
    result = mweat(
        store, occupations, male, female,
        n_permutations=permutations, seed=seed, similarity=similarity, paired=paired, oov=oov,
    )
    emit(result, as_json, lambda console, r: render(console, mweat_table(r, top=top)))
