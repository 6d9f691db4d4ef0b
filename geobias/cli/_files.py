"""Reading the ``--attributes`` file of the association commands (``--targets`` files are read by
:func:`geobias.wordlists.read_occupation_file`)."""

from __future__ import annotations

from pathlib import Path

from geobias.errors import InputError


def read_rows(path: str | Path, *, min_cols: int, max_cols: int, what: str) -> list[list[str]]:
    """Rows of a UTF-8 TSV file; ``#`` lines and blank lines are skipped.

    Columns are separated by tabs (or, on a line without tabs, by runs of spaces).

    Raises
    ------
    InputError
        Missing/unreadable file, bad encoding, a row with the wrong number of columns (the
        message names the line), or no row at all.
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"{what} file not found: {p}") from None
    except UnicodeDecodeError as exc:
        raise InputError(f"{what} file {p} is not UTF-8 ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise InputError(f"cannot read {what} file {p}: {exc.strerror}") from None
    rows = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        cols = [c.strip() for c in (line.split("\t") if "\t" in line else line.split())]
        if not min_cols <= len(cols) <= max_cols:
            want = str(min_cols) if min_cols == max_cols else f"{min_cols} to {max_cols}"
            raise InputError(f"{p}, line {lineno}: expected {want} columns, found {len(cols)}")
        rows.append(cols)
    if not rows:
        raise InputError(f"{what} file {p} has no entries")
    return rows


def read_attributes(path: str | Path) -> tuple[list[str], list[str]]:
    """Attribute words: ``male<TAB>female`` per line.

    When one list is longer, leave the other cell empty (``word<TAB>`` or ``<TAB>word``)
    or write ``-``. Returns ``(male, female)``.
    """
    rows = read_rows(path, min_cols=1, max_cols=2, what="attributes")
    male = [r[0] for r in rows if r[0] and r[0] != "-"]
    female = [r[1] for r in rows if len(r) == 2 and r[1] and r[1] != "-"]
    if not male or not female:
        raise InputError(f"attributes file {path} needs two columns, male and female, each non-empty")
    return male, female
