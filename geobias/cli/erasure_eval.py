"""``geobias erasure``: the erasure table — LEACE, INLP, their grammar-keeping variants, Hard
Debias and Zhou et al.'s methods on held-out words, over seeds with confidence intervals."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from geobias.cli._app import app
from geobias.cli._options import Json, Limit, Plot, TrustPickle, Vectors, emit, stderr


def _seeds(text: str) -> list[int]:
    from geobias.errors import InputError

    try:
        seeds = [int(s) for s in text.split(",") if s.strip()]
    except ValueError:
        raise InputError(f"--seeds must be a comma list of integers; got {text!r}") from None
    if not seeds:
        raise InputError("--seeds is empty")
    return seeds


def run_erasure(*, lang: str, dictionary: Path | None, test_dictionary: Path | None, vectors: str | None,
                en_vectors: str | None, similarity: Path | None, methods: list[str] | None, seeds: list[int],
                permutations: int, fit_fraction: float = 0.8, plot: Path | None = None, limit: int | None = None,
                trust_pickle: bool = False, as_json: bool = False) -> None:
    """The erasure table for ``lang`` (the library calls behind ``geobias erasure`` and
    ``geobias evaluate --methods`` naming an erasure method)."""
    from geobias.alignment import read_dictionary
    from geobias.errors import InputError
    from geobias.evaluation import erasure as er
    from geobias.report.plots import plot_erasure_plane, save_figure
    from geobias.sources import resolve_store

    if permutations <= 0:
        raise InputError(f"--permutations must be positive; got {permutations}")
    if plot is not None:
        from geobias.io.atomic import check_output_path

        check_output_path(plot, what="plot")
    if lang == "en":
        ms = methods or list(er.ENGLISH_METHODS)
        bad = [m for m in ms if m not in er.ENGLISH_METHODS]
        if bad:
            raise InputError(f"method(s) {', '.join(bad)} not available for English; choose from "
                             f"{', '.join(er.ENGLISH_METHODS)} (keeping grammar needs a grammatical-gender language)")
        en = resolve_store("en", vectors or en_vectors, limit=limit, trust_pickle=trust_pickle)
        with stderr.status("erasing") as status:
            result = er.english_erasure_table(en, methods=ms, seeds=seeds, fit_fraction=fit_fraction,
                                              similarity=similarity, n_permutations=permutations,
                                              progress=status.update)
        emit(result, as_json, lambda console, r: er.render_english(console, r))
        return
    if dictionary is None or test_dictionary is None:
        raise InputError("--dictionary and --test-dictionary are required for a gendered language")
    ms = methods or list(er.DEFAULT_METHODS)
    bad = [m for m in ms if m not in er.ERASURE_METHODS]
    if bad:
        raise InputError(f"unknown method(s) {', '.join(bad)}; choose from {', '.join(er.ERASURE_METHODS)}")
    train, test = read_dictionary(dictionary), read_dictionary(test_dictionary)
    src = resolve_store(lang, vectors, limit=limit, trust_pickle=trust_pickle)
    en = resolve_store("en", en_vectors, limit=limit, trust_pickle=trust_pickle, option="--en-vectors")
    with stderr.status("erasing") as status:
        result = er.erasure_table(src, en, train, test, similarity=similarity, methods=ms, seeds=seeds,
                                  fit_fraction=fit_fraction, n_permutations=permutations, progress=status.update)
        if plot is not None:
            status.update("plotting")
            save_figure(plot_erasure_plane(er.erasure_plane(src, en, train, seed=seeds[0])), plot)

    def render(console, r):
        er.render_erasure(console, r)
        if plot is not None:
            stderr.print(f"wrote {plot}")

    emit(result, as_json, render)


@app.command("erasure")
def erasure_command(
    lang: Annotated[str, typer.Option("--lang", "-l", help="The gendered language (fr, es, de), or en for DirectBias/WEAT before/after.")],
    dictionary: Annotated[Path | None, typer.Option("--dictionary", help="Training dictionary LANG→en (alignment).")] = None,
    test_dictionary: Annotated[Path | None, typer.Option("--test-dictionary", help="Test dictionary LANG→en (P@1).")] = None,
    vectors: Vectors = None,
    en_vectors: Annotated[str | None, typer.Option("--en-vectors", help="English vectors: registry name or path.")] = None,
    similarity: Annotated[Path | None, typer.Option("--similarity", help="Word-similarity file of LANG (w1 w2 score).")] = None,
    methods: Annotated[str | None, typer.Option("--methods", help="Comma list of original, hard-debias, shift-ori, shift-en, de-align, hybrid-ori, hybrid-en, leace, leace-keep-grammar, inlp, inlp-keep-grammar.")] = None,
    seeds: Annotated[str, typer.Option("--seeds", help="Comma list of seeds (intervals are over seeds).")] = "0,1,2,3,4",
    fit_fraction: Annotated[float, typer.Option("--fit-fraction", help="Share of the fit person pairs drawn per seed.")] = 0.8,
    permutations: Annotated[int, typer.Option("--permutations", help="MWEAT/WEAT permutations.")] = 10_000,
    plot: Plot = None,
    limit: Limit = None,
    trust_pickle: TrustPickle = False,
    as_json: Json = False,
) -> None:
    """Can semantic gender be erased while grammatical gender is kept? One table, held-out words.

    Erasers are fitted on person words and scored on others: MWEAT and Σ_X s − Σ_Y s on held-out
    attribute words and occupations, grammatical probes (retrained and frozen) on held-out
    inanimate nouns, a semantic probe on held-out person words, distortion, P@1, similarity and
    the flowers/insects control. With --lang en: DirectBias and WEAT before/after.

    Example: geobias erasure --lang en --similarity EN_RG-65.txt --json
    """
    ms = [m.strip().replace("_", "-") for m in methods.split(",") if m.strip()] if methods else None
    run_erasure(lang=lang, dictionary=dictionary, test_dictionary=test_dictionary, vectors=vectors,
                en_vectors=en_vectors, similarity=similarity, methods=ms, seeds=_seeds(seeds),
                permutations=permutations, fit_fraction=fit_fraction, plot=plot, limit=limit,
                trust_pickle=trust_pickle, as_json=as_json)
