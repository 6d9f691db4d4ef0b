"""Counterfactual data augmentation / substitution: swapping rules, modes, files, CLI, GAP."""

from __future__ import annotations

import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from _envelope import result_of

from geobias.contextual.cda import (
    OBJECT_FOLLOWERS,
    CounterfactualSwapper,
    augment,
    augment_file,
    load_swapper,
    read_documents,
)
from geobias.errors import InputError
from geobias.wordlists import own_table

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def sw() -> CounterfactualSwapper:
    return load_swapper("en")


def run(*args):
    return subprocess.run([sys.executable, str(REPO / "cli.py"), *args], capture_output=True, text=True,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO), "HOME": "/tmp"})


def test_word_lists_are_large_enough_and_well_formed():
    pairs = own_table("en", "cda_pairs", ("male", "female"))
    names = own_table("en", "cda_names", ("male", "female"))
    assert len(pairs) >= 100 and len(names) >= 100
    assert all(r["male"] == r["male"].lower() and r["female"] == r["female"].lower() for r in pairs)
    # each name appears once: a name with two partners would make the swap depend on row order
    every = Counter(r["male"] for r in names) + Counter(r["female"] for r in names)
    assert [n for n, c in every.items() if c > 1] == []
    # the listed categories are present
    words = {w for r in pairs for w in (r["male"], r["female"])}
    assert {"he", "she", "himself", "herself", "mother", "nephew", "mr", "mrs", "queen", "actress"} <= words


def test_case_is_preserved(sw):
    assert sw.swap("he He HE") == "she She SHE"
    assert sw.swap("Mother MOTHER mother") == "Father FATHER father"
    assert sw.swap("John JOHN") == "Patricia PATRICIA"


def test_names_only_when_capitalised(sw):
    # "john" in lower case is an ordinary word (e.g. a toilet); names need a capital letter
    assert sw.swap("john") == "john"
    assert sw.swap("Mary met John.") == "James met Patricia."


def test_whole_words_only(sw):
    for text in ["the", "There", "heroic", "shepherd", "history", "hishers", "Hermione", "mankind", "Johnson",
                 "Marylebone", "he_she", "he2"]:
        assert sw.swap(text) == text, text
    assert sw.swap("ex-wife") == "ex-husband"
    assert sw.swap("he's") == "she's"
    assert sw.swap("(she)") == "(he)"
    assert sw.swap("his/her book") == "her/his book"


def test_her_rule(sw):
    assert sw.swap("I saw her.") == "I saw him."
    assert sw.swap("I saw her") == "I saw him"  # end of text
    assert sw.swap("He gave her the book") == "She gave him the book"  # function word follows
    assert sw.swap("They told her about it") == "They told him about it"
    assert sw.swap("her own car") == "his own car"  # noun/adjective follows
    assert sw.swap("Her mother-in-law") == "His father-in-law"
    assert sw.swap("HER BOOK") == "HIS BOOK"
    assert "the" in OBJECT_FOLLOWERS and "own" not in OBJECT_FOLLOWERS
    # "his" before a word is possessive "her"; standing alone (the end, a clause's end) it is "hers"; "hers" → "his"
    assert sw.swap("his book, and it was his.") == "her book, and it was hers."
    assert sw.swap("HERS is not HIS") == "HIS is not HERS" and sw.swap("his, not mine") == "hers, not mine"
    assert sw.swap("his/her book") == "her/his book" and sw.swap("his own") == "her own"
    assert sw.swap("it was hers") == "it was his"


def test_swapping_twice_restores_the_text(sw):
    text = "He met his brother, Mr John Smith, and the King at the theatre; she thanked herself."
    once = sw.swap(text)
    assert once == "She met her sister, Mrs Patricia Smith, and the Queen at the theatre; he thanked himself."
    assert sw.swap(once) == text


def test_every_pair_word_maps_into_the_list(sw):
    pairs = [(r["male"], r["female"]) for r in own_table("en", "cda_pairs", ("male", "female"))]
    words = {w for p in pairs for w in p}
    first: dict[str, str] = {}
    for m, f in pairs:
        first.setdefault(m, f)
        first.setdefault(f, m)
    for w in sorted(words - {"her", "his"}):  # those two read the next word (alone, "his" is "hers")
        assert sw.swap(w) == first[w], w
        assert sw.swap(w) in words
    assert sw.swap("his car") == f"{first['his']} car" and sw.swap("his") in words
    assert sw.swap_counted("He and she.") == ("She and he.", 2)


def test_custom_pairs_and_bad_pairs():
    s = CounterfactualSwapper([("lion", "lioness")], names=[("Leo", "Lea")])
    assert s.swap("The Lion saw Leo and LEO and leo.") == "The Lioness saw Lea and LEA and leo."
    with pytest.raises(InputError, match="itself"):
        CounterfactualSwapper([("x", "X")])
    with pytest.raises(InputError, match="multi-word"):
        CounterfactualSwapper([("best man", "maid of honour")])
    with pytest.raises(InputError, match="no word pairs"):
        CounterfactualSwapper([])


def test_cda_keeps_originals_and_adds_counterfactuals(sw):
    docs = ["He is here.", "No gender here.", "Her dog barked at her."]
    aug = augment(docs, "cda", swapper=sw)
    assert aug.texts == ["He is here.", "She is here.", "No gender here.", "No gender here.",
                         "Her dog barked at her.", "His dog barked at him."]
    assert aug.flipped == [False, True] * 3 and aug.source == [0, 0, 1, 1, 2, 2]
    assert aug.n_substitutions == 3


def test_cds_substitutes_half_seeded(sw):
    docs = [f"he said {i}" for i in range(2000)]
    a = augment(docs, "cds", seed=7, swapper=sw)
    b = augment(docs, "cds", seed=7, swapper=sw)
    c = augment(docs, "cds", seed=8, swapper=sw)
    assert a == b and a.flipped != c.flipped
    assert len(a.texts) == len(docs) and a.source == list(range(len(docs)))
    for d, t, f in zip(docs, a.texts, a.flipped, strict=True):
        assert t == (sw.swap(d) if f else d)
    share = sum(a.flipped) / len(docs)
    # Binomial(2000, 0.5): sd = 0.011, so ±0.05 is ~4.5 sd
    assert abs(share - 0.5) < 0.05
    assert a.n_substitutions == sum(a.flipped)
    with pytest.raises(InputError, match="mode must be one of"):
        augment(docs, "swap")


def test_augment_text_file(tmp_path, sw):
    src = tmp_path / "in.txt"
    src.write_text("He left.\n\nShe stayed with her aunt.\n", encoding="utf-8")
    res = augment_file(src, tmp_path / "out.txt", "cda", swapper=sw)
    assert (tmp_path / "out.txt").read_text(encoding="utf-8").splitlines() == [
        "He left.", "She left.", "She stayed with her aunt.", "He stayed with his uncle."]
    assert (res.n_documents, res.n_output, res.n_counterfactual, res.n_substitutions) == (2, 4, 2, 4)
    assert src.read_text(encoding="utf-8") == "He left.\n\nShe stayed with her aunt.\n"


def test_augment_tsv_column(tmp_path, sw):
    src = tmp_path / "in.tsv"
    src.write_text('ID\tText\tPronoun\n1\tHe said "hi" to her.\the\n2\tIt rained.\t-\n', encoding="utf-8")
    augment_file(src, tmp_path / "out.tsv", "cds", seed=0, column="Text", swapper=sw)
    rows = [line.split("\t") for line in (tmp_path / "out.tsv").read_text(encoding="utf-8").splitlines()]
    assert rows[0] == ["ID", "Text", "Pronoun"] and len(rows) == 3
    assert [r[0] for r in rows[1:]] == ["1", "2"] and [r[2] for r in rows[1:]] == ["he", "-"]  # other columns verbatim
    assert rows[1][1] in ('He said "hi" to her.', 'She said "hi" to him.')
    augment_file(src, tmp_path / "cda.tsv", "cda", column="Text", swapper=sw)
    rows = [line.split("\t") for line in (tmp_path / "cda.tsv").read_text(encoding="utf-8").splitlines()]
    assert [r[1] for r in rows[1:3]] == ['He said "hi" to her.', 'She said "hi" to him.']


def test_file_errors(tmp_path, sw):
    src = tmp_path / "in.tsv"
    src.write_text("ID\tText\n1\tHe\n2\tShe\textra\n", encoding="utf-8")
    with pytest.raises(InputError, match="no column 'Txt'.*columns: ID, Text"):
        read_documents(src, "Txt")
    with pytest.raises(InputError, match="line 3: expected 2"):
        read_documents(src, "Text")
    with pytest.raises(InputError, match="is the input file"):
        augment_file(src, src, "cda", overwrite=True, swapper=sw)
    link = tmp_path / "link.tsv"
    link.symlink_to(src)
    with pytest.raises(InputError, match="is the input file"):
        augment_file(src, link, "cda", overwrite=True, swapper=sw)
    (tmp_path / "exists.txt").write_text("x\n", encoding="utf-8")
    with pytest.raises(InputError, match="exists"):
        augment_file(src, tmp_path / "exists.txt", "cda", swapper=sw)
    with pytest.raises(InputError, match="not found"):
        read_documents(tmp_path / "missing.txt")
    (tmp_path / "empty.txt").write_text("\n\n", encoding="utf-8")
    with pytest.raises(InputError, match="no documents"):
        read_documents(tmp_path / "empty.txt")
    assert list(tmp_path.glob(".*.tmp")) == []  # no temporary file left behind


def test_cli_cda(tmp_path):
    src = tmp_path / "in.txt"
    src.write_text("He thanked his father.\nShe thanked her mother.\n", encoding="utf-8")
    r = run("cda", "--input", str(src), "--out", str(tmp_path / "o.txt"), "--mode", "cds", "--seed", "1", "--json")
    assert r.returncode == 0, r.stderr
    res = result_of(r.stdout)
    assert res["mode"] == "cds" and res["n_documents"] == 2 and res["n_output"] == 2
    assert res["n_substitutions"] == 3 * res["n_counterfactual"]
    before = src.read_bytes()
    r = run("cda", "--input", str(src), "--out", str(src))  # refused before any work, the input untouched
    assert r.returncode == 1 and "is an input of this command (--input)" in r.stderr and "Traceback" not in r.stderr
    assert src.read_bytes() == before
    r = run("cda", "--input", str(src), "--out", str(tmp_path / "p.txt"), "--mode", "flip")
    assert r.returncode == 2 and "'--mode': 'flip' is not one of 'cda', 'cds'" in r.stderr  # a usage error
    r = run("cda", "--input", str(src), "--out", str(tmp_path / "q.txt"), "--no-names")
    assert r.returncode == 0 and "4 out" in r.stdout


def _read_gap(path: Path, id_col: int, text_col: int) -> dict[str, str]:
    lines = path.read_text(encoding="utf-8").splitlines()[1:]
    return {f[id_col]: f[text_col] for f in (line.split("\t") for line in lines)}


def test_agreement_with_bartl_cds_gap(shared_data, sw):
    """Our full swap of GAP vs the CDS-flipped GAP of Bartl et al. (2020), pronoun by pronoun.

    Their names come from a different (randomly paired) list, so only pronouns are compared
    one to one; both substitute one word for one word, so the token sequences align.
    """
    gap = shared_data / "gap"
    orig: dict[str, str] = {}
    for split in ("development", "test", "validation"):
        orig.update(_read_gap(gap / f"gap-{split}.tsv", 0, 1))
    theirs = _read_gap(gap / "gap_flipped_cds.tsv", 1, 2)
    assert len(theirs) == 4454 and set(theirs) <= set(orig)
    tok = re.compile(r"\w+|[^\w\s]").findall
    pronouns = ("he", "she", "him", "her", "his", "hers", "himself", "herself")
    total, agree = Counter(), Counter()
    for key, flipped in theirs.items():
        a, b, c = tok(orig[key]), tok(flipped), tok(sw.swap(orig[key]))
        assert len(a) == len(b) == len(c)
        for x, y, z in zip(a, b, c, strict=True):
            if x.lower() in pronouns:
                total[x.lower()] += 1
                agree[x.lower()] += y.lower() == z.lower()
    rate = {p: agree[p] / total[p] for p in total}
    non_reflexive = [p for p in total if p not in ("himself", "herself")]
    overall = sum(agree[p] for p in non_reflexive) / sum(total[p] for p in non_reflexive)
    print(f"\npronoun agreement with Bartl et al. CDS-GAP (non-reflexive): {overall:.4f}; "
          + ", ".join(f"{p} {agree[p]}/{total[p]}" for p in sorted(total)))
    # he/she/his/him are unambiguous: anything below ~1 would be a bug in our matcher
    assert min(rate["he"], rate["she"], rate["his"], rate["him"]) > 0.995
    # "her" is resolved by our following-word rule; Bartl et al. resolved it otherwise in ~3 %
    assert 0.95 < rate["her"] < 1.0
    assert overall > 0.98
    # Bartl et al. leave reflexives unchanged (0 of them swapped); we swap them
    assert rate["himself"] == 0.0 and rate["herself"] == 0.0


def test_gap_rows_keep_every_quoting_column_consistent(tmp_path):
    """GAP-format rows we wrote: the counterfactual's ``Pronoun``, ``A``, ``B`` and their offsets
    quote the counterfactual text exactly, and a full name is swapped as one unit."""
    from geobias.contextual.cda import counterfactual_row, map_offset, offset_columns

    sw = CounterfactualSwapper([("he", "heroine"), ("his", "her"), ("him", "her"), ("man", "woman")],
                               [("John", "Maria"), ("Thomas", "Sarah"), ("Ted", "Kate")])
    header = ["ID", "Text", "Pronoun", "Pronoun-offset", "A", "A-offset", "A-coref", "B", "B-offset", "B-coref",
              "URL"]
    text1 = "John Thomas met Phoebe Thomas. Later Thomas said he would call his friend Ted-John Smith."
    row1 = ["t-1", text1, "his", str(text1.index("his")), "John Thomas", "0", "TRUE", "Ted-John Smith",
            str(text1.index("Ted-John")), "FALSE", "http://example.org/1"]
    text2 = "The man thanked him."
    row2 = ["t-2", text2, "him", str(text2.index("him")), "man", "4", "FALSE", "-", "-1", "FALSE", "-"]
    src = tmp_path / "gap.tsv"
    src.write_text("\n".join("\t".join(r) for r in (header, row1, row2)) + "\n", encoding="utf-8")
    augment_file(src, tmp_path / "out.tsv", "cda", column="Text", swapper=sw)
    rows = [line.split("\t") for line in (tmp_path / "out.tsv").read_text(encoding="utf-8").splitlines()]
    assert rows[0] == header and rows[1] == row1 and rows[3] == row2  # originals verbatim
    cf1, cf2 = rows[2], rows[4]
    # the full name "John Thomas" is one unit: the given name swapped, the surname kept, also alone
    assert cf1[1] == ("Maria Thomas met Phoebe Thomas. Later Thomas said heroine would call her friend "
                      "Kate-Maria Smith.")
    assert (cf1[2], cf1[4], cf1[7]) == ("her", "Maria Thomas", "Kate-Maria Smith")
    for col, off in offset_columns(header):  # every quoting column quotes the counterfactual text
        for r in (cf1, cf2):
            if r[off] != "-1":
                assert r[1][int(r[off]):int(r[off]) + len(r[col])] == r[col], (header[col], r)
    assert (cf2[1], cf2[2], cf2[4], cf2[7], cf2[8]) == ("The woman thanked her.", "her", "woman", "-", "-1")
    assert cf1[6] == "TRUE" and cf1[10] == "http://example.org/1"  # other columns verbatim
    assert map_offset(3, [(0, 2, "she")]) == 4 and map_offset(1, [(2, 3, "xx")]) == 1
    # a malformed offset: the value is swapped on its own, the offset left alone
    assert counterfactual_row(["he ran", "he", "9"], 0, [(1, 2)], sw) == ["heroine ran", "heroine", "9"]
