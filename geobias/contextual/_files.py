"""A small reader for the contextual probes' own word-list files (``wordlists/<lang>/*.tsv``).

Files are UTF-8, tab-separated, ``#`` lines are comments, the first non-comment line is the
header. The directory is ``<repo>/wordlists`` in a checkout and ``geobias/_wordlists`` in a wheel.
"""

from __future__ import annotations

from pathlib import Path

from geobias.errors import InputError

_PACKAGE = Path(__file__).resolve().parents[1]


def wordlists_dir() -> Path:
    """The directory holding ``<lang>/*.tsv`` (checkout first, then the wheel's copy)."""
    for candidate in (_PACKAGE.parent / "wordlists", _PACKAGE / "_wordlists"):
        if candidate.is_dir():
            return candidate
    raise InputError("the geobias word lists are missing (expected wordlists/ beside the package)")


def read_table(path: str | Path, required: tuple[str, ...] = ()) -> list[dict[str, str]]:
    """Read a headed TSV word-list file into a list of row dicts.

    Parameters
    ----------
    path : str or Path
        The file.
    required : tuple of str
        Column names that must be present.

    Raises
    ------
    InputError
        Missing file, missing header or columns, or a row with the wrong number of fields
        (the message names the file and the 1-based line).
    """
    path = Path(path)
    if not path.is_file():
        raise InputError(f"word-list file not found: {path}")
    header: list[str] | None = None
    rows: list[dict[str, str]] = []
    with path.open(encoding="utf-8") as fh:
        for lineno, raw in enumerate(fh, start=1):
            line = raw.rstrip("\n").rstrip("\r")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            fields = [f.strip() for f in line.split("\t")]
            if header is None:
                header = fields
                missing = [c for c in required if c not in header]
                if missing:
                    raise InputError(f"{path}: line {lineno}: missing column(s) {', '.join(missing)}")
                continue
            if len(fields) != len(header):
                raise InputError(
                    f"{path}: line {lineno}: expected {len(header)} tab-separated fields, got {len(fields)}"
                )
            rows.append(dict(zip(header, fields, strict=True)))
    if header is None or not rows:
        raise InputError(f"{path}: no rows")
    return rows


def own_table(lang: str, name: str, required: tuple[str, ...] = ()) -> list[dict[str, str]]:
    """Read ``wordlists/<lang>/<name>.tsv``; an unsupported language raises InputError."""
    path = wordlists_dir() / lang / f"{name}.tsv"
    if not path.is_file():
        raise InputError(f"no {name} word list for language {lang!r} ({path} not found)")
    return read_table(path, required)


def read_words(path: str | Path) -> list[str]:
    """Read a user word file: one word (or tab-separated words) per line, ``#`` comments.

    Every tab-separated field is taken as a word; duplicates are kept once, in file order.

    Raises
    ------
    InputError
        Missing or empty file.
    """
    path = Path(path)
    if not path.is_file():
        raise InputError(f"word file not found: {path}")
    seen: dict[str, None] = {}
    with path.open(encoding="utf-8") as fh:
        for raw in fh:
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            for field in line.split("\t"):
                if field.strip():
                    seen.setdefault(field.strip(), None)
    if not seen:
        raise InputError(f"{path}: no words")
    return list(seen)
