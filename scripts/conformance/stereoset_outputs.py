"""Run the StereoSet authors' scorer (``code/evaluation.py`` with ``code/dataloader.py``; Nadeem et
al. 2021, github:moinnadeem/StereoSet) on ``tests/conformance/data/stereoset_inputs.json`` and store
its intrasentence scores in ``tests/conformance/expected/stereoset.json``.

The modules are read from a checkout (or ``fetch`` mirror) of the authors' repository at run time,
never copied here; the predictions file is the input's made-up sentence scores. Needs numpy and
tqdm (e.g. the CrowS-Pairs virtualenv):

    /tmp/venv-crows/bin/python scripts/conformance/stereoset_outputs.py /path/to/StereoSet
"""

from __future__ import annotations

import json
import sys
import tempfile
import types
from pathlib import Path

from _common import DATA, EXPECTED, git_commit, git_file, write_json


def main(repo: Path) -> None:
    loader = types.ModuleType("dataloader")
    exec(compile(git_file(repo, "code/dataloader.py"), "code/dataloader.py", "exec"), loader.__dict__)
    sys.modules["dataloader"] = loader
    evaluation = types.ModuleType("stereoset_evaluation")
    exec(compile(git_file(repo, "code/evaluation.py"), "code/evaluation.py", "exec"), evaluation.__dict__)
    inputs = json.loads((DATA / "stereoset_inputs.json").read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as tmp:
        gold, preds = Path(tmp) / "gold.json", Path(tmp) / "predictions.json"
        gold.write_text(json.dumps(inputs["gold"]), encoding="utf-8")
        preds.write_text(json.dumps({"intrasentence": [{"id": k, "score": v} for k, v in inputs["scores"].items()]}),
                         encoding="utf-8")
        results = evaluation.ScoreEvaluator(str(gold), str(preds)).get_overall_results()
    intra = results["intrasentence"]
    out = {k: {m: float(v) for m, v in intra[k].items()} for k in ("overall", "gender", "profession")}
    write_json(EXPECTED / "stereoset.json", {
        "provenance": {"repository": "github:moinnadeem/StereoSet", "commit": git_commit(repo),
                       "files": ["code/evaluation.py", "code/dataloader.py"],
                       "inputs": "tests/conformance/data/stereoset_inputs.json",
                       "script": "scripts/conformance/stereoset_outputs.py"},
        "outputs": {"intrasentence": out},
    })


if __name__ == "__main__":
    main(Path(sys.argv[1]))
