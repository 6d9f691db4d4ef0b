"""Run WEFE 1.0.1 (the authors' package: github:dccuchile/wefe, PyPI ``wefe==1.0.1``) on
``tests/conformance/data/static_inputs.json`` and store its outputs in
``tests/conformance/expected/wefe.json``.

Run it under an interpreter that has WEFE (its own virtualenv; WEFE pins old numpy/pandas):

    python -m venv /tmp/venv-wefe && /tmp/venv-wefe/bin/pip install wefe==1.0.1
    /tmp/venv-wefe/bin/python scripts/conformance/wefe_outputs.py

Each metric is called as ``benchmarks/wefe_parity.py`` calls it (``normalize=True``): WEAT and
MAC and RNSB on ``Query([X, Y], [A, B])``, RND, ECT and RIPA on ``Query([A, B], [X ∪ Y])``.

RIPA: WEFE pairs the two attribute sets' words by position *after* dropping the words not in the
model, so one missing word shifts every later pair (he/her, man/woman ... instead of he/she). The
query ``ripa-lost-word`` shows it: WEFE's own output is stored as ``RIPA (WEFE, misaligned)``, and
the corrected figure — WEFE's RIPA on the same query with the whole pair of the missing word
left out — as ``RIPA``. geobias follows the corrected one (a pair is used only when both words are
found).
"""

from __future__ import annotations

import json
import logging

import numpy as np
from _common import DATA, EXPECTED, write_json


def main() -> None:
    import wefe
    from gensim.models import KeyedVectors
    from wefe.metrics import ECT, MAC, RIPA, RND, RNSB, WEAT
    from wefe.query import Query
    from wefe.word_embedding_model import WordEmbeddingModel

    logging.disable(logging.CRITICAL)
    inputs = json.loads((DATA / "static_inputs.json").read_text(encoding="utf-8"))
    rows = np.asarray(inputs["rows"], dtype=np.float32)
    kv = KeyedVectors(vector_size=rows.shape[1])
    kv.add_vectors(inputs["words"], rows)
    model = WordEmbeddingModel(kv, "conformance")

    out = {}
    for name, q in inputs["queries"].items():
        X, Y, A, B = q["X"], q["Y"], q["A"], q["B"]
        two_two = Query([X, Y], [A, B], ["X", "Y"], ["A", "B"])
        groups = Query([A, B], [X + Y], ["A", "B"], ["T"])
        weat = WEAT().run_query(two_two, model, normalize=True)
        out[name] = {
            "WEAT statistic": float(weat["weat"]),
            "WEAT effect size (ddof 0)": float(weat["effect_size"]),
            "RND": float(RND().run_query(groups, model, normalize=True)["rnd"]),
            "RNSB": float(RNSB().run_query(two_two, model, normalize=True, holdout=False, random_state=0)["rnsb"]),
            "ECT": float(ECT().run_query(groups, model, normalize=True)["ect"]),
            "MAC": float(MAC().run_query(two_two, model, normalize=True)["mac"]),
            "RIPA": float(RIPA().run_query(groups, model, normalize=True)["ripa"]),
        }
    # WEFE's RIPA with a word missing from the first attribute set
    q = inputs["queries"]["career-family"]
    A = ["he", "no-such-word", "man", "boy", "father"]
    lost = Query([A, q["B"]], [q["X"] + q["Y"]], ["A", "B"], ["T"])
    aligned = Query([[a for a in A if a != "no-such-word"], [b for a, b in zip(A, q["B"], strict=True) if a != "no-such-word"]],
                    [q["X"] + q["Y"]], ["A", "B"], ["T"])
    out["ripa-lost-word"] = {
        "A": A, "B": q["B"],
        "RIPA (WEFE, misaligned)": float(RIPA().run_query(lost, model, normalize=True)["ripa"]),
        "RIPA": float(RIPA().run_query(aligned, model, normalize=True)["ripa"]),
    }
    write_json(EXPECTED / "wefe.json", {
        "provenance": {"repository": "github:dccuchile/wefe", "package": f"wefe=={wefe.__version__}",
                       "files": ["wefe/metrics/WEAT.py", "wefe/metrics/RND.py", "wefe/metrics/RNSB.py",
                                 "wefe/metrics/ECT.py", "wefe/metrics/MAC.py", "wefe/metrics/RIPA.py"],
                       "inputs": "tests/conformance/data/static_inputs.json",
                       "script": "scripts/conformance/wefe_outputs.py"},
        "outputs": out,
    })


if __name__ == "__main__":
    main()
