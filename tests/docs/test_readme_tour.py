"""The README's tour runs as written.

Every command of the ``## A tour`` blocks is run, in order, by bash in a scratch folder laid out
like a checkout (``wordlists/`` beside it), with the real installed stores and nothing else: no
``../shared``. A command that needs something this machine cannot have — a Hugging Face hub model,
a download — is skipped with that reason; every other command must exit 0. ``geobias data install``
needs a download, so here it runs from a local copy (``--from``) when ``../shared/data`` holds one,
and the commands reading those datasets run only then. Marked ``slow`` (it runs ``evaluate`` and
``align`` on the real data): ``make test-slow`` and CI run it.
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
    "muse-es": "needs MUSE's Spanish vectors, a download",
}
#: Local copies that stand in for a dataset's download (``--from``), under ../shared/data.
LOCAL_COPIES = {"data install muse-dictionary fr-en": "muse/dictionaries",
                "data install gap": "gap/gap-development.tsv"}
#: Commands that read a dataset (run only when it could be installed).
READS_DATASETS = ("datasets/", "$D/")


def tour_commands() -> list[str]:
    """The tour's command lines: continuations joined, comments and blank lines dropped."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = re.search(r"## A tour\n(.*?)\n## ", text, re.S)
    assert section, "README.md has no '## A tour' section"
    blocks = re.findall(r"```bash\n(.*?)```", section.group(1), re.S)
    assert blocks, "README.md's tour has no bash block"
    lines, pending = [], ""
    for raw in "\n".join(blocks).splitlines():
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
    assert len(COMMANDS) >= 20 and all(c.startswith(("geobias ", "D=", "grep ", "mkdir ")) for c in COMMANDS)
    assert not any("../shared" in c for c in COMMANDS)  # a user has no ../shared


@pytest.fixture(scope="module")
def tour_dir(tmp_path_factory, installed):
    """``work/`` (cwd) with ``wordlists`` linked in, ``../shared`` linked to the evaluation data,
    and a vectors directory holding links to the installed real stores."""
    from geobias.sources import vectors_dir

    for name in ("fr-spacy-md", "en-w2v-gnews"):
        installed(name)
    root = tmp_path_factory.mktemp("tour")
    work = root / "work"
    work.mkdir()
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
    shared = REPO.parent / "shared" / "data"
    local = next((copy for key, copy in LOCAL_COPIES.items() if key in command), None)
    if local is not None:
        if not (shared / local).exists():
            pytest.skip("downloads a dataset (no network here, and no local copy in ../shared/data)")
        command += f" --from {shared / local}"
    if any(key in command for key in READS_DATASETS) and not (work / "datasets").is_dir():
        pytest.skip("reads the datasets the tour installs above (skipped here: no network, no local copy)")
    env = dict(os.environ, GEOBIAS_VECTORS_DIR=str(vec), GEOBIAS_DATASETS_DIR=str(work / "datasets"),
               OMP_NUM_THREADS="1",
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
