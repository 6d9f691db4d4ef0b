"""The command layer: every user-facing analysis written once.

Each command module holds, per command, one typed parameter model (pydantic; the single home of
defaults, choices, "both or neither" rules, word-set assembly and the permutation budget) and
one ``run(params, *, progress=None) -> Result``, registered under the command's name. The CLI
(:mod:`geobias.cli`), the service (:mod:`geobias.service`) and Python callers are adapters over
it: they validate their input with :func:`validate`, call :func:`execute`, and render the result
with the renderers registered beside its type (:mod:`geobias.report.registry`).

Command modules are imported when a command is first asked for: :func:`get` imports the one module
that the generated index (:data:`geobias.commands._index.MODULES`) names for the command, so that
running ``geobias mweat`` imports neither torch nor the other commands' models; :func:`commands`,
:data:`REGISTRY` and a name the index does not know import every command module, the plug-ins and
the declared metrics' commands (:func:`load`).

Examples
--------
>>> from geobias.commands import get
>>> get("mweat").params.model_fields["permutations"].default
100000
"""

from __future__ import annotations

from geobias.commands import _base
from geobias.commands._base import (
    Command,
    Estimate,
    Front,
    Output,
    Params,
    WorkBudgetError,
    check_budget,
    command,
    commands,
    dump,
    execute,
    get,
    run,
    validate,
)
from geobias.commands._index import MODULES

#: The entry-point group of plug-in command modules: a package outside geobias registers commands
#: by declaring ``[project.entry-points."geobias.commands"] <command name> = "<module>"``; the
#: module is imported by :func:`load`, once, and its ``@command`` registrations appear on every front door.
PLUGIN_GROUP = "geobias.commands"

_loaded: set[str] = set()  # the command modules imported by :func:`load` ("*": all of them, and the plug-ins)


def _import(module: str) -> None:
    """Import the command module ``module`` (its registrations run). This is the one place that
    discovers the command modules: a new command module is one line here (and, once it is imported,
    ``python -m geobias.cli._generated`` adds its commands to the index)."""
    match module:
        case "atlas":
            from geobias.commands import atlas  # noqa: F401
        case "bilingual":
            from geobias.commands import bilingual  # noqa: F401
        case "catalogue":
            from geobias.commands import catalogue  # noqa: F401
        case "contextual":
            from geobias.commands import contextual  # noqa: F401
        case "sentences":
            from geobias.commands import sentences  # noqa: F401
        case "static":
            from geobias.commands import static  # noqa: F401
        case "vectors":
            from geobias.commands import vectors  # noqa: F401
        case "declared":  # last: its commands are made by load(), for the metrics no module above covers
            from geobias.commands import declared  # noqa: F401
        case _:
            raise ValueError(f"no command module {module!r}")
    _loaded.add(module)


#: Every command module, in the order :func:`load` imports them (``declared`` last).
COMMAND_MODULES = ("atlas", "bilingual", "catalogue", "contextual", "sentences", "static", "vectors", "declared")


def load(name: str | None = None) -> None:
    """Register the command ``name`` (or its job kind, ``"probe-becpro"``), or every command.

    With a name the index knows, imports the one module that registers it; with ``None`` or any
    other name, imports every command module, then the plug-ins (:data:`PLUGIN_GROUP`), then makes
    a command for each declared metric that has none (:func:`geobias.commands.declared.register_declared`).
    Each module is imported once; a name that is already registered imports nothing.
    """
    if name is not None:
        module = MODULES.get(name) or MODULES.get(name.replace("-", " "))
        if module is not None and module != "declared":
            # the declared metrics' commands are made for metrics no module has a command for, so
            # they wait for every other module (the full load below)
            if module not in _loaded:
                _import(module)
            return
    if "*" in _loaded:
        return
    for module in COMMAND_MODULES:
        if module not in _loaded:
            _import(module)
    _loaded.add("*")
    _load_plugins()
    from geobias.commands import declared

    declared.register_declared()  # `ect`, `mac` and the metrics a plug-in declared without a command


def _load_plugins() -> None:
    """Import the plug-in command modules (the one documented place where a module is imported by
    its name: the names come from installed packages' metadata)."""
    import warnings
    from importlib.metadata import entry_points

    for ep in entry_points(group=PLUGIN_GROUP):
        try:
            ep.load()
        except Exception as exc:  # noqa: BLE001 - a broken plug-in must not break geobias
            warnings.warn(f"geobias plug-in {ep.name!r} ({ep.value}) failed to load: {type(exc).__name__}: {exc}",
                          RuntimeWarning, stacklevel=2)


def index_source() -> str:
    """The text of ``geobias/commands/_index.py`` made from the registry (imports every command module)."""
    load()
    lines = ['"""Which command module registers each built-in command: running one imports only its module.', "",
             "Generated by ``python -m geobias.cli._generated`` from the command registry; do not edit",
             '(tests/commands/test_commands.py checks that it equals the registry)."""', "",
             "MODULES: dict[str, str] = {"]
    prefix = __name__ + "."
    lines += [f"    {c.name!r}: {c.run.__module__.removeprefix(prefix)!r}," for c in commands()
              if c.run.__module__.startswith(prefix)]
    lines += ["}", ""]
    return "\n".join(lines)


def __getattr__(attr: str):
    """``geobias.commands.REGISTRY``: every command, once every command module is loaded."""
    if attr == "REGISTRY":
        load()
        return _base.REGISTRY
    raise AttributeError(f"module {__name__!r} has no attribute {attr!r}")


__all__ = ["COMMAND_MODULES", "PLUGIN_GROUP", "REGISTRY", "Command", "Estimate", "Front", "Output", "Params",
           "WorkBudgetError", "check_budget", "command", "commands", "dump", "execute", "get", "index_source", "load",
           "run", "validate"]
