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


#: block name → (reproduction file, renderer); merged into ``readme_figures.RENDERERS``.
RENDERERS: dict[str, tuple[str, Callable[[dict], str]]] = {
    "seat-may-eight": ("seat-may-eight", seat_may_eight),
}
