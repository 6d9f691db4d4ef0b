"""`geobias probe sentiment`: sentiment-difference gender bias (Jentzsch & Turan 2022, Table 3)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from geobias.cli._app import probe_app
from geobias.cli._choices import TermsChoice, ZeroMethodChoice
from geobias.cli._options import Json, Plot, emit, stderr
from geobias.cli.probe_association import Device
from geobias.report.contextual import render_sentiment


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
    as_json: Json = False,
) -> None:
    """Rate a male and a female version of every text; total/absolute bias, Wilcoxon, Bonferroni.

    Example: geobias probe sentiment --model minilm-mixed-all --corpus gap-development.tsv --column Text --terms all
    """
    from geobias.contextual.sentiment import (
        ClassifierScorer,
        VaderScorer,
        ZeroMethod,
        eec_paired_rows,
        load_classifier,
        read_corpus,
        sentiment_probe,
    )
    from geobias.contextual.sentiment_terms import load_terms
    from geobias.errors import InputError
    from geobias.io.atomic import check_output_path
    from geobias.report.plots import plot_sentiment, save_figure
    from geobias.validation import check_choice

    term_sets = terms or ["all"]
    for t in term_sets:
        load_terms(t)
    check_choice("zero_method", zero_method, ZeroMethod)
    if not model and not vader:
        raise InputError("no scorer given: pass --model (a sequence classifier) and/or --vader")
    if not corpus and eec_paired is None:
        raise InputError("no corpus given: pass --corpus FILE (and --column for .csv/.tsv) or --eec-paired EEC.csv")
    if plot is not None:
        check_output_path(plot, what="plot")
    if limit is not None and limit < 1:
        raise InputError(f"--limit must be at least 1; got {limit}")
    corpora = [(p.name, read_corpus(p, column)[:limit]) for p in corpus or []]
    scorers = [ClassifierScorer(load_classifier(m, device, positive_class), batch_size=batch_size, max_length=max_length) for m in model or []]
    if vader:
        scorers.append(VaderScorer())
    progress = stderr.is_terminal
    extra = eec_paired_rows(scorers, eec_paired, zero_method=zero_method, progress=progress) if eec_paired is not None else []
    res = sentiment_probe(scorers, corpora, term_sets, zero_method=zero_method, progress=progress, extra_rows=extra)
    if plot is not None:
        save_figure(plot_sentiment(res), plot, dpi=120, bbox_inches=None)
    emit(res, as_json, render_sentiment)
    if plot is not None and not as_json:
        stderr.print(f"plot written to {plot}")
