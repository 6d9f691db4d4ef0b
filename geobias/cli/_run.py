"""The CLI's one way to run a command: options → parameter model → ``run`` → table or JSON.

Every command of the command line is generated from its parameter model
(:mod:`geobias.cli._generated`), so its options are named as the model's fields and its body is
one call: ``invoke("mweat", options, presentation={"top": 10})``. Validation, defaults, word-set
assembly and the permutation budget live in the model (:mod:`geobias.commands`); this module
only chooses how to show progress and the result.
"""

from __future__ import annotations

import contextvars
import json
import re
import sys
from typing import Any

from geobias.cli._options import progress, stderr, table_console

#: ``--parquet FILE`` of the command being run (every command gets the option: geobias.cli adds it).
PARQUET: contextvars.ContextVar = contextvars.ContextVar("geobias_parquet", default=None)

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


def invoke(name: str, options: dict[str, Any], *, presentation: dict[str, Any] | None = None):
    """Validate ``options`` against the command ``name``'s parameter model, run it with rich
    progress on stderr, and print its table (or, with ``as_json``, its envelope; with ``as_csv``, its
    tables as CSV) on stdout. Tables take the terminal's width, and do not wrap when piped.

    ``options`` are the command line's values by field name, with ``quiet``, ``as_json`` and
    ``as_csv``; ``None`` values are left to the model's defaults. ``presentation`` goes to the
    table renderer (``top``). Returns ``(result, envelope)``.
    """
    from geobias.commands import execute, get, validate

    options = dict(options)
    quiet, as_json = bool(options.pop("quiet", False)), bool(options.pop("as_json", False))
    as_csv = bool(options.pop("as_csv", False))
    if as_json and as_csv:
        from geobias.errors import ParameterError

        raise ParameterError("give --json or --csv, not both")
    render = dict(presentation or {})
    params = {k: v for k, v in options.items() if v is not None}
    cmd = get(name)
    validated = validate(cmd, params, front="cli")
    result, env = execute(cmd, validated, progress=progress(quiet, as_json))
    if as_json:
        sys.stdout.write(json.dumps(env, indent=2, ensure_ascii=False) + "\n")
    parquet = PARQUET.get()
    if parquet is not None:  # the result as data, besides whatever is printed
        from geobias.report.tidy import write_parquet

        write_parquet(parquet, env)
    if as_json:
        pass
    elif as_csv:  # the result as data: one row per estimate, every number in full (the tables stay the terminal's)
        from geobias.report.tidy import write_csv

        write_csv(sys.stdout, env)
    else:
        from geobias.report.draw import render_table

        render_table(table_console(), result, **{**dict(validated), "inputs": env["inputs"], **render})
    return result, env
