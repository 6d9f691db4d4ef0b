"""``geobias seat --tests``: one SEAT test file or several (the option repeated, a comma list, or
both), each named in the result with its categories; a bad file gets one line naming it and exit 1
before any encoder loads. The same files from Python."""

from __future__ import annotations

import copy
import hashlib
import json

import numpy as np
import pytest

OWN = {
    "targ1": {"category": "Flowers", "examples": ["This is a rose.", "That is a tulip.", "Here is a daisy."]},
    "targ2": {"category": "Insects", "examples": ["This is a wasp.", "That is a flea.", "Here is a moth."]},
    "attr1": {"category": "Pleasant", "examples": ["This is love.", "That is peace.", "Here is joy."]},
    "attr2": {"category": "Unpleasant", "examples": ["This is abuse.", "That is filth.", "Here is grief."]},
}


def _variant(category: str, prefix: str) -> dict:
    """OWN with another X category and X sentences (so each file's result can be told apart)."""
    data = copy.deepcopy(OWN)
    data["targ1"] = {"category": category, "examples": [f"{prefix} {s}" for s in OWN["targ1"]["examples"]]}
    return data


def _hash_encode(sentences):
    """A deterministic stand-in encoder: each sentence's vector from a hash of its text."""
    rows = [np.random.default_rng(int.from_bytes(hashlib.sha256(s.encode()).digest()[:8], "little")).standard_normal(8)
            for s in sentences]
    return np.array(rows)


@pytest.fixture
def files(tmp_path, monkeypatch):
    import geobias.contextual.sentence_encoders as se

    monkeypatch.setattr(se, "sentence_encoder", lambda *a, **k: _hash_encode)
    out = {}
    for name, data in (("own", OWN), ("roses", _variant("Roses", "Look:")), ("tulips", _variant("Tulips", "See:"))):
        out[name] = tmp_path / f"{name}.jsonl"
        out[name].write_text(json.dumps(data), encoding="utf-8")
    return out


def _run(capsys, argv):
    from geobias.cli import main

    with pytest.raises(SystemExit) as info:
        main(argv)
    out, err = capsys.readouterr()
    return info.value.code, out, err


def test_repeated_tests_options_give_one_result_per_file(files, capsys):
    code, out, _ = _run(capsys, ["seat", "--tests", str(files["own"]), "--tests", str(files["roses"]),
                                 "--encoder", "hash", "--permutations", "100", "--json"])
    assert code == 0
    r = json.loads(out)["result"]
    got = [(t["test"], t["categories"]["X"], t["source"]) for t in [r, *r["more_tests"]]]
    assert got == [("own", "Flowers", str(files["own"])), ("roses", "Roses", str(files["roses"]))]
    # the result of each file is that file's own test: the same as running it alone
    code, alone, _ = _run(capsys, ["seat", "--tests", str(files["roses"]), "--encoder", "hash", "--permutations", "100",
                                   "--json"])
    assert json.loads(alone)["result"]["effect_size"] == r["more_tests"][0]["effect_size"]
    assert r["effect_size"] != r["more_tests"][0]["effect_size"]


def test_a_comma_list_still_works_and_mixes_with_repeats(files, capsys):
    code, out, _ = _run(capsys, ["seat", "--tests", f"{files['own']},{files['roses']}", "--tests", str(files["tulips"]),
                                 "--encoder", "hash", "--permutations", "100", "--json"])
    assert code == 0
    r = json.loads(out)["result"]
    assert [t["test"] for t in [r, *r["more_tests"]]] == ["own", "roses", "tulips"]


def test_the_table_names_every_file_and_its_categories(files, capsys):
    code, out, _ = _run(capsys, ["seat", "--tests", str(files["own"]), "--tests", str(files["tulips"]),
                                 "--encoder", "hash", "--permutations", "100"])
    assert code == 0
    for word in ("own", "tulips", "Flowers", "Tulips", "Insects", "Pleasant", "Unpleasant"):
        assert word in out, word


def _write(text: str):
    """A maker of a bad file holding ``text``."""
    return lambda p: (p.write_text(text, encoding="utf-8"), p)[1]


@pytest.mark.parametrize(("make", "message"), [
    (lambda p: p, "cannot read the SEAT test file (FileNotFoundError"),
    (_write("not json"), "not a SEAT test file (not JSON"),
    (_write('{"targ1": 1}'), "not a SEAT test file (a JSON object with exactly"),
    (_write(""), "not a SEAT test file (no JSON object; the text is empty)"),
    (_write(json.dumps({**OWN, "attr2": {"category": "U", "examples": []}})),
     "attr2 (U) has no sentences"),
    (_write(json.dumps({**OWN, "attr2": {"category": "U", "examples": ["This is love."]}})),
     "the sentence 'This is love.' is in attr1 and attr2"),
    (_write(json.dumps({**OWN, "targ2": {"category": "I", "examples": ["A.", "A."]}})),
     "the sentence 'A.' is twice in targ2"),
])
def test_a_bad_second_file_is_one_line_naming_it_and_exit_1(files, capsys, tmp_path, make, message):
    import geobias.contextual.sentence_encoders as se

    def no_encoder(*a, **k):
        raise AssertionError("the encoder loaded before the files were checked")

    se.sentence_encoder = no_encoder  # the fixture's monkeypatch restores it
    bad = make(tmp_path / "bad.jsonl")
    code, out, err = _run(capsys, ["seat", "--tests", str(files["own"]), "--tests", str(bad), "--encoder", "hash"])
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and str(bad) in err and message in err, err


def test_the_same_test_name_twice_is_refused(files, capsys, tmp_path):
    other = tmp_path / "elsewhere"
    other.mkdir()
    (other / "own.jsonl").write_text(json.dumps(_variant("Roses", "Look:")), encoding="utf-8")
    code, _, err = _run(capsys, ["seat", "--tests", str(files["own"]), "--tests", str(other / "own.jsonl"),
                                 "--encoder", "hash"])
    assert code == 1 and err.count("\n") == 1 and "two SEAT tests are named 'own'" in err, err
    assert str(other / "own.jsonl") in err  # which files collide


def test_without_tests_the_built_in_test_runs(files, capsys):
    """A repeatable option left out is the model's default (no files), not an empty list."""
    code, out, err = _run(capsys, ["seat", "--lang", "en", "--encoder", "hash", "--permutations", "50", "--json"])
    assert code == 0, err
    r = json.loads(out)["result"]
    assert r["test"] == "career-family-terms" and r["source"] is None and r["n_templates"]


def test_a_template_test_without_lang_is_a_usage_error_naming_the_fix(files, capsys):
    """Neither --lang nor --tests: one line saying what to give (it said "unknown language None")."""
    code, out, err = _run(capsys, ["seat", "--encoder", "hash"])
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert "--lang" in err and "--tests" in err and "None" not in err


def test_python_takes_a_list_of_paths_or_one_path(files):
    from geobias.commands import execute
    from geobias.metrics.seat import read_seat_tests

    r, _ = execute("seat", {"tests": [files["own"], str(files["tulips"])], "encoder": "hash", "permutations": 50})
    assert [(t.test, t.categories["X"]) for t in [r, *r.more_tests]] == [("own", "Flowers"), ("tulips", "Tulips")]
    r, _ = execute("seat", {"tests": files["roses"], "encoder": "hash", "permutations": 50})
    assert r.test == "roses" and r.more_tests == []
    # one file holding two tests one after another (`cat a.jsonl b.jsonl`)
    both = files["own"].with_name("both.jsonl")
    both.write_text(files["own"].read_text() + "\n" + files["roses"].read_text(), encoding="utf-8")
    assert [t.name for t in read_seat_tests(both)] == ["both:1", "both:2"]
