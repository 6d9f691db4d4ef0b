"""docs/reproductions.md against the seed papers' own figures (``reproductions/papers/*.tsv``).

Zhou et al.'s Tables 1–2 are on the page cell by cell (all 132), and no sentence on the page may
claim a pattern of the paper that its figures contradict: every sentence that states one is in
the claim grammar of ``scripts/paper_tables.zhou_claims`` and is checked here against the facts
table with this file's own reading of each pattern; a sentence that names the paper and its
significance (or "every"/"all" methods) outside that grammar fails.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGE = (ROOT / "docs" / "reproductions.md").read_text(encoding="utf-8")
FACTS = ROOT / "reproductions" / "papers" / "zhou2019_tables.tsv"
METHODS = {"Original": "original", "Shift Ori": "shift-ori", "Shift EN": "shift-en", "De-Align": "de-align",
           "Hybrid Ori": "hybrid-ori", "Hybrid EN": "hybrid-en"}
QUANTITIES = {"MWEAT-Diff": "mweat_diff", "MRR Diff": "mrr_diff", "ASD": "asd", "P@1": "p_at_1", "P@5": "p_at_5",
              "F MRR": "f_mrr", "M MRR": "m_mrr", "word similarity (r)": "word_similarity"}


def facts() -> dict[tuple[str, str, str, str], float]:
    text = FACTS.read_text(encoding="utf-8")
    rows = csv.DictReader([line for line in text.splitlines() if line and not line.startswith("#")], delimiter="\t")
    return {(r["lang"], r["direction"], r["quantity"], r["method"]): float(r["value"]) for r in rows}


def test_the_facts_table_holds_the_132_cells_of_tables_1_and_2():
    f = facts()
    assert len(f) == 132
    assert "Zhou" in FACTS.read_text(encoding="utf-8").splitlines()[0] and "EMNLP" in FACTS.read_text(encoding="utf-8")
    per = {}
    for lang, d, q, m in f:
        per.setdefault((lang, d, q), set()).add(m)
    assert all(ms == set(METHODS.values()) for ms in per.values())
    assert len(per) == 22  # 2 × 3 (Table 1) + 4 directions × 2 (P@1, P@5) + 2 × 4 (word-pair translation)


def test_the_transcription_is_consistent_with_itself():
    """MRR Diff is M MRR − F MRR in every column (a typo in any of the three shows), and the figures the
    paper's text repeats are the table's."""
    f = facts()
    for lang in ("es", "fr"):
        for m in METHODS.values():
            d = f"en-{lang}"
            assert f[(lang, d, "mrr_diff", m)] == pytest.approx(f[(lang, d, "m_mrr", m)] - f[(lang, d, "f_mrr", m)],
                                                               abs=1.5e-4), (lang, m)
    # the reading of Table 1: Shift EN stays significant in FR and ES (p 0.0010); ES Hybrid EN p 0.0020
    assert f[("fr", "", "mweat_p_value", "shift-en")] == f[("es", "", "mweat_p_value", "shift-en")] == 0.0010
    assert f[("es", "", "mweat_p_value", "hybrid-en")] == 0.0020
    # De-Align is a rotation: FR 2.3437 → 2.3436 (the paper's §3 text and DESIGN)
    assert (f[("fr", "", "mweat_diff", "original")], f[("fr", "", "mweat_diff", "de-align")]) == (2.3437, 2.3436)


def _shown(value: float, quantity: str) -> str:
    return f"{value:.1f}" if quantity in ("p_at_1", "p_at_5") else f"{value:.4f}"


def test_every_published_cell_is_on_the_page_beside_ours_with_a_verdict():
    block = re.search(r"<!-- figures: zhou-tables -->\n(.*?)<!-- /figures -->", PAGE, re.S).group(1)
    rows = [line.split(" | ") for line in block.splitlines() if line.startswith("| 1 ") or line.startswith("| 2 ")]
    assert len(rows) == 66  # 66 rows × (ES, FR) = 132 cells
    f = facts()
    seen = 0
    for cells in rows:
        quantity, method = cells[1], METHODS[cells[2]]
        name, _, where = quantity.partition(" EN→X") if "EN→X" in quantity else quantity.partition(" X→EN")
        q = QUANTITIES[name.replace(" p-value", "")] if "p-value" not in name else "mweat_p_value"
        for lang, paper, verdict in (("es", cells[3], cells[5]), ("fr", cells[6], cells[8].rstrip(" |"))):
            d = "" if q in ("mweat_diff", "mweat_p_value", "word_similarity") else (
                f"en-{lang}" if "EN→X" in quantity or q in ("asd", "f_mrr", "m_mrr", "mrr_diff") else f"{lang}-en")
            assert paper == _shown(f[(lang, d, q, method)], q), (lang, quantity, method)
            assert verdict == "baseline" or verdict.startswith(("yes (", "**no** (")), verdict
            seen += 1
    assert seen == 132


def _holds(pattern: str, v: float, original: float, quantity: str) -> bool:
    """This test's own reading of a claimed pattern (the page's rule, written again)."""
    if pattern.startswith("significant"):
        return v < 0.05
    if pattern.startswith("not significant"):
        return v >= 0.05
    if pattern in ("kept", "harmed"):
        band = 0.01 if quantity == "word_similarity" else 1.0
        return (v < original - band) == (pattern == "harmed")
    change = (v - original) / original
    return {"lower": change < -0.05, "higher": change > 0.05, "unchanged": abs(change) <= 0.05}[pattern]


CLAIM = re.compile(r"^- In the paper \((?P<lang>ES|FR)\), (?P<q>MWEAT-Diff|MRR Diff|ASD|P@1|P@5|F MRR|M MRR)"
                   r"(?: (?P<src>EN|ES|FR)→(?P<tgt>EN|ES|FR))? is (?P<rest>.+)\.$")


def paper_claims(text: str) -> list[re.Match]:
    return [m for line in text.splitlines() if (m := CLAIM.match(line))]


def test_every_claim_of_the_paper_s_pattern_on_the_page_is_true_of_its_figures():
    claims = paper_claims(PAGE)
    assert len(claims) >= 12
    f = facts()
    for c in claims:
        lang = c["lang"].lower()
        d = f"{c['src'].lower()}-{c['tgt'].lower()}" if c["src"] else ""
        q = QUANTITIES[c["q"]]
        for group in c["rest"].split("; "):
            pattern, _, methods = group.partition(" after: ")
            quantity = "mweat_p_value" if "significant" in pattern else q
            for label in methods.split(", "):
                m = METHODS[label]
                v, o = f[(lang, d, quantity, m)], f[(lang, d, quantity, "original")]
                assert _holds(pattern, v, o, quantity), f"the page says: {c.group(0)!r}, but {m} is {v} (Original {o})"


def test_a_false_claim_is_caught():
    """The check can fail: the page's old sentence ("every Shift/Hybrid method leaves MWEAT no longer
    significant"), in the claim grammar, is refuted by the paper's Shift EN (p 0.0010)."""
    false = "- In the paper (FR), MWEAT-Diff is not significant (p ≥ 0.05) after: Shift Ori, Shift EN, Hybrid Ori, Hybrid EN."
    with pytest.raises(AssertionError, match="shift-en is 0.001"):
        for c in paper_claims(false):
            for label in c["rest"].partition(" after: ")[2].split(", "):
                v = facts()[(c["lang"].lower(), "", "mweat_p_value", METHODS[label])]
                assert _holds("not significant", v, 0.0, "mweat_p_value"), f"shift-en is {v}" if label == "Shift EN" else ""
    assert _free_claims("In the paper every Shift/Hybrid method leaves MWEAT no longer significant.")


#: A sentence about the paper's figures (not one that only names its methods: "Zhou et al.'s bilingual methods").
PAPER = re.compile(r"\bpaper\b|Zhou et al\.(?:'s)? (?:find|report|show|table|figure|result)", re.I)
#: Words that make a sentence about the paper a claim of its pattern.
PATTERN_WORDS = re.compile(r"significan|no longer|every (?:shift|hybrid|method)|all (?:methods|six)|each method",
                           re.I)


def _free_claims(text: str) -> list[str]:
    """Sentences that name the paper and state a significance or a rule over its methods outside the
    checked grammar (generated lines and tables excluded)."""
    out = []
    for line in text.splitlines():
        if CLAIM.match(line) or line.startswith("- Here (") or line.startswith("|"):
            continue
        for sentence in re.split(r"(?<=[.!?])\s+(?=[A-Z*])", line):
            if PAPER.search(sentence) and PATTERN_WORDS.search(sentence):
                out.append(sentence)
    return out


def test_no_sentence_states_the_paper_s_pattern_outside_the_checked_grammar():
    assert _free_claims(PAGE) == []


# -- the other seed papers ------------------------------------------------------------------------

def other_facts(name: str) -> list[dict]:
    text = (ROOT / "reproductions" / "papers" / f"{name}.tsv").read_text(encoding="utf-8")
    assert text.startswith("# ") and re.search(r"\(20\d\d\)", text.splitlines()[0]), f"{name}: no citation"
    return list(csv.DictReader([line for line in text.splitlines() if line and not line.startswith("#")],
                               delimiter="\t"))


def test_bartl_et_al_s_differences_are_post_minus_pre():
    """Table 4's diff column is post − pre for every group and gender (figures to two decimals, so each
    side is within 0.005 of its value)."""
    rows = other_facts("bartl2020_tables")
    v = {(r["table"], r["jobs"], r["person"], r["quantity"]): float(r["value"]) for r in rows}
    pairs = [(j, p) for j in "BFM" for p in "fm"]
    for j, p in pairs:
        assert v[("4", j, p, "diff_mean")] == pytest.approx(v[("4", j, p, "post_mean")] - v[("4", j, p, "pre_mean")],
                                                            abs=0.0151), (j, p)
    # Table 5: the female person words' mean association is above the male ones' in every group (the paper's text)
    assert all(v[("5", j, "f", "pre_mean")] > v[("5", j, "m", "pre_mean")] for j in "BFM")
    assert len(rows) == 45


def test_hossain_et_al_s_before_figures_are_table_5_s():
    rows = other_facts("hossain2025_tables")
    t5 = {(r["model"], r["pair"]): r["value"] for r in rows if r["table"] == "5"}
    before = {(r["model"], r["pair"]): float(r["value"]) for r in rows if r["quantity"] == "malor_before"}
    assert len(t5) == 7 * 3 - 4 and len(before) == 9  # RoBERTa and ALBERT have no names figure
    for key, b in before.items():
        digits = len(t5[key].split(".")[1])
        assert round(b, digits) == pytest.approx(float(t5[key])), key


def test_jentzsch_and_turan_s_absolute_bias_is_never_below_the_total():
    """mean |b| ≥ |mean b| for every classifier: a transcription that swapped a row or a sign shows."""
    rows = other_facts("jentzsch_turan2022_tables")
    assert len(rows) == 7 * 3 * 3 * 2
    cell = {(r["model"], r["terms"], r["condition"], r["quantity"]): float(r["value"]) for r in rows}
    for m, t, c, q in cell:
        if q == "absolute_bias":
            assert cell[(m, t, c, q)] >= abs(cell[(m, t, c, "total_bias")]) - 1e-12, (m, t, c)
    brackets = [r for r in rows if r["significant"] == "no"]
    assert len(brackets) == 10  # the figures the paper puts in brackets (5 classifiers, abs and tot)


def test_the_page_says_which_seed_tables_are_computed_and_why_not():
    block = re.search(r"<!-- figures: other-seeds -->\n(.*?)<!-- /figures -->", PAGE, re.S).group(1)
    table_rows = [line for line in block.splitlines() if line.startswith("| ") and not line.startswith("| paper")]
    assert len(table_rows) == 5
    for line in table_rows:
        assert line.rstrip().endswith("| no |") or "yes: `reproductions/" in line
    assert "no pretrained masked-LM head" in block
