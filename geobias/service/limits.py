"""Cheap refusals: the service's size caps checked on a request's parsed JSON before any
parameter model sees it.

A parameter model validates field by field, with validators written for correctness, not for
hostile sizes; a request far above the caps should cost the server no more than reading it.
:func:`check_body` walks the parsed body once (iteratively: no recursion), in the server's own
thread, and refuses with one line:

* nesting deeper than :data:`MAX_DEPTH` (a JSON body is at most a few levels deep);
* a list longer than ``config.max_words`` (a word set, a list of anything);
* more than ``config.max_total_words`` strings in lists in all (many sets, each within its cap);
* a list entry longer than :data:`MAX_ENTRY_CHARS` characters (no word or name is that long);
* a text with more than ``config.max_words * 10`` lines (a dictionary, a sentence file); a list
  under a text field of ``model`` (SEAT's ``tests``: one file's text per entry) is a list of texts,
  each held to this cap instead of the entry cap;
* a word set given as a comma list with more than ``config.max_words`` entries.

Cost: one pass over the parsed values; ``str.count`` for lines and commas (C speed). The
parameter model and :func:`geobias.service.commands.check_caps` still run afterwards: these
caps are the same numbers, enforced before anything that could be slower than linear.
"""

from __future__ import annotations

import functools
import json
import re
import typing
from typing import Any

from geobias.commands._kinds import (
    FIXED,
    LOCAL,
    MAX_ENTRY_CHARS,
    NAME_PATTERN,
    Kind,
    body_keys,
    constrain,
    fields_of,
    non_null,
    spec_of,
)
from geobias.errors import ParameterError
from geobias.languages import code_pattern

#: The deepest nesting a request body may have (objects and arrays): ours need four.
MAX_DEPTH = 32


def check_body(config, body: Any, model=None) -> None:
    """Refuse ``body`` (parsed JSON) if it exceeds a cap (see the module docstring); ``model``, a
    parameter model class, names the fields that are word sets (their comma lists are counted).

    Raises
    ------
    ParameterError
        One line naming the field and the cap (HTTP 422).
    """
    max_list, max_total = config.max_words, config.max_total_words
    max_lines = config.max_words * 10
    texts = text_keys(model) if model is not None else frozenset()
    total = 0
    stack: list[tuple[Any, str, int]] = [(body, "body", 0)]
    while stack:
        value, where, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise ParameterError(f"the body is nested more than {MAX_DEPTH} levels deep", where)
        if isinstance(value, dict):
            for key, item in value.items():
                if where == "body" and key in texts and isinstance(item, list):  # texts, not words
                    if len(item) > max_list:
                        raise ParameterError(f"{key}: {len(item):,} entries, more than this service's cap of "
                                             f"{max_list:,}", key)
                    for entry in item:
                        if isinstance(entry, str):
                            _check_text(entry, key, max_lines)
                        elif isinstance(entry, (dict, list)):
                            stack.append((entry, key, depth + 2))
                elif isinstance(item, (dict, list)):
                    stack.append((item, key if where == "body" else f"{where}.{key}", depth + 1))
                elif isinstance(item, str):
                    _check_text(item, key if where == "body" else f"{where}.{key}", max_lines)
        elif isinstance(value, list):
            if len(value) > max_list:
                raise ParameterError(f"{where}: {len(value):,} entries, more than this service's cap of "
                                     f"{max_list:,}", where)
            for item in value:
                if isinstance(item, str):
                    total += 1
                    if len(item) > MAX_ENTRY_CHARS:
                        raise ParameterError(f"{where}: an entry of {len(item):,} characters (the cap is "
                                             f"{MAX_ENTRY_CHARS:,})", where)
                elif isinstance(item, (dict, list)):
                    stack.append((item, where, depth + 1))
            if total > max_total:
                raise ParameterError(f"more than {max_total:,} words in all (this service's cap); "
                                     f"the excess is in {where}", where)
    if model is not None and isinstance(body, dict):
        _check_comma_lists(body, model, max_list)
        _check_local_only(body, model)
        _check_types(body, model)
        _check_lengths(body, model, max_list)


def _check_lengths(body: dict, model, max_words: int) -> None:
    """A string field is at most as long as the schema states: ``max_words × 100`` characters (a
    text, a dictionary given inline), ``max_words × MAX_ENTRY_CHARS`` for a word set's comma list."""
    sets = word_set_keys(model)
    texts = _keys_of_kind(model, Kind.DICTIONARY)
    for name, value in body.items():
        text = value.get("text") if isinstance(value, dict) and name in texts else value
        if not isinstance(text, str):
            continue
        cap = max_words * (MAX_ENTRY_CHARS if name in sets else 100)
        if len(text) > cap:
            raise ParameterError(f"{name}: {len(text):,} characters, more than this service's cap of {cap:,}", name)


def text_pattern(model, name: str) -> str | None:
    """The text ``model``'s field ``name`` may hold, where its kind states one (ECMA and Python
    alike): a dictionary's lines of two words, or also ``identical`` where the field takes it."""
    return spec_of(model, name).pattern


@functools.cache
def _keys_of_kind(model, kind: Kind) -> frozenset[str]:
    return frozenset(k for f in fields_of(model, kind=kind) for k in body_keys(model, f))


_NUMERIC = {"boolean", "integer", "number", "null"}
#: A comma list of non-negative integers below 10^18, as a string (ECMA and Python read it alike).
INT_LIST_PATTERN = r"^[ \t]*[0-9]{1,18}[ \t]*(?:,[ \t]*[0-9]{1,18}[ \t]*)*$"
_JSON_TYPES: dict[type, dict[str, list[dict]]] = {}


def _numeric(node: dict) -> bool:
    """A schema alternative of a boolean or a number, or an array of them."""
    kind = node.get("type")
    if kind == "array":
        return isinstance(node.get("items"), dict) and node["items"].get("type") in _NUMERIC - {"null"}
    return kind in _NUMERIC


def _json_types(model) -> dict[str, list[dict]]:
    """``{field: its schema's alternatives}`` for ``model``'s booleans and numbers and arrays of
    them (where pydantic's lax mode reads other types: ``0`` as false, ``"5"`` as 5); other fields
    are left to the model."""
    types = _JSON_TYPES.get(model)
    if types is None:
        schema = model.model_json_schema(mode="validation")
        types = {}
        for name, node in schema.get("properties", {}).items():
            alts = node.get("anyOf", [node])
            if alts and all(_numeric(a) for a in alts):
                types[name] = alts
        _JSON_TYPES[model] = types
    return types


def _is(value, node: dict) -> bool:
    kind = node.get("type")
    if kind == "null":
        return value is None
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "integer":  # 1.0 is an integer to JSON Schema
        return not isinstance(value, bool) and (isinstance(value, int) or (isinstance(value, float) and value.is_integer()))
    if kind == "number":
        return not isinstance(value, bool) and isinstance(value, (int, float))
    if kind == "array":  # a string: the comma form some list fields take (pydantic never reads one as a list)
        if isinstance(value, str):
            return node["items"].get("type") != "integer" or re.fullmatch(INT_LIST_PATTERN, value) is not None
        return isinstance(value, list) and all(_is(v, node["items"]) for v in value)
    return True


def _json_type(value) -> str:
    return ("null" if value is None else "boolean" if isinstance(value, bool) else
            "number" if isinstance(value, (int, float)) else "string" if isinstance(value, str) else
            "array" if isinstance(value, list) else "object")


def _check_types(body: dict, model) -> None:
    """Each boolean or numeric field of ``body`` (or array of them) has the JSON type its schema
    names: the model would read ``0`` as false and ``"5"`` as 5 (pydantic's lax mode), where the
    document, and so a client, says boolean or integer."""
    for name, alts in _json_types(model).items():
        if name in body and spec_of(model, name).service is not LOCAL and not any(_is(body[name], a) for a in alts):
            kinds = sorted({a["type"] if a["type"] != "array" else f"array of {a['items']['type']}" for a in alts})
            raise ParameterError(f"{name}: expected {' or '.join(kinds)}, got {_json_type(body[name])}", name)


def _check_local_only(body: dict, model) -> None:
    """The fields this service refuses (of a :data:`~geobias.commands._kinds.LOCAL` kind) may be
    sent only as their "off" value, as the schema states it (``false``, or ``null``), not another
    false value (``0``, ``""``) that the model would read as off."""
    for name in fields_of(model, service=LOCAL):
        off = spec_of(model, name).value
        if name in body and body[name] is not off:
            raise ParameterError(f"{name} is a choice for a local run; this service takes it only as "
                                 f"{json.dumps(off)} (or left out)", name)


def _check_text(text: str, where: str, max_lines: int) -> None:
    lines = text.count("\n") + 1
    if lines > max_lines:
        raise ParameterError(f"{where}: {lines:,} lines, more than this service's cap of {max_lines:,}", where)


def _check_comma_lists(body: dict, model, cap: int) -> None:
    for key in word_set_keys(model):
        value = body.get(key)
        if isinstance(value, str):
            n = value.count(",") + 1
            if n > cap:
                raise ParameterError(f"{key}: {n:,} comma-separated entries, more than this service's cap of "
                                     f"{cap:,}", key)


def word_set_keys(model) -> frozenset[str]:
    """The body keys (field names and their aliases) of ``model``'s word-set fields."""
    return _keys_of_kind(model, Kind.WORD_SET)


def text_keys(model) -> frozenset[str]:
    """The body keys (field names and their aliases) of ``model``'s text-input fields (a file's
    text, or a list of them)."""
    from geobias.commands._fields import _text

    return _marked_keys(model, _text)


@functools.cache
def _marked_keys(model, validator) -> frozenset[str]:
    """The body keys of ``model``'s fields whose type (or one of its members) carries the
    before-validator ``validator``: field names and their string aliases."""
    found = set()
    for name, info in model.model_fields.items():
        if _carries(info.annotation, validator) or any(getattr(m, "func", None) is validator for m in info.metadata):
            found.add(name)
            alias = info.validation_alias
            for choice in getattr(alias, "choices", None) or ([alias] if isinstance(alias, str) else []):
                if isinstance(choice, str):
                    found.add(choice)
    return frozenset(found)


def _carries(annotation, validator) -> bool:
    if any(getattr(m, "func", None) is validator for m in getattr(annotation, "__metadata__", ())):
        return True
    return any(_carries(a, validator) for a in typing.get_args(annotation) if a is not type(None))


# ----------------------------------------------------------------------------- the schema
def enrich_openapi(schema: dict, config, commands) -> dict:
    """``schema`` (FastAPI's OpenAPI document) with what this service enforces written into it:
    word sets' sizes and word shape, store-name patterns, language codes, the permutation, ``k``
    and size caps, counts' minimums, the output and engine fields a request may not set, and the
    patterns of path and query parameters. A request the document allows then passes every check
    that depends on one field, and the rules across fields the parameter model checks ("give test
    or all four sets", :mod:`geobias.commands._rules`) are its ``allOf``, enforced by
    :func:`check_rules`. Changes ``schema`` in place and returns it."""
    from geobias.service.stores import UPLOAD_FORMATS

    lang_pattern = code_pattern()
    by_kind = {c.kind: c for c in commands}
    for path, ops in schema.get("paths", {}).items():
        for method, op in ops.items():
            for param in op.get("parameters", []):
                _enrich_parameter(param, lang_pattern, UPLOAD_FORMATS, path)
            cmd = by_kind.get(path.strip("/")) if method == "post" else None
            body = (op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema"))
            if cmd is not None and body is not None:
                _enrich_params(body, cmd, config, lang_pattern)
            if path == "/jobs" and method == "post" and body is not None:
                body["properties"]["params"] = {"description": body["properties"]["params"].get("description", ""),
                                                "type": "object"}
                body["oneOf"] = []
                for c in commands:
                    if not c.job:
                        continue
                    params = inline_params_schema(c)
                    _enrich_params(params, c, config, lang_pattern, job=True)
                    branch = {"type": "object", "properties": {"kind": {"const": c.kind}, "params": params}}
                    if params.get("required") or not all(_holds_for_empty(r) for r in params.get("allOf", [])):
                        branch["required"] = ["kind", "params"]  # (without params, the job runs with none)
                    body["oneOf"].append(branch)
    return schema


@functools.cache
def _rules_of(model) -> tuple[dict, ...]:
    from geobias.commands._rules import schema_rules

    schema = inline_defs(model.model_json_schema(mode="validation"))
    return (*schema.get("allOf", []), *schema_rules(model, schema.get("properties", {})))


def _value_holds(node: dict, value: Any) -> bool:
    """Whether a present value satisfies a rule's property schema (not, anyOf, allOf, null, const)."""
    if "not" in node and _value_holds(node["not"], value):
        return False
    if "anyOf" in node and not any(_value_holds(n, value) for n in node["anyOf"]):
        return False
    if not all(_value_holds(n, value) for n in node.get("allOf", ())):
        return False
    if node.get("type") == "null" and value is not None:
        return False
    const = node.get("const", value)  # JSON's equality: 0 == 0.0, but true is not 1
    return value == const and isinstance(value, bool) == isinstance(const, bool)


def holds(rule: dict, body: dict) -> bool:
    """Whether ``body`` (keyed by field name) satisfies ``rule``, one of the rules across fields a
    schema states (``required``, ``properties``, ``not``, ``anyOf``, ``allOf``), as JSON Schema reads it."""
    if any(k not in body for k in rule.get("required", ())):
        return False
    if any(k in body and not _value_holds(sub, body[k]) for k, sub in rule.get("properties", {}).items()):
        return False
    if "not" in rule and holds(rule["not"], body):
        return False
    if "anyOf" in rule and not any(holds(r, body) for r in rule["anyOf"]):
        return False
    return all(holds(r, body) for r in rule.get("allOf", ()))


def _named(rule: Any) -> list[str]:
    """The fields a rule mentions, in order."""
    out: list[str] = []
    if isinstance(rule, dict):
        for k, v in rule.items():
            names = list(v) if k in ("required", "properties") else _named(v)
            out += [x for x in names if x not in out]
    elif isinstance(rule, list):
        for v in rule:
            out += [x for x in _named(v) if x not in out]
    return out


def check_rules(body: dict, model) -> None:
    """Refuse ``body`` where it breaks one of the rules across fields that the service's schema
    states for ``model`` (its ``allOf``: both attributes or neither, a built-in test or your own
    sets, ...): the schema promises what the service enforces. Body keys are read as the model reads
    them (a field's aliases too); each rule is one of the model's own checks
    (:mod:`geobias.commands._rules`), so this refuses nothing the model accepts.

    Raises
    ------
    ParameterError
        One line naming the fields of the first rule broken (HTTP 422).
    """
    keyed = {}
    for name in model.model_fields:
        for key in body_keys(model, name):
            if key in body:
                keyed[name] = body[key]
    for rule in _rules_of(model):
        if not holds(rule, keyed):
            fields = _named(rule)
            raise ParameterError(f"these parameters break a rule across {', '.join(fields)} that this service's "
                                 "schema states (see its allOf)", fields[0] if fields else None)


def _takes_a_string(model, name: str) -> bool:
    """Whether ``model``'s list field ``name`` reads a string too (as a comma list): validating
    ``{name: "x"}`` fails, if at all, on other fields or on the string's content, not on its type."""
    from pydantic import ValidationError

    try:
        model.model_validate({name: "x"}, context={"front": "service"})
    except ValidationError as exc:
        return not any(e["type"] == "list_type" and tuple(e["loc"][:1]) == (name,) for e in exc.errors())
    except Exception:  # noqa: BLE001 - refused otherwise (a rule across fields): the string was read
        return True
    return True


def _holds_for_empty(rule: dict) -> bool:
    """Whether ``{}`` satisfies ``rule``, one of :func:`_rules`'s (required, properties, not, anyOf, allOf)."""
    if rule.get("required"):
        return False
    if "not" in rule and _holds_for_empty(rule["not"]):
        return False
    if "anyOf" in rule and not any(_holds_for_empty(r) for r in rule["anyOf"]):
        return False
    return all(_holds_for_empty(r) for r in rule.get("allOf", []))


def inline_params_schema(cmd) -> dict:
    return inline_defs(cmd.params.model_json_schema(mode="validation"))


def inline_defs(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with every ``{"$ref": "#/$defs/X"}`` replaced by the definition (no recursion in ours)."""
    defs = schema.get("$defs", {})

    def walk(node):
        if isinstance(node, dict):
            ref = node.get("$ref", "")
            if ref.startswith("#/$defs/"):
                return walk(defs[ref.split("/")[-1]])
            return {k: walk(v) for k, v in node.items() if k != "$defs"}
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    return walk(schema)



def _enrich_parameter(param: dict, lang_pattern: str, formats, path: str = "") -> None:
    name, where = param.get("name"), param.get("in")
    sch = param.setdefault("schema", {})
    if name == "job_id":
        sch.update(pattern=r"^[0-9a-f]{16}$")
    elif name == "name" and where in ("path", "query"):
        sch.update(pattern=NAME_PATTERN, minLength=1, maxLength=64)
    elif name == "fmt" and "/plots/" in path:
        sch.update(enum=["png", "svg"])
    elif name == "fmt" and "/data." in path:
        sch.update(enum=["csv", "parquet"])
    elif name == "index":
        sch.update(minimum=0)
    elif name == "lang" and where == "query":
        constrain(sch, pattern=lang_pattern)
    elif name == "format" and where == "query":
        sch.update(enum=list(formats))


def _enrich_params(body: dict, cmd, config, lang_pattern: str, *, job: bool = False) -> None:
    """A command's parameter schema for this service (see :func:`enrich_openapi`); ``job``: as
    ``POST /jobs`` takes it. Each field is read by its kind (:mod:`geobias.commands._kinds`): its
    service policy, its constraints and its cap; the service names no field."""
    from geobias.commands._fields import _non_negative, _positive
    from geobias.commands._rules import schema_rules

    model = cmd.params
    props = body.get("properties", {})
    fields = model.model_fields
    word_sets = word_set_keys(model)
    for name in fields_of(model, service=LOCAL):  # refused by the service when set
        if name in props:
            off = spec_of(model, name).value
            props[name] = {"type": "null"} if off is None else {"const": off}
    rules = schema_rules(model, props)
    if rules:
        body["allOf"] = [*body.get("allOf", []), *rules]
    # the service chooses where outputs go, except a store a job publishes, whose name the client gives
    outputs = {getattr(o, "field", o) for o in cmd.outputs if getattr(o, "kind", None) != "store"}
    published = {o.field for o in cmd.outputs if getattr(o, "kind", None) == "store"}
    for name in list(props):
        info = fields.get(name)
        spec = spec_of(model, name)
        node = props[name]
        if name in outputs:
            del props[name]  # the service chooses where outputs go: never a request's field
            if name in body.get("required", []):
                body["required"].remove(name)
            continue
        if name in published:
            constrain(node, pattern=NAME_PATTERN, minLength=1, maxLength=64)
            if job and name not in body.setdefault("required", []):
                body["required"].append(name)
        elif spec.service is FIXED:  # an engine setting: the service's own
            props[name] = {"const": spec.value} if spec.value is not None else {"type": "null"}
        elif spec.schema is not None and spec.kind is Kind.WORD_SET:
            spec.schema(node, config.max_words)
        elif info is not None and {a.get("type") for a in non_null(node)} == {"array"} \
                and _takes_a_string(model, name):
            # a list, or a comma list (the model reads a string as one)
            keep = {k: v for k, v in node.items() if k in ("default", "description", "title")}
            alts = [a for a in node.get("anyOf", [{k: v for k, v in node.items() if k not in keep}])]
            comma: dict[str, Any] = {"type": "string", "maxLength": config.max_words * 100}
            if any(a.get("items", {}).get("type") == "integer" for a in alts):
                comma["pattern"] = INT_LIST_PATTERN
            props[name] = {**keep, "anyOf": [*alts, comma]}
        elif spec.schema is not None:
            spec.schema(node, config.max_words)
        elif spec.cap is not None:
            constrain(node, minimum=spec.minimum, maximum=cap_of(config, spec))
        elif info is not None:
            validators = [getattr(m, "func", None) for m in info.metadata]
            annotation = info.annotation
            for arg in typing.get_args(annotation):
                validators += [getattr(m, "func", None) for m in getattr(arg, "__metadata__", ())]
            if _positive in validators:
                constrain(node, minimum=1)
            elif _non_negative in validators:
                constrain(node, minimum=0)
        for alt in non_null(props.get(name, {})):
            for bound, key in (("le", "maximum"), ("ge", "minimum"), ("lt", "exclusiveMaximum"),
                               ("gt", "exclusiveMinimum")):  # pydantic's keywords, where it left them
                if bound in alt:
                    alt.setdefault(key, alt.pop(bound))
            if alt.get("type") == "array" and name not in word_sets:
                alt.setdefault("maxItems", config.max_words)
            if alt.get("type") == "string" and name not in word_sets:
                alt.setdefault("maxLength", config.max_words * 100)


def cap_of(config, spec) -> int | None:
    """The largest value this service takes for a field of ``spec`` (its cap, a number or the name
    of a :class:`~geobias.service.config.ServiceConfig` attribute); ``None``: uncapped."""
    return getattr(config, spec.cap) if isinstance(spec.cap, str) else spec.cap


def caps(config, model) -> dict[str, int]:
    """``{field: largest value}`` of ``model``'s capped fields for this service (the web app's number
    boxes)."""
    return {f: cap_of(config, spec_of(model, f)) for f in model.model_fields if spec_of(model, f).cap is not None}


__all__ = ["MAX_DEPTH", "MAX_ENTRY_CHARS", "NAME_PATTERN", "cap_of", "caps", "check_body", "check_rules", "holds", "enrich_openapi", "inline_defs",
           "text_pattern", "word_set_keys"]
