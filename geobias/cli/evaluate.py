"""``geobias evaluate``: the Zhou et al. (2019) Tables 1–2 comparison of mitigation methods."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from geobias.cli._app import app
from geobias.cli._choices import NeutralizeChoice
from geobias.cli._options import (
    Json,
    Limit,
    Plot,
    Quiet,
    Seed,
    TrustPickle,
    Vectors,
    emit,
    progress,
)


@app.command("evaluate")
def evaluate_command(
    lang: Annotated[str, typer.Option("--lang", "-l", help="The gendered language (fr, es, de).")],
    dictionary: Annotated[Path, typer.Option("--dictionary", help="Training dictionary LANG→en (alignment).")],
    test_dictionary: Annotated[Path, typer.Option("--test-dictionary", help="Test dictionary LANG→en (word translation).")],
    vectors: Vectors = None,
    en_vectors: Annotated[str | None, typer.Option("--en-vectors", help="English vectors: registry name or path.")] = None,
    similarity: Annotated[Path | None, typer.Option("--similarity", help="Word-similarity file of LANG (w1 w2 score).")] = None,
    methods: Annotated[str, typer.Option("--methods", help="'all' or a comma list of original,shift_ori,shift_en,de_align,hybrid_ori,hybrid_en; naming hard-debias, leace, leace-keep-grammar, inlp or inlp-keep-grammar prints the erasure table (seeds SEED..SEED+4).")] = "all",
    permutations: Annotated[int, typer.Option("--permutations", help="MWEAT permutations.")] = 10_000,
    seed: Seed = 0,
    neutralize: Annotated[NeutralizeChoice, typer.Option(
        "--neutralize", help="Words Shift neutralises (eq. 2): 'inanimate' (the paper: inanimate nouns) or "
        "'all-other' (ours: every word but the definitional and two-form words).")] = "inanimate",
    plot: Plot = None,
    limit: Limit = None,
    trust_pickle: TrustPickle = False,
    quiet: Quiet = False,
    as_json: Json = False,
) -> None:
    """Bias (MWEAT) and utility (similarity, translation, word-pair analogy) for every method.

    --plot writes Zhou et al.'s Figure 2: the occupation forms projected on each Shift/Hybrid
    method's d_s, before (the original aligned space) and after.

    Example: geobias evaluate --lang fr --en-vectors en-w2v-gnews --dictionary fr-en.0-5000.txt --test-dictionary fr-en.5000-6500.txt
    """
    from geobias.alignment import read_dictionary
    from geobias.errors import InputError
    from geobias.evaluation import METHOD_KEYS, evaluate
    from geobias.mitigation.bilingual import Neutralize
    from geobias.validation import check_choice

    check_choice("--neutralize", neutralize, Neutralize)
    if plot is not None:
        from geobias.io.atomic import check_output_path

        check_output_path(plot, what="plot")
    from geobias.evaluation.erasure import (
        ERASURE_ONLY,  # erasure hook (issue 15): one table with held-out words
    )
    from geobias.sources import resolve_store
    names = [m.strip().replace("_", "-") for m in methods.split(",") if m.strip()]
    if any(n in ERASURE_ONLY for n in names):
        from geobias.cli.erasure_eval import run_erasure

        return run_erasure(lang=lang, dictionary=dictionary, test_dictionary=test_dictionary, vectors=vectors,
                           en_vectors=en_vectors, similarity=similarity, methods=names,
                           seeds=list(range(seed, seed + 5)), permutations=permutations, limit=limit,
                           trust_pickle=trust_pickle, as_json=as_json)
    keys = list(METHOD_KEYS) if methods == "all" else [m.strip().replace("-", "_") for m in methods.split(",") if m.strip()]
    if not keys:
        raise InputError("--methods is empty")
    if permutations <= 0:
        raise InputError(f"--permutations must be positive; got {permutations}")
    if plot is not None:
        from geobias.mitigation import get_method

        shifting = [k for k in keys if k in METHOD_KEYS and k != "original"
                    and getattr(get_method(k.replace("_", "-")), "anchor", None) is not None]
        if not shifting:
            raise InputError("--plot draws occupations on each Shift/Hybrid method's d_s; --methods has none")
    train, test = read_dictionary(dictionary), read_dictionary(test_dictionary)
    src = resolve_store(lang, vectors, limit=limit, trust_pickle=trust_pickle)
    en = resolve_store("en", en_vectors, limit=limit, trust_pickle=trust_pickle, option="--en-vectors")
    with progress(quiet, as_json).status("evaluating") as update:
        result = evaluate(src, en, train, test, similarity=similarity, methods=keys, n_permutations=permutations,
                          seed=seed, neutralize=neutralize, progress=lambda m: update(f"evaluating {m}"))
    if plot is not None:
        from geobias.report.plots import plot_occupation_projections, save_figure

        panels = [(METHOD_KEYS[k], d["projections"]["words"], d["projections"]["before"], d["projections"]["after"])
                  for k, d in result.details.items() if "projections" in d]
        save_figure(plot_occupation_projections(panels, title=f"{lang.upper()} occupations on d_s, before (hollow) and "
                                                "after (filled) (Zhou et al. 2019, Figure 2)"), plot)

    from geobias.report.tables import render_evaluation

    emit(result, as_json, lambda console, r: render_evaluation(console, r, lang, permutations, seed))
