"""The command layer: every user-facing analysis written once.

Each command module holds one typed parameter model (pydantic; the single home of defaults,
choices, "both or neither" rules, word-set assembly and the permutation budget) and one
``run(params, *, progress=None) -> Result``, registered under the command's name. The CLI
(:mod:`geobias.cli`), the service (:mod:`geobias.service`) and Python callers are adapters over
it: they build the parameter model, call :func:`execute` or ``run``, and render the result.
"""
