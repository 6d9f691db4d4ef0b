"""Shared by the conformance scripts: the small inputs we write, and the expected-output files.

Each script in this folder runs the *authors' own code* (installed from PyPI in its own
virtualenv, or read from a checkout of the authors' repository given on the command line; never
copied into geobias) on small inputs written here, and stores what that code printed or returned
as JSON under ``tests/conformance/expected/`` with its provenance (repository, commit, file).
``tests/conformance/`` compares geobias with those files.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "conformance" / "data"
EXPECTED = ROOT / "tests" / "conformance" / "expected"


def write_json(path: Path, data, *, compact: bool = False) -> None:
    """``data`` as key-sorted JSON (stable diffs), indented unless ``compact``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(data, indent=None if compact else 1, sort_keys=True, ensure_ascii=False,
                      separators=(",", ":") if compact else None)
    path.write_text(text + "\n", encoding="utf-8")


def git_commit(repo: Path) -> str:
    """The commit a checkout (or a bare mirror) of the authors' repository is at."""
    return subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True,
                          check=True).stdout.strip()


def git_file(repo: Path, path: str) -> str:
    """The text of ``path`` at the checkout's HEAD (works on a bare mirror too)."""
    return subprocess.run(["git", "-C", str(repo), "show", f"HEAD:{path}"], capture_output=True, text=True,
                          check=True).stdout
