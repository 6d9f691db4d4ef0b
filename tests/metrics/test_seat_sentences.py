"""Every SEAT sentence of the built-in tests is committed for reading
(``wordlists/<lang>/seat_sentences.tsv``, written by ``scripts/make_seat_sentences.py``): the files
are what the generator makes and what ``seat`` encodes, and none of the grammar errors a native
reader found recurs (each is fixed at its source: the templates, the word annotations or the code)."""

from __future__ import annotations

import csv
import importlib.util
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LANGS = ("en", "es", "fr", "de")


def _script():
    spec = importlib.util.spec_from_file_location("make_seat_sentences", ROOT / "scripts" / "make_seat_sentences.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["make_seat_sentences"] = module
    spec.loader.exec_module(module)
    return module


def rows(lang: str) -> list[dict]:
    text = (ROOT / "wordlists" / lang / "seat_sentences.tsv").read_text(encoding="utf-8")
    return list(csv.DictReader([line for line in text.splitlines() if not line.startswith("#")], delimiter="\t",
                               quoting=csv.QUOTE_NONE))


def sentences(lang: str) -> set[str]:
    return {r["sentence"] for r in rows(lang)}


@pytest.mark.parametrize("lang", LANGS)
def test_the_committed_sentences_are_the_generator_s(lang):
    path = ROOT / "wordlists" / lang / "seat_sentences.tsv"
    assert path.read_text(encoding="utf-8") == _script().render(lang), (
        f"{path.name} ({lang}) differs from the generator: run scripts/make_seat_sentences.py")


@pytest.mark.parametrize("lang", LANGS)
def test_the_file_holds_what_seat_encodes_for_every_built_in_test(lang):
    """Per test and set, the file's sentences are exactly the ones the metric puts into that set."""
    from geobias import wordlists
    from geobias.metrics.seat import noun_genders, read_templates, read_word_kinds, sentences_for

    templates, kinds, genders = read_templates(lang), read_word_kinds(lang), noun_genders(lang)
    have = {}
    for r in rows(lang):
        have.setdefault((r["test"], r["set"]), []).append(r["sentence"])
    tests = wordlists.weat_tests(lang)
    assert {t for t, _ in have} == set(tests) and len(tests) >= 6
    for test in tests:
        t = wordlists.weat_test(lang, test)
        every = frozenset(t.X + t.Y + t.A + t.B)
        for name, words in zip("XYAB", (t.X, t.Y, t.A, t.B), strict=True):
            assert have[(test, name)] == sentences_for(words, templates, genders, kinds, every), (test, name)


#: The errors a native reader corrected (issue 42), and the classes they stand for, per language.
#: French: a noun that names one thing given the partitive; "madame", a form of address, given an
#: article or a plural. German: a nominalised adjective after "die" in its strong form. Spanish: an
#: adjective of a state with ser. English: a noun that needs an article without one.
FR_ABSTRACT = ("paradis", "mort", "liberté", "santé", "paix", "aube", "honneur", "pauvreté", "agonie", "puanteur",
               "cancer", "plaisir")
ERRORS = {
    "fr": [re.compile(r"\b(?:du|de la|de l')\s*(?:" + "|".join(FR_ABSTRACT) + r")\b", re.I),
           re.compile(r"\b(?:une?|la|le|l'|des|les|ces)\s*(?:madame|mesdames)\b", re.I),
           re.compile(r"\bmesdames\b", re.I)],
    "de": [re.compile(r"\b[Dd]ie (?:Verwandte|Bekannte|Angehörige|Deutsche|Erwachsene)\b(?!n)")],
    "es": [re.compile(r"\b[Ee]s (?:muy )?(?:podrid|roto|rota|cansad|enferm|muert)\w*")],
    "en": [re.compile(r"\b(?:is|was) (?:stink|stench)\b", re.I)],
}
#: The very sentences the issue quotes.
QUOTED = {"fr": ["C'est du paradis.", "C'est de la mort.", "C'est une madame.", "Ce sont des mesdames."],
          "de": ["Das sind die Verwandte."], "es": ["Es podrido."], "en": ["This is stink."]}


@pytest.mark.parametrize("lang", LANGS)
def test_none_of_the_corrected_errors_recurs(lang):
    every = sentences(lang)
    assert not set(QUOTED[lang]) & every
    for pattern in ERRORS[lang]:
        bad = sorted(s for s in every if pattern.search(s))
        assert bad == [], f"{lang}: {pattern.pattern} matches {bad[:5]}"


def test_the_error_patterns_catch_what_they_are_for():
    """The checks can fail: each quoted error matches its language's patterns."""
    for lang, quoted in QUOTED.items():
        for s in quoted:
            assert any(p.search(s) for p in ERRORS[lang]), (lang, s)


def test_the_corrections_read_as_they_should():
    """The fixed forms are there: the definite article for a noun that names one thing, madame
    without an article, the weak plural after die, estar for a state, the article before stink."""
    assert {"C'est le paradis.", "C'est la mort.", "L'honneur est là.", "Madame est là."} <= sentences("fr")
    assert "Das sind die Verwandten." in sentences("de")
    assert {"Está podrido.", "Está muy podrido."} <= sentences("es")
    assert {"This is the stink.", "The stink is here."} <= sentences("en")
    # the mass nouns that do take the partitive keep it
    assert {"C'est de la poésie.", "C'est de l'algèbre.", "C'est du poison."} <= sentences("fr")
