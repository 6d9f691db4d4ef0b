"""Renderers registered beside the result types they draw.

A result type may carry its own table as rich's ``__rich__`` method (written beside the type,
importing rich inside it); otherwise a *table* renderer prints it on a rich console (``fn(console, result, **options)``); a
*figure* renderer returns a matplotlib ``Figure`` (``fn(result, **options)``). The CLI prints
with :func:`render_table`; the service's report pages run the same renderers against a recording
console and turn their tables into HTML. A renderer declares the options it takes as keyword
parameters (``top=10``, ``lang=...``); :func:`render_table` passes only those, so a front door can
hand every option it has.

Registrations live in :mod:`geobias.report.renderers`, imported on the first lookup.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from typing import Any

_TABLES: dict[str, Callable[..., None]] = {}
_FIGURES: dict[str, Callable[..., Any]] = {}


def _name(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def table(result_type: str) -> Callable:
    """Register ``fn(console, result, **options)`` as the table renderer of the result type named
    ``result_type`` (``"geobias.metrics.mweat.MweatResult"``: by name, so that registering imports
    no analysis module)."""

    def register(fn: Callable) -> Callable:
        _TABLES[result_type] = fn
        return fn

    return register


def figure(result_type: str) -> Callable:
    """Register ``fn(result, **options) -> Figure`` as the figure renderer of the result type named
    ``result_type``."""

    def register(fn: Callable) -> Callable:
        _FIGURES[result_type] = fn
        return fn

    return register


def _lookup(registry: dict[str, Callable], result: Any) -> Callable | None:
    importlib.import_module("geobias.report.renderers")
    for cls in type(result).__mro__:
        if _name(cls) in registry:
            return registry[_name(cls)]
    return None


def _accepted(fn: Callable, options: dict[str, Any]) -> dict[str, Any]:
    params = inspect.signature(fn).parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return options
    return {k: v for k, v in options.items() if k in params}


def render_table(console, result: Any, **options: Any) -> None:
    """Print ``result`` with its registered table renderer (a key/value list when it has none)."""
    fn = _lookup(_TABLES, result)
    if fn is None and hasattr(result, "__rich__"):  # a renderer written beside the result type
        console.print(result)
        return
    if fn is None:
        _fallback(console, result)
        return
    fn(console, result, **_accepted(fn, options))


def make_figure(result: Any, **options: Any):
    """The result's figure (matplotlib ``Figure``), or ``None`` when it has no figure renderer."""
    fn = _lookup(_FIGURES, result)
    return None if fn is None else fn(result, **_accepted(fn, options))


def has_table(result_type: type) -> bool:
    importlib.import_module("geobias.report.renderers")
    return any(_name(cls) in _TABLES for cls in result_type.__mro__)


def _fallback(console, result: Any) -> None:
    from rich.table import Table
    from rich.text import Text

    from geobias.results import jsonable

    t = Table(show_header=False)
    data = jsonable(result)
    for k, v in (data.items() if isinstance(data, dict) else [("result", data)]):
        t.add_row(Text(str(k)), Text(str(v)))
    console.print(t)
