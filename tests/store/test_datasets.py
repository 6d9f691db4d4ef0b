"""``geobias data install|path``: evaluation data fetched once (MUSE dictionaries, GAP), offline
from a local copy here (the download path shares geobias.io.download, tested on a local server)."""

from __future__ import annotations

import hashlib

import pytest

from geobias.commands import run
from geobias.errors import InputError


@pytest.fixture
def datasets(tmp_path, monkeypatch):
    monkeypatch.setenv("GEOBIAS_DATASETS_DIR", str(tmp_path / "datasets"))
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "fr-en.0-5000.txt").write_text("chat cat\nchien dog\n", encoding="utf-8")
    (mine / "fr-en.5000-6500.txt").write_text("maison house\n", encoding="utf-8")
    return mine


def test_install_from_a_local_copy_then_find_it(datasets):
    installed = run("data install", name="muse-dictionary", parts=["fr-en"], from_path=[datasets]).installed[0]
    assert [f.rsplit("/", 1)[-1] for f in installed.files] == ["fr-en.0-5000.txt", "fr-en.5000-6500.txt"]
    want = hashlib.sha256((datasets / "fr-en.0-5000.txt").read_bytes()).hexdigest()
    assert installed.sha256["fr-en.0-5000.txt"] == want and installed.source == "local copy"
    found = run("data path", name="muse-dictionary", part="fr-en")
    assert found.files == installed.files and open(found.files[1]).read() == "maison house\n"
    # the installed dictionary reads as one (the evaluation's reader)
    from geobias.alignment.dictionary import read_dictionary

    assert len(read_dictionary(found.files[0]).pairs) == 2


@pytest.mark.parametrize("params,message", [
    ({"name": "muse", "part": "fr-en"}, "unknown dataset 'muse'; choose from muse-dictionary, gap"),
    ({"name": "muse-dictionary", "part": "french"}, "muse-dictionary: no part 'french' (a language pair"),
    ({"name": "muse-dictionary"}, "muse-dictionary needs a part"),
    ({"name": "gap"}, "gap development is not installed: geobias data install gap development"),
])
def test_bad_input_is_one_line(datasets, params, message):
    with pytest.raises(InputError) as info:
        run("data path", **params)
    assert str(info.value).startswith(message) and "\n" not in str(info.value)


def test_a_local_copy_that_is_not_the_file_is_refused(datasets, tmp_path):
    other = tmp_path / "other.txt"
    other.write_text("x\n")
    with pytest.raises(InputError, match="is fr-en.0-5000.txt"):
        run("data install", name="muse-dictionary", parts="fr-en", from_path=[other])
