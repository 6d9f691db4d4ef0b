"""Run the reproductions whose figures README.md quotes and write each result to
``reproductions/<name>.json`` (``make reproduce``).

Each reproduction is one geobias command with fixed parameters (the command line README shows),
run through the command layer (:func:`geobias.commands.run`); its result is written without
timings or machine paths, so that the file changes only when a figure changes. README's figure
blocks are rendered from these files by ``scripts/readme_figures.py``; ``tests/docs/test_readme_figures.py``
checks that README holds what the files say and (``slow``) that the code still prints what the
files hold.

Usage::

    python scripts/reproduce.py                 # every reproduction whose inputs are here
    python scripts/reproduce.py evaluate-fr     # one
    python scripts/reproduce.py --list

Reproductions that need ``../shared/data`` are skipped with a message when it is absent.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "reproductions"
SHARED = Path(os.environ.get("GEOBIAS_SHARED_DATA", ROOT.parent / "shared" / "data"))


@dataclass(frozen=True)
class Reproduction:
    """One README figure source: a command, its parameters, and what it needs."""

    name: str
    command: str
    params: Callable[[Path], dict]
    stores: tuple[str, ...]
    shared: bool
    cli: str  # the command line README shows (with D=../shared/data/muse/dictionaries), or the Python
    keep: Callable[[dict], dict] = lambda r: r
    func: Callable[[Path], dict] | None = None  # a Python reproduction instead of a command
    # its vectors are computed on this machine by a neural encoder in float32 (the use-m3 stores, built
    # from the Universal Sentence Encoder on install; SEAT's and the sentiment run's encoders): another
    # CPU's BLAS rounds them differently, so its figures agree across machines to float32 precision
    # (tests/docs/test_readme_figures.py: relative 1e-4), not bit for bit as the others do (1e-9)
    encoded: bool = False


def _evaluate_params(shared: Path) -> dict:
    d = shared / "muse" / "dictionaries"
    return {"lang": "fr", "en_vectors": "en-w2v-gnews", "dictionary": str(d / "fr-en.0-5000.txt"),
            "test_dictionary": str(d / "fr-en.5000-6500.txt"), "test_dictionary_en": str(d / "en-fr.5000-6500.txt"),
            "wordsim": str(shared / "wordsim" / "monolingual" / "FR_RG-65.txt")}


def _evaluate_es_params(shared: Path) -> dict:
    d = shared / "muse" / "dictionaries"
    return {"lang": "es", "vectors": "use-m3-es", "en_vectors": "use-m3-en", "dictionary": str(d / "es-en.0-5000.txt"),
            "test_dictionary": str(d / "es-en.5000-6500.txt"), "test_dictionary_en": str(d / "en-es.5000-6500.txt"),
            "wordsim": str(shared / "wordsim" / "monolingual" / "ES_RG-65.txt")}


def _erasure_params(shared: Path) -> dict:
    # the erasure table reports LANG→en P@1 alone: it takes no en→LANG test dictionary
    params = {k: v for k, v in _evaluate_params(shared).items() if k != "test_dictionary_en"}
    return {**params, "methods": "original,hard-debias,hybrid-ori,leace,leace-keep-grammar,inlp,"
                                                  "inlp-keep-grammar,inlp-35"}


def _evaluate_keep(r: dict) -> dict:
    return {"lang": r["lang"], "table": r["table"], "coverage": r["coverage"],
            "settings": {k: v for k, v in r["settings"].items()
                         if k not in ("dictionary", "test_dictionary", "test_dictionary_en", "similarity")}}


def _hybrid_ori_pca(shared: Path) -> dict:
    """Hybrid Ori's Table 1 MWEAT with its bilingual d_PCA (ours, the default) and with the French
    pairs only (the reading under which the paper's Table 1 has Hybrid Ori = Shift Ori)."""
    from geobias import wordlists
    from geobias.alignment import read_dictionary
    from geobias.evaluation.bilingual import monolingual_mweat
    from geobias.mitigation.bilingual import HybridOri
    from geobias.sources.registry import load_installed

    src, en = load_installed("fr-spacy-md").normalized(), load_installed("en-w2v-gnews").normalized()
    dico = read_dictionary(shared / "muse" / "dictionaries" / "fr-en.0-5000.txt")
    occupations = [tuple(o) for o in wordlists.occupations("fr")]
    male, female = wordlists.attribute_words("fr")

    class HybridOriMonolingualPCA(HybridOri):
        bilingual_pca = False

    out = {}
    for key, cls in (("bilingual", HybridOri), ("monolingual", HybridOriMonolingualPCA)):
        est = cls()
        s_out, _ = est.fit_transform_pair(src, en=en, dictionary=dico)
        mw = monolingual_mweat(s_out, occupations, male, female, n_permutations=10_000, seed=0)
        out[key] = {"pca_languages": est.report_.pca_languages, "mweat_statistic": float(mw.statistic),
                    "mweat_p_value": float(mw.p_value)}
    return out


SEAT_TESTS = ("career-family", "career-family-terms", "math-arts", "math-arts-names", "science-arts",
              "science-arts-names")  # SEAT 6, 6b, 7, 7b, 8, 8b


def _interval(result: dict) -> dict:
    """The bootstrap over the words of a result (every association command's default): its interval,
    standard error and resamples, or the note saying why there is none."""
    boot = result.get("bootstrap")
    if boot is None:
        return {"bootstrap_note": result.get("bootstrap_note")}
    return {"bootstrap": {k: boot[k] for k in ("low", "high", "standard_error", "n_resamples", "seed")}}


def _seat(shared: Path) -> dict:
    """SEAT on the two sentence encoders installed here: USE-m3 in four languages, MiniLM in English."""
    from geobias.commands import execute

    rows = []
    for encoder, langs in (("use-m3", ("en", "es", "fr", "de")), ("minilm-l6", ("en",))):
        for lang in langs:
            for test in SEAT_TESTS:
                params = {"lang": lang, "encoder": encoder, "test": test, "device": "cpu"}
                _, env = execute("seat", params)
                r = env["result"]
                rows.append({**{k: r[k] for k in ("encoder", "lang", "test", "statistic", "effect_size", "p_value",
                                                  "p_unit", "sentence_p_value", "n_sentences", "n_gendered_words",
                                                  "n_permutations")},
                             **_interval(r)})
    return {"rows": rows}


ATLAS_METRICS = ("d_pca_explained_variance", "lda_cv_accuracy", "cos_dpca_dg", "neuter_on_dg", "weat_career_family",
                 "weat_math_arts", "weat_science_arts", "mweat", "mweat_effect_size", "occupation_bias", "cos_ds_en",
                 "corr_en_pearson", "corr_en_spearman", "corr_en_shared_spearman", "corr_en_control",
                 "corr_en_fig4_spearman")
#: What the atlas records of each figure's null (geobias.evaluation.atlas.NullComparison).
ATLAS_VERSUS = ("null", "null_value", "difference", "low", "high", "p_value", "q_value", "mc_error", "n_resamples",
                "p_interval", "verdict")


def _atlas_langs() -> list[str]:
    from geobias.languages import LANGUAGES

    return list(LANGUAGES)


def _atlas(shared: Path) -> dict:
    """``geobias atlas --family use-m3`` over every language: each cell's headline metrics."""
    import tempfile

    from geobias.commands import execute

    with tempfile.TemporaryDirectory() as tmp:
        _, env = execute("atlas", {"family": "use-m3", "out": str(Path(tmp) / "atlas")})
    cells = []
    for c in env["result"]["cells"]:
        metrics = {}
        for k in ATLAS_METRICS:
            m = (c.get("metrics") or {}).get(k)
            if m is None:
                continue
            iv = m.get("interval") or {}
            vs = m.get("versus")
            metrics[k] = {**{f: m.get(f) for f in ("status", "value", "p_value", "n", "reason", "set_sizes",
                                                   "baselines")},
                          **{f: iv.get(f) for f in ("low", "high", "standard_error")},
                          "versus": None if vs is None else {f: vs.get(f) for f in ATLAS_VERSUS},
                          "note": (m.get("details") or {}).get("note")}
        cells.append({"lang": c["lang"], "language": c["language"], "grammatical_gender": c["grammatical_gender"],
                      "genders": c.get("genders", []), "status": c["status"], "shape": c["shape"],
                      "vocabulary_offset": c.get("vocabulary_offset"), "comparable": c.get("comparable"),
                      "metrics": metrics})
    return {"family": "use-m3", "options": env["result"]["options"], "correction": env["result"].get("correction"),
            "cells": cells}


def _ripa_fr(shared: Path) -> dict:
    """RIPA on fr-spacy-md: the gender-aware default, and Ethayarajh et al.'s English-style variant."""
    from geobias.commands import execute

    out = {}
    for variant in ("grammatical", "english"):
        _, env = execute("ripa", {"lang": "fr", "variant": variant})
        r = env["result"]
        out[variant] = {**{k: r.get(k) for k in ("words", "ripa", "mean", "mean_abs", "n_pairs", "variant", "relation",
                                                 "warning", "forms", "reference_offset", "n_reference",
                                                 "word_intervals")}, **_interval(r)}
    return out


def _metrics_fr(shared: Path) -> dict:
    """RND, RNSB, ECT and MAC on fr-spacy-md: the grammatical variant, and the English one on both
    forms, on the masculine forms only and on the feminine forms only."""
    from geobias import wordlists
    from geobias.commands import execute

    occupations = wordlists.occupations("fr")
    masc, fem = [o.masculine for o in occupations], [o.feminine for o in occupations]
    variants = {"grammatical": {}, "english-both": {"variant": "english"},
                "english-masculine": {"variant": "english", "targets_x": masc},
                "english-feminine": {"variant": "english", "targets_x": fem}}
    out: dict = {}
    for metric in ("rnd", "rnsb", "ect", "mac"):
        for name, extra in variants.items():
            _, env = execute(metric, {"lang": "fr", **extra})
            r = env["result"]
            kept = {k: v for k, v in r.items() if not isinstance(v, (list, dict))} | _interval(r)
            if "permutation" in r and isinstance(r["permutation"], dict):
                kept["p_value"] = r["permutation"]["p_value"]
                kept["n_permutations"] = r["permutation"]["n_permutations"]
            if metric == "rnd" and name == "grammatical":
                kept["bootstrap_p_value"] = r["bootstrap"]["p_value"]  # RND's p here: the bootstrap's test
                pairs = sorted(r["per_pair"], key=lambda x: x["score"])
                kept["most_male"] = [f"{x['masculine']}/{x['feminine']}" for x in pairs[:3]]
                kept["most_female"] = [f"{x['masculine']}/{x['feminine']}" for x in pairs[::-1][:3]]
            out.setdefault(metric, {})[name] = kept
    return out


def _use_m3(shared: Path) -> dict:
    """directions and mweat with defaults on French fastText and the USE-m3 stores of fr, es, de."""
    from geobias.commands import execute

    out = {}
    for lang, store in (("fr", "fr-spacy-md"), ("fr", "use-m3-fr"), ("es", "use-m3-es"), ("de", "use-m3-de")):
        _, d = execute("directions", {"lang": lang, "vectors": store})
        _, m = execute("mweat", {"lang": lang, "vectors": store})
        d, m = d["result"], m["result"]
        out[store] = {
            "lda_cv_accuracy": d["lda_cv_accuracy"], "lda_solver": d["lda_solver"], "n_nouns": d["n_nouns"],
            "cos_pca_grammatical": d["cos_pca_grammatical"], "explained_variance_ratio": d["explained_variance_ratio"][:1],
            "dim": len(d["d_pca"]), "mweat_statistic": m["statistic"], "mweat_p_value": m["p_value"],
            "sum_masculine": m["sum_masculine"], "sum_feminine": m["sum_feminine"], "n_pairs": m["n_pairs"],
            **{f"mweat_{k}": v for k, v in _interval(m).items()},
        }
    return out


def _use_m3_space(shared: Path) -> dict:
    """The shared USE space: cross-language cosines, a neighbour list, word translation with no
    alignment, and word similarity on the use-m3 and fastText stores."""
    import numpy as np

    from geobias.commands import execute
    from geobias.evaluation.similarity import word_similarity
    from geobias.sources.registry import load_installed

    es, en = load_installed("use-m3-es").normalized(), load_installed("use-m3-en").normalized()
    cos = {f"{a}/{b}": float(np.dot(es[a].astype(np.float64), en[b].astype(np.float64)))
           for a, b in (("enfermera", "nurse"), ("mesa", "table"))}
    _, nb = execute("neighbors", {"word": "enfermera", "lang": "es", "vectors": "use-m3-es", "k": 5})
    _, tr = execute("translate-eval", {"src": "es", "tgt": "en", "src_vectors": "use-m3-es",
                                       "tgt_vectors": "use-m3-en",
                                       "dictionary": str(shared / "muse" / "dictionaries" / "es-en.5000-6500.txt")})
    t = tr["result"]
    sims = {}
    w = shared / "wordsim" / "monolingual"
    for store, files in (("use-m3-es", ("ES_RG-65", "ES_WS-353", "ES_SEMEVAL17")), ("use-m3-fr", ("FR_RG-65",)),
                         ("fr-spacy-md", ("FR_RG-65",))):
        vectors = load_installed(store)
        for f in files:
            r = word_similarity(vectors, w / f"{f}.txt")
            sims[f"{store}:{f}"] = {"pearson": r.pearson, "spearman": r.spearman, "n_covered": r.n_covered,
                                    "n_pairs": r.n_pairs}
    return {
        "cosines": cos,
        "neighbors_enfermera": [x["word"] for x in nb["result"]["neighbors"]],
        "translation_raw": {m: {"p_at_1": t[m]["precision"]["p_at_1"], "p_at_5": t[m]["precision"]["p_at_5"],
                                "n_queries": t[m]["n_queries"], "n_source_words": t[m]["n_source_words"]}
                            for m in ("nn", "csls")},
        "n_target_words": len(en),
        "similarity": sims,
    }


def _sentiment(shared: Path) -> dict:
    """scripts/sentiment_minilm.py (7 linear heads on frozen MiniLM, 2,000 training and 500 held-out
    tweets, GAP's first 200 paragraphs), then the original head and VADER on all of GAP development."""
    import subprocess
    import tempfile

    from geobias.commands import execute

    keep_rows = ("minilm-original", "minilm-removed-all", "minilm-mixed-all")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "run"
        subprocess.run([sys.executable, str(ROOT / "scripts" / "sentiment_minilm.py"), str(out), "--train", "2000",
                        "--test", "500", "--gap-limit", "200", "--shared", str(shared)],
                       check=True, capture_output=True, env={**os.environ, "OMP_NUM_THREADS": "1"})
        bias = json.loads((out / "bias.json").read_text(encoding="utf-8"))
        heads = json.loads((out / "classifiers.json").read_text(encoding="utf-8"))
        gap = str(shared / "gap" / "gap-development.tsv")
        _, full = execute("probe sentiment", {"model": [str(out / "minilm-original")], "corpus": [gap],
                                              "column": "Text", "terms": ["all"]})
    vader = {}
    for zero in ("wilcox", "pratt", "zsplit"):
        _, v = execute("probe sentiment", {"vader": True, "corpus": [gap], "column": "Text", "terms": ["all"],
                                           "zero_method": zero})
        vader[zero] = v["result"]["rows"][0]
    pick = lambda r: {k: r[k] for k in ("n_samples", "n_negative", "n_zero", "n_positive", "all_samples", "p_value",  # noqa: E731
                                        "p_bonferroni", "significance")}
    rows = {f"{r['scorer']}|{r['corpus']}|{r['terms']}": pick(r) for r in bias["rows"]
            if r["scorer"] in keep_rows and r["terms"] == "all"}
    return {
        "classifiers": [{k: h[k] for k in ("condition", "terms", "test_accuracy", "test_f1")} for h in heads],
        "n_tests": bias["n_tests"], "rows": rows,
        "gap_full_original": pick(full["result"]["rows"][0]),
        "gap_full_vader": {z: pick(r) for z, r in vader.items()},
    }


REPRODUCTIONS = {
    r.name: r for r in (
        Reproduction("mweat-fr", "mweat", lambda s: {"lang": "fr"}, ("fr-spacy-md",), False,
                     "geobias mweat --lang fr",
                     keep=lambda r: {k: v for k, v in r.items() if k not in ("per_word", "vectors")}),
        Reproduction("evaluate-fr", "evaluate", _evaluate_params, ("fr-spacy-md", "en-w2v-gnews"), True,
                     "geobias evaluate --lang fr --en-vectors en-w2v-gnews --dictionary $D/fr-en.0-5000.txt "
                     "--test-dictionary $D/fr-en.5000-6500.txt --test-dictionary-en $D/en-fr.5000-6500.txt "
                     "--wordsim ../shared/data/wordsim/monolingual/FR_RG-65.txt",
                     keep=_evaluate_keep),
        Reproduction("evaluate-es", "evaluate", _evaluate_es_params, ("use-m3-es", "use-m3-en"), True,
                     "geobias evaluate --lang es --vectors use-m3-es --en-vectors use-m3-en --dictionary "
                     "$D/es-en.0-5000.txt --test-dictionary $D/es-en.5000-6500.txt --test-dictionary-en $D/en-es.5000-6500.txt "
                     "--wordsim "
                     "../shared/data/wordsim/monolingual/ES_RG-65.txt", keep=_evaluate_keep, encoded=True),
        Reproduction("erasure-fr", "evaluate", _erasure_params, ("fr-spacy-md", "en-w2v-gnews"), True,
                     "geobias evaluate --lang fr --dictionary $D/fr-en.0-5000.txt --test-dictionary "
                     "$D/fr-en.5000-6500.txt --wordsim ../shared/data/wordsim/monolingual/FR_RG-65.txt --methods "
                     "original,hard-debias,hybrid-ori,leace,leace-keep-grammar,inlp,inlp-keep-grammar,inlp-35",
                     keep=_evaluate_keep),
        Reproduction("erasure-en", "erasure", lambda s: {"lang": "en", "wordsim": str(
                         s / "wordsim" / "monolingual" / "EN_RG-65.txt")}, ("en-w2v-gnews",), True,
                     "geobias erasure --lang en --wordsim ../shared/data/wordsim/monolingual/EN_RG-65.txt",
                     keep=_evaluate_keep),
        Reproduction("seat", "", lambda s: {}, (), False,
                     "geobias seat --lang LANG --encoder ENCODER --test TEST (scripts/reproduce.py seat)", func=_seat, encoded=True),
        Reproduction("ripa-fr", "", lambda s: {}, ("fr-spacy-md",), False,
                     "geobias ripa --lang fr [--variant english] (scripts/reproduce.py ripa-fr)", func=_ripa_fr),
        Reproduction("recoverability-en", "recoverability", lambda s: {"lang": "en", "methods": "hard-debias,leace,inlp"},
                     ("en-w2v-gnews",), False, "geobias recoverability --lang en --methods hard-debias,leace,inlp"),
        Reproduction("recoverability-en-geobias", "recoverability", lambda s: {
                         "lang": "en", "methods": "hard-debias,leace,inlp", "protocol": "geobias"},
                     ("en-w2v-gnews",), False,
                     "geobias recoverability --lang en --methods hard-debias,leace,inlp --protocol geobias"),
        Reproduction("recoverability-fr", "recoverability", lambda s: {
                         "lang": "fr", "methods": "leace,leace-keep-grammar,inlp,inlp-keep-grammar,shift-ori"},
                     ("fr-spacy-md",), False, "geobias recoverability --lang fr --methods "
                     "leace,leace-keep-grammar,inlp,inlp-keep-grammar,shift-ori"),
        Reproduction("recoverability-fr-bilingual", "evaluate", lambda s: {
                         **_evaluate_params(s), "permutations": 1000, "recoverability": True},
                     ("fr-spacy-md", "en-w2v-gnews"), True,
                     "geobias evaluate --lang fr --en-vectors en-w2v-gnews --dictionary $D/fr-en.0-5000.txt "
                     "--test-dictionary $D/fr-en.5000-6500.txt --recoverability",
                     keep=lambda r: {"lang": r["lang"], "table": {m: {k: v for k, v in row.items() if k.startswith("recover_")}
                                                                  for m, row in r["table"].items()}}),
        Reproduction("atlas", "", lambda s: {}, tuple(f"use-m3-{code}" for code in _atlas_langs()), False,
                     "geobias atlas --family use-m3 --out atlas/ (scripts/reproduce.py atlas)", func=_atlas, encoded=True),
        Reproduction("metrics-fr", "", lambda s: {}, ("fr-spacy-md",), False,
                     "geobias rnd|rnsb|ect|mac --lang fr [--variant english] [--targets-x FORMS] "
                     "(scripts/reproduce.py metrics-fr)", func=_metrics_fr),
        Reproduction("use-m3", "", lambda s: {}, ("fr-spacy-md", "use-m3-fr", "use-m3-es", "use-m3-de"), False,
                     "geobias directions|mweat --lang LANG --vectors STORE (scripts/reproduce.py use-m3)", func=_use_m3, encoded=True),
        Reproduction("use-m3-space", "", lambda s: {}, ("use-m3-es", "use-m3-en", "use-m3-fr", "fr-spacy-md"), True,
                     "scripts/reproduce.py use-m3-space (neighbors, translate-eval, word similarity)",
                     func=_use_m3_space, encoded=True),
        Reproduction("sentiment", "", lambda s: {}, (), True,
                     "OMP_NUM_THREADS=1 python scripts/sentiment_minilm.py OUTDIR --train 2000 --test 500 --gap-limit 200, "
                     "then probe sentiment on all of GAP development (scripts/reproduce.py sentiment)", func=_sentiment, encoded=True),
        Reproduction("hybrid-ori-pca", "", lambda s: {}, ("fr-spacy-md", "en-w2v-gnews"), True,
                     "scripts/reproduce.py hybrid-ori-pca (HybridOri with bilingual_pca False)", func=_hybrid_ori_pca),
        Reproduction("hard-debias-en", "hard-debias", lambda s: {"lang": "en"}, ("en-w2v-gnews",), False,
                     "geobias hard-debias --lang en"),
        Reproduction("hard-debias-en-ours", "hard-debias", lambda s: {"lang": "en", "lists": "geobias"},
                     ("en-w2v-gnews",), False, "geobias hard-debias --lang en --lists geobias"),
    )
}


def run(name: str) -> dict:
    """The reproduction's record: the command line and the kept result (JSON-ready)."""
    from geobias.commands import execute
    from geobias.sources.registry import install, is_installed

    rep = REPRODUCTIONS[name]
    for store in rep.stores:
        if not is_installed(store):
            install(store)
    if rep.func is not None:
        return {"name": name, "command": rep.cli, "result": rep.func(SHARED)}
    _, envelope = execute(rep.command, rep.params(SHARED))  # the result as `--json` prints it
    return {"name": name, "command": rep.cli, "result": rep.keep(envelope["result"])}


def write(name: str) -> Path:
    """Run ``name`` and write ``reproductions/<name>.json`` atomically."""
    record = run(name)
    OUT.mkdir(exist_ok=True)
    path = OUT / f"{name}.json"
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(record, indent=1, ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*", help="reproductions to run (default: all)")
    ap.add_argument("--list", action="store_true", help="list the reproductions and exit")
    args = ap.parse_args(argv)
    if args.list:
        for rep in REPRODUCTIONS.values():
            print(f"{rep.name:22} {rep.cli}")
        return 0
    unknown = [n for n in args.names if n not in REPRODUCTIONS]
    if unknown:
        print(f"reproduce: unknown reproduction(s) {', '.join(unknown)}; see --list", file=sys.stderr)
        return 2
    for name in args.names or list(REPRODUCTIONS):
        if REPRODUCTIONS[name].shared and not SHARED.is_dir():
            print(f"skipped {name}: {SHARED} is absent", file=sys.stderr)
            continue
        print(f"wrote {write(name).relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
