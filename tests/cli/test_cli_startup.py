"""`geobias --help` stays fast: importing the CLI loads no heavy library (they load inside commands)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
HEAVY = ("torch", "transformers", "sklearn", "matplotlib", "gensim", "faiss", "spacy", "scipy")


def test_cli_import_loads_no_heavy_library():
    code = (
        "import sys, json, geobias.cli; "
        f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO,
                         env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}, check=True)
    assert json.loads(out.stdout) == []


def test_help_lists_every_command():
    out = subprocess.run([sys.executable, str(REPO / "cli.py"), "--help"], capture_output=True, text=True,
                         cwd=REPO, env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0
    for command in ("vectors", "neighbors", "directions", "weat", "mweat", "probe", "becpro"):
        assert command in out.stdout


def _loaded(code: str, modules: tuple[str, ...]) -> list[str]:
    probe = f"import sys, json; {code}; print(json.dumps([m for m in {modules!r} if m in sys.modules]))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO,
                         env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}, check=True)
    return json.loads(out.stdout)


def test_help_path_does_not_load_numpy():
    """`geobias --help` needs neither numpy nor the store code (start-up target: ≤ 0.25 s)."""
    assert _loaded("import geobias, geobias.cli", ("numpy", "geobias.store.vector_store")) == []


def test_mweat_path_does_not_load_scipy_stats():
    """The MWEAT path imports numpy but no scipy (scipy.stats ~0.5 s, scipy.special ~0.2 s): the
    Clopper–Pearson interval uses geobias.stats._betainc."""
    code = ("import numpy as np, geobias.metrics, geobias.sources; "
            "geobias.stats.permutation_test(np.arange(20.0), 10, n_permutations=500)")
    loaded = _loaded(code, ("numpy", "scipy", "polars", "faiss"))
    assert loaded == ["numpy"]
