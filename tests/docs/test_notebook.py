"""The example notebook (docs/examples/multilingual.ipynb) executes from top to bottom on real data:
MWEAT in three languages, a mitigation before and after, the atlas. Marked slow (it installs two
use-m3 stores on first use, about a minute each); CI runs it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "docs" / "examples" / "multilingual.ipynb"


@pytest.mark.slow
def test_the_example_notebook_runs(installed, tmp_path, monkeypatch):
    nbformat = pytest.importorskip("nbformat", reason="nbformat is not installed (pip install -e '.[dev]')")
    nbclient = pytest.importorskip("nbclient", reason="nbclient is not installed (pip install -e '.[dev]')")
    installed("fr-spacy-md")
    monkeypatch.delenv("GEOBIAS_NO_INSTALL", raising=False)  # the notebook installs use-m3-es/-de on first use
    nb = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=1800, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute(env=dict(os.environ))
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    tables = [o["data"]["text/html"] for o in outputs if "text/html" in o.get("data", {})]
    assert len(tables) >= 3 and "statistic" in tables[0]  # MWEAT per language, before/after, the atlas
    assert any("image/png" in o.get("data", {}) for o in outputs)  # the bar chart
