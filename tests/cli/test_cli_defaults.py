"""One home for defaults: every default a hand-written Typer command still spells out equals the
default of the parameter-model field its option sets (the model is the single home; a Typer
signature only repeats it for `--help`)."""

from __future__ import annotations

import inspect
import typing
from enum import Enum
from pathlib import Path

import pytest
from pydantic import AliasChoices

from geobias.commands import commands


def _typer_commands(typer_app, prefix=""):
    for info in typer_app.registered_commands:
        yield prefix + (info.name or info.callback.__name__.replace("_", "-")), info.callback
    for group in typer_app.registered_groups:
        yield from _typer_commands(group.typer_instance, f"{prefix}{group.name} ")


def _field_of(model, option: str) -> str | None:
    name = option.lstrip("-").replace("-", "_")
    for field, info in model.model_fields.items():
        aliases = {field}
        if isinstance(info.validation_alias, AliasChoices):
            aliases |= {a for a in info.validation_alias.choices if isinstance(a, str)}
        elif isinstance(info.validation_alias, str):
            aliases.add(info.validation_alias)
        if name in aliases:
            return field
    return None


def _norm(value):
    if isinstance(value, Enum):
        value = value.value
    if isinstance(value, Path):
        value = str(value)
    if isinstance(value, (list, tuple)):
        value = ",".join(map(str, value)) or None
    return value


def _pairs():
    from geobias.cli import app

    registry = {c.name: c for c in commands()}
    for name, callback in _typer_commands(app):
        cmd = registry.get(name)
        if cmd is None:
            continue  # serve: no parameter model
        hints = typing.get_type_hints(inspect.unwrap(callback), include_extras=True)
        for pname, param in inspect.signature(callback).parameters.items():
            meta = getattr(hints.get(pname), "__metadata__", ())
            option = next((m for m in meta if hasattr(m, "param_decls")), None)
            default = param.default
            if hasattr(default, "param_decls"):  # the old style: `x: T = typer.Option(default, ...)`
                option, default = default, default.default
            if getattr(option, "hidden", False):
                continue  # a deprecated spelling kept hidden (`--method`): None means "not given"
            decls = [d for d in getattr(option, "param_decls", ()) or () if d.startswith("--")]
            field = _field_of(cmd.params, decls[0] if decls else pname)
            if field is None or default is inspect.Parameter.empty:
                continue
            model_info = cmd.params.model_fields[field]
            if model_info.is_required():
                continue
            yield name, field, _norm(default), _norm(model_info.get_default(call_default_factory=True))


#: Repeatable options (``--terms pro --terms weat``): Typer's default is "none given", which the
#: command leaves out so that the model's default applies.
REPEATABLE = {("probe sentiment", "terms")}


def test_hand_written_defaults_equal_the_models():
    pairs = list(_pairs())
    assert len(pairs) > 50  # the check reaches the hand-written commands
    wrong = [(n, f, cli, model) for n, f, cli, model in pairs
             if cli is not ... and cli != model and (n, f) not in REPEATABLE]
    assert not wrong, "hand-written CLI defaults that differ from the parameter model: " + "; ".join(
        f"{n} --{f.replace('_', '-')}: CLI {cli!r} vs model {model!r}" for n, f, cli, model in wrong)


@pytest.mark.parametrize("option,field", [("--lang", "lang"), ("--targets-x", "targets_x"), ("--X", "targets_x")])
def test_options_map_to_fields(option, field):
    from geobias.commands import get

    assert _field_of(get("weat").params, option) == field
