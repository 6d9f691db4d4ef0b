"""CLI of the analysis commands: JSON schemas, tables, and one-line errors with exit 1."""

from __future__ import annotations

import importlib
import sys
import types
from dataclasses import dataclass

import numpy as np
import pytest
from _envelope import result_of

import geobias
from geobias.cli import main
from geobias.store import VectorStore, load_store, save_store

N_OCC = 12


@dataclass(frozen=True)
class _Occ:
    feminine: str
    masculine: str
    english: str


@dataclass(frozen=True)
class _Weat:
    name: str
    X: list
    Y: list
    A: list
    B: list


def _synthetic_store() -> VectorStore:
    """Occupations with a planted semantic offset, gendered nouns split along a grammatical axis."""
    rng = np.random.default_rng(0)
    dim = 24
    sem, gram = np.eye(dim)[0], np.eye(dim)[1]
    words, rows = [], []

    def add(w, v):
        words.append(w)
        rows.append(v)

    for i in range(N_OCC):
        base = rng.normal(size=dim)
        add(f"occm{i}", base + 0.8 * sem + 0.5 * gram)
        add(f"occf{i}", base - 0.3 * sem - 0.5 * gram)
    for i in range(6):
        base = rng.normal(size=dim)
        add(f"homme{i}", base + 1.0 * sem + 0.5 * gram)
        add(f"femme{i}", base - 1.0 * sem - 0.5 * gram)
    for i in range(60):
        add(f"nm{i}", rng.normal(size=dim) + 2 * gram)
        add(f"nf{i}", rng.normal(size=dim) - 2 * gram)
    for i in range(8):
        add(f"x{i}", rng.normal(size=dim) + sem)
        add(f"y{i}", rng.normal(size=dim) - sem)
    return VectorStore(words, np.array(rows), lang="fr", provenance={"source": "synthetic"})


def _fake_wordlists() -> types.ModuleType:
    m = types.ModuleType("geobias.wordlists")
    real = importlib.import_module("geobias.wordlists")
    m.read_occupation_file = real.read_occupation_file  # the user-file readers are the real ones
    m.read_attribute_file = real.read_attribute_file
    m.TwoFormWord = real.TwoFormWord
    m.occupations = lambda lang: [_Occ(f"occf{i}", f"occm{i}", f"job{i}") for i in range(N_OCC)] + [
        _Occ("absentef", "absentm", "ghost")
    ]
    m.attribute_words = lambda lang: ([f"homme{i}" for i in range(6)], [f"femme{i}" for i in range(6)])
    m.definitional_pairs = lambda lang: [(f"femme{i}", f"homme{i}") for i in range(6)]
    m.gendered_nouns = lambda lang: ([f"nm{i}" for i in range(60)] + ["pasla"], [f"nf{i}" for i in range(60)])
    m.available_lists = lambda lang: {"definitional_pairs", "attributes", "occupations", "gendered_nouns",
                                      "weat:career-family"}

    def weat_test(lang, name):
        if name != "career-family":
            raise geobias.errors.InputError(f"unknown WEAT test {name!r}")
        return _Weat(name, [f"x{i}" for i in range(8)], [f"y{i}" for i in range(8)],
                     [f"homme{i}" for i in range(6)], [f"femme{i}" for i in range(6)])

    m.weat_test = weat_test
    return m


@pytest.fixture
def env(tmp_path, monkeypatch):
    """A cached synthetic store, stub word lists, and resolve_store (real one when it exists)."""
    cache = tmp_path / "store"
    save_store(_synthetic_store(), cache)
    fake = _fake_wordlists()
    monkeypatch.setitem(sys.modules, "geobias.wordlists", fake)
    monkeypatch.setattr(geobias, "wordlists", fake, raising=False)
    try:
        importlib.import_module("geobias.sources").resolve_store  # noqa: B018
    except (ImportError, AttributeError):
        stub = types.ModuleType("geobias.sources")
        stub.resolve_store = lambda lang, vectors, *, limit=None, trust_pickle=False: load_store(vectors, limit=limit)
        monkeypatch.setitem(sys.modules, "geobias.sources", stub)
        monkeypatch.setattr(geobias, "sources", stub, raising=False)
    return tmp_path, str(cache)


def run(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    out, err = capsys.readouterr()
    return exc.value.code, out, err


def test_mweat_json_schema(env, capsys):
    _, cache = env
    rc, out, err = run(["mweat", "--lang", "fr", "--vectors", cache, "--permutations", "2000", "--json"], capsys)
    assert rc == 0, err
    d = result_of(out)
    for key in ("statistic", "p_value", "p_value_ci", "n_permutations", "exact", "seed", "n_pairs", "missing", "per_word"):
        assert key in d
    assert d["n_pairs"] == N_OCC and d["n_permutations"] == 2000 and d["seed"] == 0
    assert d["missing"] == ["absentm", "absentef"]  # the stub list's absent pair is reported
    lo, hi = d["p_value_ci"]
    assert lo <= d["p_value"] <= hi
    assert set(d["per_word"][0]) == {"masculine", "feminine", "english", "s_masculine", "s_feminine", "bias"}
    # planted: masculine forms lean male much more than feminine forms lean female
    assert d["statistic"] > 0 and d["p_value"] < 0.05


def test_mweat_table_and_files(env, capsys):
    tmp, cache = env
    targets = tmp / "targets.tsv"
    targets.write_text("# feminine\tmasculine\tenglish\noccf0\toccm0\tjob0\noccf1\toccm1\tjob1\n", encoding="utf-8")
    attrs = tmp / "attrs.tsv"
    attrs.write_text("homme0\tfemme0\nhomme1\t\n", encoding="utf-8")
    rc, out, err = run(["mweat", "--vectors", cache, "--targets", str(targets), "--attributes", str(attrs),
                        "--paired", "--permutations", "10"], capsys)
    assert rc == 0, err
    assert "MWEAT" in out and "Most biased pairs" in out and "occm0" in out
    assert "exact" in out  # 2 pairs paired: 4 labellings ≤ 10 → exact


def test_mweat_errors_one_line(env, capsys):
    tmp, cache = env
    rc, out, err = run(["mweat", "--lang", "fr", "--vectors", cache, "--permutations", "0"], capsys)
    assert rc == 2 and err.count("\n") == 1 and "positive" in err and "Traceback" not in err  # a usage error
    bad = tmp / "bad.tsv"
    bad.write_text("only\n", encoding="utf-8")
    rc, _, err = run(["mweat", "--lang", "fr", "--vectors", cache, "--targets", str(bad)], capsys)
    assert rc == 1 and "bad.tsv:1" in err and err.count("\n") == 1  # names file and line
    oov = tmp / "oov.tsv"
    oov.write_text("aa\tbb\ncc\tdd\n", encoding="utf-8")
    rc, _, err = run(["mweat", "--lang", "fr", "--vectors", cache, "--targets", str(oov)], capsys)
    assert rc == 1 and "out of vocabulary" in err and err.count("\n") == 1
    rc, _, err = run(["mweat", "--lang", "fr", "--vectors", cache, "--oov", "raise"], capsys)
    assert rc == 1 and "absentm" in err
    rc, _, err = run(["mweat", "--lang", "fr", "--vectors", cache, "--similarity", "euclid"], capsys)
    # a value outside a CLI choice is a usage error (exit 2) naming the option and its values
    assert rc == 2 and "'--similarity': 'euclid' is not one of 'cosine', 'dot'" in err and err.count("\n") == 1
    rc, _, err = run(["mweat", "--vectors", cache], capsys)
    assert rc == 1 and "--lang" in err


def test_weat_json_and_table(env, capsys):
    _, cache = env
    rc, out, err = run(["weat", "--lang", "fr", "--vectors", cache, "--test", "career-family", "--json",
                        "--permutations", "5000"], capsys)
    assert rc == 0, err
    d = result_of(out)
    for key in ("statistic", "effect_size", "effect_size_ddof", "effect_size_ddof0", "p_value", "p_value_ci",
                "n_permutations", "exact", "seed", "missing"):
        assert key in d
    assert d["effect_size_ddof"] == 1 and d["effect_size"] > 1  # planted ±sem offset
    rc, out, _ = run(["weat", "--lang", "fr", "--vectors", cache, "--test", "career-family", "--permutations", "100"], capsys)
    assert rc == 0 and "effect size" in out
    rc, _, err = run(["weat", "--lang", "fr", "--vectors", cache, "--test", "nope"], capsys)
    assert rc == 1 and "nope" in err


def test_directions_json_and_plot(env, capsys):
    tmp, cache = env
    png = tmp / "plane.png"
    rc, out, err = run(["directions", "--lang", "fr", "--vectors", cache, "--json", "--plot", str(png)], capsys)
    assert rc == 0, err
    d = result_of(out)
    assert isinstance(d["explained_variance_ratio"], list)
    assert d["n_nouns"] == {"masculine": 60, "feminine": 60}
    assert d["lda_cv_accuracy"] > 0.95  # classes 4 sd apart
    assert -1 <= d["cos_pca_grammatical"] <= 1 and 0 < d["cos_semantic_pca"] <= 1
    assert d["missing"]["nouns"] == ["pasla"]
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not list(tmp.glob(".plane.png.*"))  # atomic write left no temporary file
    rc, out, _ = run(["directions", "--lang", "fr", "--vectors", cache], capsys)
    assert rc == 0 and "LDA" in out
    rc, _, err = run(["directions", "--lang", "xx", "--vectors", cache], capsys)
    assert rc == 1 and "unknown language" in err and err.count("\n") == 1
