"""The generated noun lists hold singular, inanimate nouns of one gender, for every language: no word of
the language's own person, definitional, attribute or occupation lists, no regular plural of a listed
word, none of the slips the issues found, and each language's PROVENANCE.md states the counts."""

from __future__ import annotations

import re

import pytest

from geobias import wordlists
from geobias.languages import LANGUAGES, get_language

pytestmark = pytest.mark.store

ALL_LANGS = tuple(LANGUAGES)
#: Languages with generated noun lists (scripts/make_gendered_nouns.py); the others have none (no
#: grammatical gender, or, for Arabic, no packaged analyser).
NOUN_LANGS = ("es", "fr", "de", "it", "pt", "pl", "ru", "nl")

#: Regular plural endings, ``(singular ending, plural ending)``: the definition of "a plural whose
#: singular is listed" (German also with the last a/o/u umlauted, plus -e/-er).
PLURAL_RULES = {
    "es": (("", "s"), ("", "es"), ("z", "ces"), ("ión", "iones"), ("én", "enes"), ("án", "anes"), ("ón", "ones")),
    "fr": (("", "s"), ("", "x"), ("al", "aux"), ("ail", "aux")),
    "it": (("o", "i"), ("e", "i"), ("a", "e"), ("a", "i"), ("co", "chi"), ("go", "ghi"), ("ca", "che"),
           ("ga", "ghe"), ("io", "i")),
    "pt": (("", "s"), ("", "es"), ("ão", "ões"), ("ão", "ães"), ("al", "ais"), ("el", "éis"), ("ol", "óis"),
           ("ul", "uis"), ("il", "is"), ("m", "ns")),
    "de": (("", "e"), ("", "en"), ("", "n"), ("", "s"), ("", "nen"), ("", "er")),
    "nl": (("", "en"), ("", "s"), ("", "'s")),
    "pl": (("a", "y"), ("a", "i"), ("o", "a"), ("", "y"), ("", "i"), ("", "e"), ("", "ów")),
    "ru": (("а", "ы"), ("а", "и"), ("я", "и"), ("о", "а"), ("е", "я"), ("ь", "и"), ("", "ы"), ("", "и"), ("", "а")),
}
_UMLAUT = str.maketrans("aouAOU", "äöüÄÖÜ")


def _plurals(lang: str, word: str) -> set[str]:
    out = {word[: len(word) - len(s)] + p for s, p in PLURAL_RULES[lang] if word.endswith(s)}
    if lang == "de":
        i = max((k for k, ch in enumerate(word) if ch in "aouAOU"), default=None)
        if i is not None:
            u = word[:i] + word[i].translate(_UMLAUT) + word[i + 1:]
            out |= {u, u + "e", u + "er"}
    return out - {word}


def _noun_lists(lang: str) -> dict[str, list[str]]:
    return {g: wordlists.nouns_of_gender(lang, g) for g in get_language(lang).genders
            if (wordlists.wordlist_dir() / lang / f"nouns_{g}.txt").is_file()}


def _person_words(lang: str) -> set[str]:
    """Every word of the language's person-noun, person-pair, occupation, definitional and attribute lists."""
    d = wordlists.wordlist_dir() / lang
    words: set[str] = set()
    if (d / "person_nouns.txt").is_file():
        words |= set(wordlists.read_word_file(d / "person_nouns.txt"))
    if (d / "person_pairs.tsv").is_file():
        words |= {w for p in wordlists.read_pair_file(d / "person_pairs.tsv") for w in p}
    words |= {w for p in wordlists.definitional_pairs(lang) for w in p}
    male, female = wordlists.attribute_words(lang)
    words |= set(male) | set(female)
    if "occupations" in wordlists.available_lists(lang):
        words |= {w for o in wordlists.occupations(lang) for w in (o.masculine, o.feminine)}
    return words | {w.lower() for w in words}


def _provenance_counts(lang: str) -> dict[str, int]:
    """``{file name: count}`` from the table rows ``| nouns_x.txt | N |`` of ``<lang>/PROVENANCE.md``."""
    text = (wordlists.wordlist_dir() / lang / "PROVENANCE.md").read_text(encoding="utf-8")
    return {m.group(1): int(m.group(2).replace(",", "")) for m in
            re.finditer(r"^\|\s*`?(nouns_\w+\.txt)`?\s*\|\s*([\d,]+)\s*\|", text, flags=re.M)}


def test_the_noun_languages_are_the_languages_with_lists():
    with_lists = {lang for lang in ALL_LANGS if _noun_lists(lang)}
    assert with_lists == set(NOUN_LANGS)
    assert len(ALL_LANGS) == 16


@pytest.mark.parametrize("lang", ALL_LANGS)
def test_provenance_states_each_list_and_its_count(lang):
    """Every language has a PROVENANCE.md; its counts are the files' counts (none where no list)."""
    counts = _provenance_counts(lang)
    lists = _noun_lists(lang)
    assert counts == {f"nouns_{g}.txt": len(v) for g, v in lists.items()}, lang
    if lang in NOUN_LANGS:
        assert all(n >= 300 for n in counts.values()), counts  # large enough to fit an LDA on


@pytest.mark.parametrize("lang", ALL_LANGS)
def test_no_noun_list_holds_a_word_of_the_person_lists(lang):
    persons = _person_words(lang)
    assert persons  # every language has definitional pairs and attribute words
    for gender, nouns in _noun_lists(lang).items():
        assert not persons & set(nouns), (lang, gender, sorted(persons & set(nouns))[:10])


@pytest.mark.parametrize("lang", ALL_LANGS)
def test_no_listed_noun_is_a_regular_plural_of_a_listed_noun(lang):
    lists = _noun_lists(lang)
    listed = {w for words in lists.values() for w in words}
    plural = sorted({p for w in listed for p in _plurals(lang, w)} & listed) if lists else []
    assert plural == [], (lang, plural[:10])


@pytest.mark.parametrize("lang", NOUN_LANGS)
def test_each_noun_has_one_gender(lang):
    seen: dict[str, str] = {}
    for gender, nouns in _noun_lists(lang).items():
        assert len(nouns) == len(set(nouns)), lang
        for w in nouns:
            assert seen.setdefault(w, gender) == gender, (lang, w, seen[w], gender)


def test_the_plural_rule_finds_the_plurals_the_issue_counted():
    """The rule is not vacuous: it finds the plurals of the lists as they were (abejas, actions, Ausgänge)."""
    assert "abejas" in _plurals("es", "abeja") and "actions" in _plurals("fr", "action")
    assert "Ausgänge" in _plurals("de", "Ausgang") and "Bücher" in _plurals("de", "Buch")
    assert "cose" in _plurals("it", "cosa") and "coisas" in _plurals("pt", "coisa")


@pytest.mark.parametrize(("lang", "gender", "words"), [
    ("pl", "feminine", {"kurwa", "mama", "osoba"}),
    ("it", "feminine", {"mamma", "femmina", "persona", "cose", "persone", "volte", "ore", "parole"}),
    ("it", "masculine", {"papà", "anni", "giorni"}),
    ("pt", "masculine", {"marido", "rapaz", "anos", "dias"}),
    ("pt", "feminine", {"mamãe", "coisas", "pessoas", "vezes"}),
    ("nl", "common", {"deelnemer", "volwassene", "slager"}),
    ("nl", "neuter", {"steenkool", "kind"}),
    ("ru", "neuter", {"евро", "го"}),
    ("ru", "masculine", {"лет", "диас", "бентли"}),
    # issue 43: es/fr plurals, German person nouns and names
    ("es", "feminine", {"personas", "veces", "cosas", "persona", "mamá"}),
    ("es", "masculine", {"años", "días", "papá", "marido"}),
    ("fr", "masculine", {"ans", "jours", "gens"}),
    ("fr", "feminine", {"fois", "choses"}),
    ("de", "masculine", {"Herrscher", "Denker", "Kriegsminister", "Mensch", "Gast", "Papa", "Prinz", "Johannes"}),
    ("de", "feminine", {"Russin", "Marie", "Herrscherin"}),
])
def test_the_reported_slips_are_gone(lang, gender, words):
    assert not words & set(wordlists.nouns_of_gender(lang, gender))
