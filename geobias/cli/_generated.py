"""Command-line commands made from the command layer's parameter models.

A command registered in :mod:`geobias.commands` that has no hand-written Typer command gets one
here: each field of its parameter model becomes an option (``--field-name``; a ``Literal`` is a
choice, a ``bool`` a flag, a list or word set a string that the model parses: a file or a comma
list), its description the option's help, plus ``--quiet`` and ``--json``. So adding a metric
needs no CLI code.

``geobias --help`` must stay fast, so the command modules are not imported to list these
commands: their names and one-line summaries are read from the modules' source
(:func:`catalogue`), and a command is built only when it is run or its help is asked for.
"""

from __future__ import annotations

import functools
import inspect
import re
import typing
from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from geobias.cli._choices import Choice

_DECORATOR = re.compile(r'@command\(\s*"([^"]+)".*?\)\s*\ndef \w+\(.*?\)\s*(?:->[^:]*)?:\s*\n\s*"""(.*?)(?:\n\s*\n|""")',
                        re.S)


@functools.lru_cache(maxsize=1)
def catalogue() -> dict[str, str]:
    """``{command name: one-line summary}`` of every registered command, read from the source of
    the command modules (``geobias/commands/*.py``) without importing them (a test checks that it
    equals the registry)."""
    folder = Path(__file__).resolve().parents[1] / "commands"
    found: dict[str, str] = {}
    for path in sorted(folder.glob("*.py")):
        for name, doc in _DECORATOR.findall(path.read_text(encoding="utf-8")):
            found[name] = " ".join(doc.split())
    return found


def _option_type(annotation: Any) -> Any:
    """The Typer type of a model field's annotation: choices, flags, numbers, paths; else str."""
    origin = typing.get_origin(annotation)
    if origin is Annotated:
        return _option_type(typing.get_args(annotation)[0])
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        return _option_type(args[0]) if len(args) == 1 else str
    if origin is typing.Literal:
        values = tuple(str(v) for v in typing.get_args(annotation))
        return Choice("Choice", [(v, v) for v in values])
    if annotation in (bool, int, float, str, Path):
        return annotation
    return str  # lists, word sets, texts: the model parses the string


def build(name: str) -> typer.Typer:
    """A one-command Typer app for the registered command ``name``."""
    from geobias.cli._run import invoke
    from geobias.commands import get

    cmd = get(name)
    params, annotations = [], {}
    for field, info in cmd.params.model_fields.items():
        kind = _option_type(info.annotation)
        required = info.is_required()
        default = ... if required else info.default
        if isinstance(default, (list, tuple)):
            default = ",".join(map(str, default)) if default else None
        if kind is not bool and not required:
            kind = kind | None
        option = typer.Option(f"--{field.replace('_', '-')}", help=info.description or "")
        annotations[field] = Annotated[kind, option]
        params.append(inspect.Parameter(field, inspect.Parameter.KEYWORD_ONLY, default=default,
                                        annotation=annotations[field]))
    for field, flag, text in (("quiet", "--quiet", "No progress on stderr."),
                              ("as_json", "--json", "Print the result as JSON on stdout."),
                              ("as_csv", "--csv", "Print the result's tables as CSV on stdout (for files).")):
        annotations[field] = Annotated[bool, typer.Option(flag, help=text)]
        params.append(inspect.Parameter(field, inspect.Parameter.KEYWORD_ONLY, default=False,
                                        annotation=annotations[field]))

    def command_function(**options):
        plain = {k: (v.value if isinstance(v, Enum) else v) for k, v in options.items()}
        invoke(cmd.name, plain)

    command_function.__signature__ = inspect.Signature(params)
    command_function.__annotations__ = annotations
    command_function.__doc__ = cmd.run.__doc__
    app = typer.Typer(rich_markup_mode=None, add_completion=False)
    app.command(cmd.name.split()[-1], help=cmd.run.__doc__, short_help=cmd.summary)(command_function)
    return app


class GeneratedGroup(TyperGroup):
    """A Typer group that also offers the registered commands without a hand-written one.

    ``prefix`` is the group's place in the command names (``""`` for ``geobias``, ``"probe "``
    for ``geobias probe``)."""

    prefix = ""

    def _generated(self) -> dict[str, str]:
        names = {}
        for full, summary in catalogue().items():
            if full.startswith(self.prefix):
                rest = full[len(self.prefix):]
                if " " not in rest:
                    names[rest] = summary
        return names

    def list_commands(self, ctx) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(self._generated()))

    def format_commands(self, ctx, formatter) -> None:
        """The command list of ``--help``; generated commands show the catalogue's summary, so
        listing them imports nothing."""
        generated = self._generated()
        rows = []
        for name in self.list_commands(ctx):
            cmd = super().get_command(ctx, name)
            if cmd is None and name in generated:
                rows.append((name, generated[name]))
            elif cmd is not None and not cmd.hidden:
                rows.append((name, cmd))
        if not rows:
            return
        limit = formatter.width - 6 - max(len(name) for name, _ in rows)
        shown = [(n, c if isinstance(c, str) else c.get_short_help_str(limit)) for n, c in rows]
        with formatter.section("Commands"):
            formatter.write_dl(shown)

    def get_command(self, ctx, cmd_name: str):
        found = super().get_command(ctx, cmd_name)
        if found is not None or cmd_name not in self._generated():
            return found
        found = typer.main.get_command(build(self.prefix + cmd_name))
        found.name = cmd_name
        return found


def group_class(prefix: str) -> type[GeneratedGroup]:
    """A :class:`GeneratedGroup` subclass for the command names under ``prefix``."""
    return type(f"GeneratedGroup_{prefix.strip() or 'root'}", (GeneratedGroup,), {"prefix": prefix})
