"""Render the figure blocks of README.md and docs/*.md from ``reproductions/*.json`` (written by
``make reproduce``).

A figure block in a page is::

    <!-- figures: NAME -->
    ...generated text...
    <!-- /figures -->

and its text is ``RENDERERS[NAME](record)``, where ``record`` is ``reproductions/<file>.json``.
Every number a page quotes inside a block therefore comes from a run of the code;
``tests/test_readme_figures.py`` fails when a block and its file disagree.

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
    t, cov = r["table"], r["coverage"]
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
        _row("P@1 NN / CSLS fr→en (%)", t, pct("p_at_1_nn_src_tgt", "p_at_1_csls_src_tgt")),
        _row("MRR feminine / masculine (Table 2, §4.3)", t, pair("mrr_feminine", "mrr_masculine", 3)),
        _row("MRR difference (m − f)", t, _f("mrr_difference", 3)),
        _row("ASD", t, _f("asd", 3)),
    ]
    an, tr = cov["analogy"], cov["translation_src_tgt"]
    adjs = ", ".join(a[2] for a in an["adjectives"])
    lines += [
        "",
        f"Word-pair translation: {an['occupations']} occupations × {len(an['adjectives'])} adjectives ({adjs}) = "
        f"{an['queries_per_gender']} queries per gender; word translation: {tr['queries']:,} fr→en queries "
        f"(of {tr['source_words']:,} test words); MWEAT: {cov['mweat']['n_pairs']} occupation pairs.",
    ]
    return "\n".join(lines) + "\n"


def evaluate_reading(rec: dict) -> str:
    """What the table shows, with every figure read from the record."""
    t = rec["result"]["table"]
    o, so, se, da, ho, he = (t[m] for m in METHODS)
    pca = load("hybrid-ori-pca")["result"]
    mw = [t[m]["mweat_statistic"] for m in ("shift-ori", "shift-en", "hybrid-ori", "hybrid-en")]
    diffs = [t[m]["mweat_difference"] for m in METHODS[1:]]
    gaps = {m: t[m]["mrr_difference"] for m in METHODS}
    smallest = min(METHODS[1:], key=lambda m: gaps[m])
    label = dict(zip(METHODS, ["Original", "Shift Ori", "Shift EN", "De-Align", "Hybrid Ori", "Hybrid EN"], strict=True))
    narrowed = [label[m] for m in METHODS[1:] if gaps[m] < gaps["original"]]
    return (
        f"**What matches the paper's pattern:** De-Align leaves Table 1's MWEAT exactly unchanged (paper FR: "
        f"2.3437 → 2.3436; here {o['mweat_statistic']:.4f} → {da['mweat_statistic']:.4f}), every Shift/Hybrid method "
        f"lowers it (to {min(mw):.2f}–{max(mw):.2f}, no longer significant), similarity and P@1 barely move, and "
        f"word-pair translation favours the masculine form in the original space (M MRR {o['mrr_masculine']:.3f} > "
        f"F MRR {o['mrr_feminine']:.3f}). "
        + ("Every method narrows that gap" if len(narrowed) == 5 else f"{', '.join(narrowed) or 'No method'} narrow(s) that gap")
        + f" (MRR difference {gaps['original']:.3f} → {min(gaps[m] for m in METHODS[1:]):.3f}–"
        f"{max(gaps[m] for m in METHODS[1:]):.3f}), most of all {label[smallest]} ({gaps[smallest]:.3f}); ASD moves "
        f"from {o['asd']:.3f} to {min(t[m]['asd'] for m in METHODS[1:]):.3f}–{max(t[m]['asd'] for m in METHODS[1:]):.3f}.\n\n"
        f"**What does not:** our original gap is much smaller than the paper's (F/M MRR {o['mrr_feminine']:.3f}/"
        f"{o['mrr_masculine']:.3f}, ASD {o['asd']:.3f}; paper FR 0.166/0.655, ASD 0.121 — different vectors: 20k "
        f"spaCy FR, 26k GoogleNews EN, and our adjectives and occupations). And eq. 1 falls because Shift centres "
        f"each pair on d_s (|Σ_X s| ≈ |Σ_Y s|), not because the masculine and feminine forms get closer: eq. 4 "
        f"moves both forms of a pair by the same δ·d_s, so w_m − w_f, and with it Σ_X s − Σ_Y s (ours), is "
        f"unchanged up to re-normalisation ({o['mweat_difference']:.2f} → {min(diffs):.2f}–{max(diffs):.2f} for "
        f"every method).\n\n"
        f"**Hybrid Ori ≠ Shift Ori (a choice of ours).** Hybrid Ori fits d_PCA on the definitional pairs of *both* "
        f"languages in the shared space (our reading of the paper's text for the bilingual methods), Shift Ori on "
        f"the French pairs only (§3.2 is monolingual); hence MWEAT {ho['mweat_statistic']:.4f} against "
        f"{so['mweat_statistic']:.4f}. The paper's Table 1 has the two equal (FR 0.2446/0.2446), which is what a "
        f"monolingual d_PCA for Hybrid Ori gives: with it, Hybrid Ori's MWEAT is "
        f"{pca['monolingual']['mweat_statistic']:.4f} (p {pca['monolingual']['mweat_p_value']:.4f}), as Shift Ori's "
        f"(`scripts/reproduce.py hybrid-ori-pca`).\n"
    )


def hard_debias(rec: dict) -> str:
    """Bolukbasi et al.'s hard debias, their lists and ours."""
    theirs, ours = rec["result"], load("hard-debias-en-ours")["result"]
    return (
        f"With Bolukbasi et al.'s own lists (the default, `--lists bolukbasi`: their 10 definitional pairs, 1,441 "
        f"gender-specific words of which {theirs['n_gender_specific']} are in en-w2v-gnews, 52 equalise pairs of which "
        f"{theirs['n_equalize_pairs']} case forms are in it) DirectBias_1 over {theirs['n_neutral_words']} of their "
        f"320 professions falls from {theirs['direct_bias_before']:.4f} to {theirs['direct_bias_after']:.6f} (Bolukbasi et al. "
        f"report 0.08 before); with ours (`--lists geobias`) over {ours['n_neutral_words']} of our professions, "
        f"{ours['direct_bias_before']:.4f} → {ours['direct_bias_after']:.6f}.\n"
    )


def mweat_demo(rec: dict) -> str:
    """The `make demo` line."""
    r = rec["result"]
    lo, hi = r["p_value_ci"]
    return (
        f"MWEAT = {r['statistic']:.4f} over {r['n_pairs']} occupation pairs ({r['n_a']} + {r['n_b']} attribute "
        f"words), one-sided p = {r['p_value']:.4f} (95% CI {lo:.4f}–{hi:.4f}, {r['n_permutations']:,} "
        f"permutations, seed {r['seed']}); effect size of Σ_X s − Σ_Y s = {r['difference']:.4f}: "
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


#: block name → (reproduction file, renderer)
RENDERERS: dict[str, tuple[str, Callable[[dict], str]]] = {
    "evaluate-fr": ("evaluate-fr", evaluate_table),
    "evaluate-fr-reading": ("evaluate-fr", evaluate_reading),
    "hard-debias-en": ("hard-debias-en", hard_debias),
    "mweat-fr": ("mweat-fr", mweat_demo),
    "service-session": ("mweat-fr", service_session),
}


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
