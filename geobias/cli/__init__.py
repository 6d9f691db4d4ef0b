"""Command-line interface: adapters over the command layer (:mod:`geobias.commands`).

One command per module; each module registers on the apps of :mod:`geobias.cli._app`.
A :class:`~geobias.errors.GeobiasError` prints one line and exits 1; a usage error (unknown
option, a value of the wrong type or outside an option's choices, a missing required option)
prints one line and exits 2, as click does; any other exception prints one line with an
"internal error" prefix and exits 1. ``GEOBIAS_DEBUG=1`` re-raises with a traceback.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import os
import sys
from enum import Enum

from geobias.cli._app import app
from geobias.cli._text import plain_roles
from geobias.errors import GeobiasError, ParameterError

# One line per command module. Heavy imports (torch, transformers, spaCy) stay inside the
# command functions so that `geobias --help` is instant.
COMMAND_MODULES: list[str] = [
    "geobias.cli.vectors",
    "geobias.cli.neighbors",
    "geobias.cli.directions",
    "geobias.cli.mweat",
    "geobias.cli.weat",
    "geobias.cli.align",
    "geobias.cli.translate_eval",
    "geobias.cli.hard_debias",
    "geobias.cli.mitigate",
    "geobias.cli.evaluate",
    "geobias.cli.erasure_eval",
    "geobias.cli.correlate",
    "geobias.cli.probe_association",
    "geobias.cli.probe_becpro",
    "geobias.cli.probe_malor",
    "geobias.cli.becpro",
    "geobias.cli.pool",
    "geobias.cli.cda",
    "geobias.cli.finetune",
    "geobias.cli.audit",
    "geobias.cli.serve",
    "geobias.cli.probe_sentiment",
    "geobias.cli.finetune_classifier",
]

for _name in COMMAND_MODULES:
    importlib.import_module(_name)


def _plain_choices(typer_app) -> None:
    """Wrap every registered command so that choice options (:mod:`geobias.cli._choices`) reach
    it as plain strings. Uses only Typer's public registration lists; the wrapper keeps the
    signature Typer reads."""
    for info in typer_app.registered_commands:
        info.callback = _plain_options(info.callback)
    for group in typer_app.registered_groups:
        _plain_choices(group.typer_instance)


def _plain_options(callback):
    """``callback`` with its choice options as plain strings, and ``--parquet FILE`` added (every
    command can write its result as data; :func:`geobias.cli._run.invoke` reads it)."""
    from pathlib import Path
    from typing import Annotated

    import typer

    from geobias.cli._run import PARQUET

    @functools.wraps(callback)
    def wrapper(*args, **kwargs):
        token = PARQUET.set(kwargs.pop("parquet_out", None))
        try:
            return callback(*args, **{k: _plain(v) for k, v in kwargs.items()})
        finally:
            PARQUET.reset(token)

    sig = inspect.signature(callback, eval_str=True)  # Typer reads the options from evaluated annotations
    if "parquet_out" not in sig.parameters and any(p in sig.parameters for p in ("as_json", "as_csv")):
        option = inspect.Parameter("parquet_out", inspect.Parameter.KEYWORD_ONLY, default=None, annotation=Annotated[
            Path | None, typer.Option("--parquet", help="Also write the result as data (one row per estimate) to "
                                                        "this Parquet file.")])
        wrapper.__signature__ = sig.replace(parameters=[*sig.parameters.values(), option])
    return wrapper


def _plain(value):
    """A choice option's enum member (:mod:`geobias.cli._choices`) as its string value, also in
    a list: commands, the library and the result envelope see exactly the string typed."""
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


_plain_choices(app)


def _first_paragraph(text: str | None) -> str | None:
    if not text:
        return None
    return " ".join(inspect.cleandoc(text).split("\n\n")[0].split())


def _short_helps(typer_app) -> None:
    """The command list of ``--help`` shows each command's first docstring paragraph (click
    would cut it at the first full stop, e.g. inside "Bolukbasi et al. 2016")."""
    for info in typer_app.registered_commands:
        info.help = plain_roles(info.help or info.callback.__doc__)  # Sphinx roles read as plain names
        if not info.short_help:
            info.short_help = _first_paragraph(info.help)
    for group in typer_app.registered_groups:
        sub = group.typer_instance
        if not group.short_help:
            group.short_help = _first_paragraph(group.help or sub.info.help)
        _short_helps(sub)


_short_helps(app)


def _click_classes(name: str) -> tuple[type[BaseException], ...]:
    """The click exception class ``name`` as Typer raises it (typer ≥ 0.2x vendors its own copy
    of click, whose exceptions are not the ``click`` package's: a bad ``--refine abc`` was once
    reported as an "internal error"). Found through the MRO of ``typer.Exit``, ``typer.Abort``
    and ``typer.BadParameter``, not by importing Typer's private modules; the separate ``click``
    package is not imported (it cost a third of ``geobias --help``'s start-up)."""
    import typer

    classes: list[type[BaseException]] = []
    for public in (typer.Exit, typer.Abort, typer.BadParameter):
        for cls in public.__mro__:
            if cls.__name__ == name and cls not in classes:
                classes.append(cls)
    return tuple(classes)


_EXIT = _click_classes("Exit")
_ABORT = _click_classes("Abort")
_USAGE = _click_classes("ClickException")


def _usage_line(exc: BaseException) -> str:
    """One line for a command-line usage error: the message and where to find the options."""
    message = exc.format_message() if hasattr(exc, "format_message") else str(exc)
    # Typer validates choices through pydantic, which prefixes "Value error, " to click's text
    message = message.replace(": Value error, ", ": ")
    ctx = getattr(exc, "ctx", None)
    path = getattr(ctx, "command_path", None)
    return f"{message} (see `{path} --help`)" if path else message


def _fail(message: str, code: int = 1) -> int:
    first = " ".join(str(message).split("\n")[0].split()) or "unknown error"
    print(f"geobias: error: {first}", file=sys.stderr)
    return code


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point (``geobias``)."""
    debug = os.environ.get("GEOBIAS_DEBUG") == "1"
    try:
        rc = app(args=argv, standalone_mode=False, prog_name="geobias")
    except _EXIT as exc:
        rc = exc.exit_code
    except _ABORT:
        rc = _fail("aborted")
    except _USAGE as exc:
        rc = _fail(_usage_line(exc), code=2)
    except ParameterError as exc:
        if debug:
            raise
        from geobias.cli._run import cli_message

        rc = _fail(cli_message(str(exc), exc.field), code=2)
    except GeobiasError as exc:
        if debug:
            raise
        from geobias.cli._run import option_names

        rc = _fail(option_names(str(exc)))
    except KeyboardInterrupt:
        rc = _fail("interrupted")
    except MemoryError:
        if debug:
            raise
        rc = _fail("out of memory (try --limit N to load fewer vectors)")
    except ImportError as exc:
        if debug:
            raise
        from geobias.errors import missing_extra

        rc = _fail(missing_extra(exc) or f"internal error: {type(exc).__name__}: {exc} (GEOBIAS_DEBUG=1 shows "
                                           "the traceback)")
    except Exception as exc:  # noqa: BLE001 - the CLI contract: one line, exit 1
        if debug:
            raise
        rc = _fail(f"internal error: {type(exc).__name__}: {exc} (GEOBIAS_DEBUG=1 shows the traceback)")
    sys.exit(rc if isinstance(rc, int) else 0)
