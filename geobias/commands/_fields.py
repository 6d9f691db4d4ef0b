"""Field types shared by the parameter models, and the word-set and text readers behind them.

Where a command takes words or a text file, the field accepts what each front door has:

* a list of words (every front door);
* a string: on the CLI and in Python a file (one word per line, ``#`` comments) or a comma list
  (``"nurse,teacher"``); in the service only a comma list — the server's files are not readable
  through a request;
* for texts (dictionaries, sentences): a path on the CLI and in Python; the text itself in the
  service (:class:`Inline`).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, ValidationInfo

from geobias.commands._base import front_of
from geobias.commands._kinds import LANGUAGE, STORE, WORDS, Spec, local
from geobias.errors import InputError, ParameterError


def _read_words(value: str, field: str, *, files: bool) -> list[str]:
    from geobias.wordlists import read_word_file

    if files:
        p = Path(value).expanduser()
        try:
            exists = p.exists()
        except OSError:  # e.g. a long inline list is not a valid file name
            exists = False
        if exists:
            return read_word_file(p)
        if "," not in value and ("/" in value or p.suffix.lower() in {".txt", ".tsv", ".csv", ".lst"}):
            raise InputError(f"no such file {value} (give a file, or words separated by commas)")
    words = [w.strip() for w in value.split(",")]
    return [w for w in words if w]


def _word_set(value: Any, info: ValidationInfo) -> Any:
    if value is None:
        return None
    if isinstance(value, str):
        value = _read_words(value, info.field_name, files=front_of(info) != "service")
    if isinstance(value, (list, tuple)):
        if not all(isinstance(w, str) for w in value):
            return value  # pydantic reports the wrong type
        words = [w.strip() for w in value]
        if not words or not all(words):
            raise InputError("no words given" if not words else "an empty word")
        if any("\n" in w or "\r" in w or "\t" in w for w in words):
            raise InputError("a word contains a tab or a line break")
        seen: set[str] = set()  # linear: a set, never a scan of the words before each one
        for w in words:
            if w in seen:
                raise InputError(f"word {w!r} is given twice")
            seen.add(w)
        return words
    return value


#: A word set: a list of words, or a string read as a file or a comma list (see the module docstring).
WordSet = Annotated[list[str], BeforeValidator(_word_set), WORDS]


class Inline(BaseModel):
    """A text given inline (the service's form of a file argument)."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)  # built when first used
    text: str


def _text(value: Any, info: ValidationInfo) -> Any:
    if value is None or isinstance(value, (Path, Inline)):
        if isinstance(value, Path) and front_of(info) == "service":
            raise InputError("give the text itself; the server's files are not readable through a request")
        return value
    if isinstance(value, dict):
        return Inline(**value)
    if isinstance(value, str):
        return Inline(text=value) if front_of(info) == "service" else Path(value).expanduser()
    return value


#: A text input: a file (CLI, Python) or the text itself (service).
TextInput = Annotated[Path | Inline, BeforeValidator(_text)]


@contextmanager
def text_path(value: Path | Inline | None, what: str) -> Iterator[Path | None]:
    """A file holding a :data:`TextInput` for the block: the path itself, or inline text written
    to a temporary file (removed afterwards); ``None`` stays ``None``."""
    if value is None or isinstance(value, Path):
        yield value
        return
    import tempfile

    with tempfile.TemporaryDirectory(prefix="geobias-inline-") as d:
        path = Path(d) / what
        path.write_text(value.text, encoding="utf-8")
        yield path


def read_text_input(value: Path | Inline, what: str, reader):
    """Run a file reader of the library on a :data:`TextInput`; for inline text the messages and
    the result's ``source`` name ``what``, not the temporary file it is read from."""
    import dataclasses

    with text_path(value, what) as path:
        try:
            result = reader(path)
        except InputError as exc:
            if isinstance(value, Path):
                raise
            raise InputError(str(exc).replace(str(path), what)) from None
    if isinstance(value, Inline) and dataclasses.is_dataclass(result) and getattr(result, "source", None) == str(path):
        result = dataclasses.replace(result, source=f"{what} (inline)")  # not the temporary file's path
    return result


def check_plot(path: Path | None, force: bool) -> None:
    """Check a ``plot`` output before any work: an existing file is replaced only with ``force``.

    Raises
    ------
    InputError
        ``path`` exists and ``force`` is False, or it cannot be written (see
        :func:`geobias.io.atomic.check_output_path`).
    """
    if path is None:
        return
    from geobias.io.atomic import check_output_path

    p = Path(path).expanduser()
    if p.is_file() and not force:
        raise InputError(f"{p} already exists; pass `force` to replace it (or choose another `plot` file)")
    check_output_path(p, what="plot")


#: ``force`` of a command that writes a plot: replace an existing file.
PLOT_FORCE_HELP = "Replace an existing `plot` file (it is written atomically: a reader never sees half of it)."


def _store_ref(value: Any, info: ValidationInfo) -> Any:
    if isinstance(value, str) and front_of(info) == "service":
        import re

        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}", value) or ".." in value:
            raise InputError(f"{value!r} is not a store name (GET /stores lists them)")
    if isinstance(value, Path):
        return str(value)
    return value


#: A vector store: a registry name, a saved store's name, a cached store directory or a vector
#: file (CLI, Python); a store name only in the service.
StoreRef = Annotated[str | None, BeforeValidator(_store_ref), STORE]


def _lang(value: Any) -> Any:
    if isinstance(value, str):
        from geobias.languages import get_language

        return get_language(value).code
    return value


#: A language code known to geobias (:mod:`geobias.languages`).
Lang = Annotated[str, BeforeValidator(_lang), LANGUAGE, Field(description="Language code: en, es, fr, de, ar, it, ja, ko, nl, pl, pt, ru, th, tr, zh-cn or zh-tw.")]

def _positive(value: int) -> int:
    if value <= 0:
        raise ParameterError(f"must be positive; got {value}")
    return value


def _non_negative(value: int) -> int:
    if value < 0:
        raise ParameterError(f"must be a non-negative integer; got {value}")
    return value


#: An integer ≥ 1 (a count); 0 or less is a usage error "NAME must be positive; got N".
Count = Annotated[int, AfterValidator(_positive)]
#: An integer ≥ 0.
NonNegative = Annotated[int, AfterValidator(_non_negative)]
Seed = Annotated[int, AfterValidator(_non_negative), Spec(label="Random seed"), Field(le=2**63 - 1, description=(
    "Random seed (same seed, same p-value)."))]
Limit = Annotated[int | None, AfterValidator(lambda v: v if v is None else _positive(v)), local(None),
                  Field(description="Read only the first N vectors.")]

__all__ = ["PLOT_FORCE_HELP", "Count", "Inline", "Lang", "Limit", "NonNegative", "Seed", "StoreRef", "TextInput", "WordSet", "read_text_input",
           "check_plot", "text_path"]
