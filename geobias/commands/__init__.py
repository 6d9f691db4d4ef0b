"""The command layer: every user-facing analysis written once.

Each command module holds, per command, one typed parameter model (pydantic; the single home of
defaults, choices, "both or neither" rules, word-set assembly and the permutation budget) and
one ``run(params, *, progress=None) -> Result``, registered under the command's name. The CLI
(:mod:`geobias.cli`), the service (:mod:`geobias.service`) and Python callers are adapters over
it: they validate their input with :func:`validate`, call :func:`execute`, and render the result
with the renderers registered beside its type (:mod:`geobias.report.registry`).

Examples
--------
>>> from geobias.commands import get
>>> get("mweat").params.model_fields["permutations"].default
100000
"""

# ruff: noqa: I001  (the registry first, then the modules that fill it, in the order listed)
from geobias.commands._base import (
    REGISTRY,
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

# The command modules: importing one registers its commands. This list is the one place that
# discovers them (a new command module is one line here); `geobias --help` reads the generated
# index (geobias/cli/_index.py) instead, so listing commands imports none of these.
from geobias.commands import atlas as _atlas  # noqa: F401
from geobias.commands import bilingual as _bilingual  # noqa: F401
from geobias.commands import catalogue as _catalogue  # noqa: F401
from geobias.commands import contextual as _contextual  # noqa: F401
from geobias.commands import sentences as _sentences  # noqa: F401
from geobias.commands import static as _static  # noqa: F401
from geobias.commands import vectors as _vectors  # noqa: F401
from geobias.commands import declared as _declared  # noqa: F401  (last: the declared metrics without a command)

#: The entry-point group of plug-in command modules: a package outside geobias registers commands
#: by declaring ``[project.entry-points."geobias.commands"] <command name> = "<module>"``; the
#: module is imported here, once, and its ``@command`` registrations appear on every front door.
PLUGIN_GROUP = "geobias.commands"


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


_load_plugins()
_declared.register_declared()  # metrics a plug-in declared without a command of its own

__all__ = ["PLUGIN_GROUP", "REGISTRY", "Command", "Estimate", "Front", "Output", "Params", "WorkBudgetError",
           "check_budget", "command", "commands", "dump", "execute", "get", "run", "validate"]
