"""``geobias evaluate``: the Zhou et al. (2019) Tables 1–2 comparison of mitigation methods."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from geobias.cli._app import app
from geobias.cli._options import Json, Limit, Seed, TrustPickle, Vectors, emit, stderr


@app.command("evaluate")
def evaluate_command(
    lang: Annotated[str, typer.Option("--lang", "-l", help="The gendered language (fr, es, de).")],
    dictionary: Annotated[Path, typer.Option("--dictionary", help="Training dictionary LANG→en (alignment).")],
    test_dictionary: Annotated[Path, typer.Option("--test-dictionary", help="Test dictionary LANG→en (word translation).")],
    vectors: Vectors = None,
    en_vectors: Annotated[str | None, typer.Option("--en-vectors", help="English vectors: registry name or path.")] = None,
    similarity: Annotated[Path | None, typer.Option("--similarity", help="Word-similarity file of LANG (w1 w2 score).")] = None,
    methods: Annotated[str, typer.Option("--methods", help="'all' or a comma list of original,shift_ori,shift_en,de_align,hybrid_ori,hybrid_en.")] = "all",
    permutations: Annotated[int, typer.Option("--permutations", help="MWEAT permutations.")] = 10_000,
    seed: Seed = 0,
    limit: Limit = None,
    trust_pickle: TrustPickle = False,
    as_json: Json = False,
) -> None:
    """Bias (MWEAT) and utility (similarity, translation, word-pair analogy) for every method."""
    from geobias.alignment import read_dictionary
    from geobias.errors import InputError
    from geobias.evaluation import METHOD_KEYS, METRIC_LABELS, evaluate
    from geobias.sources import resolve_store

    keys = list(METHOD_KEYS) if methods == "all" else [m.strip().replace("-", "_") for m in methods.split(",") if m.strip()]
    if not keys:
        raise InputError("--methods is empty")
    if permutations <= 0:
        raise InputError(f"--permutations must be positive; got {permutations}")
    train, test = read_dictionary(dictionary), read_dictionary(test_dictionary)
    src = resolve_store(lang, vectors, limit=limit, trust_pickle=trust_pickle)
    en = resolve_store("en", en_vectors, limit=limit, trust_pickle=trust_pickle)
    with stderr.status("evaluating") as status:
        result = evaluate(src, en, train, test, similarity=similarity, methods=keys, n_permutations=permutations,
                          seed=seed, progress=lambda m: status.update(f"evaluating {m}"))

    def render(console, r):
        from rich.table import Table

        tab = Table(title=f"Bias and utility, {lang.upper()}–EN bilingual space (Zhou et al. 2019, Tables 1–2)")
        tab.add_column("metric")
        for k in r.table:
            tab.add_column(METHOD_KEYS[k], justify="right")
        for mk, label in METRIC_LABELS.items():
            vals = [r.table[k].get(mk) for k in r.table]
            if all(v is None for v in vals):
                continue
            pct = mk.startswith("p_at_")
            tab.add_row(label, *("—" if v is None else (f"{100 * v:.1f}" if pct else f"{v:.4f}") for v in vals))
        console.print(tab)
        cov = r.coverage
        tr = cov.get("translation_src_tgt", {})
        console.print(f"translation queries covered: {tr.get('queries')} of {tr.get('source_words')} "
                      f"(en→{lang}: {cov.get('translation_tgt_src', {}).get('queries')}); MWEAT pairs: "
                      f"{cov.get('mweat', {}).get('n_pairs')}; analogy words: {cov.get('analogy', {}).get('words')}, "
                      f"seeds {cov.get('analogy', {}).get('seeds')}; similarity pairs: "
                      f"{cov.get('similarity', {}).get('covered')} of {cov.get('similarity', {}).get('pairs')}")
        console.print("P@k in %; MWEAT: LANG occupations vs English attribute words, "
                      f"{permutations:,} permutations, seed {seed}")

    emit(result, as_json, render)
