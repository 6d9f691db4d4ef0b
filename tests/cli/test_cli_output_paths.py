"""Every output path of a command line is checked before any work: never one of the command's inputs
(also through a symbolic or hard link), never a file of a vector store, never another output of the
same command, never an existing file without --overwrite. Each refusal is one line naming the option
and the path, exit 1, and nothing is written."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numpy as np
import pytest

from geobias.cli import main
from geobias.store import VectorStore, save_store

WORDS = [*"abcdefghij", "he", "she", "man", "woman"]


def cli(capsys, *argv):
    with pytest.raises(SystemExit) as exc:
        main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return exc.value.code, out, err


def _snapshot(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir"
            for p in sorted(folder.rglob("*"))}


@pytest.fixture
def work(tmp_path, monkeypatch):
    """A folder with a small vector file, a word list, a corpus and a saved store; the current
    directory, with its own (empty) vectors directory."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GEOBIAS_VECTORS_DIR", str(tmp_path / "installed"))
    rng = np.random.default_rng(0)
    vectors = rng.normal(size=(len(WORDS), 5))
    with open("in.vec", "w", encoding="utf-8") as fh:
        fh.write(f"{len(WORDS)} 5\n")
        for word, row in zip(WORDS, vectors, strict=True):
            fh.write(word + " " + " ".join(f"{v:.4f}" for v in row) + "\n")
    Path("a_in.txt").write_text("e\nf\n", encoding="utf-8")
    Path("corpus.txt").write_text("he said his book\nshe said\n", encoding="utf-8")
    save_store(VectorStore(WORDS, vectors, lang="en", provenance={"source": "toy"}), tmp_path / "store")
    return tmp_path


WEAT = ["weat", "-v", "in.vec", "--targets-x", "a,b", "--targets-y", "c,d", "--attributes-a", "a_in.txt",
        "--attributes-b", "g,h", "--permutations", "100"]


def refused(capsys, work, *argv) -> str:
    """Run ``argv``; assert it failed with one line and wrote nothing; return that line."""
    before = _snapshot(work)
    code, _, err = cli(capsys, *argv)
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 1 and len(lines) == 1, err
    assert lines[0].startswith("geobias: error: ") and "Traceback" not in err
    assert _snapshot(work) == before, "an input was changed or an output written"
    return lines[0]


# ------------------------------------------------------------------------------- an input


def test_parquet_on_the_input_corpus_is_refused(work, capsys):
    line = refused(capsys, work, "cda", "-i", "corpus.txt", "-o", "cout.txt", "--parquet", "corpus.txt")
    assert "--parquet corpus.txt is an input of this command (--input)" in line


def test_parquet_on_the_input_vectors_is_refused_also_through_links(work, capsys):
    os.link("in.vec", "hard.vec")
    os.symlink("in.vec", "soft.vec")
    for target in ("in.vec", "./in.vec", "hard.vec", "soft.vec", work / "in.vec"):
        line = refused(capsys, work, *WEAT, "--parquet", target, "--overwrite")
        assert f"--parquet {Path(target)} is an input of this command (--vectors)" in line


def test_plot_on_a_word_list_input_is_refused(work, capsys):
    line = refused(capsys, work, *WEAT, "--plot", "a_in.txt", "--overwrite")
    assert "--plot a_in.txt is an input of this command (--attributes-a)" in line


def test_an_output_inside_the_store_read_is_refused(work, capsys):
    """hard-debias replaced the store's own words.txt; the store is left as saved."""
    from geobias.store.cache import changed_files

    line = refused(capsys, work, "hard-debias", "-v", "store", "--out", "store/words.txt", "--overwrite")
    assert "--out store/words.txt is inside store, the --vectors input of this command" in line
    line = refused(capsys, work, *WEAT, "--parquet", "store/x.parquet")  # a store this command does not read
    assert "--parquet store/x.parquet is inside the vector store" in line
    (work / "installed").mkdir()
    save_store(VectorStore(WORDS[:4], np.eye(4), lang="en"), work / "installed" / "saved")  # a store by name
    line = refused(capsys, work, "hard-debias", "-v", "saved", "--out", "installed/saved/words.txt", "--overwrite")
    assert "the --vectors input of this command" in line
    assert changed_files(work / "store") == [] and changed_files(work / "installed" / "saved") == []


# ------------------------------------------------------------------------------- two outputs


def test_two_outputs_on_one_path_are_refused(work, capsys):
    line = refused(capsys, work, *WEAT, "--parquet", "out.parquet", "--plot", "out.parquet")
    assert "--plot out.parquet: --parquet names the same path" in line
    line = refused(capsys, work, "hard-debias", "-v", "in.vec", "--out", "o2.vec", "--parquet", "o2.vec")
    assert "--parquet o2.vec: --out names the same path" in line
    line = refused(capsys, work, "cda", "-i", "corpus.txt", "-o", "cout.txt", "--parquet", "./cout.txt")
    assert "--parquet cout.txt: --out names the same path" in line


def test_parquet_on_the_store_align_writes_is_refused_before_the_store(work, capsys):
    argv = ["align", "--src", "fr", "--tgt", "en", "--src-vectors", "in.vec", "--tgt-vectors", "in.vec",
            "--dictionary", "identical"]
    line = refused(capsys, work, *argv, "--out", "./new", "--parquet", "./new")
    assert "--parquet new: --out names the same path" in line
    assert not (work / "new").exists()


# ------------------------------------------------------------------------------- an existing file


def test_an_existing_parquet_or_plot_file_is_replaced_only_with_overwrite(work, capsys):
    Path("mine.parquet").write_bytes(b"mine")
    Path("mine.png").write_bytes(b"mine")
    line = refused(capsys, work, *WEAT, "--parquet", "mine.parquet")
    assert line.endswith("--parquet mine.parquet already exists (pass --overwrite to replace it)")
    line = refused(capsys, work, *WEAT, "--plot", "mine.png")
    assert line.endswith("--plot mine.png already exists (pass --overwrite to replace it)")
    code, _, err = cli(capsys, *WEAT, "--parquet", "mine.parquet", "--plot", "mine.png", "--overwrite")
    assert code == 0, err
    assert Path("mine.parquet").read_bytes()[:4] == b"PAR1" and Path("mine.png").read_bytes()[:4] == b"\x89PNG"


def test_a_command_with_its_own_overwrite_uses_it_for_parquet(work, capsys):
    Path("c.parquet").write_bytes(b"mine")
    line = refused(capsys, work, "cda", "-i", "corpus.txt", "-o", "cout.txt", "--parquet", "c.parquet")
    assert "--parquet c.parquet already exists" in line
    code, _, err = cli(capsys, "cda", "-i", "corpus.txt", "-o", "cout.txt", "--parquet", "c.parquet", "--overwrite")
    assert code == 0, err
    assert Path("c.parquet").read_bytes()[:4] == b"PAR1" and Path("cout.txt").is_file()


def test_force_stays_the_work_budget():
    """--overwrite, not --force, replaces an output: on weat --force runs above the work budget."""
    from geobias.commands import get
    from geobias.commands._kinds import Kind, spec_of

    assert "overwrite" not in get("weat").params.model_fields  # the command line adds it
    assert spec_of(get("weat").params, "force").kind is Kind.BUDGET


def test_an_untyped_input_counts_and_a_language_does_not(work, capsys):
    """``vectors info TARGET`` reads TARGET, a plain string; ``--lang en`` names no file even beside a
    folder ``en``, so ``--parquet en/x.parquet`` is written."""
    line = refused(capsys, work, "vectors", "info", "in.vec", "--parquet", "in.vec", "--overwrite")
    assert "--parquet in.vec is an input of this command (TARGET)" in line
    Path("en").mkdir()
    code, _, err = cli(capsys, *WEAT, "--lang", "en", "--parquet", "en/x.parquet")
    assert code == 0, err
    assert Path("en/x.parquet").read_bytes()[:4] == b"PAR1"


def test_hard_debias_neutral_is_an_input_and_still_not_the_services(work, capsys):
    """--neutral is a word file hard-debias reads (it was declared an output only so that the
    service would refuse a client's path); the service still refuses it."""
    from geobias.commands import get, validate
    from geobias.errors import ParameterError

    Path("n.txt").write_text("a\nb\n", encoding="utf-8")
    line = refused(capsys, work, "hard-debias", "-v", "in.vec", "--neutral", "n.txt", "--out", "o.vec",
                   "--parquet", "n.txt", "--overwrite")
    assert "--parquet n.txt is an input of this command (--neutral)" in line
    assert "neutral" not in get("hard-debias").output_fields
    with pytest.raises(ParameterError, match="neutral is not available in the service"):
        validate("hard-debias", {"lang": "en", "neutral": "/etc/passwd"}, front="service")
