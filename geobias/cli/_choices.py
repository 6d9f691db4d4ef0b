"""The choice options of the command line: a field's ``Literal`` becomes a string enum
(:class:`Choice`), so that ``--help`` shows its values (``[cosine|dot]``) and a value outside them
is a usage error (exit 2), as click does; commands receive the plain string value, never the enum
member (:func:`geobias.cli._generated.build`)."""

from __future__ import annotations

from enum import Enum


class Choice(str, Enum):
    """A string enum whose ``str()`` is its value."""

    def __str__(self) -> str:
        return self.value


def hyphens(token: str) -> str:
    """Click's ``token_normalize_func`` for commands taking method names: the underscore spelling of
    a choice (``shift_ori``) is accepted as a hidden alias of the hyphen one (``shift-ori``)."""
    return token.replace("_", "-")
