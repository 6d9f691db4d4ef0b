"""The one result convention: frozen dataclasses that convert to JSON (STYLE.md §6)."""

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
    """Mixin for frozen result dataclasses: ``to_dict()`` and ``to_json()``."""

    def to_dict(self) -> dict[str, Any]:
        return jsonable(self)

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)


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
