"""``geobias hard-debias``: Bolukbasi et al. (2016) hard debias of English vectors, with a
DirectBias report before and after (and optionally the debiased vectors written out)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Annotated

import typer

from geobias.cli._app import app
from geobias.cli._choices import ProtectChoice, WriteFormatChoice
from geobias.cli._options import Json, Limit, TrustPickle, Vectors, emit, stderr


@app.command("hard-debias")
def hard_debias_command(
    vectors: Vectors = None,
    lang: Annotated[str, typer.Option("--lang", "-l", help="Language of the vectors (our lists are English).")] = "en",
    neutral: Annotated[Path | None, typer.Option("--neutral", help="Neutral words file (default: our English professions, wordlists/en/professions.txt).")] = None,
    protect: Annotated[ProtectChoice, typer.Option("--protect", help="Protected set: 'paper' (Bolukbasi et al.: the gender-specific words) or 'extended' (ours: also their case variants, definitional and equalise words).")] = "paper",
    out: Annotated[Path | None, typer.Option("--out", help="Write the debiased vectors to this file.")] = None,
    fmt: Annotated[WriteFormatChoice, typer.Option("--format", help="Vector file format of --out.")] = "w2v-text",
    overwrite: Annotated[bool, typer.Option("--overwrite", help="Replace an existing --out file (never the input).")] = False,
    limit: Limit = None,
    trust_pickle: TrustPickle = False,
    as_json: Json = False,
) -> None:
    """Neutralise + equalise (Bolukbasi et al. 2016); report DirectBias (c = 1) before and after
    over held-out professions (none of them on a list that fits the method).

    Example: geobias hard-debias --lang en --json
    """
    from geobias import wordlists
    from geobias.io.atomic import check_output_path
    from geobias.mitigation import hard_debias_report
    from geobias.mitigation.hard_debias import Protect
    from geobias.sources import resolve_store, write_vectors
    from geobias.store.formats import WriteFormat
    from geobias.validation import check_choice

    check_choice("--protect", protect, Protect)
    if out is not None:  # fail before loading and fitting
        check_choice("--format", fmt, WriteFormat)
        check_output_path(out, what="vector file", overwrite=overwrite)
    source = str(neutral) if neutral is not None else "wordlists/en/professions.txt"
    words = wordlists.read_word_file(neutral if neutral is not None
                                     else wordlists.wordlist_dir() / "en" / "professions.txt")
    store = resolve_store(lang, vectors, limit=limit, trust_pickle=trust_pickle)
    report, debiased = hard_debias_report(store, words, protect=protect, neutral_source=source)
    if out is not None:
        write_vectors(debiased, out, format=fmt)
        report = dataclasses.replace(report, out=str(out))

    def render(console, r):
        console.print(f"DirectBias_1 over {r.n_neutral_words} held-out professions ({r.neutral_source}): "
                      f"{r.direct_bias_before:.4f} → {r.direct_bias_after:.6f} (protected set: {r.protect})")
        if r.held_out_excluded:
            console.print(f"left out (on a list that fits the method): {', '.join(r.held_out_excluded)}")
        console.print(f"{r.n_gender_specific} gender-specific words kept, {r.n_equalize_pairs} pairs equalised")
        if r.missing:
            console.print(f"not in vocabulary: {', '.join(r.missing[:10])}")
        if r.out:
            stderr.print(f"wrote {r.out}")

    emit(report, as_json, render)
