"""The documentation cannot rot: its Python examples run, and the site builds strictly.

Every ```python block of docs/*.md is executed (in page order, one namespace per page); the
stores it opens are installed first (skipped when the data packages are absent). The MkDocs
build with ``--strict`` runs when MkDocs is installed (``make install`` installs it).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted((ROOT / "docs").glob("*.md"))


def python_blocks(page: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), re.S)


@pytest.mark.parametrize("page", [p for p in PAGES if python_blocks(p)], ids=lambda p: p.name)
def test_python_examples_on_the_page_run(page, installed, capsys):
    installed("fr-spacy-md")
    namespace: dict = {"__name__": f"docs.{page.stem}"}
    for block in python_blocks(page):
        exec(compile(block, str(page), "exec"), namespace)  # noqa: S102 - our own documentation
    assert capsys.readouterr().out.strip(), f"{page.name}: the example printed nothing"


def test_every_page_is_in_the_navigation():
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    missing = [p.name for p in PAGES if f": {p.name}" not in nav]
    assert not missing, f"pages missing from mkdocs.yml's nav: {missing}"


def test_the_site_builds_strictly(tmp_path):
    mkdocs = shutil.which("mkdocs", path=str(Path(sys.executable).parent))
    if mkdocs is None:
        pytest.skip("MkDocs is not installed (pip install -e '.[docs]')")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    run = subprocess.run([mkdocs, "build", "--strict", "--quiet", "--site-dir", str(tmp_path / "site")],
                         cwd=ROOT, capture_output=True, text=True, env=env, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    assert (tmp_path / "site" / "reproductions" / "index.html").is_file()
    assert "mweat" in (tmp_path / "site" / "api" / "index.html").read_text(encoding="utf-8")
