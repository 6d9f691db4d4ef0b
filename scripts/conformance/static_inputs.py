"""Write ``tests/conformance/data/static_inputs.json``: a small word-vector table and WEAT-style
queries we make up (seeded), the inputs of the static-metric conformance checks (WEFE).

The rows have a planted gender axis (dimension 0) and noise; values are rounded to 4 decimals
and stored as text, so that every side reads identical float32 rows.

    python scripts/conformance/static_inputs.py
"""

from __future__ import annotations

import numpy as np
from _common import DATA, write_json

MALE = ["he", "him", "man", "boy", "father"]
FEMALE = ["she", "her", "woman", "girl", "mother"]
CAREER = ["executive", "management", "salary", "office", "business", "career"]
FAMILY = ["home", "parents", "children", "family", "cousins", "wedding"]
MATH = ["math", "algebra", "geometry", "calculus"]
ARTS = ["poetry", "art", "dance", "novel"]


def main() -> None:
    rng = np.random.default_rng(2026)
    words = MALE + FEMALE + CAREER + FAMILY + MATH + ARTS
    dim = 10
    rows = rng.normal(scale=0.6, size=(len(words), dim))
    lean = {**{w: 1.0 for w in MALE}, **{w: -1.0 for w in FEMALE}, **{w: 0.5 for w in CAREER},
            **{w: -0.4 for w in FAMILY}, **{w: 0.3 for w in MATH}, **{w: -0.2 for w in ARTS}}
    rows[:, 0] += np.array([lean[w] for w in words])
    rows = np.round(rows, 4)
    queries = {
        "career-family": {"X": CAREER, "Y": FAMILY, "A": MALE, "B": FEMALE},
        "math-arts": {"X": MATH, "Y": ARTS, "A": MALE[:4], "B": FEMALE[:4]},
    }
    write_json(DATA / "static_inputs.json", {
        "about": "Made-up word vectors (seed 2026, planted axis 0) and queries for the conformance checks; "
                 "written by scripts/conformance/static_inputs.py.",
        "words": words, "rows": [[float(v) for v in r] for r in rows], "queries": queries})


if __name__ == "__main__":
    main()
