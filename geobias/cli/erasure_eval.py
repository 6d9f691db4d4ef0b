"""``geobias erasure``: the erasure table — LEACE, INLP, their grammar-keeping variants, Hard
Debias and Zhou et al.'s methods on held-out words, over seeds with confidence intervals."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from geobias.cli._app import app
from geobias.cli._choices import TABLE_METHODS
from geobias.cli._options import BudgetPlotForce, Csv, Json, Limit, Plot, TrustPickle, Vectors
from geobias.cli._run import deprecated, invoke


@app.command("erasure")
def erasure_command(
    lang: Annotated[str, typer.Option("--lang", "-l", help="The gendered language (fr, es, de), or en for DirectBias/WEAT before/after.")],
    dictionary: Annotated[Path | None, typer.Option("--dictionary", help="Training dictionary LANG→en (alignment).")] = None,
    test_dictionary: Annotated[Path | None, typer.Option("--test-dictionary", help="Test dictionary LANG→en (P@1).")] = None,
    vectors: Vectors = None,
    en_vectors: Annotated[str | None, typer.Option("--en-vectors", help="English vectors: registry name or path.")] = None,
    wordsim: Annotated[Path | None, typer.Option("--wordsim", help="Word-similarity file of LANG (w1 w2 score).")] = None,
    similarity: Annotated[Path | None, typer.Option("--similarity", hidden=True, help="Deprecated spelling of --wordsim.")] = None,
    methods: Annotated[str | None, typer.Option("--methods", help=(
        f"Comma list of {', '.join(TABLE_METHODS)}, or inlp-35 (INLP with 35 iterations, table only).")
    )] = None,
    seeds: Annotated[str, typer.Option("--seeds", help="Comma list of seeds (intervals are over seeds).")] = "0,1,2,3,4",
    fit_fraction: Annotated[float, typer.Option("--fit-fraction", help="Share of the fit person pairs drawn per seed.")] = 0.8,
    permutations: Annotated[int, typer.Option("--permutations", help="MWEAT/WEAT permutations.")] = 10_000,
    recoverability: Annotated[bool, typer.Option(
        "--recoverability", help="Add Gonen & Goldberg's (2019) recovery tests as rows, per seed (bias on d_s, or "
        "d_PCA for en, in the original space).")] = False,
    plot: Plot = None,
    force: BudgetPlotForce = False,
    limit: Limit = None,
    trust_pickle: TrustPickle = False,
    as_json: Json = False,
    as_csv: Csv = False,
) -> None:
    """Can semantic gender be erased while grammatical gender is kept? One table, held-out words.

    Erasers are fitted on person words and scored on others: MWEAT and Σ_X s − Σ_Y s on held-out
    attribute words and occupations, grammatical probes (retrained and frozen) on held-out
    inanimate nouns, a semantic probe on held-out person words, distortion, P@1, similarity and
    the flowers/insects control. With --lang en: DirectBias and WEAT before/after.

    Example: geobias erasure --lang en --wordsim EN_RG-65.txt --json
    """
    if similarity is not None:
        deprecated("--similarity", "--wordsim")
        wordsim = similarity
    invoke("erasure", locals(), similarity=None)
