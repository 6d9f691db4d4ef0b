"""`geobias probe sentiment`: sentiment-difference gender bias (Jentzsch & Turan 2022, Table 3)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from geobias.cli._app import probe_app
from geobias.cli._choices import TermsChoice, ZeroMethodChoice
from geobias.cli._options import Csv, Json, ModelTrustPickle, Plot, PlotForce
from geobias.cli._run import invoke
from geobias.cli.probe_association import Device


@probe_app.command("sentiment")
def sentiment(
    model: Annotated[list[str] | None, typer.Option("--model", "-m", help="Sequence classifier (local directory or Hugging Face id); repeat for several.")] = None,
    corpus: Annotated[list[Path] | None, typer.Option("--corpus", help="Texts: .csv/.tsv with --column, or one text per line; repeat for several.")] = None,
    column: Annotated[str | None, typer.Option("--column", help="Text column of a .csv/.tsv corpus (GAP: Text, EEC: Sentence).")] = None,
    terms: Annotated[list[TermsChoice] | None, typer.Option("--terms", help="Term set: pro, weat or all; repeat for several (default all).")] = None,
    limit: Annotated[int | None, typer.Option("--limit", help="Use only the first N texts of each corpus.")] = None,
    vader: Annotated[bool, typer.Option("--vader", help="Add VADER as a lexicon baseline scorer (cannot show pronoun bias).")] = False,
    eec_paired: Annotated[Path | None, typer.Option("--eec-paired", help="EEC CSV: add EEC's own male-vs-female sentence pairs as rows.")] = None,
    positive_class: Annotated[str | None, typer.Option("--positive-class", help="Positive class index or label (default: label 'pos…', else 1).")] = None,
    zero_method: Annotated[ZeroMethodChoice, typer.Option("--zero-method", help="Wilcoxon zero handling: wilcox (drop zeros), pratt, zsplit.")] = "wilcox",
    batch_size: Annotated[int, typer.Option("--batch-size", help="Distinct texts per forward pass.")] = 32,
    max_length: Annotated[int, typer.Option("--max-length", help="Truncate texts to this many tokens.")] = 256,
    device: Device = "auto",
    plot: Plot = None,
    force: PlotForce = False,
    trust_pickle: ModelTrustPickle = False,
    as_json: Json = False,
    as_csv: Csv = False,
) -> None:
    """Rate a male and a female version of every text; total/absolute bias, Wilcoxon, Bonferroni.

    Example: geobias probe sentiment --model minilm-mixed-all --corpus gap-development.tsv --column Text --terms all
    """
    invoke("probe sentiment", locals())
