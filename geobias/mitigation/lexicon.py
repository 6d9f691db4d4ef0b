"""The word lists a mitigation method needs for one language, bundled (so estimators can be
fitted on synthetic stores in tests and on the project's lists by default)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from geobias.errors import InputError


def wordlist_dir() -> Path:
    """The project's ``wordlists/`` folder (package data in a wheel, top level in a checkout)."""
    here = Path(__file__).resolve().parents[1]
    for cand in (here / "_wordlists", here.parent / "wordlists"):
        if cand.is_dir():
            return cand
    raise InputError("the geobias word lists are missing (reinstall geobias)")


def _read_lines(path: Path) -> list[str]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        t = line.strip()
        if t and not t.startswith("#"):
            out.append(t)
    return out


def read_gender_specific(path: Path | None = None) -> list[str]:
    """Our English gender-specific words (``wordlists/en/gender_specific.txt``)."""
    return _read_lines(path or wordlist_dir() / "en" / "gender_specific.txt")


def read_equalize_pairs(path: Path | None = None) -> list[tuple[str, str]]:
    """Our English equalise pairs (female, male) (``wordlists/en/equalize_pairs.tsv``).

    Raises
    ------
    InputError
        A line without exactly two tab-separated fields (the message names the line).
    """
    p = path or wordlist_dir() / "en" / "equalize_pairs.tsv"
    pairs = []
    for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
        t = line.strip()
        if not t or t.startswith("#"):
            continue
        f = t.split("\t")
        if len(f) != 2:
            raise InputError(f"{p}, line {i}: expected 'female<TAB>male'")
        pairs.append((f[0].strip(), f[1].strip()))
    return pairs


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
        Words with two gendered forms (occupations and adjectives) that Shift moves as pairs.
    gender_specific : list of str
        Words hard debias leaves un-neutralised (English).
    equalize_pairs : list of (female, male)
        Pairs hard debias equalises (English).
    """

    lang: str
    definitional_pairs: list[tuple[str, str]]
    masculine_nouns: list[str] = field(default_factory=list)
    feminine_nouns: list[str] = field(default_factory=list)
    two_form: list[tuple[str, str, str]] = field(default_factory=list)
    gender_specific: list[str] = field(default_factory=list)
    equalize_pairs: list[tuple[str, str]] = field(default_factory=list)

    @classmethod
    def for_language(cls, lang: str) -> GenderLexicon:
        """The project's lists for ``lang`` (from :mod:`geobias.wordlists` and our hard-debias lists)."""
        from geobias import wordlists

        defs = [tuple(p) for p in wordlists.definitional_pairs(lang)]
        two_form: list[tuple[str, str, str]] = []
        items = list(wordlists.occupations(lang))
        if lang != "en":  # English has no two-form adjectives
            items += list(wordlists.adjectives(lang))
        for item in items:
            f, m, e = item.feminine, item.masculine, item.english
            two_form.append((f, m, e))
        masc, fem = ([], [])
        if lang != "en":
            masc, fem = wordlists.gendered_nouns(lang)
        spec, eq = [], []
        if lang == "en":
            spec = read_gender_specific()
            eq = read_equalize_pairs()
        return cls(lang, defs, list(masc), list(fem), two_form, spec, eq)
