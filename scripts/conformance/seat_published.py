"""SEAT on May et al.'s published test files: geobias (``geobias seat --tests``) against sent-bias's
``weat.py`` on the same encoder's sentence vectors; writes ``reproductions/seat-may.json``.

The files (sent-bias ``tests/sent-weat*.jsonl``) are CC BY-NC 4.0: they are read from a checkout
(or ``fetch`` mirror) of github:W4ngatang/sent-bias and never copied here; only the figures are
stored. The sentences are encoded once by geobias's encoder; this script then runs itself under
the sent-bias interpreter (``--sentbias-side``: numpy < 1.24, scipy) on those exact vectors:

    /work/wt/.venv/bin/python scripts/conformance/seat_published.py /path/to/sent-bias \\
        --sentbias-python /tmp/venv-sentbias/bin/python [--encoder minilm-l6]

May et al.'s own figures are for encoders not installed here (ELMo, BERT, GPT, USE-T, InferSent,
GenSen, CBoW), so the page shows ours on their files, with sent-bias's statistic on the same vectors.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import types
from pathlib import Path

from _common import ROOT, git_commit, git_file, write_json

TESTS = ["sent-weat6", "sent-weat6b", "sent-weat7", "sent-weat7b", "sent-weat8", "sent-weat8b"]


def sentbias_side(repo: str, vectors: str) -> None:
    import numpy as np

    weat = types.ModuleType("sentbias_weat")
    exec(compile(git_file(Path(repo), "sentbias/weat.py"), "sentbias/weat.py", "exec"), weat.__dict__)
    data = json.loads(Path(vectors).read_text(encoding="utf-8"))
    out = {}
    for name, sets in data.items():
        X, Y, A, B = ({s: np.asarray(v) for s, v in group} for group in sets)
        (X, Y) = weat.convert_keys_to_ints(X, Y)
        (A, B) = weat.convert_keys_to_ints(A, B)
        XY, AB = X.copy(), A.copy()
        XY.update(Y)
        AB.update(B)
        cossims = weat.construct_cossim_lookup(XY, AB)
        out[name] = float(weat.effect_size(X, Y, A, B, cossims=cossims))
    print(json.dumps(out))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("repo")
    ap.add_argument("--sentbias-python", default=sys.executable)
    ap.add_argument("--encoder", default="minilm-l6")
    ap.add_argument("--sentbias-side", metavar="VECTORS", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.sentbias_side:
        sentbias_side(args.repo, args.sentbias_side)
        return 0
    sys.path.insert(0, str(ROOT))
    from geobias.commands import execute
    from geobias.contextual.sentence_encoders import sentence_encoder
    from geobias.metrics.seat import parse_seat_test

    repo = Path(args.repo)
    encode = sentence_encoder(args.encoder)
    with tempfile.TemporaryDirectory() as tmp:
        paths, vectors = [], {}
        for name in TESTS:
            path = Path(tmp) / f"{name}.jsonl"
            path.write_text(git_file(repo, f"tests/{name}.jsonl"), encoding="utf-8")
            paths.append(str(path))
            t = parse_seat_test(path.read_text(encoding="utf-8"), name=name, source=name)
            vectors[name] = [[(s, [float(x) for x in v]) for s, v in zip(group, encode(group), strict=True)]
                             for group in t.sets]
        (Path(tmp) / "vectors.json").write_text(json.dumps(vectors), encoding="utf-8")
        run = subprocess.run([args.sentbias_python, __file__, str(repo), "--sentbias-side",
                              str(Path(tmp) / "vectors.json")], capture_output=True, text=True, check=True)
        theirs = json.loads(run.stdout.strip().splitlines()[-1])
        r, _ = execute("seat", {"tests": ",".join(paths), "encoder": args.encoder, "permutations": 100_000})
    rows = []
    for t in [r, *r.more_tests]:
        rows.append({"test": t.test, "categories": t.categories, "n_sentences": t.n_sentences,
                     "effect_size": t.effect_size, "p_value": t.p_value, "n_permutations": t.n_permutations,
                     "exact": t.exact, "sentbias_effect_size": theirs[t.test],
                     "difference": abs(t.effect_size - theirs[t.test])})
    write_json(ROOT / "reproductions" / "seat-may.json", {
        "command": f"geobias seat --tests sent-weat6.jsonl,...,sent-weat8b.jsonl --encoder {args.encoder} "
                   "--permutations 100000 (scripts/conformance/seat_published.py)",
        "name": "seat-may",
        "provenance": {"repository": "github:W4ngatang/sent-bias", "commit": git_commit(repo),
                       "files": [f"tests/{t}.jsonl" for t in TESTS] + ["sentbias/weat.py"],
                       "licence of the test files": "CC BY-NC 4.0 (not copied; figures only)"},
        "result": {"encoder": args.encoder, "tests": rows},
    })
    return 0


if __name__ == "__main__":
    sys.exit(main())
