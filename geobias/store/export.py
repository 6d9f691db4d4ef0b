"""Export debiased stores: one vector file per language plus a JSON record, written atomically."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from geobias.errors import InputError
from geobias.io.atomic import atomic_directory, check_output_path
from geobias.results import Result
from geobias.store.vector_store import VectorStore

#: File extension of each export format (see :func:`geobias.store.formats.write_vectors`).
EXTENSIONS = {"w2v-text": "txt", "w2v-bin": "bin", "vec": "vec", "kv": "kv", "npz": "npz"}
#: Formats that separate words from values by whitespace and so cannot hold such words.
WHITESPACE_FORMATS = ("w2v-text", "w2v-bin", "vec")


@dataclass(frozen=True)
class ExportResult(Result):
    """What :func:`export_stores` wrote.

    Attributes
    ----------
    files : dict of str to str
        ``{name: path}`` of each vector file.
    format : str
    record : str
        Path of the JSON record (``mitigation.json`` by default).
    dropped : dict of str to list of str
        Words left out per store (whitespace-containing words, only with
        ``drop_whitespace_words=True``).
    """

    files: dict[str, str]
    format: str
    record: str
    dropped: dict[str, list[str]]


def _representable(word: str, fmt: str) -> bool:
    """Whether ``word`` survives a round trip through ``fmt``: text formats split lines on any
    (Unicode) whitespace; word2vec binary ends a word at an ASCII space or newline only."""
    if fmt == "w2v-bin":
        return not any(c in " \t\n\r\x0b\x0c" for c in word)
    return not any(c.isspace() for c in word)


def check_export(out: str | os.PathLike, fmt: str) -> Path:
    """Check an export destination and format without writing anything (call it before a long fit).

    Parameters
    ----------
    out : path-like
        A new directory, or an existing empty one; its parent must exist and be writable.
    fmt : str
        One of :data:`EXTENSIONS`.

    Returns
    -------
    Path
        ``out``, user-expanded.

    Raises
    ------
    InputError
        Unknown format; ``out`` is a file or a non-empty directory (this also protects the input
        vector file); its parent is missing, not a directory or not writable.
    """
    if fmt not in EXTENSIONS:
        raise InputError(f"format must be one of {', '.join(EXTENSIONS)}; got {fmt!r}")
    dest = Path(out).expanduser()
    if dest.exists() and not dest.is_dir():
        raise InputError(f"{dest} is an existing file; give a new directory name for the output")
    if dest.exists() and any(dest.iterdir()):
        raise InputError(f"{dest} already exists and is not an empty directory; choose another output")
    check_output_path(dest, what="output directory", overwrite=dest.exists(), directory=True)
    return dest


def export_stores(
    stores: dict[str, VectorStore],
    out: str | os.PathLike,
    fmt: str = "w2v-text",
    *,
    record: dict[str, Any] | None = None,
    record_name: str = "mitigation.json",
    drop_whitespace_words: bool = False,
) -> ExportResult:
    """Write ``{name: store}`` as ``out/<name>.<ext>`` plus a JSON record, all or nothing.

    Everything is written into a temporary sibling directory that is renamed onto ``out``
    (:func:`geobias.io.atomic.atomic_directory`), so a failure leaves nothing behind. Each file keeps
    its store's vocabulary order, with a correct header.

    Parameters
    ----------
    stores : dict of str to VectorStore
        E.g. ``{"fr": debiased_fr, "en": debiased_en}``.
    out : path-like
        A new directory, or an existing empty one; its parent must exist.
    fmt : {"w2v-text", "w2v-bin", "vec", "kv", "npz"}, default "w2v-text"
    record : dict, optional
        JSON-able description of what was done; ``dropped_whitespace_words`` is added.
    drop_whitespace_words : bool, default False
        Word2vec/fastText text formats cannot hold words containing whitespace (spaCy's French
        vocabulary has six whitespace-only entries, e.g. U+2009); word2vec binary cannot hold
        ASCII spaces or newlines. Whitespace-only words are always left out (listed in the result
        and the record, for the caller to warn about); other such words are an error unless
        this is True. npz and kv keep every word.

    Returns
    -------
    ExportResult

    Raises
    ------
    InputError
        Unknown format; ``out`` exists and is not an empty directory (:func:`check_export`); whitespace-containing
        words in a whitespace-separated format without ``drop_whitespace_words``; an unwritable
        destination.
    """
    from geobias.store.formats import write_vectors

    dest = check_export(out, fmt)
    dropped: dict[str, list[str]] = {}
    if fmt in WHITESPACE_FORMATS:
        for name, store in list(stores.items()):
            bad = [w for w in store.words if not _representable(w, fmt)]
            if bad and not (drop_whitespace_words or all(not w.strip() for w in bad)):
                raise InputError(
                    f"{len(bad)} {name} word(s) contain whitespace (e.g. {bad[0]!r}) and cannot be written "
                    f"as {fmt}; use format npz or kv, or drop them (--drop-whitespace-words)"
                )
            if bad:
                dropped[name] = bad
                excluded = set(bad)
                stores = {**stores, name: store.subset([w for w in store.words if w not in excluded])}
    files: dict[str, str] = {}
    with atomic_directory(dest, what="output directory", overwrite=dest.exists()) as tmp:
        for name, store in stores.items():
            path = tmp / f"{name}.{EXTENSIONS[fmt]}"
            write_vectors(store, path, format=fmt)
            files[name] = str(dest / path.name)
        body = {**(record or {}), "dropped_whitespace_words": dropped}
        (tmp / record_name).write_text(json.dumps(body, indent=2, ensure_ascii=False), encoding="utf-8")
    return ExportResult(files, fmt, str(dest / record_name), dropped)
