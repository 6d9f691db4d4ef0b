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


def renamed_keywords(**renamed: str):
    """Keep a function's old keyword names as deprecated aliases: ``@renamed_keywords(old="new")``.

    A call with ``old=...`` runs as ``new=...`` and emits a :class:`DeprecationWarning` naming the
    new keyword; giving both is refused. The function's signature (``inspect.signature``) shows
    the new names only.

    Raises
    ------
    InputError
        Both the old and the new keyword are given.

    Examples
    --------
    >>> import warnings
    >>> @renamed_keywords(n="count")
    ... def f(*, count=1):
    ...     return count
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     f(n=3), w[0].category.__name__
    (3, 'DeprecationWarning')
    """
    import functools
    import warnings

    def wrap(fn):
        @functools.wraps(fn)
        def call(*args: Any, **kwargs: Any) -> Any:
            for old, new in renamed.items():
                if old in kwargs:
                    if new in kwargs:
                        raise InputError(f"{fn.__name__}: give {new}, not both {new} and {old} (its old name)")
                    warnings.warn(f"{fn.__name__}({old}=...) is deprecated; use {new}=... (the name the command "
                                  "line and the service use)", DeprecationWarning, stacklevel=2)
                    kwargs[new] = kwargs.pop(old)
            return fn(*args, **kwargs)

        return call

    return wrap
