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


def render_table(console, result: Any, /, **options: Any) -> None:
    """Print ``result`` with its registered table renderer (a key/value list when it has none)."""
    fn = _lookup(_TABLES, result)
    if fn is None and hasattr(result, "__rich__"):  # a renderer written beside the result type
        console.print(result)
        return
    if fn is None:
        _fallback(console, result)
        return
    fn(console, result, **_accepted(fn, options))


class Collector:
    """A console stand-in that keeps what a renderer prints (tables, groups, text); the CSV
    writer here and the service's HTML pages read what it kept."""

    is_terminal = False

    def __init__(self):
        self.items: list[Any] = []

    def print(self, *objects: Any, **_kwargs: Any) -> None:
        self.items.extend(objects)


def plain_text(x: Any) -> str:
    """A cell, header or title as plain text (rich markup and ``Text`` styles dropped; ``None`` is empty)."""
    from rich.text import Text

    if isinstance(x, Text):
        return x.plain
    if isinstance(x, str):
        try:
            return Text.from_markup(x).plain
        except Exception:  # noqa: BLE001 - not markup after all
            return x
    return "" if x is None else str(x)


def _tables(obj: Any) -> list[tuple[str, list[str], list[list[str]]]]:
    """``(title, header, rows)`` of every rich ``Table`` in what a renderer printed (groups recursed)."""
    from rich.console import Group
    from rich.table import Table

    if hasattr(obj, "__rich__") and not isinstance(obj, (Table, Group)):
        obj = obj.__rich__()
    if isinstance(obj, Group):
        return [t for r in obj.renderables for t in _tables(r)]
    if isinstance(obj, Table):
        cells = [[plain_text(c) for c in col.cells] for col in obj.columns]
        n = max((len(c) for c in cells), default=0)
        rows = [[col[i] if i < len(col) else "" for col in cells] for i in range(n)]
        header = [plain_text(c.header).replace("\n", " ") for c in obj.columns] if obj.show_header else []
        return [(plain_text(obj.title) if obj.title else "", header, rows)]
    return []


def render_csv(out, result: Any, /, **options: Any) -> int:
    """Write the tables that :func:`render_table` prints for ``result`` as CSV on the text stream ``out``.

    Each table is its header row (when it has one) and its rows, cells as plain text; tables are
    separated by an empty line and preceded by a ``# title`` line when titled (read them with
    ``pandas.read_csv(..., comment="#")``). Returns the number of tables written.

    Examples
    --------
    >>> import io
    >>> from rich.table import Table
    >>> class R:
    ...     def __rich__(self):
    ...         t = Table("word", "score"); t.add_row("nurse", "0.25"); return t
    >>> buf = io.StringIO(); render_csv(buf, R()); buf.getvalue().splitlines()
    1
    ['word,score', 'nurse,0.25']
    """
    import csv

    collector = Collector()
    render_table(collector, result, **options)
    tables = [t for item in collector.items for t in _tables(item)]
    writer = csv.writer(out, lineterminator="\n")
    for i, (title, header, rows) in enumerate(tables):
        if i:
            out.write("\n")
        if title:
            out.write(f"# {title}\n")
        if header:
            writer.writerow(header)
        writer.writerows(rows)
    return len(tables)


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
