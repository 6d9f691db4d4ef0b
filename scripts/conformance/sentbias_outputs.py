"""Run sent-bias's ``sentbias/weat.py`` (May et al. 2019; github:W4ngatang/sent-bias) on
``tests/conformance/data/seat_inputs.json`` and store its effect sizes and exact p-values in
``tests/conformance/expected/sentbias.json``.

The module is read from a checkout (or ``fetch`` mirror) of the authors' repository at run time,
never copied here. It needs numpy < 1.24 (``np.int``) and scipy, in their own virtualenv:

    python -m venv /tmp/venv-sentbias && /tmp/venv-sentbias/bin/pip install "numpy<1.24" scipy
    /tmp/venv-sentbias/bin/python scripts/conformance/sentbias_outputs.py /path/to/sent-bias

Their ``run_test`` path is followed: the four sets become dicts of sentence → vector (so a
duplicate sentence would collapse: geobias refuses duplicates instead), ``convert_keys_to_ints``,
``construct_cossim_lookup``, ``p_val_permutation_test`` (non-parametric; exact below
``n_samples`` partitions) and ``effect_size``.
"""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path

import numpy as np
from _common import DATA, EXPECTED, git_commit, git_file, write_json


def main(repo: Path) -> None:
    weat = types.ModuleType("sentbias_weat")
    exec(compile(git_file(repo, "sentbias/weat.py"), "sentbias/weat.py", "exec"), weat.__dict__)
    inputs = json.loads((DATA / "seat_inputs.json").read_text(encoding="utf-8"))
    vec = {s: np.asarray(v, dtype=np.float64) for s, v in inputs["vectors"].items()}
    out = {}
    for name, test in inputs["tests"].items():
        X = {s: vec[s] for s in test["targ1"]["examples"]}
        Y = {s: vec[s] for s in test["targ2"]["examples"]}
        A = {s: vec[s] for s in test["attr1"]["examples"]}
        B = {s: vec[s] for s in test["attr2"]["examples"]}
        (X, Y) = weat.convert_keys_to_ints(X, Y)
        (A, B) = weat.convert_keys_to_ints(A, B)
        XY, AB = X.copy(), A.copy()
        XY.update(Y)
        AB.update(B)
        cossims = weat.construct_cossim_lookup(XY, AB)
        p = weat.p_val_permutation_test(X, Y, A, B, 100_000, cossims=cossims, parametric=False)
        esize = weat.effect_size(X, Y, A, B, cossims=cossims)
        out[name] = {"effect_size": float(esize), "p_value": float(p), "exact": True}
    write_json(EXPECTED / "sentbias.json", {
        "provenance": {"repository": "github:W4ngatang/sent-bias", "commit": git_commit(repo),
                       "file": "sentbias/weat.py", "inputs": "tests/conformance/data/seat_inputs.json",
                       "script": "scripts/conformance/sentbias_outputs.py",
                       "note": "n_samples 100,000: every test here has fewer partitions, so the p-value is exact"},
        "outputs": out,
    })


if __name__ == "__main__":
    main(Path(sys.argv[1]))
