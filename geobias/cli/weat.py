"""``geobias weat``: WEAT (Caliskan et al. 2017) on a built-in test."""

from __future__ import annotations

from typing import Annotated

import typer

from geobias.cli._app import app
from geobias.cli._choices import AlternativeChoice
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


def _set_option(option: str, help: str):
    return typer.Option(option, help=f"{help}: a file (one word per line, # comments) or a comma list.")


@app.command("weat")
def weat_command(
    lang: OptLang = None,
    test: Annotated[
        str | None,
        typer.Option("--test", "-t", help="career-family (WEAT 6, names; the default), career-family-terms (gendered terms), math-arts, science-arts, math-arts-names and science-arts-names (SEAT 7b, 8b: names as attributes) or flowers-insects (control)."),
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
    permutation_method: MethodOpt = "auto",
    method: OldMethodOpt = None,
    force: Force = False,
    seed: Seed = 0,
    similarity: Similarity = "cosine",
    alternative: Annotated[AlternativeChoice, typer.Option("--alternative", help="greater (Caliskan et al.), less or two-sided.")] = "greater",
    oov: Oov = "ignore",
    lost_vocabulary_threshold: LostVocabulary = 0.2,
    bootstrap: Annotated[int | None, typer.Option("--bootstrap", help="Bootstrap over the words: resample each set with replacement this many times and report the percentile interval and standard error; default 1000, 0 for none.")] = None,
    bootstrap_seed: Annotated[int | None, typer.Option("--bootstrap-seed", help="Seed of the bootstrap (default: --seed).")] = None,
    quiet: Quiet = False,
    as_json: Json = False,
    as_csv: Csv = False,
) -> None:
    """WEAT: statistic, effect size (ddof=1; ddof=0 also given) and permutation p-value.

    A built-in test (--test, needs --lang) or your own four sets (--targets-x, --targets-y,
    --attributes-a, --attributes-b: files or comma lists).

    Example: geobias weat --lang en --test career-family-terms
    """
    if method is not None:
        deprecated("--method", "--permutation-method")
        permutation_method = method
    invoke("weat", locals(), method=None)
