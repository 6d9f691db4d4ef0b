"""Male/female versions of texts (Jentzsch & Turan 2022 §2.3), checked against hand-made sentences,
and the two bugs of the authors' notebook: terms next to punctuation, duplicate dictionary keys."""

from __future__ import annotations

import pytest

from geobias.contextual.sentiment_terms import GenderRewriter, TermPair, load_terms, read_term_pairs
from geobias.errors import InputError


@pytest.fixture(scope="module")
def pro():
    return load_terms("pro")


@pytest.fixture(scope="module")
def full():
    return load_terms("all")


@pytest.mark.parametrize(
    ("text", "male", "female"),
    [
        # hand-checked: every term of the set turned, whatever its gender, case kept
        ("She told him that his book is hers.", "He told him that his book is his.", "She told her that her book is hers."),
        ("I saw her. Then HE left, and she followed her own path.",
         "I saw him. Then HE left, and he followed his own path.",
         "I saw her. Then SHE left, and she followed her own path."),
        # punctuation on either side, apostrophes: still whole words
        ('"Her," (him) [he]; she\'s here!', '"Him," (him) [he]; he\'s here!', '"Her," (her) [she]; she\'s here!'),
        # never inside a word: the, there, heroine, shelter, history, hehe
        ("the theme there: shelter, history, hehe", "the theme there: shelter, history, hehe",
         "the theme there: shelter, history, hehe"),
        ("HIMSELF and Herself", "HIMSELF and Himself", "HERSELF and Herself"),
    ],
)
def test_pronoun_versions_hand_checked(pro, text, male, female):
    assert pro.male(text) == male
    assert pro.female(text) == female


@pytest.mark.parametrize(
    ("text", "male", "female"),
    [
        ("My mother and her brother met the Queen.", "My father and his brother met the King.",
         "My mother and her sister met the Queen."),
        ("The actress thanked her husband, a policeman.", "The actor thanked his husband, a policeman.",
         "The actress thanked her wife, a policewoman."),
        # one-way mappings: lesbian -> gay in M, but gay stays gay in F; lord -> lady in F only
        ("a lesbian and a gay man", "a gay and a gay man", "a lesbian and a gay woman"),
        ("Lord Byron and the lady", "Lord Byron and the gentleman", "Lady Byron and the lady"),
        # hyphenated terms are whole words of their own; longest match first
        ("my ex-wife's great-grandfather", "my ex-husband's great-grandfather", "my ex-wife's great-grandmother"),
    ],
)
def test_all_terms_hand_checked(full, text, male, female):
    assert full.male(text) == male
    assert full.female(text) == female


def test_punctuation_adjacent_terms_are_found_unlike_whitespace_splitting(pro):
    text = "I called her. He answered him, then (she) smiled at his!"
    # the authors' notebook replaced whitespace-separated tokens found in a dict: "her." "him,"
    # "(she)" "his!" are not keys, so only "He" would change
    naive = " ".join(pro.to_female.get(w.lower(), w) for w in text.split())
    assert naive == "I called her. she answered him, then (she) smiled at his!"  # him, / his! missed
    assert pro.count(text) == 5
    assert pro.female(text) == "I called her. She answered her, then (she) smiled at her!"
    assert pro.male(text) == "I called him. He answered him, then (he) smiled at his!"


def test_duplicate_keys_are_refused():
    # the authors' dict literal had keys twice; Python keeps the last silently. We refuse.
    with pytest.raises(InputError, match="duplicate key"):
        GenderRewriter([("lord", "lady"), ("gentleman", "lady")])
    with pytest.raises(InputError, match="duplicate key"):
        GenderRewriter([("his", "her"), ("his", "hers")])  # his -> her and his -> hers in F
    # one-way rows resolve it
    rw = GenderRewriter([("gentleman", "lady", "both"), ("lord", "lady", "to_female")])
    assert rw.male("lady") == "gentleman" and rw.female("lord") == "lady"
    # the only tolerated double mapping: female "her" -> his / him, decided by context
    rw = GenderRewriter([("his", "her"), ("him", "her")])
    assert rw.male("her car") == "his car" and rw.male("for her.") == "for him."


def test_bad_pairs_and_unknown_set():
    for bad in ([("he", "he")], [("", "she")], [("the man", "the woman")], []):
        with pytest.raises(InputError):
            GenderRewriter(bad)
    with pytest.raises(InputError, match="terms must be one of 'pro', 'weat', 'all'"):
        load_terms("everything")


def test_the_shipped_table_loads_without_duplicate_keys_and_nests():
    pairs = read_term_pairs("en")
    assert all(isinstance(p, TermPair) for p in pairs)
    sizes = {t: len(load_terms(t).pairs) for t in ("pro", "weat", "all")}
    assert sizes == {"pro": 5, "weat": 22, "all": len(pairs)}
    assert 250 <= sizes["all"] <= 360  # ≈340 in the paper; ours: see PROVENANCE.md
    assert load_terms("pro").terms < load_terms("weat").terms < load_terms("all").terms
    animals = {"stallion", "mare", "bull", "cow", "rooster", "hen", "lioness", "tigress", "ram", "ewe", "boar", "sow", "drake", "doe"}
    assert not animals & load_terms("all").terms
    one_way = [p for p in pairs if p.direction != "both"]
    assert any(p.male == "gay" and p.female == "lesbian" and p.direction == "to_male" for p in one_way)


def test_versions_are_consistent(pro, full):
    texts = ["She said he likes her.", "His sister met her uncle at the King's party.", "no terms here"]
    for rw in (pro, full):
        for t in texts:
            m, f = rw.male(t), rw.female(t)
            assert rw.male(m) == m and rw.female(f) == f  # a version is a fixed point of its own map
            assert rw.count(m) == rw.count(f) == rw.count(t)  # one word for one word
    # pronouns only: the female version of the male version is the female version
    assert pro.female(pro.male(texts[0])) == pro.female(texts[0])
    assert pro.male("no terms here") == pro.female("no terms here") == "no terms here"


def test_remove(full):
    assert full.remove("She told her brother, the king.") == "told, the."
    assert full.remove("nothing  to   remove") == "nothing  to   remove"  # untouched text kept byte for byte
    assert full.count(full.remove("He and his wife, her son.")) == 0
