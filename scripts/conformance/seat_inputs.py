"""Write ``tests/conformance/data/seat_inputs.json``: sentences we make up, in May et al.'s SEAT
file format (``targ1``, ``targ2``, ``attr1``, ``attr2``), and a made-up vector per sentence
(seeded; values rounded to 4 decimals), the input of the SEAT conformance check (sent-bias's
``weat.py``). Two tests: small enough for the exact permutation test.

    python scripts/conformance/seat_inputs.py
"""

from __future__ import annotations

import numpy as np
from _common import DATA, write_json

TESTS = {
    "names-career": {
        "targ1": ("MaleNames", ["This is John.", "John is here.", "This is Paul.", "Paul is here.", "This is Mike."]),
        "targ2": ("FemaleNames", ["This is Amy.", "Amy is here.", "This is Joan.", "Joan is here.", "This is Lisa."]),
        "attr1": ("Career", ["This is an office.", "That is a salary.", "This is a career.", "It is business.",
                             "That is management.", "This is an executive."]),
        "attr2": ("Family", ["This is a home.", "That is a family.", "These are children.", "They are parents.",
                             "This is a wedding."]),
    },
    "math-arts": {
        "targ1": ("Math", ["This is math.", "That is algebra.", "This is geometry.", "That is calculus."]),
        "targ2": ("Arts", ["This is poetry.", "That is art.", "This is dance.", "That is a novel."]),
        "attr1": ("MaleTerms", ["He is here.", "This is a man.", "This is a boy.", "That is his."]),
        "attr2": ("FemaleTerms", ["She is here.", "This is a woman.", "This is a girl.", "That is hers."]),
    },
}


def main() -> None:
    rng = np.random.default_rng(7)
    tests, vectors = {}, {}
    for name, sets in TESTS.items():
        tests[name] = {k: {"category": c, "examples": ex} for k, (c, ex) in sets.items()}
        lean = {"targ1": 0.4, "targ2": -0.4, "attr1": 0.8, "attr2": -0.8}
        for key, (_, examples) in sets.items():
            for s in examples:
                v = rng.normal(scale=0.7, size=12)
                v[0] += lean[key]
                vectors[s] = [float(x) for x in np.round(v, 4)]
    write_json(DATA / "seat_inputs.json", {
        "about": "Made-up SEAT tests (our sentences, in May et al.'s file format) and a made-up vector per sentence "
                 "(seed 7); written by scripts/conformance/seat_inputs.py.",
        "tests": tests, "vectors": vectors})


if __name__ == "__main__":
    main()
