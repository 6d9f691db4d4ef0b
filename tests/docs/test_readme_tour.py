"""The README's tour runs as written.

Every command of the ``## A tour`` block is run, in order, by bash in a scratch folder laid out
like a checkout (``wordlists/`` beside it, ``../shared`` above it), with the real installed
stores. A command that needs something this machine cannot have — a Hugging Face hub model, a
download, a file the user brings — is skipped with that reason; every other command must exit 0.
Marked ``slow`` (it runs ``evaluate`` and ``align`` on the real data): ``make test-slow`` and CI run it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

#: Commands that cannot run here, and why (matched as substrings of the command line).
UNAVAILABLE = {
    "bert-base-cased": "needs the Hugging Face hub model bert-base-cased (no hub access here)",
    "bert-base-uncased": "needs the Hugging Face hub model bert-base-uncased (no hub access here)",
    "bert-cds/": "needs the fine-tuned bert-base-uncased of the previous line",
    "install muse-es": "downloads MUSE vectors (no network here)",
    "wiki.multi.es.vec": "needs the MUSE Spanish file the user downloads",
}


def tour_commands() -> list[str]:
    """The tour's command lines: continuations joined, comments and blank lines dropped."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    block = re.search(r"## A tour\s*```bash\n(.*?)```", text, re.S)
    assert block, "README.md has no '## A tour' bash block"
    lines, pending = [], ""
    for raw in block.group(1).splitlines():
        line = re.sub(r"\s+#\s.*$", "", raw).rstrip()  # trailing comments ("  # ...")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        lines.append((pending + line).strip())
        pending = ""
    return lines


COMMANDS = tour_commands()


def test_tour_is_parsed():
    assert len(COMMANDS) >= 20 and all(c.startswith(("geobias ", "D=", "grep ")) for c in COMMANDS)


@pytest.fixture(scope="module")
def tour_dir(tmp_path_factory, installed):
    """``work/`` (cwd) with ``wordlists`` linked in, ``../shared`` linked to the evaluation data,
    and a vectors directory holding links to the installed real stores."""
    shared = REPO.parent / "shared"
    if not (shared / "data").is_dir():
        pytest.skip("the tour uses ../shared/data (evaluation data), absent here")
    from geobias.sources import vectors_dir

    for name in ("fr-spacy-md", "en-w2v-gnews"):
        installed(name)
    root = tmp_path_factory.mktemp("tour")
    work = root / "work"
    work.mkdir()
    (root / "shared").symlink_to(shared)
    (work / "wordlists").symlink_to(REPO / "wordlists")
    vec = root / "vectors"
    vec.mkdir()
    for name in ("fr-spacy-md", "en-w2v-gnews"):
        (vec / name).symlink_to(vectors_dir() / name)
    return work, vec


@pytest.mark.slow
@pytest.mark.parametrize("index", range(len(COMMANDS)), ids=[c.split(" --")[0][:40] for c in COMMANDS])
def test_tour_command_runs_as_written(tour_dir, index):
    command = COMMANDS[index]
    reason = next((why for key, why in UNAVAILABLE.items() if key in command), None)
    if reason:
        pytest.skip(reason)
    if command.startswith("D="):
        return  # a shell variable, prepended to every command below
    work, vec = tour_dir
    env = dict(os.environ, GEOBIAS_VECTORS_DIR=str(vec), OMP_NUM_THREADS="1",
               PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    env.pop("GEOBIAS_DEBUG", None)
    assert shutil.which("geobias", path=env["PATH"]), "the geobias script is not installed beside python"
    prefix = "; ".join(c for c in COMMANDS[:index] if c.startswith("D="))
    proc = subprocess.run(["bash", "-c", f"{prefix}; {command}" if prefix else command], cwd=work, env=env,
                          capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0, f"{command}\n{proc.stderr[-2000:]}"
    assert "Traceback" not in proc.stderr


def test_the_audit_example_names_stores_that_exist():
    """The audit.toml example (docs/ray.md): every store is a registry source or a folder the
    README tour writes (``--out``), and every test is one ``geobias audit`` knows."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+

    from geobias.sources.registry import get_source

    text = (REPO / "docs" / "ray.md").read_text(encoding="utf-8")
    block = re.search(r"```toml\n(.*?)```", text, re.S)
    assert block, "docs/ray.md has no audit.toml example"
    config = tomllib.loads(block.group(1))
    made = set(re.findall(r"--out\s+(\S+)", "\n".join(tour_commands())))
    for store in config["stores"]:
        if store.startswith("./"):
            assert store[2:].rstrip("/") in {m.rstrip("/") for m in made}, store
        else:
            assert get_source(store).name == store
    from geobias import wordlists

    for test in config["tests"]:
        assert test == "mweat" or (test.startswith("weat:") and test[5:] in wordlists.weat_tests("en")), test
