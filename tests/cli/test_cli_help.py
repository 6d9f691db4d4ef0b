"""Every command's ``--help``: one real example line, and the values of every choice option.

The commands are walked from the Typer app itself (its public ``registered_commands`` and
``registered_groups``), so a new command is checked without being listed here. The choice enums of ``geobias.cli._choices``
must hold exactly the values of the library ``Literal`` (or registry) they mirror.
"""

from __future__ import annotations

import enum
import typing

import pytest

from geobias.cli import app, main


def _commands(typer_app, path=()):
    """``(path, {option: enum})`` for every command under ``typer_app``: the choice options
    read from the callback's annotations."""
    for info in typer_app.registered_commands:
        name = info.name or info.callback.__name__.replace("_", "-")
        yield (*path, name), _choice_options(info.callback)
    for group in typer_app.registered_groups:
        yield from _commands(group.typer_instance, (*path, group.name))


def _choice_options(callback) -> dict[str, type[enum.Enum]]:
    out = {}
    for name, hint in typing.get_type_hints(callback, include_extras=True).items():
        while typing.get_origin(hint) is not None:  # Annotated[X, ...], X | None, list[X]
            hint = next(a for a in typing.get_args(hint) if a is not type(None))
        if isinstance(hint, type) and issubclass(hint, enum.Enum):
            out[name] = hint
    return out


COMMANDS = sorted(_commands(app))


def _help(path, capsys, monkeypatch) -> str:
    monkeypatch.setenv("COLUMNS", "400")  # wide enough that rich never wraps a metavar
    with pytest.raises(SystemExit) as exit_info:
        main([*path, "--help"])
    assert exit_info.value.code == 0
    return capsys.readouterr().out


def test_every_registered_command_is_walked():
    names = {" ".join(path) for path, _ in COMMANDS}
    # a few from each group: the walk reaches sub-commands, not only top-level ones
    assert {"mweat", "hard-debias", "vectors list", "vectors pool", "probe becpro", "becpro generate"} <= names
    assert len(names) == 26  # vectors verify among them


@pytest.mark.parametrize("path,command", COMMANDS, ids=[" ".join(p) for p, _ in COMMANDS])
def test_help_has_an_example_and_shows_choices(path, command, capsys, monkeypatch):
    text = _help(path, capsys, monkeypatch)
    lines = [line.strip() for line in text.splitlines() if "Example:" in line]
    assert len(lines) == 1, text  # exactly one example
    assert lines[0].startswith(f"Example: geobias {' '.join(path)} "), lines[0]
    for name, choice in command.items():
        values = "|".join(m.value for m in choice)
        assert values in text, (name, values)  # typer shows them as <a|b|c>


def test_choice_commands_exist():
    """The choice check above is not vacuous: these options are choices."""
    with_choices = {" ".join(path): set(options) for path, options in COMMANDS}
    assert {"similarity", "method", "oov"} <= with_choices["mweat"]
    assert {"protect", "fmt"} <= with_choices["hard-debias"]
    assert {"method", "fmt"} <= with_choices["mitigate"]
    assert {"approx"} <= with_choices["neighbors"]
    assert {"engine", "prior_mask", "lang"} <= with_choices["probe becpro"]


def test_the_mitigation_registry_is_the_declared_list():
    """The command line's method choices come from geobias.choices; the registry has exactly those."""
    from geobias.choices import MitigationMethod
    from geobias.mitigation import METHODS

    assert list(METHODS) == list(typing.get_args(MitigationMethod))


def test_choice_enums_are_the_declared_literals():
    from geobias import choices
    from geobias.cli import _choices

    pairs = {_choices.SimilarityChoice: choices.Similarity, _choices.MitigationMethod: choices.MitigationMethod,
             _choices.ProtectChoice: choices.Protect, _choices.NeutralizeChoice: choices.Neutralize,
             _choices.ZeroMethodChoice: choices.ZeroMethod}
    for enum_cls, literal in pairs.items():
        assert [m.value for m in enum_cls] == list(typing.get_args(literal))
