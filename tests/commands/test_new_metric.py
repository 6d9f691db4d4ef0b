"""A new metric is three files: its module (parameter model, ``run``, result with a table and a
figure), nothing else in geobias. Here it lives in a throwaway package outside geobias, declared to
geobias by an entry point (``geobias.commands``), and appears on every front door: Python, the
command line (listed by ``--help``, run with ``--json``), the HTTP service (its route, a job whose
report draws its plot) and the web app (its form)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

httpx = pytest.importorskip("httpx", reason="the serve extra is not installed (pip install 'geobias[serve]')")

from _server import ServerProcess, small_french_store, wait_job  # noqa: E402

REPO = Path(__file__).resolve().parents[2]

MODULE = '''
"""A throwaway metric: the Euclidean norm of each word's vector."""
from dataclasses import dataclass, field

from pydantic import Field

from geobias.commands import command
from geobias.commands.static import StoreParams
from geobias.report.registry import figure
from geobias.results import Result


@dataclass(frozen=True)
class NormResult(Result):
    words: list = field(default_factory=list)
    norms: list = field(default_factory=list)

    def __rich__(self):
        from rich.table import Table

        t = Table("word", "norm", title="vector norms")
        for w, n in zip(self.words, self.norms):
            t.add_row(w, f"{n:.6f}")
        return t


class NormParams(StoreParams):
    """Parameters of the toy norm metric."""

    words: list[str] = Field(default_factory=lambda: ["avocat", "avocate"], description="Words to measure.")


@command("toy-norm", NormParams, quick=True, result="toy_metric.NormResult")
def toy_norm(p, *, progress=None):
    """Toy norm: the Euclidean norm of each word's vector."""
    import numpy as np

    store = p.store(progress)
    rows = store.lookup(p.words).vectors.astype(np.float64)
    return NormResult(list(p.words), [float(x) for x in np.linalg.norm(rows, axis=1)])


@figure("toy_metric.NormResult", title="norm bars")
def norm_bars(result):
    from geobias.report.plots import plot_bars

    return plot_bars(result.words, result.norms, "vector norms", "norm")
'''


@pytest.fixture(scope="module")
def plugin(tmp_path_factory):
    root = tmp_path_factory.mktemp("plugin")
    (root / "toy_metric.py").write_text(textwrap.dedent(MODULE), encoding="utf-8")
    info = root / "toy_metric-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-metric\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[geobias.commands]\ntoy-norm = toy_metric\n", encoding="utf-8")
    vectors = root / "vectors"
    vectors.mkdir()
    from geobias.store import save_store

    store = small_french_store()
    save_store(store, vectors / "small-fr")
    want = [float(x) for x in __import__("numpy").linalg.norm(
        store.lookup(["avocat", "avocate"]).vectors.astype("float64"), axis=1)]
    env = {"PYTHONPATH": os.pathsep.join([str(root), str(REPO)]), "GEOBIAS_VECTORS_DIR": str(vectors)}
    return {"root": root, "vectors": vectors, "env": env, "want": want}


def test_python(plugin, monkeypatch):
    import sys

    from geobias.commands import REGISTRY, run
    from geobias.report import registry

    monkeypatch.syspath_prepend(str(plugin["root"]))
    tables = (REGISTRY, registry._FIGURES, registry._FIGURE_TITLES)
    before = [set(t) for t in tables]
    import toy_metric  # noqa: F401  (a plug-in installed by entry point is imported by geobias.commands)

    monkeypatch.setitem(sys.modules, "toy_metric", sys.modules.pop("toy_metric"))

    # the throwaway metric stays in this process's registries for this test only: each entry the
    # import added is handed to monkeypatch, which removes it when the test ends
    for table, keys in zip(tables, before, strict=True):
        for key in set(table) - keys:
            value = table.pop(key)
            monkeypatch.setitem(table, key, value)

    r = run("toy-norm", vectors=str(plugin["vectors"] / "small-fr"))
    assert r.norms == pytest.approx(plugin["want"], rel=1e-6)


def test_command_line(plugin):
    env = dict(os.environ, **plugin["env"])
    listing = subprocess.run([sys.executable, str(REPO / "cli.py"), "--help"], capture_output=True, text=True,
                             env=env, timeout=120)
    assert listing.returncode == 0 and "toy-norm" in listing.stdout
    out = subprocess.run([sys.executable, str(REPO / "cli.py"), "toy-norm", "--vectors", "small-fr", "--json"],
                         capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    env_json = json.loads(out.stdout)
    assert env_json["command"] == "toy-norm"
    assert env_json["result"]["norms"] == pytest.approx(plugin["want"], rel=1e-6)
    table = subprocess.run([sys.executable, str(REPO / "cli.py"), "toy-norm", "--vectors", "small-fr"],
                           capture_output=True, text=True, env=env, timeout=120)
    assert table.returncode == 0 and "vector norms" in table.stdout and "avocate" in table.stdout


def test_service_and_web_app(plugin, tmp_path):
    with ServerProcess(plugin["vectors"], tmp_path / "data", env=plugin["env"]) as srv, srv.client() as client:
        r = client.post("/toy-norm", json={"store": "small-fr"})
        assert r.status_code == 200, r.text
        assert r.json()["result"]["norms"] == pytest.approx(plugin["want"], rel=1e-6)
        r = client.post("/jobs", json={"kind": "toy-norm", "params": {"store": "small-fr"}})
        assert r.status_code == 202, r.text
        job = wait_job(client, r.json()["id"], timeout=120)
        assert job["state"] == "done", job.get("error")
        png = client.get(f"/jobs/{job['id']}/plots/0.png")
        assert png.status_code == 200 and png.content[:4] == b"\x89PNG"  # drawn by its registered figure
        assert client.get(f"/jobs/{job['id']}/plots/0.svg").status_code == 200
        view = client.get(f"/app/jobs/{job['id']}/view").text
        assert "norm bars" in view and "vector norms" in view
        form = client.get("/app/toy-norm")
        assert form.status_code == 200 and "words" in form.text
        assert "toy-norm" in client.get("/app").text
