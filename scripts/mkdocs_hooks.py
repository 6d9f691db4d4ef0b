"""MkDocs hooks of the documentation site (mkdocs.yml ``hooks:``).

* Before the build, KaTeX's files are placed in ``docs/assets/katex`` (fetched once from the npm
  registry with ``npm pack``; git-ignored), so that the site typesets its maths without asking any
  other host.
* In every page's HTML, Sphinx roles left in docstrings (``:func:`x```) read as code (``x``).
* The API reference's ``<!-- commands -->`` marker becomes one section per command: its parameter
  model and its result type, rendered by mkdocstrings like the rest of the page.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

KATEX = "katex@0.16.22"
ROOT = Path(__file__).resolve().parents[1]
ASSETS = ROOT / "docs" / "assets" / "katex"
_ROLE = re.compile(r":(?:py:)?(?:func|meth|class|mod|data|attr|exc|obj|ref):(<code>)~?")


def on_pre_build(config, **kwargs):
    if (ASSETS / "katex.min.js").is_file():
        return
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError("the docs need KaTeX from the npm registry, and npm is not installed (apt install npm)")
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([npm, "pack", KATEX, "--silent", "--pack-destination", tmp], check=True,
                       capture_output=True, timeout=300)
        archive = next(Path(tmp).glob("katex-*.tgz"))
        with tarfile.open(archive) as tar:
            members = [m for m in tar.getmembers() if m.name.startswith("package/dist/") and m.isfile()
                       and (m.name.endswith((".min.js", ".min.css", ".woff2")) or "/fonts/" in m.name)
                       and not m.name.endswith((".ttf", ".woff"))]
            tar.extractall(tmp, members=members, filter="data")
        staged = ASSETS.with_name(".katex-tmp")
        shutil.rmtree(staged, ignore_errors=True)
        shutil.copytree(Path(tmp) / "package" / "dist", staged)
        (staged / "LICENSE.txt").write_text("KaTeX is MIT-licensed: https://github.com/KaTeX/KaTeX/blob/main/LICENSE\n")
        staged.rename(ASSETS)


def on_page_markdown(markdown, page, config, files, **kwargs):
    if "<!-- commands -->" not in markdown:
        return markdown
    from geobias.commands import commands

    parts = []
    for cmd in commands():
        parts.append(f"### `geobias {cmd.name}`\n\n{cmd.summary}\n")
        parts.append(f"::: {cmd.params.__module__}.{cmd.params.__qualname__}\n    options:\n"
                     "      show_root_heading: true\n      heading_level: 4\n      members: false\n")
        if cmd.result:
            parts.append(f"::: {cmd.result}\n    options:\n      show_root_heading: true\n"
                         "      heading_level: 4\n      members: false\n")
    return markdown.replace("<!-- commands -->", "\n".join(parts))


def on_page_content(html, page, config, files, **kwargs):
    return _ROLE.sub(r"\1", html)
