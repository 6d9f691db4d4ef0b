"""Write ``tests/conformance/data/seat_inputs.json``: sentences we make up, in May et al.'s SEAT
file format (``targ1``, ``targ2``, ``attr1``, ``attr2``), and a made-up vector per sentence
(seeded; values rounded to 4 decimals), the input of the SEAT conformance check (sent-bias's
``weat.py``). Three tests, each small enough for sent-bias's exact permutation test; the third has eight
sentences per set, as May et al.'s word-level tests.

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
    # eight sentences per set, as May et al.'s word-level tests (weat6 ... weat8b): C(16, 8) = 12,870
    # partitions, more than a 10,000-permutation budget and fewer than sent-bias's 100,000 samples
    "science-arts-eight": {
        "targ1": ("Science", ["This is science.", "That is physics.", "This is chemistry.", "That is astronomy.",
                              "This is technology.", "That is an experiment.", "This is biology.",
                              "That is engineering."]),
        "targ2": ("Arts", ["This is a poem.", "That is a sculpture.", "This is a symphony.", "That is a drama.",
                           "This is literature.", "That is a painting.", "This is a ballad.", "That is a play."]),
        "attr1": ("MaleTerms", ["This is a brother.", "That is a father.", "This is an uncle.", "That is a son.",
                                "This is a husband.", "That is a grandfather.", "He is there.", "This is him."]),
        "attr2": ("FemaleTerms", ["This is a sister.", "That is a mother.", "This is an aunt.",
                                  "That is a daughter.", "This is a wife.", "That is a grandmother.", "She is there.",
                                  "This is her."]),
    },
}

#: How far each test's sentences lean along the first axis (targ1 and attr1 one way, targ2 and attr2 the other):
#: the eight-sentence test leans less, so that its exact p-value lies near 0.05 (0.0449), where a Monte-Carlo
#: estimate of it (standard error about 0.002 at 10,000 draws) could fall on either side.
LEAN = {"names-career": 1.0, "math-arts": 1.0, "science-arts-eight": 0.8}


def main() -> None:
    rng = np.random.default_rng(7)
    tests, vectors = {}, {}
    for name, sets in TESTS.items():
        tests[name] = {k: {"category": c, "examples": ex} for k, (c, ex) in sets.items()}
        lean = {k: LEAN[name] * v for k, v in {"targ1": 0.4, "targ2": -0.4, "attr1": 0.8, "attr2": -0.8}.items()}
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
