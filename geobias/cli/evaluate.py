"""``geobias evaluate``: the Zhou et al. (2019) Tables 1–2 comparison of mitigation methods."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from geobias.cli._app import app
from geobias.cli._choices import TABLE_METHODS, NeutralizeChoice
from geobias.cli._options import (
    BudgetPlotForce,
    Csv,
    Json,
    Limit,
    Plot,
    Quiet,
    Seed,
    TrustPickle,
    Vectors,
)
from geobias.cli._run import deprecated, invoke


@app.command("evaluate")
def evaluate_command(
    lang: Annotated[str, typer.Option("--lang", "-l", help="The gendered language (fr, es, de).")],
    dictionary: Annotated[Path, typer.Option("--dictionary", help="Training dictionary LANG→en (alignment).")],
    test_dictionary: Annotated[Path, typer.Option("--test-dictionary", help="Test dictionary LANG→en (word translation).")],
    vectors: Vectors = None,
    en_vectors: Annotated[str | None, typer.Option("--en-vectors", help="English vectors: registry name or path.")] = None,
    wordsim: Annotated[Path | None, typer.Option("--wordsim", help="Word-similarity file of LANG (w1 w2 score).")] = None,
    similarity: Annotated[Path | None, typer.Option("--similarity", hidden=True, help="Deprecated spelling of --wordsim.")] = None,
    methods: Annotated[str, typer.Option("--methods", help=(
        f"'all' or a comma list of {', '.join(TABLE_METHODS)}; naming a method that only the erasure table evaluates "
        "(an eraser or hard-debias) prints the erasure table (seeds SEED..SEED+4)."))] = "all",
    permutations: Annotated[int, typer.Option("--permutations", help="MWEAT permutations.")] = 10_000,
    seed: Seed = 0,
    neutralize: Annotated[NeutralizeChoice, typer.Option(
        "--neutralize", help="Words Shift neutralises (eq. 2): 'inanimate' (the paper: inanimate nouns) or "
        "'all-other' (ours: every word but the definitional and two-form words).")] = "inanimate",
    shift_adjectives: Annotated[bool, typer.Option(
        "--shift-adjectives", help="Shift also moves the two-form adjective pairs (ours, not the paper's: eq. 3-4 "
        "move two-form nouns). They are the word-pair translation seeds, so this edits Table 2's own queries.")] = False,
    recoverability: Annotated[bool, typer.Option(
        "--recoverability", help="Add Gonen & Goldberg's (2019) recovery tests as rows: k-means and SVM accuracy on "
        "the most biased words, r(bias, male share of 100-NN); bias on d_s in the original space (not in Zhou et al.).")] = False,
    plot: Plot = None,
    force: BudgetPlotForce = False,
    limit: Limit = None,
    trust_pickle: TrustPickle = False,
    quiet: Quiet = False,
    as_json: Json = False,
    as_csv: Csv = False,
) -> None:
    """Bias (MWEAT) and utility (similarity, translation, word-pair analogy) for every method.

    --plot writes Zhou et al.'s Figure 2: the occupation forms projected on each Shift/Hybrid
    method's d_s, before (the original aligned space) and after.

    Example: geobias evaluate --lang fr --en-vectors en-w2v-gnews --dictionary fr-en.0-5000.txt --test-dictionary fr-en.5000-6500.txt
    """
    if similarity is not None:
        deprecated("--similarity", "--wordsim")
        wordsim = similarity
    invoke("evaluate", locals(), similarity=None)
