"""The engine seam without Ray: local engine, options, audit config and a local audit grid."""

from __future__ import annotations

import json

import pytest
from _engine_grid import TESTS, write_grid

from geobias import wordlists
from geobias.engine import LocalEngine, make_engine
from geobias.errors import InputError
from geobias.evaluation.audit import plan_cells, read_config, run_audit
from geobias.query import WordQuery
from geobias.store import load_store


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"kind": "spark"}, "--engine must be one of local, ray"),
        ({"kind": "local", "actors": 2}, "--actors needs --engine ray"),
        ({"kind": "local", "ray_address": "auto"}, "--ray-address needs --engine ray"),
        ({"kind": "local", "threads": 0}, "--threads must be >= 1"),
        ({"kind": "ray", "threads": 0}, "--threads must be >= 1"),
        ({"kind": "ray", "actors": 0}, "--actors must be >= 1"),
    ],
)
def test_engine_options_are_checked(kwargs, message):
    with pytest.raises(InputError, match=message):
        make_engine(**kwargs)


def test_local_engine_sets_and_restores_torch_threads(monkeypatch):
    torch = pytest.importorskip("torch")
    before = torch.get_num_threads()
    with LocalEngine(threads=1) as eng:
        assert torch.get_num_threads() == 1
        assert eng.describe() == {"engine": "local", "torch_threads": 1}
    assert torch.get_num_threads() == before
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    assert LocalEngine().describe()["torch_threads"] == 1  # the user's cap is the default


def test_audit_grid_local_cells_are_the_commands_results(tmp_path):
    from geobias.metrics import mweat, weat

    config = read_config(write_grid(tmp_path))
    with LocalEngine(threads=1) as eng:
        res = run_audit(config, eng)
    # store x test x language, in that nesting; relative paths are relative to the config
    assert [(c["store"].rsplit("/", 1)[-1], c["test"]) for c in res.cells] == [
        (s, t) for s in ("store0", "store1", "missing") for t in TESTS
    ]
    assert (res.n_ok, res.n_failed) == (4, 5) and res.skipped == []
    ok = {(c["store"].rsplit("/", 1)[-1], c["test"]): c for c in res.cells if c["status"] == "ok"}
    for name in ("store0", "store1"):
        store = load_store(tmp_path / name)
        sets = wordlists.weat_test("en", "career-family")
        w = weat(store, WordQuery(sets.X, sets.Y, sets.A, sets.B), permutations=500, seed=3, oov="ignore", test=sets.name)
        cell = ok[(name, "weat:career-family")]
        assert cell["summary"]["effect_size"] == pytest.approx(w.effect_size, abs=1e-12)
        assert cell["envelope"]["result"]["p_value"] == pytest.approx(w.p_value, abs=1e-12)
        assert set(cell["envelope"]) == {"command", "geobias_version", "inputs", "result"}
        assert cell["envelope"]["command"] == "weat" and cell["envelope"]["inputs"]["options"]["seed"] == 3
        occ = wordlists.occupations("en")
        male, female = wordlists.attribute_words("en")
        m = mweat(store, WordQuery.two_form(occ, male, female), permutations=500, seed=3, oov="ignore")
        assert ok[(name, "mweat")]["summary"]["statistic"] == pytest.approx(m.statistic, abs=1e-12)
    errors = [c["error"] for c in res.cells if c["status"] == "error"]
    assert all("\n" not in e and e for e in errors)
    assert sum("no-such-test" in e for e in errors) == 3 and sum("missing" in e for e in errors) == 2


def test_audit_registry_store_pairs_only_with_its_language(tmp_path):
    path = tmp_path / "a.toml"
    path.write_text('stores = ["fr-spacy-md"]\nlanguages = ["fr", "en"]\ntests = ["mweat"]\n')
    cells, skipped = plan_cells(read_config(path))
    assert [(c["store"], c["lang"]) for c in cells] == [("fr-spacy-md", "fr")]
    assert skipped == [{"store": "fr-spacy-md", "lang": "en", "reason": "fr-spacy-md holds 'fr' vectors"}]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('stores = ["x"]\nlanguages = ["en"]\n', "'tests' must be a non-empty list"),
        ('stores = []\nlanguages = ["en"]\ntests = ["mweat"]\n', "'stores' must be a non-empty list"),
        ('stores = ["x"]\nlanguages = ["xx"]\ntests = ["mweat"]\n', "xx"),
        ('stores = ["x"]\nlanguages = ["en"]\ntests = ["seat"]\n', "must be 'mweat' or 'weat:NAME'"),
        ('stores = ["x"]\nlanguages = ["en"]\ntests = ["mweat"]\n[options]\npermutations = "many"\n',
         "permutations must be an integer"),
        ('stores = ["x"]\nlanguages = ["en"]\ntests = ["mweat"]\n[options]\nfoo = 1\n', "unknown option 'foo'"),
        ('stores = ["x"]\nlanguages = ["en"]\ntests = ["mweat"]\nextra = 1\n', "unknown key"),
        ('stores = ["x"\n', "invalid TOML"),
    ],
)
def test_audit_config_errors(tmp_path, text, message):
    path = tmp_path / "a.toml"
    path.write_text(text)
    with pytest.raises(InputError, match=message):
        read_config(path)


def test_audit_cli_writes_one_report_and_never_overwrites(tmp_path, capsys):
    from geobias.cli import main

    config = write_grid(tmp_path, permutations=200)
    report = tmp_path / "report.json"
    with pytest.raises(SystemExit) as exc:
        main(["audit", "--config", str(config), "--out", str(report)])
    assert exc.value.code == 0
    captured = capsys.readouterr()
    out = captured.out
    assert "4 ok, 5 failed" in out and "failed" in out
    assert f"report written to {report}" in captured.err  # "written to" lines go to stderr
    data = json.loads(report.read_text())
    assert data["command"] == "audit" and data["inputs"]["engine"]["engine"] == "local"
    assert [c["status"] for c in data["result"]["cells"]].count("ok") == 4
    before = report.read_text()
    with pytest.raises(SystemExit) as exc:
        main(["audit", "--config", str(config), "--out", str(report)])
    err = capsys.readouterr().err
    assert exc.value.code == 1 and err.startswith("geobias: error: ") and err.count("\n") == 1
    assert report.read_text() == before and sorted(p.name for p in tmp_path.iterdir() if p.suffix == ".json") == ["report.json"]


def test_unreachable_ray_address_is_one_line():
    pytest.importorskip("ray")
    from geobias.engine.ray_engine import RayEngine
    from geobias.errors import GeobiasError

    with pytest.raises(GeobiasError, match="cannot reach a Ray cluster at 127.0.0.1:1"), RayEngine("127.0.0.1:1"):
        pass


def test_ray_failures_map_back_to_the_geobias_error_class():
    pytest.importorskip("ray")
    from geobias.engine.ray_engine import _as_geobias_error
    from geobias.errors import GeobiasError, ModelError

    class RayTaskError(Exception):  # what Ray raises: the worker's traceback as text
        pass

    text = "ray::MapWorker()\nTraceback (most recent call last):\n  File x\ngeobias.errors.ModelError: model m has no masked-LM head\n"
    err = _as_geobias_error(RayTaskError(text))
    assert type(err) is ModelError and str(err) == "model m has no masked-LM head"
    chained = RuntimeError("wrapper")
    chained.__cause__ = ModelError("inner")
    assert str(_as_geobias_error(chained)) == "inner"
    other = _as_geobias_error(RayTaskError("boom\nsecond line"))
    assert type(other) is GeobiasError and str(other) == "Ray engine: RayTaskError: boom"
