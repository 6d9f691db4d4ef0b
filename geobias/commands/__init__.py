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

from geobias.commands import catalogue as _catalogue  # noqa: F401  (registers rnd, rnsb, ect, mac)
from geobias.commands import sentences as _sentences  # noqa: F401  (registers seat)
from geobias.commands._base import (
    REGISTRY,
    Command,
    Estimate,
    Front,
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

__all__ = ["REGISTRY", "Command", "Estimate", "Front", "Params", "WorkBudgetError", "check_budget", "command",
           "commands", "dump", "execute", "get", "run", "validate"]
