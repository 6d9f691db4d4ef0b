"""A parameter model's rules across fields, as JSON Schema states them (``allOf``).

The model checks these rules itself (one line, a 4xx); stating them in the schema lets a client
or a generator of requests know them before asking. :func:`schema_rules` reads the model's
fields and the word-query settings (:class:`geobias.commands._query.WordQueryParams`); a model
with a rule of its own writes it in its ``json_schema_extra`` (RIPA's).
"""

from __future__ import annotations

from typing import Any

from geobias.commands._base import present
from geobias.commands._query import WordQueryParams


def _both_or_neither(fields) -> dict:
    return {"anyOf": [{"allOf": [present(r) for r in fields]}, {"not": {"anyOf": [present(r) for r in fields]}}]}


def schema_rules(model: type, props: dict[str, Any]) -> list[dict]:
    """The rules across ``model``'s fields that JSON Schema can say, over the properties ``props``
    of its (service) schema: a store or a language to find one; a word query's sets (all four or
    none, both attributes or neither, a built-in test or your own sets, a language for the built-in
    lists); MWEAT's occupation table or its two forms; RIPA's pairs.

    >>> from geobias.commands import get
    >>> rules = schema_rules(get("weat").params, get("weat").params.model_json_schema()["properties"])
    >>> {"not": {"allOf": [present("test"), {"anyOf": [present("targets_x"), present("targets_y"),
    ...  present("attributes_a"), present("attributes_b")]}]}} in rules
    True
    """
    query = issubclass(model, WordQueryParams)
    rules: list[dict] = []

    def lang_given() -> dict:  # a language with a default is always there
        return {} if props.get("lang", {}).get("default") is not None else present("lang")
    if "lang" in props and "vectors" in props:
        rules.append({"anyOf": [lang_given(), present("vectors")]})
    if not query and {"lang", "targets", "attributes"} <= set(props):
        # MWEAT's built-in occupations and attribute words are per language
        sets = [{"anyOf": [present(f) for f in forms if f in props]}
                for forms in (("targets", "targets_x"), ("attributes", "attributes_a"))]
        rules.append({"anyOf": [lang_given(), {"allOf": sets}]})
    if "pairs" in props and "lang" in props:  # the built-in pairs and occupations are per language
        rules.append({"anyOf": [lang_given(), {"allOf": [present(f) for f in ("pairs", "targets") if f in props]}]})
    for whole, parts in (("targets", ("targets_x", "targets_y")), ("attributes", ("attributes_a", "attributes_b"))):
        if whole in props and any(p in props for p in parts):  # one form or the other, not both
            rules.append({"not": {"allOf": [present(whole), {"anyOf": [present(p) for p in parts if p in props]}]}})
    for pair in (("targets_x", "targets_y"), ("attributes_a", "attributes_b")):
        if not query and all(p in props for p in pair):  # both or neither
            rules.append(_both_or_neither(pair))
    if "variant" in props and "targets_x" in props:  # the grammatical variant pairs forms by position
        rules.append({"anyOf": [{"not": {"required": ["variant"], "properties": {"variant": {"const": "grammatical"}}}},
                                {"allOf": [present("targets_x"), present("targets_y")]}]})
    if query:
        roles = [r for r in model._ROLES if r in props]
        if model.FULL:
            rules.append(_both_or_neither(roles))
        if "attributes_a" in props and "attributes_b" in props:
            rules.append(_both_or_neither(("attributes_a", "attributes_b")))
        if "targets_y" in props and "targets_x" in props:
            rules.append({"anyOf": [{"not": present("targets_y")}, present("targets_x")]})
        if "test" in props:
            rules.append({"not": {"allOf": [present("test"), {"anyOf": [present(r) for r in roles]}]}})
        if "lang" in props:  # the built-in lists (a test, the missing sets) are per language
            rules.append({"anyOf": [lang_given(), {"allOf": [present(r) for r in roles]}]})
    return rules


__all__ = ["schema_rules"]
