"""Renderers registered beside the result types they draw.

A result type may carry its own table as rich's ``__rich__`` method (written beside the type,
importing rich inside it); otherwise a *table* renderer prints it on a rich console (``fn(console, result, **options)``); a
*figure* renderer returns a matplotlib ``Figure`` (``fn(result, **options)``). The CLI prints
with :func:`render_table`; the service's report pages run the same renderers against a recording
console and turn their tables into HTML. A renderer declares the options it takes as keyword
parameters (``top=10``, ``lang=...``); :func:`render_table` passes only those, so a front door can
hand every option it has.

This module is a leaf: it only keeps the registrations. They live beside the code that draws
(:mod:`geobias.report.renderers`, :mod:`geobias.report.atlas`), and :mod:`geobias.report.draw`
imports those modules explicitly and holds the drawing entry points (``render_table``,
``render_csv``, ``make_figure``): import what you draw with from there.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_TABLES: dict[str, Callable[..., None]] = {}
_FIGURES: dict[str, Callable[..., Any]] = {}
_FIGURE_TITLES: dict[str, str] = {}


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


def figure(result_type: str, title: str = "") -> Callable:
    """Register ``fn(result, **options) -> Figure | None`` as the figure renderer of the result type
    named ``result_type``; ``title`` names the plot in reports and downloads. ``None``: the result
    has nothing to draw (e.g. an empty per-word table)."""

    def register(fn: Callable) -> Callable:
        _FIGURES[result_type] = fn
        _FIGURE_TITLES[result_type] = title or fn.__name__.replace("_", " ")
        return fn

    return register


def lookup(registry: dict[str, Callable], result: Any) -> Callable | None:
    """The renderer in ``registry`` (``TABLES`` or ``FIGURES``) of ``result``'s type or a base type."""
    for cls in type(result).__mro__:
        if _name(cls) in registry:
            return registry[_name(cls)]
    return None


def registered_names() -> set[str]:
    """Every result type name a table or figure renderer is registered for (a test checks that each
    resolves to a class)."""
    return set(_TABLES) | set(_FIGURES)


def figure_title(result: Any) -> str:
    """The registered title of ``result``'s figure renderer."""
    for cls in type(result).__mro__:
        if _name(cls) in _FIGURE_TITLES:
            return _FIGURE_TITLES[_name(cls)]
    return "figure"


TABLES = _TABLES
FIGURES = _FIGURES


class Collector:
    """A console stand-in that keeps what a renderer prints (tables, groups, text); the CSV
    writer here and the service's HTML pages read what it kept."""

    is_terminal = False

    def __init__(self):
        self.items: list[Any] = []

    def print(self, *objects: Any, **_kwargs: Any) -> None:
        self.items.extend(objects)


def plain_text(x: Any) -> str:
    """A cell, header or title as plain text: a ``Text``'s characters without its styles, a string as
    it is (never read as rich markup or emoji codes: a word ``[bold]x`` or ``:smile:`` stays what it
    is, as the command line's consoles print it), ``None`` empty.

    >>> plain_text("[bold]x"), plain_text(":smile:"), plain_text(None), plain_text(0.5)
    ('[bold]x', ':smile:', '', '0.5')
    """
    from rich.text import Text

    if isinstance(x, Text):
        return x.plain
    if isinstance(x, str):
        return x
    return "" if x is None else str(x)
