"""Write ``tests/conformance/data/recovery_inputs.json``: a made-up vocabulary in frequency order
(with words the paper's filter drops: capitals, digits, punctuation, long words, phrases), its
vectors, a "debiased" copy (the he − she component projected out of every word but the excluded
ones), an exclusion list and professions: the inputs of the recoverability conformance check.

Gender is planted on dimension 0 and, more weakly, on dimensions 1–3, so that projecting out
he − she leaves it recoverable, as Gonen & Goldberg found for hard debias.

    python scripts/conformance/recovery_inputs.py
"""

from __future__ import annotations

import numpy as np
from _common import DATA, write_json


def main() -> None:
    rng = np.random.default_rng(19)
    n, dim = 700, 12
    words = [f"w{i:03d}".replace("0", "o").replace("1", "l").replace("2", "z").replace("3", "e").replace(
        "4", "a").replace("5", "s").replace("6", "g").replace("7", "t").replace("8", "b").replace("9", "q")
        for i in range(n)]
    words = [w[1:] + "x" * (i % 3) for i, w in enumerate(words)]  # letters only, distinct
    words = list(dict.fromkeys(words))
    words[:2] = ["he", "she"]
    # words the paper's filter drops, placed among the frequent ones
    odd = {10: "Paris", 20: "b2b", 30: "don't", 40: "a" * 21, 50: "ice_cream", 60: "new_york!", 70: "U.S."}
    for i, w in odd.items():
        words[i] = w
    gender = rng.normal(0.0, 0.5, size=len(words))
    gender[0], gender[1] = 1.5, -1.5
    rows = rng.normal(0.0, 0.4, size=(len(words), dim))
    rows[:, 0] += gender
    rows[:, 1:4] += 0.6 * gender[:, None] * rng.uniform(0.5, 1.0, size=(len(words), 3))
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    rows = np.round(rows, 4)
    exclude = words[2:9] + ["king", "queen"]  # "gender-specific" words we pick (two not in the vocabulary)
    d = rows[0] - rows[1]
    d = d / np.linalg.norm(d)
    keep = np.array([w in exclude or w in ("he", "she") for w in words])
    debiased = rows - np.outer(rows @ d, d) * ~keep[:, None]
    debiased /= np.linalg.norm(debiased, axis=1, keepdims=True)
    debiased = np.round(debiased, 4)
    professions = words[100:190:3]
    write_json(DATA / "recovery_inputs.json", {
        "about": "Made-up vectors (seed 19) for the recoverability conformance check; written by "
                 "scripts/conformance/recovery_inputs.py.",
        "words": words, "rows": [[float(v) for v in r] for r in rows],
        "debiased": [[float(v) for v in r] for r in debiased], "exclude": exclude, "professions": professions,
        "sizes": {"limit": 650, "n_biased": 80, "n_classify": 200, "n_train": 160, "k": 10}}, compact=True)


if __name__ == "__main__":
    main()
