"""Validation shared by every layer: option values checked against ``Literal`` choices
(a bad value raises, listing the valid choices)."""

from __future__ import annotations

from typing import Any, get_args

from geobias.errors import InputError


def check_choice(name: str, value: str, literal: Any) -> str:
    """Validate ``value`` against the choices of a ``Literal`` type.

    Raises
    ------
    InputError
        Listing the valid choices.
    """
    choices = get_args(literal)
    if value not in choices:
        raise InputError(f"{name} must be one of {', '.join(map(repr, choices))}; got {value!r}")
    return value
