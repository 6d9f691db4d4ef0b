"""``geobias mweat``: MWEAT (Zhou et al. 2019) on a store."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from geobias.cli._app import app
from geobias.cli._options import (
    Csv,
    Force,
    Json,
    Limit,
    LostVocabulary,
    MethodOpt,
    OldMethodOpt,
    Oov,
    OptLang,
    Permutations,
    Quiet,
    Seed,
    Similarity,
    Subwords,
    TrustPickle,
    Vectors,
)
from geobias.cli._run import deprecated, invoke


@app.command("mweat")
def mweat_command(
    lang: OptLang = None,
    vectors: Vectors = None,
    limit: Limit = None,
    trust_pickle: TrustPickle = False,
    subwords: Subwords = False,
    targets: Annotated[
        Path | None,
        typer.Option("--targets", help=("TSV of occupations: feminine<TAB>masculine[<TAB>english] per line (feminine first, as Zhou et "
              "al.'s lists; --targets-x/--targets-y take masculine, then feminine); # comments.")),
    ] = None,
    attributes: Annotated[
        Path | None,
        typer.Option("--attributes", help="TSV of attribute words: male<TAB>female per line (a cell may be empty or '-')."),
    ] = None,
    permutations: Permutations = 100_000,
    permutation_method: MethodOpt = "auto",
    method: OldMethodOpt = None,
    force: Force = False,
    seed: Seed = 0,
    similarity: Similarity = "cosine",
    paired: Annotated[bool, typer.Option("--paired", help="Permute only within each pair (an extension; the paper permutes X∪Y).")] = False,
    oov: Oov = "ignore",
    lost_vocabulary_threshold: LostVocabulary = 0.2,
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
    bootstrap: Annotated[int | None, typer.Option("--bootstrap", help="Bootstrap over the words: resample each set with replacement this many times and report the percentile interval and standard error; default 1000, 0 for none.")] = None,
    bootstrap_seed: Annotated[int | None, typer.Option("--bootstrap-seed", help="Seed of the bootstrap (default: --seed).")] = None,
    quiet: Quiet = False,
    as_json: Json = False,
    as_csv: Csv = False,
) -> None:
    """MWEAT: | |Σ s(masculine forms)| − |Σ s(feminine forms)| | with a one-sided permutation p-value.

    Example: geobias mweat --lang fr --json
    """
    if method is not None:
        deprecated("--method", "--permutation-method")
        permutation_method = method
    invoke("mweat", locals(), method=None)
