"""SEAT with its default options on May et al.'s eight-sentence test files (sent-bias
``tests/weat6.jsonl`` ... ``weat8b.jsonl``: Caliskan et al.'s words, each encoded as a sentence of
its own, eight per set) against sent-bias's ``weat.py`` on the same encoder's vectors; writes
``reproductions/seat-may-eight.json``.

Sixteen target sentences have ``C(16, 8) = 12,870`` partitions. ``weat.py`` enumerates them all
whenever they number at most its ``n_samples`` (100,000 by default, ``sentbias/main.py``), so the
authors' p-value of these tests is exact; ``geobias seat --tests FILE`` must give that same exact
p-value with no option set. The record also keeps, for each test, the p-value of the Monte-Carlo
test that the earlier default (10,000 permutations, seed 0) drew, and its distance from the exact
one.

The files are CC BY-NC 4.0: they are read from a checkout (or ``fetch`` mirror) of
github:W4ngatang/sent-bias and never copied here; only the figures are stored. The sentences are
encoded once by geobias's encoder; ``scripts/conformance/seat_published.py --sentbias-side`` then
runs their ``effect_size`` and exact ``p_val_permutation_test`` (``n_samples`` 100,000) under the
sent-bias interpreter (numpy < 1.24, scipy) on those exact vectors:

    python -m venv /tmp/venv-sentbias && /tmp/venv-sentbias/bin/pip install "numpy<1.24" scipy
    .venv/bin/python scripts/conformance/seat_published_words.py /path/to/sent-bias \\
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
from _common import ROOT, git_commit, git_file, write_json

TESTS = ["weat6", "weat6b", "weat7", "weat7b", "weat8", "weat8b"]
ENCODERS = ["minilm-l6", "use-m3"]
SETS = ("X", "Y", "A", "B")
#: The former default of ``geobias seat --permutations``, kept to show what the exact test changes.
FORMER_DEFAULT = 10_000


def sentbias_exact(args, vectors: dict[str, list[np.ndarray]], tmp: Path) -> dict:
    """sent-bias's effect size and exact p-value (no draws to replay) for every test in ``vectors``."""
    arrays = {f"{name}/{s}": v for name, sets in vectors.items() for s, v in zip(SETS, sets, strict=True)}
    np.savez(tmp / "vectors.npz", **arrays)
    run = subprocess.run([args.sentbias_python, str(Path(__file__).with_name("seat_published.py")), str(args.repo),
                          "--sentbias-side", str(tmp / "vectors.npz")], capture_output=True, text=True, check=True)
    return json.loads(run.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("repo")
    ap.add_argument("--sentbias-python", default=sys.executable)
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    from geobias.commands import execute
    from geobias.contextual.sentence_encoders import sentence_encoder
    from geobias.metrics.seat import parse_seat_test

    repo, out = Path(args.repo), {}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        paths, parsed = [], {}
        for name in TESTS:
            path = tmp / f"{name}.jsonl"
            path.write_text(git_file(repo, f"tests/{name}.jsonl"), encoding="utf-8")
            paths.append(str(path))
            parsed[name] = parse_seat_test(path.read_text(encoding="utf-8"), name=name, source=name)
        for encoder in ENCODERS:
            encode = sentence_encoder(encoder)
            vectors = {name: [np.asarray(encode(group), dtype=np.float32) for group in t.sets]
                       for name, t in parsed.items()}
            theirs = sentbias_exact(args, vectors, tmp)
            r, _ = execute("seat", {"tests": paths, "encoder": encoder})  # the default options
            before, _ = execute("seat", {"tests": paths, "encoder": encoder, "permutations": FORMER_DEFAULT, "seed": 0})
            rows = []
            for t, b in zip([r, *r.more_tests], [before, *before.more_tests], strict=True):
                s = theirs[t.test]
                rows.append({"test": t.test, "categories": t.categories, "n_sentences": t.n_sentences,
                             "effect_size": t.effect_size, "p_value": t.p_value, "exact": t.exact,
                             "n_permutations": t.n_permutations, "seed": t.seed,
                             "sentbias_effect_size": s["effect_size"], "sentbias_p_value": s["p_value"],
                             "difference": abs(t.effect_size - s["effect_size"]),
                             "p_difference": abs(t.p_value - s["p_value"]),
                             "former_default_p_value": b.p_value, "former_default_exact": b.exact,
                             "former_default_n_permutations": b.n_permutations,
                             "former_default_p_difference": abs(b.p_value - s["p_value"])})
            out[encoder] = rows
    files = " ".join(f"--tests {t}.jsonl" for t in TESTS)
    write_json(ROOT / "reproductions" / "seat-may-eight.json", {
        "command": f"geobias seat {files} --encoder ENCODER (default options; "
                   "scripts/conformance/seat_published_words.py)",
        "name": "seat-may-eight",
        "provenance": {"repository": "github:W4ngatang/sent-bias", "commit": git_commit(repo),
                       "files": [f"tests/{t}.jsonl" for t in TESTS] + ["sentbias/weat.py", "sentbias/main.py"],
                       "licence of the test files": "CC BY-NC 4.0 (not copied; figures only)",
                       "script": "scripts/conformance/seat_published_words.py",
                       "note": "weat.py's p_val_permutation_test with n_samples 100,000 (main.py's default): "
                               "every test here has C(16, 8) = 12,870 partitions, so its p-value is exact"},
        "result": {"encoders": out, "former_default_permutations": FORMER_DEFAULT},
    })
    return 0


if __name__ == "__main__":
    sys.exit(main())
