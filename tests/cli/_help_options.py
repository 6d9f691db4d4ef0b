"""Every command's ``--help`` options as data: names (long, short, aliases), default, whether it
is an argument, a flag, required or hidden. Written once from main before the CLI was generated
(``python -m tests.cli._help_options > tests/cli/fixtures/help_options_before.json``) and compared
with the current CLI by ``test_cli_help_options.py``."""

from __future__ import annotations

import json
import sys
from enum import Enum
from pathlib import Path


def _plain(value):
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if callable(value):
        return "<callable>"
    return value


def _walk(group, ctx, prefix: str):
    for name in group.list_commands(ctx):
        cmd = group.get_command(ctx, name)
        if cmd is None:
            continue
        full = f"{prefix}{name}"
        if hasattr(cmd, "list_commands"):
            yield from _walk(cmd, cmd.make_context(name, [], parent=ctx, resilient_parsing=True), full + " ")
        else:
            yield full, cmd


def snapshot() -> dict[str, dict[str, dict]]:
    """``{command path: {parameter name: {...}}}`` of every command of ``geobias``."""
    import typer

    from geobias.cli import app

    root = typer.main.get_command(app)
    ctx = root.make_context("geobias", [], resilient_parsing=True)
    out: dict[str, dict[str, dict]] = {}
    for full, cmd in _walk(root, ctx, ""):
        params = {}
        for p in cmd.params:
            if p.name == "help":
                continue
            params[p.name] = {
                "kind": p.param_type_name,
                "names": sorted([*p.opts, *p.secondary_opts]),
                "default": _plain(p.default),
                "flag": bool(getattr(p, "is_flag", False)),
                "required": bool(p.required),
                "hidden": bool(getattr(p, "hidden", False)),
            }
        out[full] = params
    return out


if __name__ == "__main__":
    json.dump(snapshot(), sys.stdout, indent=1, sort_keys=True, default=str)
    sys.stdout.write("\n")
