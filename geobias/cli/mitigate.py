"""``geobias mitigate``: apply a Zhou et al. (2019) / Bolukbasi et al. (2016) method and write
the debiased vectors."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from geobias.cli._app import app
from geobias.cli._choices import MitigationMethod, WriteFormatChoice
from geobias.cli._options import Json, Limit, Quiet, TrustPickle, Vectors, emit, progress, stderr


@app.command("mitigate")
def mitigate_command(
    method: Annotated[MitigationMethod, typer.Option("--method", help="Zhou et al. (shift-*, de-align, hybrid-*), Bolukbasi et al. (hard-debias) or an eraser (leace*, inlp*).")],
    lang: Annotated[str, typer.Option("--lang", "-l", help="The gendered language (fr, es, de); en for hard-debias.")],
    out: Annotated[Path, typer.Option("--out", help="New (or empty) directory for the debiased vectors.")],
    vectors: Vectors = None,
    en_vectors: Annotated[str | None, typer.Option("--en-vectors", help="English vectors: registry name or path.")] = None,
    dictionary: Annotated[str | None, typer.Option("--dictionary", help="MUSE dictionary LANG→en (or 'identical') for alignment.")] = None,
    fmt: Annotated[WriteFormatChoice, typer.Option("--format", help="Vector file format.")] = "w2v-text",
    refine: Annotated[int, typer.Option("--refine", help="Procrustes refinement rounds.")] = 0,
    drop_whitespace_words: Annotated[bool, typer.Option(
        "--drop-whitespace-words",
        help="Leave out words containing whitespace, which word2vec/fastText formats cannot hold; they are "
        "listed in mitigation.json. Whitespace-only words (e.g. U+2009 in spaCy's French vocabulary) are "
        "always left out, with a warning.")] = False,
    limit: Limit = None,
    trust_pickle: TrustPickle = False,
    quiet: Quiet = False,
    as_json: Json = False,
) -> None:
    """Debias vectors and write them (both sides when the method changes English too).

    The gendered language is aligned to English (Procrustes on --dictionary) before Shift, as in
    Zhou et al.'s bilingual setting; shift-ori without --dictionary and --en-vectors works
    monolingually. Files keep the original vocabulary order.

    Example: geobias mitigate --method leace-keep-grammar --lang fr --out fr-erased/
    """
    from geobias.mitigation.runner import mitigate, needs_english
    from geobias.sources import resolve_store
    from geobias.store.export import check_export

    use_en = needs_english(method, en_given=en_vectors is not None, dictionary_given=dictionary is not None)
    check_export(out, fmt)  # fail before loading and fitting
    store = resolve_store(lang, vectors, limit=limit, trust_pickle=trust_pickle)
    with progress(quiet, as_json).stage(f"fitting {method}"):
        en = resolve_store("en", en_vectors, limit=limit, trust_pickle=trust_pickle,
                           option="--en-vectors") if use_en else None
        fitted = mitigate(method, store, lang, en=en, dictionary=dictionary, refine=refine)
    result = fitted.save(out, fmt, drop_whitespace_words=drop_whitespace_words)
    for name, words in result.report["dropped_whitespace_words"].items():  # whitespace-only words: no word2vec/fastText text form
        stderr.print(f"warning: left out {len(words)} {name} word(s) that {fmt} cannot hold: "
                     f"{', '.join(repr(w) for w in words)}", markup=False, highlight=False, soft_wrap=True)

    def render(console, r):
        for name, path in r.files.items():
            stderr.print(f"wrote {name}: {path}")
        if r.report.get("n_pairs_shifted") is not None:
            console.print(f"{r.report['n_pairs_shifted']} two-form pairs shifted; cos(d_PCA, d_g) = "
                          f"{r.report.get('cos_pca_grammatical')}")
        if r.report.get("n_neutralized") is not None:
            console.print(f"{r.report['n_neutralized']:,} words neutralised by eq. 2 "
                          f"({r.report.get('neutralize')}; d_PCA from {', '.join(r.report.get('pca_languages') or [])})")

    emit(result, as_json, render)
