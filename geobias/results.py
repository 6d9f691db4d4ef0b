"""The one result convention: frozen dataclasses that convert to JSON and back."""

from __future__ import annotations

import contextvars
import dataclasses
import json
import math
import sys
from typing import Any


def jsonable(obj: Any) -> Any:
    """Convert dataclasses, numpy scalars/arrays, tuples and paths to JSON-able values.

    Non-finite floats become ``None`` (JSON has no NaN). A dataclass is converted field by
    field, or, when it has a ``_json_keys`` tuple, attribute by attribute in that order (a
    result that embeds another and keeps a flat JSON form, e.g. :class:`geobias.metrics.WeatResult`).
    """
    np = sys.modules.get("numpy")  # not imported here (CLI startup): no numpy object exists without it
    if np is None:
        np = _NoNumpy
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        keys = getattr(obj, "_json_keys", None)  # a result whose JSON form differs from its fields
        if keys is None:
            keys = [f.name for f in dataclasses.fields(obj)]
        return {k: jsonable(getattr(obj, k)) for k in keys}
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return jsonable(obj.tolist())
    if isinstance(obj, (np.bool_, bool)):
        return bool(obj)
    if isinstance(obj, (np.integer, int)):
        return int(obj)
    if isinstance(obj, (np.floating, float)):
        f = float(obj)
        return f if math.isfinite(f) else None
    if obj is None or isinstance(obj, str):
        return obj
    return str(obj)


class _NoNumpy:
    class ndarray: ...  # noqa: N801 - stand-ins that no object is an instance of

    class bool_: ...  # noqa: N801

    class integer: ...  # noqa: N801

    class floating: ...  # noqa: N801


class Result:
    """Mixin for frozen result dataclasses: ``to_dict()``, ``to_json()`` and ``from_dict()``."""

    def to_dict(self) -> dict[str, Any]:
        return jsonable(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]):
        """The result again from its JSON form (:meth:`to_dict`), e.g. a stored envelope's ``result``.

        Each field is rebuilt by its type annotation: nested results through their own
        ``from_dict``, lists and tuples element by element, arrays with ``numpy.asarray``. A
        field embedded flat in the JSON (see ``_json_keys``) is rebuilt from the same dict.
        Non-finite floats were written as ``null`` and stay ``None``.

        Raises
        ------
        InputError
            ``data`` is not this result's JSON form (a missing field without a default).

        Examples
        --------
        >>> from geobias.store.neighbors import Neighbor
        >>> Neighbor.from_dict({"word": "reine", "similarity": 0.7})
        Neighbor(word='reine', similarity=0.7)
        """
        from geobias.errors import InputError

        if not isinstance(data, dict):
            raise InputError(f"{cls.__name__}.from_dict needs a JSON object; got {type(data).__name__}")
        hints = _hints(cls)
        kwargs: dict[str, Any] = {}
        for f in dataclasses.fields(cls):
            hint = hints.get(f.name)
            if f.name in data:
                kwargs[f.name] = _revive(hint, data[f.name])
            elif isinstance(hint, type) and issubclass(hint, Result):  # embedded flat (``_json_keys``)
                kwargs[f.name] = hint.from_dict(data)
            elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise InputError(f"not a {cls.__name__}: no {f.name!r} in the data")
        return cls(**kwargs)

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)


def result_type(qualified_name: str) -> type:
    """The result class named ``"package.module.ClassName"`` (a command's declared ``result``).

    The one place where geobias imports a module by its name: a command declares its result type
    by name so that registering it imports no analysis (and `geobias --help` stays light); the
    type is imported here when a stored result is rebuilt. A test resolves every declared name and
    checks that these imports close no import cycle.

    Raises
    ------
    InputError
        No such module or class, or the class is not a :class:`Result`.

    Examples
    --------
    >>> result_type("geobias.store.neighbors.Neighbor").__name__
    'Neighbor'
    """
    import importlib

    from geobias.errors import InputError

    module, _, name = qualified_name.rpartition(".")
    try:
        cls = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError, ValueError):
        raise InputError(f"no result type {qualified_name!r}") from None
    if not (isinstance(cls, type) and issubclass(cls, Result)):
        raise InputError(f"{qualified_name} is not a result type")
    return cls


def _hints(cls: type) -> dict[str, Any]:
    """The resolved type annotations of a dataclass (those that cannot be resolved are left out)."""
    import typing

    try:
        return typing.get_type_hints(cls)
    except (NameError, TypeError):
        hints = {}
        for klass in reversed(cls.__mro__):
            module = sys.modules.get(klass.__module__)
            for name, ann in getattr(klass, "__annotations__", {}).items():
                try:
                    hints[name] = eval(ann, vars(module)) if isinstance(ann, str) else ann  # noqa: S307
                except Exception:  # noqa: BLE001 - a name only imported for type checking
                    continue
        return hints


def _revive(hint: Any, value: Any) -> Any:
    import types
    import typing

    if value is None or hint is None:
        return value
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in args if a is not type(None)]
        return _revive(options[0], value) if len(options) == 1 else value
    if isinstance(hint, type) and issubclass(hint, Result) and isinstance(value, dict):
        return hint.from_dict(value)
    if getattr(hint, "__name__", "") == "ndarray" or origin is not None and getattr(origin, "__name__", "") == "ndarray":
        import numpy as np

        return np.asarray(value, dtype=float if value and not isinstance(value[0], str) else None)
    if origin is list and isinstance(value, list):
        return [_revive(args[0] if args else None, v) for v in value]
    if origin is tuple and isinstance(value, list):
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_revive(args[0], v) for v in value)
        return tuple(_revive(a, v) for a, v in zip(args, value, strict=False)) if args else tuple(value)
    return value


# Inputs that a command resolved while it ran (vector stores with their provenance), collected
# for the result envelope. A context variable, so concurrent service requests do not mix them.
_RECORDED: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar("geobias_inputs", default=None)


def start_recording() -> contextvars.Token:
    """Begin collecting inputs for one command (returns the token for :func:`stop_recording`)."""
    return _RECORDED.set({})


def stop_recording(token: contextvars.Token) -> None:
    _RECORDED.reset(token)


def record_input(key: str, value: Any) -> None:
    """Note an input that a command resolved (no-op outside a recording)."""
    current = _RECORDED.get()
    if current is not None:
        current[key] = jsonable(value)


def recorded_inputs() -> dict[str, Any]:
    """The inputs recorded since :func:`start_recording` (empty outside a recording)."""
    return dict(_RECORDED.get() or {})


def envelope(command: str, inputs: dict[str, Any], result: Any) -> dict[str, Any]:
    """The one JSON shape of every result, on every front door (CLI ``--json``, Python, HTTP).

    Returns
    -------
    dict
        ``{"command": str, "geobias_version": str, "inputs": dict, "result": dict}``;
        ``inputs`` holds the options the command was given and the vector stores it resolved
        (provenance, sha256 when known), ``result`` the result's ``to_dict()``.
    """
    from geobias._version import __version__

    body = result.to_dict() if hasattr(result, "to_dict") else jsonable(result)
    return {
        "command": command,
        "geobias_version": __version__,
        "inputs": jsonable(inputs),
        "result": body,
    }
