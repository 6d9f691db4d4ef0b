"""Run the CrowS-Pairs authors' ``metric.py`` (Nangia et al. 2020; github:nyu-mll/crows-pairs) on
``tests/conformance/data/crows_inputs.json`` and store what it prints and writes in
``tests/conformance/expected/crows_pairs.json``.

The module is read from a checkout (or ``fetch`` mirror) of the authors' repository at run time,
never copied here. Its scoring loop (``evaluate``: rounding to 3 decimals, neutral pairs, the
stereo/anti-stereo counts, the printed scores) runs as written; the masked LM is replaced by the
made-up sentence scores of the input (``mask_unigram`` returns them for the pair's ``sent1`` and
``sent2``, which ``read_data`` orders as the authors do), so no model is downloaded. ``metric.py``
uses ``DataFrame.append`` (pandas < 2) and tqdm:

    python -m venv /tmp/venv-crows && /tmp/venv-crows/bin/pip install "pandas<2" "numpy<2" tqdm
    /tmp/venv-crows/bin/python scripts/conformance/crows_metric_outputs.py /path/to/crows-pairs
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import sys
import tempfile
import types
from pathlib import Path

from _common import DATA, EXPECTED, git_commit, git_file, write_json


def _stand_ins() -> None:
    """Modules ``metric.py`` imports for its model, which the scores replace."""
    class _Loaded:
        mask_token = "[MASK]"

        @classmethod
        def from_pretrained(cls, name):
            return cls()

        def get_vocab(self):
            return {}

        def eval(self):
            return self

    transformers = types.ModuleType("transformers")
    for name in ("BertTokenizer", "BertForMaskedLM", "AlbertTokenizer", "AlbertForMaskedLM", "RobertaTokenizer",
                 "RobertaForMaskedLM"):
        setattr(transformers, name, type(name, (_Loaded,), {}))
    torch = types.ModuleType("torch")
    torch.nn = types.SimpleNamespace(LogSoftmax=lambda dim: None)
    torch.cuda = types.SimpleNamespace(is_available=lambda: False)
    sys.modules["transformers"], sys.modules["torch"] = transformers, torch


def main(repo: Path) -> None:
    _stand_ins()
    source = git_file(repo, "metric.py")
    body = source.split("\nparser = argparse.ArgumentParser()")[0]  # the module less its command line
    metric = types.ModuleType("crows_metric")
    exec(compile(body, "metric.py", "exec"), metric.__dict__)
    inputs = json.loads((DATA / "crows_inputs.json").read_text(encoding="utf-8"))["pairs"]
    scores = {}
    for p in inputs:
        scores[p["sent_more"]], scores[p["sent_less"]] = p["score_more"], p["score_less"]
    metric.mask_unigram = lambda data, lm, n=1: {"sent1_score": scores[data["sent1"]],
                                                 "sent2_score": scores[data["sent2"]]}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "pairs.csv"
        with path.open("w", newline="", encoding="utf-8") as f:
            w = csv.DictWriter(f, fieldnames=["sent_more", "sent_less", "stereo_antistereo", "bias_type"])
            w.writeheader()
            for p in inputs:
                w.writerow({k: p[k] for k in ("sent_more", "sent_less", "stereo_antistereo", "bias_type")})
        args = types.SimpleNamespace(input_file=str(path), lm_model="bert", output_file=str(Path(tmp) / "out.csv"))
        printed = io.StringIO()
        cwd = os.getcwd()
        os.chdir(tmp)  # it writes bert.vocab to the working directory
        try:
            with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(io.StringIO()):
                metric.evaluate(args)
        finally:
            os.chdir(cwd)
        with (Path(tmp) / "out.csv").open(encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
    lines = {k.strip(): v.strip() for k, _, v in (line.partition(":") for line in printed.getvalue().splitlines())
             if _}
    out = {
        "printed": {k: lines[k] for k in ("Total examples", "Metric score", "Stereotype score",
                                          "Anti-stereotype score", "Num. neutral") if k in lines},
        "per_pair": [{"sent_more": r["sent_more"], "score": int(float(r["score"])),
                      "sent_more_score": float(r["sent_more_score"]), "sent_less_score": float(r["sent_less_score"])}
                     for r in rows],
    }
    write_json(EXPECTED / "crows_pairs.json", {
        "provenance": {"repository": "github:nyu-mll/crows-pairs", "commit": git_commit(repo), "file": "metric.py",
                       "inputs": "tests/conformance/data/crows_inputs.json",
                       "script": "scripts/conformance/crows_metric_outputs.py",
                       "note": "the masked LM replaced by the input's sentence scores; 'printed' is metric.py's "
                               "stdout (percentages rounded to 2 decimals), 'per_pair' its output CSV"},
        "outputs": out,
    })


if __name__ == "__main__":
    main(Path(sys.argv[1]))
