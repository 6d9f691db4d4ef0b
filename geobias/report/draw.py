"""Drawing a result: its tables on a console or as CSV, and its figure.

The entry points of the renderers that :mod:`geobias.report.registry` keeps. This module imports
the modules that register renderers (:mod:`geobias.report.renderers`, :mod:`geobias.report.atlas`)
explicitly, so that the import graph shows every registration and no lookup imports a module by
name. The atlas' renderers are imported when an atlas result is drawn or its type is asked about
(:func:`_atlas_renderers`): their module imports the atlas evaluation, which no other command needs
(it would cost every ``geobias mweat`` a tenth of its start-up). A metric's figure is declared beside the metric (:mod:`geobias.metrics.declaration`, which
sits below this layer): :func:`make_figure` draws it when no renderer is registered here.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from geobias.metrics.declaration import Bars, figure_of
from geobias.report import renderers as _renderers  # noqa: F401  (registers every other renderer)
from geobias.report.registry import (
    FIGURES,
    TABLES,
    Collector,
    _name,
    lookup,
    plain_text,
)
from geobias.report.registry import figure_title as _registered_title

__all__ = ["Collector", "figure_title", "has_figure", "has_table", "make_figure", "plain_text", "render_csv", "render_table",
           "table_renderer"]

#: The result types whose renderers :mod:`geobias.report.atlas` registers (by name; importing that
#: module imports :mod:`geobias.evaluation.atlas`).
_ATLAS_TYPES = ("geobias.evaluation.atlas.",)


def _atlas_renderers(*names: str) -> None:
    """Register the atlas' renderers when one of ``names`` (result type names) is an atlas type.
    Only an atlas result or a question about its type needs them; every other command skips the
    import."""
    if any(name.startswith(_ATLAS_TYPES) for name in names):
        from geobias.report import atlas  # noqa: F401  (registers the atlas table and map)


def _types(result: Any) -> list[str]:
    """The names of ``result``'s type and its bases (as the registry keys them), atlas renderers registered."""
    names = [_name(cls) for cls in type(result).__mro__]
    _atlas_renderers(*names)
    return names


def table_renderer(result_type: str) -> Callable[..., None] | None:
    """The table renderer registered for the result type named ``result_type`` (``None``: none).

    >>> table_renderer("geobias.metrics.mweat.MweatResult").__name__
    'mweat'
    """
    _atlas_renderers(result_type)
    return TABLES.get(result_type)


def _accepted(fn: Callable, options: dict[str, Any]) -> dict[str, Any]:
    params = inspect.signature(fn).parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return options
    return {k: v for k, v in options.items() if k in params}


def render_table(console, result: Any, /, **options: Any) -> None:
    """Print ``result`` with its registered table renderer (a key/value list when it has none)."""
    _types(result)
    fn = lookup(TABLES, result)
    if fn is None and hasattr(result, "__rich__"):  # a renderer written beside the result type
        console.print(result)
        return
    if fn is None:
        _fallback(console, result)
        return
    fn(console, result, **_accepted(fn, options))


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
    """The result's figure (matplotlib ``Figure``), or ``None`` when it has no figure renderer.

    A renderer registered here (:func:`geobias.report.registry.figure`) comes first; otherwise the
    figure its metric declares (:attr:`geobias.metrics.declaration.Metric.figure`), drawn from the
    result's JSON form: a :class:`~geobias.metrics.declaration.Bars` chart as
    :func:`geobias.report.plots.plot_bars` draws it, or the ``Figure`` it returns.
    """
    _types(result)
    fn = lookup(FIGURES, result)
    if fn is not None:
        return fn(result, **_accepted(fn, options))
    spec = figure_of(result)
    if spec is None:
        return None
    from geobias.results import jsonable

    data = jsonable(result)
    drawn = spec.draw(data if isinstance(data, dict) else {})
    if isinstance(drawn, Bars):
        from geobias.report.plots import plot_bars

        return plot_bars(drawn.labels, drawn.values, drawn.title, drawn.axis, drawn.colours)
    return drawn


def figure_title(result: Any) -> str:
    """The title of ``result``'s figure: its registered renderer's, else its metric's declared one."""
    _types(result)
    if lookup(FIGURES, result) is None:
        spec = figure_of(result)
        if spec is not None:
            return spec.title
    return _registered_title(result)


def has_figure(result_type: str) -> bool:
    """Whether the result type named ``result_type`` (``"geobias.metrics.mweat.MweatResult"``) has a
    figure: a renderer registered here, or one its metric declares. Draws nothing and imports no
    plotting library (the command line asks it to decide whether a command gets ``--plot``).

    Examples
    --------
    >>> import geobias.metrics  # the declared metrics
    >>> has_figure("geobias.metrics.mweat.MweatResult"), has_figure("geobias.store.neighbors.Neighbor")
    (True, False)
    """
    from geobias.metrics.declaration import declares_figure

    _atlas_renderers(result_type)
    return result_type in FIGURES or declares_figure(result_type)


def has_table(result_type: type) -> bool:
    """Whether the result type ``result_type`` (a class) or a base of it has a table renderer."""
    names = [_name(cls) for cls in result_type.__mro__]
    _atlas_renderers(*names)
    return any(name in TABLES for name in names)


def _fallback(console, result: Any) -> None:
    from rich.table import Table
    from rich.text import Text

    from geobias.results import jsonable

    t = Table(show_header=False)
    data = jsonable(result)
    for k, v in (data.items() if isinstance(data, dict) else [("result", data)]):
        t.add_row(Text(str(k)), Text(str(v)))
    console.print(t)
