"""Command-line interface: adapters over the command layer (:mod:`geobias.commands`).

Every command is generated from its parameter model (:mod:`geobias.cli._generated`), except
``geobias serve`` (:mod:`geobias.cli.serve`), which registers on the app of :mod:`geobias.cli._app`.
A :class:`~geobias.errors.GeobiasError` prints one line and exits 1; a usage error (unknown
option, a value of the wrong type or outside an option's choices, a missing required option)
prints one line and exits 2, as click does; any other exception prints one line with an
"internal error" prefix and exits 1. ``GEOBIAS_DEBUG=1`` re-raises with a traceback.
"""

from __future__ import annotations

import inspect
import os
import sys

from geobias.cli import _gc
from geobias.errors import GeobiasError, ParameterError

# Every other command is generated from its parameter model when it is run or its help is asked
# for (geobias.cli._generated); `geobias --help` lists them from the generated index, so listing
# imports no command module and heavy imports (torch, transformers, spaCy) wait for a run. The
# Typer application itself is imported by `main` (with the garbage collector paused: see
# geobias.cli._gc) or on first use of `geobias.cli.app`.

_typer_app = None  # (not `_app`: importing the submodule geobias.cli._app sets that name here)


def application():
    """The Typer application with ``geobias serve`` registered and the command list's summaries set
    (imported once, on first use)."""
    global _typer_app
    if _typer_app is None:
        from geobias.cli import serve  # noqa: F401  (registers `geobias serve`, the one hand-written command)
        from geobias.cli._app import app

        _short_helps(app)
        _typer_app = app
    return _typer_app


def __getattr__(name: str):
    """``geobias.cli.app``: the Typer application (:func:`application`)."""
    if name == "app":
        return application()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _first_paragraph(text: str | None) -> str | None:
    if not text:
        return None
    return " ".join(inspect.cleandoc(text).split("\n\n")[0].split())


def _short_helps(typer_app) -> None:
    """The command list of ``--help`` shows each command's first docstring paragraph (click
    would cut it at the first full stop, e.g. inside "Bolukbasi et al. 2016")."""
    from geobias.cli._text import plain_roles

    for info in typer_app.registered_commands:
        info.help = plain_roles(info.help or info.callback.__doc__)  # Sphinx roles read as plain names
        if not info.short_help:
            info.short_help = _first_paragraph(info.help)
    for group in typer_app.registered_groups:
        sub = group.typer_instance
        if not group.short_help:
            group.short_help = _first_paragraph(group.help or sub.info.help)
        _short_helps(sub)


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
    _gc.at_exit()
    with _gc.paused():  # start-up without the collector's passes; the command's work resumes them
        rc = _dispatch(argv, debug)
    sys.exit(rc if isinstance(rc, int) else 0)


def _dispatch(argv: list[str] | None, debug: bool):
    """Run the command line ``argv``: its exit status, each failure as one line on stderr."""
    app = application()
    exit_, abort, usage = _click_classes("Exit"), _click_classes("Abort"), _click_classes("ClickException")
    try:
        rc = app(args=argv, standalone_mode=False, prog_name="geobias")
    except exit_ as exc:
        rc = exc.exit_code
    except abort:
        rc = _fail("aborted")
    except usage as exc:
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
    return rc
