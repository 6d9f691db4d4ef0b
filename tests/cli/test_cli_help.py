"""Every command's ``--help``: one real example line, and the values of every choice option.

The commands are walked from the command line itself (its click group, which lists the generated
commands and ``serve``), so a new command is checked without being listed here. A choice option's
values are exactly those of the field's ``Literal`` in the parameter model.
"""

from __future__ import annotations

import typing

import pytest

from geobias.cli import app, main
from geobias.commands import get


def _choices(param) -> tuple[str, ...]:
    """The values of a choice option (a string enum, read from the option's declared type)."""
    import enum

    kind = getattr(getattr(param, "type_descriptor", None), "annotation", None)
    while typing.get_origin(kind) is not None:  # list[X], X | None
        kind = next(a for a in typing.get_args(kind) if a is not type(None))
    if isinstance(kind, type) and issubclass(kind, enum.Enum):
        return tuple(m.value for m in kind)
    return ()


def _commands():
    """``(path, {parameter: choice values})`` of every command of ``geobias``."""
    import typer

    root = typer.main.get_command(app)

    def walk(group, ctx, path):
        for name in group.list_commands(ctx):
            cmd = group.get_command(ctx, name)
            if hasattr(cmd, "list_commands"):
                yield from walk(cmd, cmd.make_context(name, [], parent=ctx, resilient_parsing=True), (*path, name))
            else:
                yield (*path, name), {p.name: _choices(p) for p in cmd.params
                                      if _choices(p) and not getattr(p, "hidden", False)}

    return list(walk(root, root.make_context("geobias", [], resilient_parsing=True), ()))


COMMANDS = sorted(_commands())


def _help(path, capsys, monkeypatch) -> str:
    monkeypatch.setenv("COLUMNS", "400")  # wide enough that rich never wraps a metavar
    with pytest.raises(SystemExit) as exit_info:
        main([*path, "--help"])
    assert exit_info.value.code == 0
    return capsys.readouterr().out


def test_every_registered_command_is_walked():
    from geobias.commands import commands

    names = {" ".join(path) for path, _ in COMMANDS}
    # a few from each group: the walk reaches sub-commands, not only top-level ones
    assert {"mweat", "hard-debias", "vectors list", "vectors pool", "probe becpro", "becpro generate"} <= names
    assert names == {c.name for c in commands()} | {"serve"}


@pytest.mark.parametrize("path,choices", COMMANDS, ids=[" ".join(p) for p, _ in COMMANDS])
def test_help_has_an_example_and_shows_choices(path, choices, capsys, monkeypatch):
    text = _help(path, capsys, monkeypatch)
    lines = [line.strip() for line in text.splitlines() if "Example:" in line]
    name = " ".join(path)
    if name == "serve" or get(name).example:
        assert len(lines) == 1, text  # exactly one example
        assert lines[0].startswith(f"Example: geobias {name} "), lines[0]
    for option, values in choices.items():
        assert "|".join(map(str, values)) in text, (option, values)  # typer shows them as <a|b|c>


def test_choices_are_the_models_literals():
    """The choice check above is not vacuous, and a choice's values are the field's ``Literal``."""
    by_name = {" ".join(path): options for path, options in COMMANDS}
    assert {"similarity", "permutation_method", "oov"} <= set(by_name["mweat"])
    assert {"protect", "format"} <= set(by_name["hard-debias"])
    assert {"method", "format"} <= set(by_name["mitigate"])
    assert {"approx"} <= set(by_name["neighbors"])
    assert {"engine", "prior_mask", "lang"} <= set(by_name["probe becpro"])
    for name, options in by_name.items():
        if name == "serve":
            continue
        fields = get(name).params.model_fields
        for option, values in options.items():
            annotation = fields[option].annotation
            while typing.get_origin(annotation) is not typing.Literal:
                annotation = next(a for a in typing.get_args(annotation) if a is not type(None))
            assert values == tuple(str(v) for v in typing.get_args(annotation)), (name, option)


def test_the_mitigation_registry_is_the_declared_list():
    """The command line's method choices come from geobias.choices; the registry has exactly those."""
    from geobias.choices import MitigationMethod
    from geobias.mitigation import METHODS

    assert list(METHODS) == list(typing.get_args(MitigationMethod))
