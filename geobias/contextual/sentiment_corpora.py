"""Readers of the texts the sentiment-difference probe rates: a corpus file (CSV, TSV or one text
per line) and the Equity Evaluation Corpus's own male/female sentence pairs."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from geobias.errors import InputError
from geobias.io.atomic import read_text

# --------------------------------------------------------------------------------------------
# corpora


def read_corpus(path: str | Path, column: str | None = None) -> list[str]:
    """Texts of a corpus: a ``.csv`` (quoted fields, header, ``column`` required), a TSV with
    header (``column``; tab-split, no quoting, as :func:`geobias.contextual.cda.read_documents`),
    or plain text (one text per non-blank line, no ``column``).

    Raises
    ------
    InputError
        Missing, empty or non-UTF-8 file; missing column (the message lists the columns); a
        ``.csv`` without ``column``; no texts.
    """
    from geobias.contextual.cda import read_documents

    p = Path(path)
    if p.suffix.lower() != ".csv":
        docs, _, _ = read_documents(p, column)
        return docs
    if column is None:
        raise InputError(f"{p}: a CSV corpus needs --column (the text column)")
    text = read_text(p, what="corpus")
    reader = csv.DictReader(io.StringIO(text))
    if reader.fieldnames is None:
        raise InputError(f"{p}: empty file (expected a header row with column {column!r})")
    if column not in reader.fieldnames:
        raise InputError(f"{p}: line 1: no column {column!r} (columns: {', '.join(reader.fieldnames)})")
    docs = [row[column] for row in reader if row.get(column) and row[column].strip()]
    if not docs:
        raise InputError(f"{p}: no texts in column {column!r}")
    return docs


# --------------------------------------------------------------------------------------------


#: EEC's male and female person noun phrases, paired in order (Kiritchenko & Mohammad 2018).
EEC_PERSON_PAIRS = [
    ("he", "she"), ("this man", "this woman"), ("this boy", "this girl"), ("my brother", "my sister"),
    ("my son", "my daughter"), ("my husband", "my wife"), ("my boyfriend", "my girlfriend"),
    ("my father", "my mother"), ("my uncle", "my aunt"), ("my dad", "my mom"),
]


def eec_pairs(path: str | Path) -> tuple[list[str], list[str], list[str]]:
    """EEC sentence pairs that differ only in the person's gender.

    Noun phrases pair one to one (:data:`EEC_PERSON_PAIRS`) within a template and emotion word;
    first names do not pair one to one, so each male name sentence is paired with the female name
    sentence of the same template, emotion word, race and name rank (the i-th male name of a race
    in file order with the i-th female name).

    Returns
    -------
    male, female : list of str
        The paired sentences.
    keys : list of str
        ``template | emotion word | person pair`` of each pair.

    Raises
    ------
    InputError
        Not the EEC layout (missing Sentence/Template/Person/Gender/Race/Emotion word columns).
    """
    text = read_text(Path(path), what="EEC corpus")
    reader = csv.DictReader(io.StringIO(text))
    need = ("Sentence", "Template", "Person", "Gender", "Race", "Emotion word")
    missing = [c for c in need if c not in (reader.fieldnames or [])]
    if missing:
        raise InputError(f"{path}: not the EEC layout: missing column(s) {', '.join(missing)}")
    rows = list(reader)
    names: dict[tuple[str, str], list[str]] = {}
    for r in rows:
        if r["Race"]:
            lst = names.setdefault((r["Race"], r["Gender"]), [])
            if r["Person"] not in lst:
                lst.append(r["Person"])
    partner: dict[str, str] = {m: f for m, f in EEC_PERSON_PAIRS}
    for (race, gender), lst in names.items():
        if gender == "male":
            for m, f in zip(lst, names.get((race, "female"), []), strict=False):
                partner[m] = f
    index = {(r["Template"], r["Emotion word"], r["Person"]): r["Sentence"] for r in rows}
    male, female, keys = [], [], []
    for r in rows:
        if r["Gender"] != "male" or r["Person"] not in partner:
            continue
        f = index.get((r["Template"], r["Emotion word"], partner[r["Person"]]))
        if f is None:
            continue
        male.append(r["Sentence"])
        female.append(f)
        keys.append(f"{r['Template']} | {r['Emotion word']} | {r['Person']}/{partner[r['Person']]}")
    if not male:
        raise InputError(f"{path}: no male/female sentence pairs found")
    return male, female, keys
