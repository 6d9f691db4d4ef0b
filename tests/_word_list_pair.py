"""French and English word2vec text files over the project's own word lists, with a planted
gender axis, and dictionaries between their filler words: the input of the bilingual CLI tests.

A test harness, not library code (``from _word_list_pair import write_word_list_pair``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from geobias import wordlists
from geobias.mitigation.lexicon import read_equalize_pairs, read_gender_specific

DIM = 16


def _write_w2v(path, words, vecs):
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(f"{len(words)} {vecs.shape[1]}\n")
        for w, v in zip(words, vecs, strict=True):
            fh.write(w + " " + " ".join(f"{x:.6f}" for x in v) + "\n")


def write_word_list_pair(d: Path, *, person_pairs: bool = False) -> Path:
    """Write ``fr.txt``, ``en.txt`` (word2vec text), ``dico.txt`` (200 + 2 training pairs) and
    ``test.txt`` (50 test pairs) into ``d``; return ``d``. ``person_pairs``: the French store also
    holds our French person pairs and flowers/insects WEAT words (the fit words and the control of
    the erasure table)."""
    rng = np.random.default_rng(0)
    masc, fem = wordlists.gendered_nouns("fr")
    fr_words = [w for p in wordlists.definitional_pairs("fr") for w in p]
    for o in [*wordlists.occupations("fr"), *wordlists.adjectives("fr")]:
        fr_words += [o.feminine, o.masculine]
    fr_words += masc[:80] + fem[:80]
    fr_words += [w for pair in wordlists.attribute_words("fr") for w in pair]
    if person_pairs:
        fr_words += [w for p in wordlists.read_pair_file(wordlists.wordlist_dir() / "fr" / "person_pairs.tsv") for w in p]
        control = wordlists.weat_test("fr", "flowers-insects")
        fr_words += [*control.X, *control.Y, *control.A, *control.B]
    fr_words = list(dict.fromkeys(fr_words)) + [f"frmot{i}" for i in range(200)] + ["et", "pour", "avec"]
    en_words = [w for p in wordlists.definitional_pairs("en") for w in p] + read_gender_specific()
    en_words += [w for p in read_equalize_pairs() for w in p]
    en_words += [o.english for o in [*wordlists.occupations("en"), *wordlists.occupations("fr"), *wordlists.adjectives("fr")]]
    en_words += [w for pair in wordlists.attribute_words("en") for w in pair]
    en_words = list(dict.fromkeys(en_words)) + [f"enword{i}" for i in range(200)] + ["and", "for", "with"]
    base = rng.standard_normal((200, DIM))
    fem_set = {f for f, _ in wordlists.definitional_pairs("fr")} | set(fem[:80])

    def vecs(words, filler, gendered):
        out = rng.standard_normal((len(words), DIM))
        for i, w in enumerate(words):
            if w.startswith(filler):
                out[i] = base[int(w[len(filler):])] + 0.05 * rng.standard_normal(DIM)
            out[i, 0] += -1.0 if w in gendered else 0.0
        return out

    fr_vecs = vecs(fr_words, "frmot", fem_set)
    en_vecs = vecs(en_words, "enword", {f for f, _ in wordlists.definitional_pairs("en")})
    _write_w2v(d / "fr.txt", fr_words, fr_vecs)
    _write_w2v(d / "en.txt", en_words, en_vecs)
    (d / "dico.txt").write_text("".join(f"frmot{i} enword{i}\n" for i in range(200)) + "et and\npour for\n",
                                encoding="utf-8")
    (d / "test.txt").write_text("".join(f"frmot{i} enword{i}\n" for i in range(0, 200, 4)), encoding="utf-8")
    return d
