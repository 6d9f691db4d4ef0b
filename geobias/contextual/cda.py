"""Counterfactual data augmentation (CDA) and substitution (CDS) of gendered words and first names.

Every gendered word of a bidirectional pair list (``wordlists/en/cda_pairs.tsv``: pronouns, kinship
terms, titles, gendered nouns) and every first name of a name-pair list
(``wordlists/en/cda_names.tsv``) is replaced by its partner, in one regular-expression pass:

- whole words only: a match may not touch a letter, digit or underscore on either side, so
  "he" is never swapped inside "the" or "heroine", but "ex-wife" → "ex-husband" and "he's" →
  "she's";
- the case of the text is kept: ``he → she``, ``He → She``, ``HE → SHE`` (lower-case
  replacement for any other mixture);
- pair words match in any case; names match only when capitalised (``John`` or ``JOHN``),
  so an ordinary lower-case word is never taken for a name;
- **a full name is one unit**: in a run of capitalised words (joined by spaces or hyphens:
  "James Thomas", "Mary-Kate Olsen"; a leading function or gendered word such as "Then" or "Her"
  is not part of it), the first word and the words hyphenated to it are the given names, swapped
  when listed ("Mary-Kate Olsen" → "James-Ted Olsen"); the words after them are the surname and
  are kept ("James Thomas" → "Mary Thomas", never "Mary Sarah"), and so is that surname when the
  same document names the person by it alone ("Thomas played ..."). A full name whose given name
  is not listed ("Phoebe Thomas") is kept whole;
- **"her"** is ambiguous (possessive → "his", object → "him"). Rule: "her" becomes "him" when
  it is followed by the end of the text, a punctuation mark, or a function word (preposition,
  conjunction, determiner, pronoun, auxiliary, particle such as "back"/"up"/"away";
  :data:`OBJECT_FOLLOWERS`), and "his" otherwise (a noun or adjective follows: "her own car").
  "his" becomes "hers" where it stands alone, before the end of the text or a mark that ends a
  clause (:data:`CLAUSE_END`: "the book is his." → "the book is hers."), and "her" otherwise ("his car", "his own"; an
  independent "his" before a word, "his and mine", is rare in running text and becomes "her");
  "hers" becomes "his".

``mode="cda"`` keeps every document and adds its counterfactual (Zhao et al. 2018: a corpus
twice as large); ``mode="cds"`` replaces each document by its counterfactual with probability
0.5 (Maudslay et al. 2019), drawn with a seeded ``numpy.random.Generator``.

References
----------
Zhao, Wang, Yatskar, Ordonez, Chang (2018), *Gender Bias in Coreference Resolution: Evaluation
and Debiasing Methods*, NAACL (CDA).
Maudslay, Gonen, Cotterell, Teufel (2019), *It's All in the Name: Mitigating Gender Bias with
Name-Based Counterfactual Data Substitution*, EMNLP (CDS, names swapped too).
Bartl, Nissim, Gatt (2020), *Unmasking Contextual Stereotypes*, GeBNLP §5 (CDS on GAP, then
MLM fine-tuning).
Webster, Recasens, Axelrod, Baldridge (2018), *Mind the GAP: A Balanced Corpus of Gendered
Ambiguous Pronouns*, TACL (the GAP TSV files, text column ``Text``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from geobias.choices import CdaMode
from geobias.errors import InputError
from geobias.io.atomic import atomic_write, check_output_path, read_text, same_path
from geobias.results import Result
from geobias.validation import check_choice
from geobias.wordlists import own_table

#: Marks after which a "his" stands alone (→ "hers"): the end of a clause or a quotation.
CLAUSE_END = frozenset(".,;:!?)]}\"'”’»…")

#: Words after which "her" is an object pronoun (→ "him"); any other following word → "his".
OBJECT_FOLLOWERS = frozenset(
    """
    to and or but nor in on at for from with by as that than of into onto about after before
    against around over under through throughout during until till toward towards behind between
    among across along upon within without like despite via off up out down away back again there
    here so too now then once when while where why how what who whom which whose if because
    although though since unless whether the a an this these those some any no every each all both
    either neither he she it they we you i him her his them us me is was were are be been had has
    have will would could should can may might must did does do not yet also very
    """.split()
)

_NEXT_TOKEN = re.compile(r"\s*(\w+|[^\w\s])?")

#: A capitalised word (Latin-1 capitals included) and a run of them joined by one space or hyphen.
_CAP = r"[A-ZÀ-ÖØ-Þ][^\W\d_]*"
_NAME_RUN = re.compile(rf"(?<![\w-]){_CAP}(?:[ -]{_CAP})*(?![\w-])")


def _match_case(source: str, replacement: str) -> str:
    """Give ``replacement`` the case pattern of ``source`` (lower, Title or UPPER)."""
    if len(source) > 1 and source.isupper():
        return replacement.upper()
    if source[:1].isupper() and source[1:] == source[1:].lower():
        return replacement[:1].upper() + replacement[1:]
    if source.islower():
        return replacement.lower()
    return replacement.lower()


class CounterfactualSwapper:
    """Swap gendered words and first names in text (see the module docstring for the rules).

    Parameters
    ----------
    pairs : sequence of (str, str)
        (male, female) word pairs, matched case-insensitively. A word maps to its partner in its
        first pair; a later pair with the same word only defines the other direction.
    names : sequence of (str, str), default ()
        (male, female) first names, matched only in Title or UPPER case.

    Raises
    ------
    InputError
        An empty pair, a word paired with itself, or a pair word containing whitespace.
    """

    def __init__(self, pairs: Sequence[tuple[str, str]], names: Sequence[tuple[str, str]] = ()):
        self.pairs = [(m, f) for m, f in pairs]
        self.names = [(m, f) for m, f in names]
        self._words: dict[str, str] = {}
        for m, f in self.pairs:
            m, f = m.strip().lower(), f.strip().lower()
            self._check(m, f, "pair")
            self._words.setdefault(m, f)
            self._words.setdefault(f, m)
        self._names: dict[str, str] = {}
        for m, f in self.names:
            m, f = m.strip(), f.strip()
            self._check(m, f, "name pair")
            for a, b in ((m, f), (f, m)):
                self._names.setdefault(a[:1].upper() + a[1:].lower(), b[:1].upper() + b[1:].lower())
                self._names.setdefault(a.upper(), b.upper())
        words = sorted(self._words, key=len, reverse=True)  # longest first: "his" before "hi..."
        names = sorted(self._names, key=len, reverse=True)
        alternatives = []
        if words:
            alternatives.append("(?P<word>(?i:" + "|".join(map(re.escape, words)) + "))")
        if names:
            alternatives.append("(?P<name>" + "|".join(map(re.escape, names)) + ")")
        if not alternatives:
            raise InputError("no word pairs given for counterfactual substitution")
        self._pattern = re.compile(r"(?<!\w)(?:" + "|".join(alternatives) + r")(?!\w)")

    @staticmethod
    def _check(m: str, f: str, what: str) -> None:
        if not m or not f:
            raise InputError(f"empty word in {what} ({m!r}, {f!r})")
        if m.lower() == f.lower():
            raise InputError(f"{what} ({m!r}, {f!r}) pairs a word with itself")
        if any(ch.isspace() for ch in m + f):
            raise InputError(f"{what} ({m!r}, {f!r}): multi-word entries are not supported")

    def _replace(self, match: re.Match, text: str) -> str:
        if "name" in self._pattern.groupindex and match.group("name"):
            return self._names[match.group("name")]
        src = match.group("word")
        low = src.lower()
        if low == "her":
            nxt = _NEXT_TOKEN.match(text, match.end()).group(1)
            partner = "him" if nxt is None or not nxt[0].isalnum() or nxt.lower() in OBJECT_FOLLOWERS else "his"
        elif low == "his" and self._words.get(low) == "her":
            nxt = _NEXT_TOKEN.match(text, match.end()).group(1)
            # "the book is his." stands alone; "his/her book" does not
            partner = "hers" if nxt is None or nxt[0] in CLAUSE_END else "her"
        else:
            partner = self._words[low]
        return _match_case(src, partner)

    def _surnames(self, text: str) -> tuple[set[int], set[str]]:
        """Start offsets of listed names used as surnames in ``text`` (after the given names of a
        full name), and those surnames (kept when they stand alone elsewhere in the text)."""
        starts: set[int] = set()
        surnames: set[str] = set()
        if not self._names:
            return starts, surnames
        for run in _NAME_RUN.finditer(text):
            words = [(m.start() + run.start(), m.group(), sep) for m, sep in _split_run(run.group())]
            for parts in _by_case(words):
                self._mark_surnames(parts, starts, surnames)
        return starts, surnames

    def _mark_surnames(self, parts, starts: set[int], surnames: set[str]) -> None:
        """Add the surname words of one full name (``parts``: (start, word, separator)) to ``starts``/``surnames``."""
        first = 0  # skip a capitalised function or gendered word before the name ("Then Mary", "Her Jane")
        while first < len(parts) and (parts[first][1].lower() in OBJECT_FOLLOWERS
                                      or parts[first][1].lower() in self._words):
            first += 1
        if first >= len(parts) - 1 and (first == len(parts) or parts[first][1] in self._names):
            return  # one word: a first name alone is swapped
        i = first + 1
        if parts[first][1] in self._names:
            while i < len(parts) and parts[i][2] == "-":  # hyphenated given names: Mary-Kate
                i += 1
        else:
            i = first  # the given name is not listed ("Phoebe Thomas"): the whole name is kept
        for start, word, _ in parts[i:]:
            surnames.add(word)
            starts.add(start)

    def swap_spans(self, text: str) -> tuple[str, list[tuple[int, int, str]]]:
        """The counterfactual of ``text`` and each replacement ``(start, end, new)`` in ``text``'s offsets.

        Use :func:`map_offset` to carry a character offset of ``text`` (GAP's ``Pronoun-offset``)
        into the counterfactual.
        """
        surname_starts, surnames = self._surnames(text)
        spans: list[tuple[int, int, str]] = []

        def repl(m: re.Match) -> str:
            if "name" in self._pattern.groupindex and m.group("name") and (
                    m.start() in surname_starts or m.group() in surnames):
                return m.group()  # a surname: part of a full name's unit, kept
            new = self._replace(m, text)
            spans.append((m.start(), m.end(), new))
            return new

        return self._pattern.sub(repl, text), spans

    def swap_counted(self, text: str) -> tuple[str, int]:
        """The counterfactual of ``text`` and the number of words replaced."""
        new, spans = self.swap_spans(text)
        return new, len(spans)

    def swap(self, text: str) -> str:
        """The counterfactual of ``text``: every gendered word and first name replaced."""
        return self.swap_counted(text)[0]

    def __repr__(self) -> str:
        return f"CounterfactualSwapper({len(self.pairs)} word pairs, {len(self.names)} name pairs)"


def _split_run(run: str):
    """``(match of a word, the separator before it)`` for each word of a run of capitalised words."""
    sep = ""
    for m in re.finditer(rf"{_CAP}|[ -]", run):
        if m.group() in (" ", "-"):
            sep = m.group()
            continue
        yield m, sep
        sep = ""


def _by_case(words):
    """Split a run of capitalised words where the case style changes (``John JOHN`` is two names:
    one full name is written in one style, Title or UPPER)."""
    group, style = [], None
    for w in words:
        st = "upper" if len(w[1]) > 1 and w[1].isupper() else "title"
        if group and st != style:
            yield group
            group = []
        group.append(w)
        style = st
    if group:
        yield group


def map_offset(offset: int, spans: Sequence[tuple[int, int, str]]) -> int:
    """A character offset of a text carried into its counterfactual (``spans`` from
    :meth:`CounterfactualSwapper.swap_spans`): shifted by the length change of every replacement
    that ends at or before it.

    Examples
    --------
    >>> map_offset(10, [(0, 2, "she")])   # "he" → "she" before offset 10
    11
    """
    return offset + sum(len(new) - (end - start) for start, end, new in spans if end <= offset)


def load_swapper(lang: str = "en", *, names: bool = True) -> CounterfactualSwapper:
    """The swapper of the project's own lists (``wordlists/<lang>/cda_pairs.tsv``, ``cda_names.tsv``).

    Parameters
    ----------
    lang : str, default "en"
        Only English lists exist so far.
    names : bool, default True
        Also swap first names (CDS "names swapped too", Maudslay et al. 2019).

    Raises
    ------
    InputError
        No lists for ``lang``.
    """
    pairs = [(r["male"], r["female"]) for r in own_table(lang, "cda_pairs", ("male", "female"))]
    name_pairs = [(r["male"], r["female"]) for r in own_table(lang, "cda_names", ("male", "female"))] if names else []
    return CounterfactualSwapper(pairs, name_pairs)


@dataclass(frozen=True)
class Augmented:
    """Output of :func:`augment`.

    Attributes
    ----------
    texts : list of str
        ``cda``: original and counterfactual of each document, interleaved (2n texts);
        ``cds``: one text per document, the counterfactual where ``flipped``.
    flipped : list of bool
        Per output text: whether it is a counterfactual.
    source : list of int
        Per output text: index of the input document it comes from.
    n_substitutions : int
        Words replaced in the counterfactual texts that were output.
    """

    texts: list[str]
    flipped: list[bool]
    source: list[int]
    n_substitutions: int


def augment(
    documents: Iterable[str],
    mode: str = "cda",
    *,
    seed: int = 0,
    swapper: CounterfactualSwapper | None = None,
) -> Augmented:
    """Counterfactual data augmentation (``"cda"``) or substitution (``"cds"``).

    Parameters
    ----------
    documents : iterable of str
    mode : {"cda", "cds"}, default "cda"
        ``cda`` keeps each document and adds its counterfactual; ``cds`` substitutes each
        document by its counterfactual with probability 0.5.
    seed : int, default 0
        Seeds the CDS draws (``numpy.random.default_rng(seed).random(n) < 0.5``); unused by CDA.
    swapper : CounterfactualSwapper, optional
        Default: :func:`load_swapper` ``("en")``.

    Returns
    -------
    Augmented

    Raises
    ------
    InputError
        An unknown mode.

    References
    ----------
    Zhao et al. (2018) (CDA); Maudslay et al. (2019) §3 (CDS).
    """
    check_choice("mode", mode, CdaMode)
    docs = list(documents)
    sw = swapper if swapper is not None else load_swapper("en")
    texts: list[str] = []
    flipped: list[bool] = []
    source: list[int] = []
    n_sub = 0
    if mode == "cda":
        for i, d in enumerate(docs):
            cf, n = sw.swap_counted(d)
            texts += [d, cf]
            flipped += [False, True]
            source += [i, i]
            n_sub += n
    else:
        draws = np.random.default_rng(seed).random(len(docs)) < 0.5
        for i, (d, flip) in enumerate(zip(docs, draws, strict=True)):
            if flip:
                d, n = sw.swap_counted(d)
                n_sub += n
            texts.append(d)
            flipped.append(bool(flip))
            source.append(i)
    return Augmented(texts, flipped, source, n_sub)


@dataclass(frozen=True)
class CdaSummary(Result):
    """What :func:`augment_file` did.

    Attributes
    ----------
    mode, seed : the options used
    input, output : str
        The files.
    column : str or None
        The TSV column swapped (None: plain text, one document per line).
    n_documents : int
        Input documents (non-blank lines or TSV rows).
    n_output : int
        Output documents.
    n_counterfactual : int
        Output documents that are counterfactuals.
    n_substitutions : int
        Words replaced in them.
    """

    mode: str
    seed: int
    input: str
    output: str
    column: str | None
    n_documents: int
    n_output: int
    n_counterfactual: int
    n_substitutions: int


def read_documents(path: str | Path, column: str | None = None) -> tuple[list[str], list[list[str]] | None, int | None]:
    """Read documents from a text file (one per non-blank line) or a TSV column.

    Parameters
    ----------
    path : str or Path
    column : str, optional
        Name of a column of a tab-separated file with a header row. Fields are split on tabs
        only (no quoting), so quotes inside texts are kept verbatim.

    Returns
    -------
    documents : list of str
    rows : list of list of str, or None
        With ``column``: the header followed by every row (fields), else None.
    index : int or None
        With ``column``: the column's index.

    Raises
    ------
    InputError
        Missing or non-UTF-8 file, missing column, a row with the wrong number of fields
        (the message names the line), no document at all.
    """
    p = Path(path)
    if not p.exists():
        from geobias.io.atomic import shown
        from geobias.sources.datasets import missing_file_hint

        raise InputError(f"{shown(p)}: corpus file not found; {missing_file_hint(p, 'gap')}")
    text = read_text(p, what="corpus")
    lines = text.splitlines()
    if column is None:
        docs = [line for line in lines if line.strip()]
        if not docs:
            raise InputError(f"{p}: no documents (empty file)")
        return docs, None, None
    if not lines:
        raise InputError(f"{p}: empty file (expected a header row with column {column!r})")
    header = lines[0].split("\t")
    if column not in header:
        raise InputError(f"{p}: line 1: no column {column!r} (columns: {', '.join(header)})")
    idx = header.index(column)
    rows = [header]
    for lineno, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) != len(header):
            raise InputError(f"{p}: line {lineno}: expected {len(header)} tab-separated fields, got {len(fields)}")
        rows.append(fields)
    if len(rows) == 1:
        raise InputError(f"{p}: no rows after the header")
    return [r[idx] for r in rows[1:]], rows, idx


def check_output(input_path: str | Path, out: str | Path, *, overwrite: bool = False) -> Path:
    """Refuse to write onto the input (also through a link), over an existing file (without
    ``overwrite``), or into a missing or unwritable directory (:func:`geobias.io.atomic.check_output_path`).

    Raises
    ------
    InputError
    """
    src, dest = Path(input_path), Path(out).expanduser()
    if dest.exists() and same_path(src, dest):
        raise InputError(f"{dest} is the input file; write the output to another file")
    check_output_path(dest, what="output", overwrite=overwrite)
    return dest


def offset_columns(header: Sequence[str]) -> list[tuple[int, int]]:
    """``(column, its offset column)`` index pairs of a header: ``X`` with ``X-offset``
    (GAP: ``Pronoun``/``Pronoun-offset``, ``A``/``A-offset``, ``B``/``B-offset``)."""
    return [(header.index(c), header.index(f"{c}-offset")) for c in header if f"{c}-offset" in header]


def counterfactual_row(fields: Sequence[str], text_index: int, quoted: Sequence[tuple[int, int]],
                       swapper: CounterfactualSwapper) -> list[str]:
    """A TSV row whose text column ``text_index`` is swapped, with every quoting column updated.

    ``fields`` holds the *original* text; each ``(column, offset column)`` of ``quoted`` whose
    offset points at the column's value in the text is replaced by the counterfactual's text at the
    carried offset (:func:`map_offset`), and its offset by the carried one. A value the offset does
    not point at (a malformed row) is swapped on its own and its offset left as it was.

    Examples
    --------
    >>> sw = CounterfactualSwapper([("he", "she"), ("his", "her")], [("John", "Mary")])
    >>> counterfactual_row(["he said John would go", "he", "0", "John", "8"], 0, [(1, 2), (3, 4)], sw)
    ['she said Mary would go', 'she', '0', 'Mary', '9']
    """
    out = list(fields)
    text = fields[text_index]
    new_text, spans = swapper.swap_spans(text)
    out[text_index] = new_text
    for col, off_col in quoted:
        value = fields[col]
        try:
            offset = int(fields[off_col])
        except ValueError:
            offset = -1
        if offset < 0 or text[offset:offset + len(value)] != value:
            out[col] = swapper.swap(value)
            continue
        start, end = map_offset(offset, spans), map_offset(offset + len(value), spans)
        out[col], out[off_col] = new_text[start:end], str(start)
    return out


def augment_file(
    input_path: str | Path,
    out: str | Path,
    mode: str = "cda",
    *,
    seed: int = 0,
    column: str | None = None,
    overwrite: bool = False,
    swapper: CounterfactualSwapper | None = None,
) -> CdaSummary:
    """Write the CDA/CDS version of a corpus file (atomically; never onto the input).

    A plain text file has one document per line (blank lines are not documents and are not
    written). With ``column``, the file is a TSV with a header, and CDA writes each row twice
    (original, then counterfactual). In a counterfactual row the column is swapped and so is every
    column that quotes it by offset: a column ``X`` with a column ``X-offset`` (GAP's ``Pronoun``,
    ``A`` and ``B``) gets the counterfactual's text at the carried offset, and ``X-offset`` that
    offset (:func:`map_offset`), so GAP's pronoun "her" becomes "his" in ``Pronoun`` as in
    ``Text``, and a name after a swapped "she" keeps pointing at the name. Other columns are copied
    verbatim.

    Parameters
    ----------
    input_path, out : str or Path
    mode : {"cda", "cds"}, default "cda"
    seed : int, default 0
    column : str, optional
    overwrite : bool, default False
    swapper : CounterfactualSwapper, optional
        Default: :func:`load_swapper` ``("en")`` (names swapped too).

    Returns
    -------
    CdaSummary

    Raises
    ------
    InputError
        See :func:`read_documents` and :func:`check_output`; an unknown mode.

    References
    ----------
    Maudslay et al. (2019), §3 (CDS with names); Webster et al. (2018) (GAP, ``column="Text"``).
    """
    check_choice("mode", mode, CdaMode)
    dest = check_output(input_path, out, overwrite=overwrite)
    docs, rows, idx = read_documents(input_path, column)
    sw = swapper if swapper is not None else load_swapper("en")
    aug = augment(docs, mode, seed=seed, swapper=sw)
    if rows is None:
        lines = aug.texts
    else:
        quoted = offset_columns(rows[0])
        lines = ["\t".join(rows[0])]
        for text, src, flipped in zip(aug.texts, aug.source, aug.flipped, strict=True):
            if flipped and quoted:  # from the original row: its offsets quote the original text
                fields = counterfactual_row(rows[src + 1], idx, quoted, sw)
            else:
                fields = list(rows[src + 1])
                fields[idx] = text
            lines.append("\t".join(fields))
    with atomic_write(dest, mode="w", overwrite=overwrite) as fh:
        fh.write("".join(line + "\n" for line in lines))
    return CdaSummary(
        mode=mode,
        seed=seed,
        input=str(input_path),
        output=str(dest),
        column=column,
        n_documents=len(docs),
        n_output=len(aug.texts),
        n_counterfactual=sum(aug.flipped),
        n_substitutions=aug.n_substitutions,
    )
