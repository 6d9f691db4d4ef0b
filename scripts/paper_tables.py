"""Figure blocks of docs/reproductions.md that set the seed papers' published figures beside ours.

The papers' figures are facts read from ``reproductions/papers/*.tsv`` (one row per published
cell, with its citation); ours come from ``reproductions/*.json``. Each renderer here returns the
text of one ``<!-- figures: NAME -->`` block (see ``scripts/readme_figures.py``, which registers
:data:`RENDERERS`), so every verdict on the page — whether our figure reproduces the paper's
pattern — is computed from the two files, never typed.

    python scripts/readme_figures.py           # re-renders these blocks with the others
"""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAPERS = ROOT / "reproductions" / "papers"


def interval_method(boot: dict) -> str:
    """How a stored bootstrap's interval was read, in words (``BootstrapResult.method``: e.g.
    ``"two-way basic expanded"``)."""
    import sys

    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from geobias.stats.bootstrap import BootstrapResult

    return BootstrapResult.from_dict(boot).method


def load(name: str) -> dict:
    """``reproductions/<name>.json``."""
    return json.loads((ROOT / "reproductions" / f"{name}.json").read_text(encoding="utf-8"))


def paper_facts(name: str) -> list[dict]:
    """The rows of ``reproductions/papers/<name>.tsv`` (``#`` lines are its header comment)."""
    lines = [line for line in (PAPERS / f"{name}.tsv").read_text(encoding="utf-8").splitlines()
             if line.strip() and not line.startswith("#")]
    return list(csv.DictReader(lines, delimiter="\t"))


# -- SEAT: May et al.'s eight-sentence tests with the default options ------------------------------

def seat_may_eight(rec: dict) -> str:
    """May et al.'s word-level test files (eight sentences per set) with ``geobias seat``'s default
    options against sent-bias's exact ``weat.py``, per encoder; and how far the former default's
    10,000 Monte-Carlo draws were from the exact p."""
    r = rec["result"]
    former = f"{r['former_default_permutations']:,}"
    lines = ["| encoder | test | X / Y vs A / B | effect size (ours) | `weat.py` | p (ours, default) | p (`weat.py`) "
             f"| p with {former} draws (former default) |",
             "|---|---|---|---|---|---|---|---|"]
    worst_d = worst_p = worst_former = 0.0
    exact = set()
    for encoder, rows in r["encoders"].items():
        for t in rows:
            c = t["categories"]
            lines.append(f"| {encoder} | {t['test']} | {c['X']} / {c['Y']} vs {c['A']} / {c['B']} | "
                         f"{t['effect_size']:.4f} | {t['sentbias_effect_size']:.4f} | {t['p_value']:.6f} | "
                         f"{t['sentbias_p_value']:.6f} | {t['former_default_p_value']:.6f} |")
            worst_d, worst_p = max(worst_d, t["difference"]), max(worst_p, t["p_difference"])
            worst_former = max(worst_former, t["former_default_p_difference"])
            exact.add((t["exact"], t["n_permutations"]))
    if len(exact) != 1 or not next(iter(exact))[0]:
        how = "not every test is enumerated exactly"
    else:
        how = f"every test is enumerated exactly ({next(iter(exact))[1]:,} partitions of the 16 target sentences)"
    return "\n".join(lines) + (
        f"\n\nWith no option set, {how}, "
        f"as `weat.py` enumerates them (its `n_samples` default is 100,000): the p-values are "
        + ("equal" if worst_p == 0 else f"within {worst_p:.1e}")
        + f", the effect sizes within {worst_d:.1e}. The former default sampled {former} partitions instead, "
        f"and missed the exact p-value by up to {worst_former:.4f}.\n")


# -- Zhou et al. (2019), Tables 1-2: every cell beside ours ----------------------------------------

METHODS = ["original", "shift-ori", "shift-en", "de-align", "hybrid-ori", "hybrid-en"]
LABEL = dict(zip(METHODS, ["Original", "Shift Ori", "Shift EN", "De-Align", "Hybrid Ori", "Hybrid EN"], strict=True))
#: Where our figure of each of the paper's quantities is, in ``evaluate``'s table (per method). Word
#: translation: CSLS retrieval; ``src_tgt`` is gendered language → English, ``tgt_src`` English → it.
OURS = {"mweat_diff": "mweat_statistic", "mweat_p_value": "mweat_p_value", "word_similarity": "similarity_pearson",
        "asd": "asd", "f_mrr": "mrr_feminine", "m_mrr": "mrr_masculine", "mrr_diff": "mrr_difference"}
QUANTITY = {"mweat_diff": "MWEAT-Diff", "mweat_p_value": "MWEAT p-value", "word_similarity": "word similarity (r)",
            "p_at_1": "P@1", "p_at_5": "P@5", "asd": "ASD", "f_mrr": "F MRR", "m_mrr": "M MRR",
            "mrr_diff": "MRR Diff"}
#: How a method's change from Original is read: bias figures by direction, beyond a relative band of
#: the Original's value (``"rel"``); utility figures (similarity, P@k) as kept or harmed, a drop beyond
#: an absolute band (``"drop"``: r 0.01, 1 percentage point) counting as harm. The paper's own
#: changes are all far from these edges (the nearest: 3.2 % for ES De-Align's MWEAT-Diff, a drop of
#: 1.6 points for FR De-Align's EN→FR P@5).
BANDS = {"mweat_diff": ("rel", 0.05), "asd": ("rel", 0.05), "f_mrr": ("rel", 0.05), "m_mrr": ("rel", 0.05),
         "mrr_diff": ("rel", 0.05), "word_similarity": ("drop", 0.01), "p_at_1": ("drop", 1.0),
         "p_at_5": ("drop", 1.0)}
#: The significance level of the MWEAT p-values (the paper's: "an insignificant level (p-value > 0.05)").
ALPHA = 0.05


def zhou_facts() -> dict[tuple[str, str, str, str], float]:
    """Zhou et al.'s 132 published cells: ``(lang, direction, quantity, method) → value``."""
    return {(r["lang"], r["direction"], r["quantity"], r["method"]): float(r["value"])
            for r in paper_facts("zhou2019_tables")}


def _ours(table: dict, lang: str, direction: str, quantity: str, method: str) -> float:
    row = table[method]
    if quantity in ("p_at_1", "p_at_5"):
        way = "tgt_src" if direction.startswith("en-") else "src_tgt"
        return 100 * row[f"{quantity}_csls_{way}"]
    return row[OURS[quantity]]


def pattern(values: dict[str, float], quantity: str, method: str) -> str:
    """The pattern one cell shows, from a paper's (or our) six figures of a quantity: for a p-value
    ``"p < 0.05"`` or ``"p ≥ 0.05"``; for a method's change from Original ``"lower"``, ``"higher"``,
    ``"unchanged"`` (bias figures) or ``"kept"``, ``"harmed"`` (utility); for Original's MRRs the
    sign of the gap (``"M > F"``); ``""`` where the cell is the baseline of the others."""
    v = values[method]
    if quantity == "mweat_p_value":
        return f"p < {ALPHA}" if v < ALPHA else f"p ≥ {ALPHA}"
    if method == "original":
        if quantity in ("f_mrr", "m_mrr", "mrr_diff"):
            gap = values["m_mrr"] - values["f_mrr"] if quantity != "mrr_diff" else v
            return "M > F" if gap > 0 else "M ≤ F"
        return ""
    kind, band = BANDS[quantity]
    o = values["original"]
    if kind == "drop":
        return "harmed" if v < o - band else "kept"
    if abs(v - o) <= band * abs(o):
        return "unchanged"
    return "lower" if v < o else "higher"


def zhou_cells(rec_fr: dict, rec_es: dict) -> list[dict]:
    """Every published cell with ours and both patterns, in the tables' order."""
    facts, tables = zhou_facts(), {"fr": rec_fr["result"]["table"], "es": rec_es["result"]["table"]}
    out = []
    keys = list(dict.fromkeys((lang, d, q) for (lang, d, q, _) in facts))
    for lang, d, q in keys:
        paper = {m: facts[(lang, d, q, m)] for m in METHODS}
        ours = {m: _ours(tables[lang], lang, d, q, m) for m in METHODS}
        if q in ("f_mrr", "m_mrr"):  # Original's pattern is the gap between the two
            other = "m_mrr" if q == "f_mrr" else "f_mrr"
            paper_o = {q: paper["original"], other: facts[(lang, d, other, "original")]}
            ours_o = {q: ours["original"], other: _ours(tables[lang], lang, d, other, "original")}
        for m in METHODS:
            if q in ("f_mrr", "m_mrr") and m == "original":
                pp, po = pattern({**paper, **paper_o}, q, m), pattern({**ours, **ours_o}, q, m)
            else:
                pp, po = pattern(paper, q, m), pattern(ours, q, m)
            out.append({"lang": lang, "direction": d, "quantity": q, "method": m, "paper": paper[m],
                        "ours": ours[m], "paper_pattern": pp, "our_pattern": po,
                        "verdict": "baseline" if not pp else ("yes" if pp == po else "no")})
    return out


def _fmt(q: str, v: float) -> str:
    if q in ("p_at_1", "p_at_5"):
        return f"{v:.1f}"
    return f"{v:.4f}"


def _where(d: str, lang: str) -> str:
    return {"": "", f"en-{lang}": f" EN→{lang.upper()}", f"{lang}-en": f" {lang.upper()}→EN"}[d]


def _verdict(c: dict) -> str:
    if c["verdict"] == "baseline":
        return "baseline"
    if c["verdict"] == "yes":
        return f"yes ({c['paper_pattern']})"
    return f"**no** (paper {c['paper_pattern']}, ours {c['our_pattern']})"


def zhou_tables(rec_fr: dict) -> str:
    """All 132 cells of Zhou et al.'s Tables 1-2, each beside ours and with a pattern verdict."""
    cells = zhou_cells(rec_fr, load("evaluate-es"))
    by = {(c["lang"], c["direction"].replace(c["lang"], "X"), c["quantity"], c["method"]): c for c in cells}
    rows = list(dict.fromkeys((d, q, m) for (_, d, q, m) in by))
    lines = ["| table | quantity | method | ES paper | ES ours | ES pattern reproduced | FR paper | FR ours | "
             "FR pattern reproduced |", "|---|---|---|---|---|---|---|---|---|"]
    for d, q, m in rows:
        es, fr = by[("es", d, q, m)], by[("fr", d, q, m)]
        table = "1" if q in ("mweat_diff", "mweat_p_value", "word_similarity") else "2"
        what = QUANTITY[q] + {"": "", "en-X": " EN→X", "X-en": " X→EN"}[d]
        lines.append(f"| {table} | {what} | {LABEL[m]} | {_fmt(q, es['paper'])} | {_fmt(q, es['ours'])} | "
                     f"{_verdict(es)} | {_fmt(q, fr['paper'])} | {_fmt(q, fr['ours'])} | {_verdict(fr)} |")
    judged = [c for c in cells if c["verdict"] != "baseline"]
    count = {lang: (sum(c["verdict"] == "yes" for c in judged if c["lang"] == lang),
                    sum(c["lang"] == lang for c in judged)) for lang in ("es", "fr")}
    return "\n".join(lines) + (
        f"\n\n{len(cells)} published cells. Pattern reproduced in {count['es'][0]} of {count['es'][1]} Spanish and "
        f"{count['fr'][0]} of {count['fr'][1]} French cells that have one; the others are the baselines "
        f"(Original's figures) that the methods' changes are read against.\n")


#: How a claim sentence says a p-value's pattern.
SAYS = {f"p < {ALPHA}": f"significant (p < {ALPHA})", f"p ≥ {ALPHA}": f"not significant (p ≥ {ALPHA})"}


def _methods(methods: list[str]) -> str:
    return ", ".join(LABEL[m] for m in methods) or "none"


def zhou_claims(rec_fr: dict) -> list[str]:
    """The sentences of the page that state the paper's pattern, each generated from the facts table
    in one grammar: ``In the paper (LANG), QUANTITY[ DIR] is PATTERN after: M1, M2; PATTERN after: M3.``
    (and the same for ours: ``Here (LANG), ...``). ``tests/docs/test_reproductions_claims.py``
    parses every such sentence on the page and checks it against the facts table."""
    cells = zhou_cells(rec_fr, load("evaluate-es"))
    out = []
    for who, key in (("In the paper", "paper_pattern"), ("Here", "our_pattern")):
        for lang in ("es", "fr"):
            for q, d in (("mweat_p_value", ""), ("mweat_diff", ""), ("mrr_diff", f"en-{lang}"), ("asd", f"en-{lang}"),
                         ("p_at_1", f"en-{lang}"), ("p_at_1", f"{lang}-en")):
                mine = [c for c in cells if c["lang"] == lang and c["quantity"] == q and c["direction"] == d
                        and c["method"] != "original"]
                if q == "mweat_p_value":  # Original's own test too: is there a bias to remove?
                    mine = [c for c in cells if c["lang"] == lang and c["quantity"] == q]
                groups: dict[str, list[str]] = {}
                for c in mine:
                    groups.setdefault(c[key], []).append(c["method"])
                parts = "; ".join(f"{SAYS.get(pat, pat)} after: {_methods(ms)}" for pat, ms in groups.items())
                name = "MWEAT-Diff" if q == "mweat_p_value" else QUANTITY[q]
                out.append(f"{who} ({lang.upper()}), {name}{_where(d, lang)} is {parts}.")
    return out


def zhou_reading(rec_fr: dict) -> str:
    """What the methods do to each quantity, in the paper and here: generated claims only."""
    claims = zhou_claims(rec_fr)
    half = len(claims) // 2
    m = load("mweat-fr")["result"]
    boot = m.get("bootstrap") or {}
    words = ""
    if boot.get("quantity") == "signed_statistic":
        holds = ("contains 0: another choice of words could give no bias" if boot["low"] <= 0 <= boot["high"]
                 else "does not contain 0")
        words = (f"\n\nThe p-values above come from permuting the occupations' forms with the words fixed. Over the "
                 f"words themselves (`geobias mweat --lang fr`, `reproductions/mweat-fr.json`: {boot['n_resamples']:,} "
                 f"resamples of the words, occupations as pairs), our Original FR signed statistic "
                 f"|Σ_X s| − |Σ_Y s| = {m['signed_statistic']:+.4f} has the 95 % {interval_method(boot)} interval {boot['low']:+.3f} … "
                 f"{boot['high']:+.3f}, which {holds}.")
    return ("**The paper's pattern**, method by method (against Original; p-values against 0.05):\n\n"
            + "\n".join(f"- {c}" for c in claims[:half])
            + "\n\n**Ours**, on our vectors and word lists:\n\n" + "\n".join(f"- {c}" for c in claims[half:])
            + words + "\n")


def evaluate_fr_reading(rec: dict) -> str:
    """What the French table shows, every paper figure read from the facts table and every statement
    of the paper's pattern in :func:`zhou_claims`'s grammar (none typed)."""
    t, f = rec["result"]["table"], zhou_facts()
    o, so, da, ho = (t[m] for m in ("original", "shift-ori", "de-align", "hybrid-ori"))
    pca = load("hybrid-ori-pca")["result"]
    paper = lambda q, m, d="": f[("fr", d, q, m)]  # noqa: E731
    wp = "en-fr"
    mw = [t[m]["mweat_statistic"] for m in ("shift-ori", "shift-en", "hybrid-ori", "hybrid-en")]
    diffs = [t[m]["mweat_difference"] for m in METHODS[1:]]
    asd = [t[m]["asd"] for m in METHODS[1:]]
    p_asd = (paper("asd", "original", wp), paper("asd", "hybrid-ori", wp))
    down = [LABEL[m] for m in ("shift-ori", "shift-en", "hybrid-ori", "hybrid-en")
            if t[m]["mweat_statistic"] < o["mweat_statistic"]]
    lowered = (f"{'all four' if len(down) == 4 else ', '.join(down) or 'none'} of the Shift and Hybrid methods lower "
               f"it here (to {min(mw):.2f}–{max(mw):.2f}).")
    return (
        f"**Read beside the paper:** De-Align, a rotation, leaves Table 1's MWEAT unchanged (paper FR: "
        f"{paper('mweat_diff', 'original'):.4f} → {paper('mweat_diff', 'de-align'):.4f}; here "
        f"{o['mweat_statistic']:.4f} → {da['mweat_statistic']:.4f}); {lowered} "
        f"Which of them leave a bias the permutation test still finds: the lists above. Word-pair translation favours the masculine form in "
        f"the original space (here M MRR {o['mrr_masculine']:.3f} > F MRR {o['mrr_feminine']:.3f}; paper "
        f"{paper('m_mrr', 'original', wp):.4f} > {paper('f_mrr', 'original', wp):.4f}).\n\n"
        f"**What is much weaker than in the paper:** ASD. From Original to Hybrid Ori it goes from "
        f"{p_asd[0]:.4f} to {p_asd[1]:.4f} in the paper ({100 * (1 - p_asd[1] / p_asd[0]):.0f}% less) and from "
        f"{o['asd']:.4f} to {ho['asd']:.4f} here ({100 * (1 - ho['asd'] / o['asd']):.0f}% less); no method here "
        f"takes off more than {100 * (1 - min(asd) / o['asd']):.0f}% ({min(asd):.4f}–{max(asd):.4f}).\n\n"
        f"**What differs in size:** our original gap is much smaller than the paper's (F/M MRR "
        f"{o['mrr_feminine']:.3f}/{o['mrr_masculine']:.3f}, ASD {o['asd']:.3f}; paper FR "
        f"{paper('f_mrr', 'original', wp):.4f}/{paper('m_mrr', 'original', wp):.4f}, ASD "
        f"{paper('asd', 'original', wp):.4f} — different vectors: 20k spaCy FR, 26k GoogleNews EN, and our adjectives "
        f"and occupations). And eq. 1 falls because Shift centres each pair on d_s (|Σ_X s| ≈ |Σ_Y s|), not because "
        f"the masculine and feminine forms get closer: eq. 4 moves both forms of a pair by the same δ·d_s, so "
        f"w_m − w_f, and with it Σ_X s − Σ_Y s (ours), is unchanged up to re-normalisation "
        f"({o['mweat_difference']:.2f} → {min(diffs):.2f}–{max(diffs):.2f} for every method).\n\n"
        f"**Hybrid Ori ≠ Shift Ori (a choice of ours).** Hybrid Ori fits d_PCA on the definitional pairs of *both* "
        f"languages in the shared space (our reading of the paper's text for the bilingual methods), Shift Ori on "
        f"the French pairs only (§3.2 is monolingual); hence MWEAT {ho['mweat_statistic']:.4f} against "
        f"{so['mweat_statistic']:.4f}. The paper's Table 1 has the two equal (FR {paper('mweat_diff', 'hybrid-ori'):.4f}"
        f"/{paper('mweat_diff', 'shift-ori'):.4f}), which is what a monolingual d_PCA for Hybrid Ori gives: with it, "
        f"Hybrid Ori's MWEAT is {pca['monolingual']['mweat_statistic']:.4f} (p {pca['monolingual']['mweat_p_value']:.4f}),"
        f" as Shift Ori's (`scripts/reproduce.py hybrid-ori-pca`).\n"
    )


# -- The other seed papers: which of their tables we compute ----------------------------------------

#: Every published table of the other seed papers whose figures a geobias command produces, with the
#: model it needs and whether this repository computes it (``computed``: the reproduction that holds
#: our figures, or ``None`` with the reason). Each table's figures are in its facts file.
SEED_TABLES = [
    {"paper": "Bartl et al. (2020)", "facts": "bartl2020_tables", "table": "4",
     "what": "English BERT: BEC-Pro associations per profession group and person gender, before and after "
             "CDS fine-tuning on GAP, Wilcoxon W and r",
     "needs": "`bert-base-uncased` with its masked-LM head (pretrained weights)",
     "command": "`geobias probe becpro --model bert-base-uncased --lang en`; `geobias cda` + `geobias finetune`, then "
                "the same probe",
     "computed": None},
    {"paper": "Bartl et al. (2020)", "facts": "bartl2020_tables", "table": "5",
     "what": "German BERT: BEC-Pro associations of female and male person words, Wilcoxon p, W and r",
     "needs": "DBMDZ's cased German BERT (`dbmdz/bert-base-german-cased`) with its masked-LM head",
     "command": "`geobias probe becpro --model dbmdz/bert-base-german-cased --lang de`", "computed": None},
    {"paper": "Hossain et al. (2025)", "facts": "hossain2025_tables", "table": "5",
     "what": "MALoR of seven pretrained masked LMs for he/she, his/her and first names",
     "needs": "BERT, DistilBERT, RoBERTa and ALBERT (base, large) with their masked-LM heads",
     "command": "`geobias probe malor --model MODEL --pair he-she` (also `his-her`, `names`)", "computed": None},
    {"paper": "Hossain et al. (2025)", "facts": "hossain2025_tables", "table": "8",
     "what": "MALoR before and after CDA continued pre-training (5 seeds)",
     "needs": "`bert-base-uncased`, `bert-large-uncased`, `distilbert-base-uncased` with their masked-LM heads",
     "command": "`geobias cda` + `geobias finetune`, then `geobias probe malor`", "computed": None},
    {"paper": "Jentzsch & Turan (2022)", "facts": "jentzsch_turan2022_tables", "table": "1",
     "what": "absolute and total sentiment-difference bias of 63 classifiers (7 pretrained models × 3 term "
             "sets × 3 training conditions)",
     "needs": "the seven pretrained models (DistilBERT, BERT, RoBERTa, ALBERT) fine-tuned on IMDB",
     "command": "`geobias finetune-classifier --model MODEL --condition C --terms T`, then `geobias probe "
                "sentiment`",
     "computed": None},
]
#: Why no table above is computed here.
NO_MLM = ("no pretrained masked-LM head (nor any of these pretrained models) can be obtained on this project's "
          "machines")


def seed_cells(name: str) -> int:
    """Published cells in a facts table (its rows)."""
    return len(paper_facts(name))


def other_seeds(rec: dict) -> str:
    """The other seed papers' tables: cells, model, command, and whether we compute them here."""
    lines = ["| paper | table | what | published cells | needs | command | computed here |",
             "|---|---|---|---|---|---|---|"]
    for t in SEED_TABLES:
        n = sum(1 for r in paper_facts(t["facts"]) if r["table"] == t["table"])
        done = f"yes: `reproductions/{t['computed']}.json`" if t["computed"] else "no"
        lines.append(f"| {t['paper']} | {t['table']} | {t['what']} | {n} | {t['needs']} | {t['command']} | {done} |")
    missing = [t for t in SEED_TABLES if not t["computed"]]
    total = sum(sum(1 for r in paper_facts(t["facts"]) if r["table"] == t["table"]) for t in SEED_TABLES)
    return "\n".join(lines) + (
        f"\n\n{len(SEED_TABLES) - len(missing)} of these {len(SEED_TABLES)} tables ({total} published cells) are "
        f"computed here: {NO_MLM}. The commands load any Hugging Face id or local folder, so a user who has the "
        "models runs them as written and compares with the facts files; here they are tested on small randomly "
        "initialised models only. Our own sentiment run (a frozen MiniLM head trained on tweets, and VADER; "
        "[sentiment](sentiment.md)) uses the paper's measure on other classifiers and data, so it stands beside "
        "none of Table 1's cells.\n")


#: block name → (reproduction file, renderer); merged into ``readme_figures.RENDERERS``.
RENDERERS: dict[str, tuple[str, Callable[[dict], str]]] = {
    "seat-may-eight": ("seat-may-eight", seat_may_eight),
    "zhou-tables": ("evaluate-fr", zhou_tables),
    "zhou-reading": ("evaluate-fr", zhou_reading),
    "evaluate-fr-reading": ("evaluate-fr", evaluate_fr_reading),
    "other-seeds": ("evaluate-fr", other_seeds),
}
