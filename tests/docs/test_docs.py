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
import time
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


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The documentation site, built strictly (KaTeX fetched from the npm registry on first build)."""
    mkdocs = shutil.which("mkdocs", path=str(Path(sys.executable).parent))
    if mkdocs is None:
        pytest.skip("MkDocs is not installed (pip install -e '.[docs]')")
    out = tmp_path_factory.mktemp("docs") / "site"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    run = subprocess.run([mkdocs, "build", "--strict", "--quiet", "--site-dir", str(out)],
                         cwd=ROOT, capture_output=True, text=True, env=env, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    return out


def test_the_site_builds_strictly(site):
    assert (site / "reproductions.html").is_file()  # pages as files: the site works opened from disk
    api = (site / "api.html").read_text(encoding="utf-8")
    assert "mweat" in api and 'id="geobias.commands.run"' in api and 'id="geobias.commands._base' not in api
    assert "MweatParams" in api and "WordQuery" in api  # every command's model, the query
    assert not re.search(r":(func|meth|class|mod|data|attr):", api)  # Sphinx roles read as code


def test_no_page_asks_another_host(site):
    external = re.compile(r"<(?:link|script|img|iframe)[^>]*(?:href|src)=\"(?:https?:)?//", re.I)
    for page in site.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        assert not external.search(text), f"{page.name} loads something from another host"
        assert "fonts.googleapis" not in text and "fonts.gstatic" not in text, page.name


def test_maths_render_offline_in_a_browser(site, tmp_path_factory):
    from _browser import chromium

    for driver in chromium(tmp_path_factory, height=1200):
        driver.get((site / "methods.html").as_uri())
        deadline = time.monotonic() + 30
        while not driver.find_elements("css selector", ".katex") and time.monotonic() < deadline:
            time.sleep(0.2)
        assert driver.find_elements("css selector", ".katex"), "KaTeX did not typeset the maths"
        loaded = driver.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
        # whatever the page fetched came from disk (Chromium records no timing for file: URLs, so the
        # list may be empty; a request to another host would be listed)
        assert all(u.startswith("file://") for u in loaded), [u for u in loaded if not u.startswith("file://")]
        nav = driver.find_element("css selector", "a[href$='api.html']").get_attribute("href")
        assert nav.startswith("file://") and nav.endswith("api.html")  # navigation works from disk


def test_test_files_have_unique_names():
    """Tests live in room folders without __init__.py, so pytest imports each by its file name:
    two rooms holding test_x.py would collide at collection."""
    from collections import Counter

    names = Counter(p.name for p in (ROOT / "tests").rglob("test_*.py"))
    assert not [n for n, k in names.items() if k > 1]
