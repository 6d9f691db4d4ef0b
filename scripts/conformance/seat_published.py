"""SEAT on May et al.'s published test files: geobias (``geobias seat --tests``) against sent-bias's
``weat.py`` on the same encoder's sentence vectors; writes ``reproductions/seat-may.json``
(``--encoder minilm-l6``) or ``reproductions/seat-may-<encoder>.json`` (another encoder).

The files (sent-bias ``tests/sent-weat*.jsonl``) are CC BY-NC 4.0: they are read from a checkout
(or ``fetch`` mirror) of github:W4ngatang/sent-bias and never copied here; only the figures are
stored. The sentences are encoded once by geobias's encoder; this script then runs itself under
the sent-bias interpreter (``--sentbias-side``: numpy < 1.24, scipy) on those exact vectors:

    python -m venv /tmp/venv-sentbias && /tmp/venv-sentbias/bin/pip install "numpy<1.24" scipy
    .venv/bin/python scripts/conformance/seat_published.py /path/to/sent-bias \\
        --sentbias-python /tmp/venv-sentbias/bin/python [--encoder use-m3]

Effect sizes: ``weat.effect_size`` on ``weat.construct_cossim_lookup``, as their ``run_test``.
p-values: ``weat.p_val_permutation_test`` (non-parametric) with ``n_samples`` = B + 1, whose
``np.random.shuffle`` is replaced by a replay of the B partitions geobias's Monte-Carlo test draws
for ``--seed`` (its selection sampling over ``default_rng(seed)``, chunks of 10,000): their
counting (``>=``, plus the one "hallucinated" observation) on our draws. Two independent random
streams would differ by the Monte-Carlo error (about 1e-3 at p = 0.05); on the same draws the two
p-values must agree exactly, so a wrong replay or a wrong count shows.

The published files' sentences, and anything derived from them (their vectors included), stay
out of the repository: only the figures are stored, with their provenance.

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

import numpy as np
from _common import ROOT, git_commit, git_file, write_json

TESTS = ["sent-weat6", "sent-weat6b", "sent-weat7", "sent-weat7b", "sent-weat8", "sent-weat8b"]
SETS = ("X", "Y", "A", "B")


def geobias_draws(n: int, n_x: int, n_draws: int, seed: int, chunk: int = 10_000) -> np.ndarray:
    """The X-membership of the ``n_draws`` partitions geobias's Monte-Carlo permutation test draws
    (selection sampling: one float32 uniform per item and draw from ``default_rng(seed)``, drawn
    in chunks of ``chunk`` draws as an (n, chunk) array), shape (n_draws, n), bool."""
    rng = np.random.default_rng(seed)
    out = np.empty((n_draws, n), dtype=bool)
    for start in range(0, n_draws, chunk):
        size = min(chunk, n_draws - start)
        u = rng.random((n, size), dtype=np.float32)
        u *= np.arange(n, 0, -1, dtype=np.float32)[:, None]
        need = np.full(size, n_x, dtype=np.float32)
        for i in range(n):
            take = u[i] < need
            need -= take
            out[start:start + size, i] = take
    return out


def sentbias_side(repo: str, vectors: str, draws: str) -> None:
    """Under the sent-bias interpreter: their effect size and p-value for every test in ``vectors``."""
    weat = types.ModuleType("sentbias_weat")
    exec(compile(git_file(Path(repo), "sentbias/weat.py"), "sentbias/weat.py", "exec"), weat.__dict__)
    data, replay = np.load(vectors), (np.load(draws) if draws else None)
    out = {}
    for name in sorted({k.rsplit("/", 1)[0] for k in data.files}):
        X, Y, A, B = ({f"{s}{i}": v for i, v in enumerate(np.asarray(data[f"{name}/{s}"], dtype=np.float64))}
                      for s in SETS)
        (X, Y) = weat.convert_keys_to_ints(X, Y)
        (A, B) = weat.convert_keys_to_ints(A, B)
        XY, AB = X.copy(), A.copy()
        XY.update(Y)
        AB.update(B)
        cossims = weat.construct_cossim_lookup(XY, AB)
        effect = float(weat.effect_size(X, Y, A, B, cossims=cossims))
        if replay is None:  # a small test: their exact enumeration (all partitions within n_samples)
            p = float(weat.p_val_permutation_test(X, Y, A, B, n_samples=100_000, cossims=cossims))
            out[name] = {"effect_size": effect, "p_value": p}
            continue
        member = np.unpackbits(replay[name], axis=1, count=len(XY)).astype(bool)
        orders = iter([np.concatenate([np.flatnonzero(m), np.flatnonzero(~m)]) for m in member])

        def shuffle(xy, orders=orders):  # their loop shuffles XY in place and takes XY[:size]
            xy[:] = next(orders)

        weat.np.random.shuffle = shuffle
        p = float(weat.p_val_permutation_test(X, Y, A, B, n_samples=len(member) + 1, cossims=cossims))
        out[name] = {"effect_size": effect, "p_value": p}
    print(json.dumps(out))


def run_sentbias(args, vectors: dict[str, list[np.ndarray]], seed: int, tmp: Path) -> dict:
    """sent-bias's figures on ``vectors`` (test → [X, Y, A, B] arrays), replaying geobias's draws."""
    arrays, draws = {}, {}
    for name, sets in vectors.items():
        for s, v in zip(SETS, sets, strict=True):
            arrays[f"{name}/{s}"] = v
        n_x, n = len(sets[0]), len(sets[0]) + len(sets[1])
        draws[name] = np.packbits(geobias_draws(n, n_x, args.permutations, seed), axis=1)
    np.savez(tmp / "vectors.npz", **arrays)
    np.savez(tmp / "draws.npz", **draws)
    run = subprocess.run([args.sentbias_python, __file__, str(args.repo), "--sentbias-side", str(tmp / "vectors.npz"),
                          "--draws", str(tmp / "draws.npz")], capture_output=True, text=True, check=True)
    return json.loads(run.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("repo")
    ap.add_argument("--sentbias-python", default=sys.executable)
    ap.add_argument("--encoder", default="minilm-l6")
    ap.add_argument("--permutations", type=int, default=100_000)
    ap.add_argument("--sentbias-side", metavar="VECTORS", help=argparse.SUPPRESS)
    ap.add_argument("--draws", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.sentbias_side:
        sentbias_side(args.repo, args.sentbias_side, args.draws)
        return 0
    sys.path.insert(0, str(ROOT))
    from geobias.commands import execute
    from geobias.contextual.sentence_encoders import sentence_encoder
    from geobias.metrics.seat import parse_seat_test

    repo, seed = Path(args.repo), 0
    encode = sentence_encoder(args.encoder)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        paths, vectors = [], {}
        for name in TESTS:
            path = tmp / f"{name}.jsonl"
            path.write_text(git_file(repo, f"tests/{name}.jsonl"), encoding="utf-8")
            paths.append(str(path))
            t = parse_seat_test(path.read_text(encoding="utf-8"), name=name, source=name)
            vectors[name] = [np.asarray(encode(group), dtype=np.float32) for group in t.sets]
        theirs = run_sentbias(args, vectors, seed, tmp)
        r, _ = execute("seat", {"tests": paths, "encoder": args.encoder, "permutations": args.permutations,
                                "seed": seed})
    rows = []
    for t in [r, *r.more_tests]:
        rows.append({"test": t.test, "categories": t.categories, "n_sentences": t.n_sentences,
                     "effect_size": t.effect_size, "p_value": t.p_value, "n_permutations": t.n_permutations,
                     "exact": t.exact, "seed": t.seed, "sentbias_effect_size": theirs[t.test]["effect_size"],
                     "sentbias_p_value": theirs[t.test]["p_value"],
                     "difference": abs(t.effect_size - theirs[t.test]["effect_size"]),
                     "p_difference": abs(t.p_value - theirs[t.test]["p_value"])})
    provenance = {"repository": "github:W4ngatang/sent-bias", "commit": git_commit(repo),
                  "files": [f"tests/{t}.jsonl" for t in TESTS] + ["sentbias/weat.py"],
                  "licence of the test files": "CC BY-NC 4.0 (not copied; figures only)",
                  "script": "scripts/conformance/seat_published.py"}
    name = "seat-may" if args.encoder == "minilm-l6" else f"seat-may-{args.encoder}"
    files = " ".join(f"--tests {t}.jsonl" for t in TESTS)
    write_json(ROOT / "reproductions" / f"{name}.json", {
        "command": f"geobias seat {files} --encoder {args.encoder} --permutations {args.permutations} --seed {seed} "
                   "(scripts/conformance/seat_published.py)",
        "name": name,
        "provenance": provenance,
        "result": {"encoder": args.encoder, "tests": rows},
    })
    return 0


if __name__ == "__main__":
    sys.exit(main())
