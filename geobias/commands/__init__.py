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

# The command modules: importing one registers its commands. This list is the one place that
# discovers them (a new command module is one line here); `geobias --help` reads the generated
# index (geobias/cli/_index.py) instead, so listing commands imports none of these.
from geobias.commands import atlas as _atlas  # noqa: E402,F401,I001
from geobias.commands import bilingual as _bilingual  # noqa: E402,F401
from geobias.commands import catalogue as _catalogue  # noqa: E402,F401
from geobias.commands import contextual as _contextual  # noqa: E402,F401
from geobias.commands import sentences as _sentences  # noqa: E402,F401
from geobias.commands import static as _static  # noqa: E402,F401
from geobias.commands import vectors as _vectors  # noqa: E402,F401
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

__all__ = ["REGISTRY", "Command", "Estimate", "Front", "Output", "Params", "WorkBudgetError", "check_budget", "command",
           "commands", "dump", "execute", "get", "run", "validate"]
