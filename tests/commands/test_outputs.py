"""Outputs: one atomic-write helper, and every command refuses an unwritable output path with one
line and exit 1 *before* doing its work, writing nothing."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from geobias.cli import main
from geobias.errors import InputError
from geobias.io.atomic import atomic_directory, atomic_write, check_output_path, read_text
from geobias.sources import write_vectors
from geobias.store import VectorStore, save_store


def _tree(d):
    return sorted((str(p.relative_to(d)), p.stat().st_size if p.is_file() else -1) for p in d.rglob("*"))


@pytest.fixture
def dirs(tmp_path):
    afile = tmp_path / "a-file.txt"
    afile.write_text("keep me\n", encoding="utf-8")
    (tmp_path / "a-dir").mkdir()
    return tmp_path, afile


BAD_OUTPUTS = {  # how the output path is wrong -> what the one-line message says
    "missing-directory": (lambda t, f: t / "no-such-dir" / "out.x", "does not exist"),
    "through-a-file": (lambda t, f: f / "out.x", "is not a directory"),
    "is-a-directory": (lambda t, f: t / "a-dir", "directory"),
}


@pytest.mark.parametrize("kind", sorted(BAD_OUTPUTS))
def test_check_output_path(dirs, kind):
    tmp, afile = dirs
    make, message = BAD_OUTPUTS[kind]
    with pytest.raises(InputError, match=message):
        check_output_path(make(tmp, afile), what="plot")


def test_check_output_path_overwrite_and_readonly(dirs, monkeypatch):
    tmp, afile = dirs
    with pytest.raises(InputError, match="already exists"):
        check_output_path(afile, overwrite=False)
    assert check_output_path(afile) == afile
    ro = tmp / "ro"
    ro.mkdir(mode=0o555)
    if os.geteuid() == 0:  # root writes into mode-555 directories: pretend the kernel refuses
        monkeypatch.setattr(os, "access", lambda path, mode: Path(path) != ro)
    with pytest.raises(InputError, match="not writable"):
        check_output_path(ro / "x.png")


def test_atomic_write_failure_leaves_the_old_file(dirs):
    tmp, afile = dirs
    before = _tree(tmp)
    with pytest.raises(RuntimeError), atomic_write(afile) as fh:
        fh.write(b"half")
        raise RuntimeError("interrupted")
    assert afile.read_text(encoding="utf-8") == "keep me\n"
    assert _tree(tmp) == before  # no temporary file left behind
    with atomic_write(afile, mode="w") as fh:
        fh.write("new\n")
    assert afile.read_text(encoding="utf-8") == "new\n" and _tree(tmp) != before


def test_atomic_directory_replaces_only_on_success(tmp_path):
    dest = tmp_path / "store"
    dest.mkdir()
    (dest / "old").write_text("x", encoding="utf-8")
    with pytest.raises(RuntimeError), atomic_directory(dest, overwrite=True) as tmp:
        (tmp / "new").write_text("y", encoding="utf-8")
        raise RuntimeError
    assert sorted(p.name for p in tmp_path.iterdir()) == ["store"] and (dest / "old").exists()
    with atomic_directory(dest, overwrite=True) as tmp:
        (tmp / "new").write_text("y", encoding="utf-8")
    assert sorted(p.name for p in dest.iterdir()) == ["new"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["store"]


def test_read_text_errors(dirs):
    tmp, _ = dirs
    (tmp / "latin1.txt").write_bytes("caf\xe9\n".encode("latin-1"))
    for path, message in ((tmp / "nope.txt", "file not found"), (tmp / "a-dir", "is a directory"),
                          (tmp / "latin1.txt", "not UTF-8")):
        with pytest.raises(InputError, match=message):
            read_text(path, what="word-list")


@pytest.mark.parametrize("kind", sorted(BAD_OUTPUTS))
def test_library_writers_refuse_bad_paths(dirs, kind):
    tmp, afile = dirs
    make, message = BAD_OUTPUTS[kind]
    store = VectorStore(["a", "b"], np.eye(2, dtype=np.float32))
    before = _tree(tmp)
    with pytest.raises(InputError, match=message):
        write_vectors(store, make(tmp, afile))
    if kind != "is-a-directory":  # a store *is* a directory: replacing one needs overwrite=True
        with pytest.raises(InputError, match=message):
            save_store(store, make(tmp, afile))
    assert _tree(tmp) == before


def run(capsys, *args):
    with pytest.raises(SystemExit) as info:
        main([str(a) for a in args])
    out, err = capsys.readouterr()
    return info.value.code, out, err


def _commands(out, words):
    """Each command with a bad output path; every one must fail before loading vectors or a model."""
    return {
        "directions --plot": ["directions", "--lang", "fr", "--plot", out],
        "probe becpro --plot": ["probe", "becpro", "--model", "no-such-model", "--plot", out],
        "becpro generate --out": ["becpro", "generate", "--lang", "en", "--out", out],
        "vectors pool --out": ["vectors", "pool", "--model", "no-such-model", "--words", words, "--out", out],
    }


@pytest.mark.parametrize("kind", sorted(BAD_OUTPUTS))
@pytest.mark.parametrize("command", sorted(_commands("x", "y")))
def test_cli_bad_output_one_line_nothing_written(dirs, capsys, monkeypatch, kind, command):
    tmp, afile = dirs
    monkeypatch.delenv("GEOBIAS_DEBUG", raising=False)
    make, message = BAD_OUTPUTS[kind]
    out = make(tmp, afile)
    if command == "vectors pool --out" and kind == "is-a-directory":
        message = "exists"  # an existing store directory needs --overwrite
    words = tmp / "words.txt"
    words.write_text("nurse\n", encoding="utf-8")
    before = _tree(tmp)
    rc, stdout, err = run(capsys, *_commands(out, words)[command])
    assert rc == 1, stdout
    assert len(err.strip().splitlines()) == 1 and message in err and "internal error" not in err, err
    assert _tree(tmp) == before


def test_pool_rejects_unknown_language_before_loading(tmp_path, capsys):
    words = tmp_path / "words.txt"
    words.write_text("nurse\n", encoding="utf-8")
    rc, _, err = run(capsys, "vectors", "pool", "--model", "no-such-model", "--words", words,
                     "--lang", "xx", "--out", tmp_path / "pooled")
    assert rc == 1 and "unknown language 'xx'" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["words.txt"]
