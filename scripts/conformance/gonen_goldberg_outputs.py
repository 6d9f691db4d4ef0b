"""Run Gonen & Goldberg's (2019) notebook ``source/remaining_bias_2016.ipynb`` on
``tests/conformance/data/recovery_inputs.json`` and store what it prints in
``tests/conformance/expected/gonen_goldberg.json``.

The notebook is read at run time from a checkout (or ``fetch`` mirror) and never copied here.
The authors' repository (github:gonenhila/gender_bias_lipstick) lists the notebook, but its blob
cannot be read here, so the script reads the copy in github:hyoungjo/lipstick-on-a-pig, whose
cells are the authors' with Python 3 ``print`` calls and added ``pickle`` dumps of intermediate
lists (dropped below). Their code runs in a virtualenv of the paper's time, where ``SVC()``
defaults to ``gamma='auto'`` and ``KMeans`` to ``n_init=10``:

    python3.7 -m venv /tmp/venv-gonen
    /tmp/venv-gonen/bin/pip install numpy==1.16.6 scipy==1.2.3 scikit-learn==0.20.3 tqdm
    /tmp/venv-gonen/bin/python scripts/conformance/gonen_goldberg_outputs.py /path/to/lipstick-on-a-pig \\
        /path/to/gender_bias_lipstick

What runs, cell by cell, is the notebook's own code, with four kinds of change and no others:

- the embeddings are not loaded from files: ``vocab``, ``wv`` and ``w2i`` hold the inputs'
  original (``'bef'``) and debiased (``'aft'``) spaces, normalised by the notebook's
  ``normalize``; the word lists it reads from ``data/lists`` are the inputs' (``gender_specific`` =
  the excluded words, no definitional or equalise pairs, ``professions``);
- ``with`` blocks (file reads and ``pickle`` dumps), IPython magics and plotting imports are
  dropped; plotting calls go to a stub and ``visualize`` (t-SNE) does nothing;
- the notebook's sizes are scaled to the small inputs, literally: the hard-coded 300 dimensions
  → the inputs' (padding with zeros instead would change the SVM's ``gamma='auto'`` = 1 / dim),
  50,000 → ``limit``, 100 and 105
  neighbours → ``k`` and ``k + 5``, 500 (clustered and training words per side) → ``n_biased``
  (= ``n_train / 2``), 2,000 test words per side → ``n_classify − n_train / 2``;
- what the cells print is parsed: ``precision bef/aft`` (k-means: the agreement of cluster 1
  with the male side, not the better of the two assignments), the ``accuracy`` of the SVM, the
  Pearson r of bias and neighbour counts over the vocabulary and over the professions.

The SVM's training words are the notebook's draw: ``random.seed(10)``, ``shuffle(females)``,
``shuffle(males)`` under Python 3 (the paper ran Python 2.7, whose ``shuffle`` orders the same
seed differently).
"""

from __future__ import annotations

import ast
import contextlib
import io
import json
import re
import sys
from pathlib import Path

import numpy as np
from _common import DATA, EXPECTED, git_commit, git_file, write_json

NOTEBOOK = "source/remaining_bias_2016.ipynb"
DROPPED_IMPORTS = {"matplotlib", "matplotlib.pyplot", "mpld3", "cycler", "pickle5", "sklearn.manifold"}
FLOAT = re.compile(r"[-+]?\d*\.\d+(?:[eE][-+]?\d+)?|[-+]?\d+[eE][-+]?\d+")


class _Sizes(ast.NodeTransformer):
    """The notebook's integer sizes, scaled to the small inputs."""

    def __init__(self, mapping: dict[int, int]):
        self.mapping = mapping

    def visit_Constant(self, node):  # noqa: N802 - ast's visitor name
        if type(node.value) is int and node.value in self.mapping:
            return ast.copy_location(ast.Constant(self.mapping[node.value]), node)
        return node

    def visit_Num(self, node):  # noqa: N802 - Python 3.7's literal node
        if type(node.n) is int and node.n in self.mapping:
            return ast.copy_location(ast.Num(self.mapping[node.n]), node)
        return node


def _keep(node: ast.stmt) -> bool:
    if isinstance(node, ast.With):
        return False
    if isinstance(node, ast.Import):
        return not any(a.name in DROPPED_IMPORTS for a in node.names)
    if isinstance(node, ast.ImportFrom):
        return node.module not in DROPPED_IMPORTS
    if isinstance(node, (ast.Expr, ast.Assign)):  # mpld3.enable_notebook(), mpl.rc(...), mpl.rcParams[...] = ...
        text = ast.dump(node)
        return "id='mpl'" not in text and "id='mpld3'" not in text
    return True


def _cell(source: str, sizes: _Sizes, functions_only: bool = False) -> ast.Module:
    source = "\n".join(line for line in source.splitlines() if not line.lstrip().startswith("%"))
    tree = ast.parse(source)
    body = [n for n in tree.body if _keep(n)]
    if functions_only:
        body = [n for n in body if isinstance(n, (ast.FunctionDef, ast.Import, ast.ImportFrom))]
    tree.body = body
    return ast.fix_missing_locations(sizes.visit(tree))


class _Plot:
    """Stands in for matplotlib: every attribute is a callable that returns stubs."""

    def __getattr__(self, name):
        return lambda *args, **kwargs: (_Plot(), [_Plot(), _Plot()]) if name == "subplots" else _Plot()


def main(copy: Path, authors: Path) -> None:
    import scipy
    import sklearn

    data = json.loads((DATA / "recovery_inputs.json").read_text(encoding="utf-8"))
    size = data["sizes"]
    half = size["n_train"] // 2
    assert half == size["n_biased"], "the notebook uses one size (500) for both; the inputs must too"
    dim = len(data["rows"][0])
    sizes = _Sizes({300: dim, 50000: size["limit"], 100: size["k"], 105: size["k"] + 5, 500: half,
                    2000: size["n_classify"] - half})
    notebook = json.loads(git_file(copy, NOTEBOOK))
    cells = ["".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "code"]

    ns: dict = {"__name__": "remaining_bias_2016"}
    exec(compile(_cell(cells[0], sizes, functions_only=True), NOTEBOOK, "exec"), ns)  # normalize
    words = data["words"]
    vocab, wv, w2i = {}, {}, {}
    for space, key in (("bef", "rows"), ("aft", "debiased")):
        rows = np.asarray(data[key], dtype=np.float64)
        vocab[space], wv[space], w2i[space] = list(words), ns["normalize"](rows), {w: i for i, w in enumerate(words)}
    ns.update(vocab=vocab, wv=wv, w2i=w2i, gender_specific=list(data["exclude"]), definitional_pairs=[],
              equalize_pairs=[], professions=list(data["professions"]))

    printed = {}

    def run(i: int, functions_only: bool = False) -> None:
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            exec(compile(_cell(cells[i], sizes, functions_only), NOTEBOOK, "exec"), ns)
        printed[i] = out.getvalue()

    def find(i: int, label: str = "") -> list[float]:
        lines = [ln for ln in printed[i].splitlines() if label in ln]
        return [float(FLOAT.findall(ln.split(label, 1)[1] if label else ln)[0]) for ln in lines]

    run(2, functions_only=True)  # topK, similarity
    run(3, functions_only=True)  # has_punct, has_digit, limit_vocab
    run(4)                       # the limited vocabularies, less the excluded words
    run(5)                       # bias by projection, before and after
    run(7)                       # bias by neighbours
    run(8)                       # compute_corr over the vocabulary
    run(9, functions_only=True)  # extract_vectors, cluster_and_visualize (visualize stubbed below)
    ns.update(plt=_Plot(), visualize=lambda *args, **kwargs: None)
    run(10)                      # k-means on the most biased words
    run(12)                      # professions
    run(14)                      # the SVM
    r_all, r_prof = find(8), find(12)
    cluster = [find(10, "precision bef")[0], find(10, "precision aft")[0]]
    svm = find(14, "accuracy:")
    n_prof = sum(1 for w in ns["professions"] if w in ns["gender_bias_bef"])
    out = {"n_vocabulary": len(vocab["limit_bef"])}
    for j, name in enumerate(("original", "debiased")):
        out[name] = {"cluster_agreement": cluster[j], "classifier_accuracy": svm[j],
                     "neighbour_correlation": r_all[j], "profession_correlation": r_prof[j],
                     "n_professions": n_prof}
    write_json(EXPECTED / "gonen_goldberg.json", {
        "provenance": {
            "repository": "github:gonenhila/gender_bias_lipstick", "commit": git_commit(authors), "file": NOTEBOOK,
            "read_from": {"repository": "github:hyoungjo/lipstick-on-a-pig", "commit": git_commit(copy),
                          "file": NOTEBOOK},
            "cells_run": [2, 3, 4, 5, 7, 8, 9, 10, 12, 14], "python": sys.version.split()[0],
            "numpy": np.__version__, "scipy": scipy.__version__, "scikit-learn": sklearn.__version__,
            "inputs": "tests/conformance/data/recovery_inputs.json",
            "script": "scripts/conformance/gonen_goldberg_outputs.py"},
        "outputs": out,
    })


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
