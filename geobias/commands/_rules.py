"""A parameter model's rules across fields, as JSON Schema states them (``allOf``).

Each rule is exactly one of the model's own checks across fields (its ``model_validator``\\ s), no
more and no less: a body breaks a rule if and only if the model refuses it for that reason (the
test ``tests/service/test_service_rules.py`` generates, for every command, bodies that keep and
break each rule and checks the model's verdict). Stating them in the schema lets a client or a
generator of requests know them before asking; the service checks them at its edge too.

What only the run finds out is not a rule here: a built-in list needs ``lang``, a store needs
``lang`` or ``vectors`` (the run answers one line). :func:`schema_rules` reads the model's fields
and the word-query settings (:class:`geobias.commands._query.WordQueryParams`).
"""

from __future__ import annotations

from typing import Any

from geobias.commands._base import present
from geobias.commands._query import WordQueryParams


def _both_or_neither(fields) -> dict:
    return {"anyOf": [{"allOf": [present(r) for r in fields]}, {"not": {"anyOf": [present(r) for r in fields]}}]}


def _not_with(field: str, others) -> dict:
    """``field`` and none of ``others`` (each present and not null)."""
    return {"not": {"allOf": [present(field), {"anyOf": [present(o) for o in others]}]}}


def _is(field: str, value: Any) -> dict:
    """``field`` is present with the value ``value``."""
    return {"required": [field], "properties": {field: {"const": value}}}


def schema_rules(model: type, props: dict[str, Any]) -> list[dict]:
    """The rules across ``model``'s fields that its validation checks, over the properties ``props``
    of its (service) schema: a word query's sets (all four or none where the command needs all
    four, both attributes or neither, targets_y only with targets_x, a built-in test or your own
    sets); the grammatical variant's forms (both or neither, no built-in test); MWEAT's occupation
    table or its two forms; SEAT's test files or a query, and no bootstrap on test files.

    >>> from geobias.commands import get
    >>> rules = schema_rules(get("weat").params, get("weat").params.model_json_schema()["properties"])
    >>> {"not": {"allOf": [present("test"), {"anyOf": [present("targets_x"), present("targets_y"),
    ...  present("attributes_a"), present("attributes_b")]}]}} in rules
    True
    """
    query = issubclass(model, WordQueryParams)
    rules: list[dict] = []
    for whole, parts in (("targets", ("targets_x", "targets_y")), ("attributes", ("attributes_a", "attributes_b"))):
        if not query and whole in props and any(p in props for p in parts):  # one form or the other, not both
            rules.append(_not_with(whole, [p for p in parts if p in props]))
    for pair in (("targets_x", "targets_y"), ("attributes_a", "attributes_b")):
        if not query and all(p in props for p in pair):  # both or neither
            rules.append(_both_or_neither(pair))
    if not query:
        return rules
    roles = [r for r in model._ROLES if r in props]
    if model.FULL:
        rules.append(_both_or_neither(roles))
    if "attributes_a" in props and "attributes_b" in props:
        rules.append(_both_or_neither(("attributes_a", "attributes_b")))
    if "targets_y" in props and "targets_x" in props:
        rules.append({"anyOf": [{"not": present("targets_y")}, present("targets_x")]})
    if "test" in props:
        rules.append(_not_with("test", roles))
    if "variant" in props:  # the grammatical variant pairs two forms by position: both or neither, no test
        grammatical = _is("variant", "grammatical")
        rules.append({"anyOf": [{"not": grammatical}, _both_or_neither(("targets_x", "targets_y"))]})
        rules.append({"not": {"allOf": [grammatical, present("test")]}})
    if "tests" in props:  # test files are a query of their own, with sentences only (no bootstrap)
        rules.append(_not_with("tests", [f for f in ("test", "targets_x") if f in props]))
        if "bootstrap" in props:
            rules.append({"not": {"allOf": [present("tests"), {"required": ["bootstrap"], "properties": {
                "bootstrap": {"not": {"anyOf": [{"type": "null"}, {"const": 0}]}}}}]}})
    return rules


__all__ = ["schema_rules"]
