"""The CLI's one way to run a command: options → parameter model → ``run`` → table or JSON.

Every command of the command line is generated from its parameter model
(:mod:`geobias.cli._generated`), so its options are named as the model's fields and its body is
one call: ``invoke("mweat", options, presentation={"top": 10})``. Validation, defaults, word-set
assembly and the permutation budget live in the model (:mod:`geobias.commands`); this module
only chooses how to show progress and the result.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import re
import sys
from typing import Any

from geobias.cli._options import progress, stderr, table_console

#: The output options of the command being run, by parameter name (every command gets them:
#: :func:`geobias.cli._generated.build` adds them): ``parquet_out`` (``--parquet FILE``), ``items``
#: and ``table`` (an item table instead of the summary row), ``plot_out`` (``--plot FILE``, where the
#: result type has a figure: :func:`has_plot`), ``overwrite`` (``--overwrite``: replace an existing
#: ``--parquet`` or ``--plot`` file; a command with an ``overwrite`` parameter of its own has that one).
OUTPUTS: contextvars.ContextVar = contextvars.ContextVar("geobias_outputs", default=None)
OUTPUT_OPTIONS = ("parquet_out", "items", "table", "plot_out", "overwrite")

#: Parameter names whose option is not ``--name-with-hyphens`` (a field's kind may name another
#: long option: ``--from`` for ``from_path``).
FLAGS = {"from_path": "--from"}


def flag(field: str) -> str:
    """The command-line option of a parameter (``permutation_method`` → ``--permutation-method``)."""
    return FLAGS.get(field) or "--" + field.replace("_", "-")


def option_names(message: str) -> str:
    """A message with its quoted parameter names (```force```) written as options (``--force``)."""
    return re.sub(r"`([a-z_]+)`", lambda m: flag(m.group(1)), message)


def cli_message(message: str, field: str | None = None) -> str:
    """A parameter error in the CLI's words: parameter names written as their options."""
    message = option_names(message)
    message = re.sub(r"\b([a-z]+(?:_[a-z]+)+)\b", lambda m: flag(m.group(1)), message)
    if field and message.startswith(field + " ") or field and message.startswith(field + ":"):
        message = flag(field) + message[len(field):]
    return message


def deprecated(old: str, new: str) -> None:
    """One line on stderr for a renamed option that still works."""
    stderr.print(f"geobias: {old} is deprecated; use {new}", markup=False, highlight=False)


def has_plot(cmd) -> bool:
    """Whether ``cmd`` gets ``--plot FILE``: its result type has a figure (registered in the report
    layer or declared by its metric; :func:`geobias.report.draw.has_figure`) and its parameters do not
    already name a ``plot`` of their own (``directions``, ``correlate``: the paper's figure).
    Imports no plotting library."""
    if not cmd.result or "plot" in cmd.params.model_fields:
        return False
    from geobias.report.draw import has_figure

    return has_figure(cmd.result)


def wrote(path) -> None:
    """The one line on stderr that says where a command wrote a file."""
    stderr.print(f"wrote {path}", markup=False, highlight=False, soft_wrap=True)


def _recording(reporter):
    """``reporter`` that also keeps the notes it printed (so a file a command names itself is not
    announced twice)."""
    noted: list[str] = []
    note = reporter.note

    def keep(text: str) -> None:
        if getattr(reporter, "notes", True) or text.startswith("warning:"):  # what the person saw
            noted.append(text)
        note(text)

    reporter.note = keep
    return reporter, noted


def _announce_outputs(cmd, validated, reporter, noted: list[str]) -> None:
    """``wrote PATH`` for each file or folder the command declares (``Output``) and wrote, unless
    the command said so itself, or notes are off (``--json``: the envelope names the files written;
    ``--plot`` and ``--parquet``, which it does not name, are announced anyway)."""
    from pathlib import Path

    if not getattr(reporter, "notes", True):
        return
    for out in cmd.outputs:
        value = dict(validated).get(out.field)
        if value is None or isinstance(value, bool):
            continue
        if not Path(str(value)).exists() or any(str(value) in text for text in noted):
            continue
        wrote(value)


@contextlib.contextmanager
def _without_pydantic_plugins():
    """No pydantic plugin is looked for while the command line validates its options (the
    parameter model is built then): looking scans every installed package's entry points, a few
    per cent of a quick command's start-up, for options that nothing observes. Typer does the same
    for its own options (``PYDANTIC_DISABLE_PLUGINS`` while it builds them); the library, the
    service and the web app validate with the plugins installed."""
    import os

    previous = os.environ.get("PYDANTIC_DISABLE_PLUGINS")
    os.environ["PYDANTIC_DISABLE_PLUGINS"] = "1"
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop("PYDANTIC_DISABLE_PLUGINS", None)
        else:
            os.environ["PYDANTIC_DISABLE_PLUGINS"] = previous


def invoke(name: str, options: dict[str, Any], *, presentation: dict[str, Any] | None = None):
    """Validate ``options`` against the command ``name``'s parameter model, run it with rich
    progress on stderr, and print its table (or, with ``as_json``, its envelope; with ``as_csv``, its
    tables as CSV) on stdout. Tables take the terminal's width, and do not wrap when piped.

    ``options`` are the command line's values by field name, with ``quiet``, ``as_json`` and
    ``as_csv``; ``None`` values are left to the model's defaults. ``presentation`` goes to the
    table renderer (``top``). The output options (:data:`OUTPUTS`) add a Parquet file, an item
    table instead of the summary row (``--items``, ``--table NAME``: :func:`geobias.results.item_tables`)
    and the result's figure (``--plot FILE``: :func:`geobias.report.draw.make_figure`, the figure the
    service shows); every output path of the command line is checked before any work
    (:func:`geobias.cli._outputs.check_outputs`: never an input, a store's file, another output, or
    an existing ``--parquet``/``--plot`` file without ``--overwrite``), and every file written is
    announced on stderr (``wrote PATH``). Returns ``(result, envelope)``.
    """
    from geobias.commands import execute, get, validate

    options = dict(options)
    quiet, as_json = bool(options.pop("quiet", False)), bool(options.pop("as_json", False))
    as_csv = bool(options.pop("as_csv", False))
    if as_json and as_csv:
        from geobias.errors import ParameterError

        raise ParameterError("give --json or --csv, not both")
    outputs = dict(OUTPUTS.get() or {})
    parquet, plot, table = outputs.get("parquet_out"), outputs.get("plot_out"), outputs.get("table")
    items = bool(outputs.get("items")) or table is not None
    if items and not (as_csv or parquet is not None):
        from geobias.errors import ParameterError

        raise ParameterError("--items and --table choose what --csv or --parquet write; give one of those too")
    render = dict(presentation or {})
    params = {k: v for k, v in options.items() if v is not None}
    cmd = get(name)
    with _without_pydantic_plugins():
        validated = validate(cmd, params, front="cli")
    # before any work: an output on an input, on another output or on an existing file is one line, not a lost run
    overwrite = bool(getattr(validated, "overwrite", False) or outputs.get("overwrite"))
    from geobias.cli._outputs import check_outputs

    check_outputs(cmd, params, validated, {"--parquet": parquet, "--plot": plot}, overwrite=overwrite,
                  flag=flag)
    reporter, noted = _recording(progress(quiet, as_json))
    from geobias.cli._gc import resume

    resume()  # the command's own work: the collector runs again (paused for start-up by `main`)
    result, env = execute(cmd, validated, progress=reporter)
    _announce_outputs(cmd, validated, reporter, noted)
    if items:  # the table exists (or the error lists those that do) before anything is printed
        from geobias.results import item_table

        item_table(env, table)
    if as_json:
        sys.stdout.write(json.dumps(env, indent=2, ensure_ascii=False) + "\n")
    if parquet is not None:  # the result as data, besides whatever is printed
        from geobias.report.tidy import write_parquet

        write_parquet(parquet, env, overwrite=overwrite, items=items, table=table)
        wrote(parquet)
    if plot is not None:  # matplotlib is imported here only, when a plot is asked for
        from geobias.report.draw import make_figure
        from geobias.report.plots import save_figure

        figure = make_figure(result, **{**dict(validated), "inputs": env["inputs"]})
        if figure is None:
            stderr.print("geobias: nothing to plot for this result (no items)", markup=False, highlight=False)
        else:
            save_figure(figure, plot, overwrite=overwrite)
            wrote(plot)
    if as_json:
        pass
    elif as_csv:  # the result as data: one row per estimate, every number in full (the tables stay the terminal's)
        from geobias.report.tidy import write_csv

        write_csv(sys.stdout, env, items=items, table=table)
    else:
        from geobias.report.draw import render_table

        render_table(table_console(), result, **{**dict(validated), "inputs": env["inputs"], **render})
    return result, env
