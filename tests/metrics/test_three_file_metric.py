"""An in-tree metric is three files: the metric module (its declaration, resampling and figure), one
import line in ``geobias/metrics/__init__.py``, and its test.

Here the three are written into a copy of the package tree in a temporary folder, and the toy metric
they make is run on every front door of that copy: its own test (``check_metric`` and a number),
Python (the library function and ``geobias.commands.run``), the command line (``--help``, a table,
``--json``), the HTTP service (its route, a job whose report draws the declared figure) and the web
app (its form and the job's page). Nothing else in the copy is edited: no command module, no
renderer, no route, no form. docs/contributing.md walks through the same three files.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from _server import ServerProcess, small_french_store, wait_job

REPO = Path(__file__).resolve().parents[2]

#: File 1: geobias/metrics/toy_gap.py.
METRIC = '''
"""ToyGap, a throwaway metric: the mean association s(w, A, B) of the target words."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from geobias.metrics._query import MetricVariant, query_rows
from geobias.metrics._result import AssociationResult
from geobias.metrics.bootstrap import Resampling, index_counts
from geobias.metrics.declaration import Bars, FigureSpec, Metric, declare
from geobias.query import WordQuery
from geobias.store import VectorStore


@dataclass(frozen=True)
class ToyGapResult(AssociationResult):
    """The mean over the targets of mean cos(w, A) − mean cos(w, B); ``missing``, ``bootstrap`` and
    ``bootstrap_note`` come with the base."""

    gap: float
    words: list[str]
    scores: list[float]

    def __rich__(self):
        from rich.table import Table

        t = Table("word", "s(w, A, B)", title=f"toy gap = {self.gap:+.6f}")
        for w, s in zip(self.words, self.scores):
            t.add_row(w, f"{s:+.6f}")
        return t


def toy_gap(store: VectorStore, query: WordQuery, *, variant: MetricVariant = "english",
            oov: Literal["raise", "ignore"] = "raise", bootstrap: int = 0,
            bootstrap_seed: int | None = 0) -> ToyGapResult:
    """The mean association of X ∪ Y with A against B (unit rows)."""
    rows = query_rows(store, query, variant=variant, oov=oov)
    s = rows.targets @ (rows.a.mean(axis=0) - rows.b.mean(axis=0))
    boot = None
    if bootstrap:
        from geobias.metrics.bootstrap import bootstrap_query

        boot = bootstrap_query(rows, "toy-gap", variant=variant, n_resamples=bootstrap, seed=bootstrap_seed)
    return ToyGapResult(gap=float(s.mean()), words=list(rows.target_words), scores=[float(v) for v in s],
                        missing=rows.missing, bootstrap=boot)


def _resampling(rows, *, variant: str = "english", quantity: str | None = None) -> Resampling:
    """Every set resampled on its own (X with Y as pairs in the grammatical variant)."""
    sets = {"X": rows.x, "Y": rows.y, "A": rows.a, "B": rows.b}
    sim = {(t, g): sets[t] @ sets[g].T for t in ("X", "Y") for g in ("A", "B")}

    def stat(ix):
        parts = []
        for t in ("X", "Y"):
            mean_a = index_counts(ix["A"], len(rows.a)) @ sim[t, "A"].T / ix["A"].shape[1]
            mean_b = index_counts(ix["B"], len(rows.b)) @ sim[t, "B"].T / ix["B"].shape[1]
            parts.append(np.take_along_axis(mean_a - mean_b, ix[t], axis=1))
        return np.concatenate(parts, axis=1).mean(axis=1)

    sizes = {k: len(v) for k, v in sets.items()}
    return Resampling(stat, sizes, [("X", "Y")] if variant == "grammatical" else [], "toy-gap", "gap")


def _bars(data: dict) -> Bars | None:
    if not data.get("words"):
        return None
    return Bars(data["words"], data["scores"], "toy gap per word", "s(w, A, B)")


METRIC = declare(Metric(
    "toy-gap", toy_gap, ToyGapResult, "sets",
    summary="Toy gap: the mean association s(w, A, B) of the target words.",
    sets=("X", "Y", "A", "B"), quantities=("gap",), resampling=_resampling,
    figure=FigureSpec("toy gap bars", _bars),
))
'''

#: File 2: one line at the end of geobias/metrics/__init__.py.
IMPORT_LINE = "from geobias.metrics import toy_gap as _toy_gap  # noqa: E402, F401\n"

#: File 3: its test.
TEST = '''
import numpy as np

from geobias.metrics import check_metric
from geobias.metrics.checks import toy_query, toy_store
from geobias.metrics.toy_gap import toy_gap


def test_contract():
    check_metric("toy-gap")


def test_the_gap_is_the_mean_association():
    store, query = toy_store(), toy_query()
    unit = store.lookup(store.words, unit=True).vectors.astype(np.float64)
    x, a, b = unit[:12], unit[12:18], unit[18:24]
    assert abs(toy_gap(store, query).gap - float((x @ (a.mean(0) - b.mean(0))).mean())) < 1e-12
'''


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    """A copy of the package with the three files added, and a store to run on."""
    root = tmp_path_factory.mktemp("three-files")
    shutil.copytree(REPO / "geobias", root / "geobias", ignore=shutil.ignore_patterns("__pycache__"))
    os.symlink(REPO / "wordlists", root / "wordlists")  # the word lists, read in place
    (root / "geobias" / "metrics" / "toy_gap.py").write_text(textwrap.dedent(METRIC), encoding="utf-8")
    with open(root / "geobias" / "metrics" / "__init__.py", "a", encoding="utf-8") as f:
        f.write(IMPORT_LINE)
    (root / "tests").mkdir()
    (root / "tests" / "test_toy_gap.py").write_text(textwrap.dedent(TEST), encoding="utf-8")
    vectors = root / "vectors"
    vectors.mkdir()
    from geobias import wordlists
    from geobias.store import save_store

    store = small_french_store()
    save_store(store, vectors / "small-fr")
    # the figure the metric should give on French: its occupations' two forms against its attribute words
    occupations = wordlists.occupations("fr")
    targets = [o.masculine for o in occupations] + [o.feminine for o in occupations]
    male, female = wordlists.attribute_words("fr")
    unit = {w: store.lookup([w], unit=True).vectors[0].astype(np.float64) for w in {*targets, *male, *female}}
    diff = np.mean([unit[w] for w in male], axis=0) - np.mean([unit[w] for w in female], axis=0)
    want = float(np.mean([unit[w] @ diff for w in targets]))
    # PYTHONSAFEPATH: a `python -c` started elsewhere (the server) must not put its working folder first
    env = dict(os.environ, PYTHONPATH=str(root), PYTHONSAFEPATH="1", GEOBIAS_VECTORS_DIR=str(vectors),
               OMP_NUM_THREADS="1")
    return {"root": root, "vectors": vectors, "env": env, "want": want}


def _python(tree, code: str) -> str:
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                         cwd=tree["root"], env=tree["env"], timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout


def _cli(tree, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from geobias.cli import main; main()", *args],
                          capture_output=True, text=True, cwd=tree["root"], env=tree["env"], timeout=300)


def test_the_copy_is_what_runs_and_its_own_test_passes(tree):
    where = _python(tree, "import geobias; print(geobias.__file__)").strip()
    assert Path(where).is_relative_to(tree["root"])
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_toy_gap.py"],
                         capture_output=True, text=True, cwd=tree["root"], env=tree["env"], timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "2 passed" in out.stdout


def test_python(tree):
    out = json.loads(_python(tree, """
        import json
        from geobias.commands import run
        from geobias.metrics import get_metric
        r = run("toy-gap", lang="fr", vectors="small-fr", bootstrap=200)
        print(json.dumps({"gap": r.gap, "n": len(r.words), "quantity": r.bootstrap.quantity,
                          "sets": r.bootstrap.set_sizes, "low": r.bootstrap.low, "high": r.bootstrap.high,
                          "declared": get_metric("toy-gap").sets}))
    """))
    assert out["gap"] == pytest.approx(tree["want"], rel=1e-5)  # float32 rows against float64 here
    assert out["quantity"] == "gap" and out["low"] <= out["gap"] <= out["high"]
    assert set(out["sets"]) == set(out["declared"]) and out["sets"]["X"] == out["sets"]["Y"] == out["n"] // 2


def test_command_line(tree):
    listed = _cli(tree, "toy-gap", "--help")
    assert listed.returncode == 0 and "Toy gap: the mean association" in listed.stdout and "--bootstrap" in listed.stdout
    table = _cli(tree, "toy-gap", "--lang", "fr", "--vectors", "small-fr", "--bootstrap", "0")
    assert table.returncode == 0, table.stderr
    assert "toy gap = " in table.stdout and "avocate" in table.stdout
    env = _cli(tree, "toy-gap", "--lang", "fr", "--vectors", "small-fr", "--json")
    assert env.returncode == 0, env.stderr
    data = json.loads(env.stdout)
    assert data["command"] == "toy-gap"
    assert data["result"]["gap"] == pytest.approx(tree["want"], rel=1e-5)
    assert data["result"]["bootstrap"]["n_resamples"] == 1000  # the command layer's default count
    bad = _cli(tree, "toy-gap", "--lang", "fr", "--vectors", "small-fr", "--variant", "sideways")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr


def test_service_and_web_app(tree, tmp_path):
    pytest.importorskip("httpx", reason="the serve extra is not installed (pip install 'geobias[serve]')")
    with ServerProcess(tree["vectors"], tmp_path / "data", env=tree["env"]) as srv, srv.client() as client:
        r = client.post("/toy-gap", json={"store": "small-fr", "lang": "fr", "bootstrap": 100})
        assert r.status_code == 200, r.text
        assert r.json()["result"]["gap"] == pytest.approx(tree["want"], rel=1e-5)
        assert client.post("/toy-gap", json={"store": "small-fr", "variant": "sideways"}).status_code == 422
        r = client.post("/jobs", json={"kind": "toy-gap", "params": {"store": "small-fr", "lang": "fr"}})
        assert r.status_code == 202, r.text
        job = wait_job(client, r.json()["id"], timeout=120)
        assert job["state"] == "done", job.get("error")
        png = client.get(f"/jobs/{job['id']}/plots/0.png")
        assert png.status_code == 200 and png.content[:4] == b"\x89PNG"  # drawn from the declared Bars
        view = client.get(f"/app/jobs/{job['id']}/view").text
        assert "toy gap bars" in view and "toy gap = " in view
        form = client.get("/app/toy-gap")
        assert form.status_code == 200 and "targets_x" in form.text
        assert "toy-gap" in client.get("/app").text
