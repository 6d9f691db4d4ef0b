"""SEAT through the service with a real encoder: sent-bias's ``weat.py`` on minilm-l6's vectors of
the SEAT tests we wrote (``tests/conformance/data/seat_inputs.json``: our sentences, in May et al.'s
file format); writes ``tests/conformance/expected/sentbias_minilm.json``, which
``tests/service/test_service_seat.py`` compares with ``POST /jobs {"kind": "seat", "params":
{"tests": [text, ...], "encoder": "minilm-l6"}}``.

geobias's encoder (``sentence_encoder("minilm-l6")``: mean pooling over the last layer) encodes each
test's sentences once; this script then runs ``scripts/conformance/seat_published.py
--sentbias-side`` under the sent-bias interpreter (numpy < 1.24, scipy) on those exact vectors:
their ``effect_size`` on ``construct_cossim_lookup`` and their exact ``p_val_permutation_test``
(every test here has fewer than 100,000 partitions).

    python -m venv /tmp/venv-sentbias && /tmp/venv-sentbias/bin/pip install "numpy<1.24" scipy
    .venv/bin/python scripts/conformance/seat_service.py /path/to/sent-bias \\
        --sentbias-python /tmp/venv-sentbias/bin/python
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from _common import DATA, EXPECTED, ROOT, git_commit, write_json

ENCODER = "minilm-l6"
KEYS = {"X": "targ1", "Y": "targ2", "A": "attr1", "B": "attr2"}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("repo")
    ap.add_argument("--sentbias-python", default=sys.executable)
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    from geobias.contextual.sentence_encoders import sentence_encoder

    tests = json.loads((DATA / "seat_inputs.json").read_text(encoding="utf-8"))["tests"]
    encode = sentence_encoder(ENCODER)
    arrays = {f"{name}/{s}": np.asarray(encode(test[key]["examples"]), dtype=np.float32)
              for name, test in tests.items() for s, key in KEYS.items()}
    with tempfile.TemporaryDirectory() as tmp:
        np.savez(Path(tmp) / "vectors.npz", **arrays)
        run = subprocess.run([args.sentbias_python, str(Path(__file__).with_name("seat_published.py")), str(args.repo),
                              "--sentbias-side", str(Path(tmp) / "vectors.npz")],
                             capture_output=True, text=True, check=True)
    theirs = json.loads(run.stdout.strip().splitlines()[-1])
    write_json(EXPECTED / "sentbias_minilm.json", {
        "encoder": ENCODER,
        "outputs": {name: {**theirs[name], "exact": True,
                           "categories": {s: tests[name][key]["category"] for s, key in KEYS.items()}}
                    for name in tests},
        "provenance": {"repository": "github:W4ngatang/sent-bias", "commit": git_commit(Path(args.repo)),
                       "file": "sentbias/weat.py", "inputs": "tests/conformance/data/seat_inputs.json (tests)",
                       "script": "scripts/conformance/seat_service.py",
                       "note": f"sentence vectors from geobias's {ENCODER} encoder (float32), computed by the "
                               "script and passed to weat.py; n_samples 100,000: every test here has fewer "
                               "partitions, so the p-value is exact"},
    })
    return 0


if __name__ == "__main__":
    sys.exit(main())
