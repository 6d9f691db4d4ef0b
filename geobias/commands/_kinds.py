"""Field kinds: what a parameter *is*, written once beside its type, read by every front door.

A parameter model's field gets its kind from its type: :data:`geobias.commands._fields.StoreRef`
is a store reference, :data:`~geobias.commands._fields.Lang` a language code, :data:`Engine`
an engine setting, and so on. The type carries a :class:`Spec` in its ``Annotated`` metadata, and a
field may add one of its own to say more (``Annotated[StoreRef, Spec(label="English store")]``).
:func:`spec_of` merges them (the field's last). A spec says:

* **what the service enforces on it** (:attr:`Spec.schema`, JSON-schema constraints written into
  ``/openapi.json`` and checked before the model runs; :attr:`Spec.cap`, the largest value, a
  number or the name of a :class:`~geobias.service.config.ServiceConfig` attribute);
* **its service policy** (:attr:`Spec.service`): :data:`LOCAL` (a choice for a local run: refused
  unless left at :attr:`Spec.value`), :data:`FIXED` (the service's own value :attr:`Spec.value`:
  refused otherwise), :data:`SET` (the service sets :attr:`Spec.value`, whatever the client sent)
  — none of them shown in the web app's forms;
* **its form** (:attr:`Spec.label`, :attr:`Spec.widget`, :attr:`Spec.order`: fields with an order
  come first, lowest first);
* **its command-line spelling** (:attr:`Spec.argument`, :attr:`Spec.short`, :attr:`Spec.name`,
  :attr:`Spec.aliases`, :attr:`Spec.multiple`).

The CLI generator, the service's OpenAPI enrichment and caps, and the web app look these up; none
of them names a field or a command.

Examples
--------
>>> from geobias.commands import get
>>> spec_of(get("mweat").params, "vectors").kind is Kind.STORE
True
>>> spec_of(get("mweat").params, "limit").service is LOCAL
True
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import typing
from collections.abc import Callable
from typing import Annotated, Any

from pydantic import Field


class Kind(enum.Enum):
    """What a field holds, where the front doors treat it specially."""

    STORE = "a vector store: a registry name, a saved store, a store directory or a vector file"
    LANGUAGE = "a language code"
    WORD_SET = "a set of words: a list, a comma list or a file"
    PAIR_TABLE = "rows of two words (ordered pairs)"
    FORM_TABLE = "rows of two or three forms of one word (feminine, masculine, english)"
    SET_PAIR = "two word sets (male words, female words)"
    DICTIONARY = "a dictionary of two words per line"
    MODEL = "a model: a registry name, a hub id or a local folder"
    ENGINE = "where forward passes run"
    DEVICE = "the device of forward passes"
    OUTPUT = "a file or folder the run writes"
    BUDGET = "run above the work budget"
    COUNT = "a count the service caps"
    LOCAL = "a choice for a local run"


class Policy(enum.Enum):
    """What the service does with a field (see the module docstring)."""

    LOCAL = "local"
    FIXED = "fixed"
    SET = "set"


LOCAL, FIXED, SET = Policy.LOCAL, Policy.FIXED, Policy.SET

_UNSET: Any = object()


@dataclasses.dataclass(frozen=True, eq=False)
class Spec:
    """A field kind's metadata (see the module docstring). Every attribute is optional; a field's
    spec is the merge of its type's and its own (:func:`spec_of`).

    Attributes
    ----------
    kind : Kind or None
    label : str or None
        The web form's label (else the field's ``title``, else its name, spaced and capitalised).
    widget : str or None
        The web form's control: ``store``, ``lang``, ``weat-test`` (selects of the served stores, the
        languages and the built-in WEAT tests); else read from the JSON schema.
    order : int or None
        Fields with an order come first in a form, lowest first.
    schema : callable or None
        ``schema(node, max_words)`` adds this kind's constraints to the field's JSON schema ``node``
        (in place) for a service that takes at most ``max_words`` words in a list.
    pattern : str or None
        A text kind's pattern (ECMA and Python read it alike): the service refuses other text.
    cap : str, int or None
        The largest value the service takes: a number, or the name of the service configuration's
        attribute that holds it.
    minimum : int or None
        The smallest value the service takes, with ``cap``.
    service : Policy or None
    value : any
        With :data:`LOCAL`, the value that means "off"; with :data:`FIXED` and :data:`SET`, the
        service's value.
    argument, short, name, aliases, multiple, metavar
        The command line: a positional argument; a short flag (``-v``; ``""``: none, where the
        kind has one); another long name (``--from``); hidden spellings that still work
        (``--method``; using one prints that it is deprecated); an option given once per value.
    """

    kind: Kind | None = None
    label: str | None = None
    widget: str | None = None
    order: int | None = None
    schema: Callable[[dict, int], None] | None = None
    pattern: str | None = None
    cap: str | int | None = None
    minimum: int | None = None
    service: Policy | None = None
    value: Any = _UNSET
    argument: bool | None = None
    short: str | None = None
    name: str | None = None
    aliases: tuple[str, ...] | None = None
    multiple: bool | None = None
    metavar: str | None = None

    def merged(self, other: Spec) -> Spec:
        """This spec with ``other``'s set attributes over it."""
        changes = {f.name: getattr(other, f.name) for f in dataclasses.fields(other)
                   if getattr(other, f.name) is not _default(f)}
        return dataclasses.replace(self, **changes)

    @property
    def hidden(self) -> bool:
        """Whether the web app's forms leave this field out (the service decides it)."""
        return self.service is not None


def _default(f: dataclasses.Field) -> Any:
    return f.default


_EMPTY = Spec()


def _specs(annotation: Any) -> list[Spec]:
    found: list[Spec] = []
    for arg in typing.get_args(annotation):  # inner types first: a member of a union, a wrapped kind
        if arg is not type(None):
            found += _specs(arg)
    found += [m for m in getattr(annotation, "__metadata__", ()) if isinstance(m, Spec)]
    return found


@functools.cache
def spec_of(model: type, field: str) -> Spec:
    """The merged :class:`Spec` of ``model``'s field ``field`` (an empty one for a field with no
    kind, or a name that is not a field)."""
    info = model.model_fields.get(field)
    if info is None:
        return _EMPTY
    spec = _EMPTY
    for s in [*_specs(info.annotation), *(m for m in info.metadata if isinstance(m, Spec))]:
        spec = spec.merged(s)
    return spec


def fields_of(model: type, *, kind: Kind | None = None, service: Policy | None = None) -> tuple[str, ...]:
    """``model``'s fields of ``kind`` (or with the service policy ``service``), in the model's order."""
    return tuple(f for f in model.model_fields
                 if (kind is None or spec_of(model, f).kind is kind)
                 and (service is None or spec_of(model, f).service is service))


def body_keys(model: type, field: str) -> tuple[str, ...]:
    """The keys a request body may give ``field`` under: its name and its string aliases."""
    info = model.model_fields[field]
    alias = info.validation_alias
    choices = getattr(alias, "choices", None) or ([alias] if isinstance(alias, str) else [])
    return (field, *(c for c in choices if isinstance(c, str) and c != field))


# ----------------------------------------------------------------------------- JSON schema
#: A store or artefact name as the service accepts it, without look-arounds (JSON Schema patterns
#: are ECMA-262; generators read them too): no leading dot, no '..'.
NAME_PATTERN = r"^[A-Za-z0-9](?:[A-Za-z0-9_-]|\.[A-Za-z0-9_-])*\.?$"
#: The longest entry of a list (a word, a model id, a method name) the service takes.
MAX_ENTRY_CHARS = 1000
#: A character Python's ``str.strip`` keeps (ECMA's ``\s`` misses \x1c-\x1f and \x85, which it strips).
_SOLID = r"[^\s\x1c-\x1f\x85]"
#: A word: something besides spaces, no tab or line break (words are stripped).
WORD_PATTERN = r"^[^\t\n\r]*" + _SOLID + r"[^\t\n\r]*$"
#: A dictionary word's character: neither ECMA's nor Python's whitespace (they differ: Python's
#: ``\s`` has \x1c-\x1f and \x85, ECMA's has \ufeff), so that the pattern reads alike in both.
_WORD_CHAR = r"[^\s\x1c-\x1f\x85\ufeff]"
#: Lines of two words (a bilingual dictionary's text).
DICTIONARY_LINES = r"^(?:[ \t]*" + _WORD_CHAR + r"+[ \t]+" + _WORD_CHAR + r"+[ \t]*(?:\r?\n|$))+$"
#: A dictionary's text, or the word ``identical`` (align the words two stores share).
DICTIONARY_OR_IDENTICAL = r"^[ \t\r\n]*identical[ \t\r\n]*$|" + DICTIONARY_LINES


def non_null(node: dict) -> list[dict]:
    """The non-null alternatives of a property's schema (``anyOf`` or the schema itself)."""
    return [a for a in node.get("anyOf", [node]) if a.get("type") != "null"]


def constrain(node: dict, **extra) -> None:
    """Add ``extra`` to each non-null alternative of ``node``, keeping a tighter bound it states."""
    for alt in non_null(node):
        for key, value in extra.items():
            if key in ("minimum", "minLength", "minItems") and key in alt:
                alt[key] = max(alt[key], value)
            elif key in ("maximum", "maxLength", "maxItems") and key in alt:
                alt[key] = min(alt[key], value)
            else:
                alt[key] = value


def _word() -> dict:
    return {"type": "string", "minLength": 1, "maxLength": MAX_ENTRY_CHARS, "pattern": WORD_PATTERN}


def _word_set_schema(node: dict, max_words: int) -> None:
    array = {"type": "array", "minItems": 1, "maxItems": max_words, "uniqueItems": True, "items": _word()}
    comma = {"type": "string", "pattern": r"^[^\t\n\r]*[^,\s\x1c-\x1f\x85][^\t\n\r]*$",
             "maxLength": MAX_ENTRY_CHARS * max_words}
    nullable = any(a.get("type") == "null" for a in node.get("anyOf", []))
    keep = {k: v for k, v in node.items() if k in ("default", "description", "title")}
    node.clear()
    node.update(keep, anyOf=[array, comma, *([{"type": "null"}] if nullable else [])])


def _store_schema(node: dict, max_words: int) -> None:
    constrain(node, pattern=NAME_PATTERN, minLength=1, maxLength=64)


def _language_schema(node: dict, max_words: int) -> None:
    from geobias.languages import code_pattern

    constrain(node, pattern=code_pattern())


def _pair_schema(node: dict, max_words: int) -> None:
    constrain(node, minItems=1, items={"type": "array", "minItems": 2, "maxItems": 2,
                                       "items": {"type": "string", "minLength": 1, "pattern": WORD_PATTERN}})


def _set_pair_schema(node: dict, max_words: int) -> None:
    constrain(node, minItems=2, maxItems=2, items={"type": "array", "minItems": 1, "maxItems": max_words,
                                                   "uniqueItems": True, "items": _word()})


def _form_schema(node: dict, max_words: int) -> None:
    constrain(node, minItems=1, maxItems=max_words, items={"type": "array", "minItems": 2, "maxItems": 3, "items": _word()})


def _text_schema(pattern: str) -> Callable[[dict, int], None]:
    def schema(node: dict, max_words: int) -> None:
        for alt in non_null(node):  # a path's text, or the text given inline ({"text": ...})
            text = alt.get("properties", {}).get("text") if alt.get("type") == "object" else alt
            if text is not None:
                constrain(text, pattern=pattern, maxLength=max_words * 100)
    return schema


def _model_schema(node: dict, max_words: int) -> None:
    import re

    from geobias.models import REGISTRY

    hub = r"[A-Za-z0-9](?:[A-Za-z0-9_-]|\.[A-Za-z0-9_-])*"
    pattern = "^(?:" + "|".join(re.escape(n) for n in REGISTRY) + ")$|^" + hub + "/" + hub + "$"
    for alt in non_null(node):
        (alt["items"] if alt.get("type") == "array" and "items" in alt else alt).update(pattern=pattern)


def _no_pickle_format(node: dict, max_words: int) -> None:
    for alt in non_null(node):  # a gensim KeyedVectors file is a pickle: the service writes none
        if "enum" in alt:
            alt["enum"] = [f for f in alt["enum"] if f != "kv"]


# ----------------------------------------------------------------------------- the specs
STORE = Spec(Kind.STORE, label="Store", widget="store", order=1, schema=_store_schema, short="-v")
LANGUAGE = Spec(Kind.LANGUAGE, label="Language", widget="lang", order=0, schema=_language_schema, short="-l")
WORDS = Spec(Kind.WORD_SET, schema=_word_set_schema)
PAIRS = Spec(Kind.PAIR_TABLE, schema=_pair_schema)
FORMS = Spec(Kind.FORM_TABLE, schema=_form_schema)
SET_PAIR = Spec(Kind.SET_PAIR, schema=_set_pair_schema)
DICTIONARY = Spec(Kind.DICTIONARY, schema=_text_schema(DICTIONARY_LINES), pattern=DICTIONARY_LINES)
#: A dictionary field that also takes the word ``identical``.
DICTIONARY_IDENTICAL = Spec(Kind.DICTIONARY, schema=_text_schema(DICTIONARY_OR_IDENTICAL),
                            pattern=DICTIONARY_OR_IDENTICAL)
MODEL = Spec(Kind.MODEL, label="Model", order=2, schema=_model_schema, short="-m")
#: A second model (to compare with the first).
OTHER_MODEL = Spec(Kind.MODEL, schema=_model_schema)
#: The method a command runs (shown after what it runs on).
METHOD = Spec(order=4)
#: A vector file format the service may write (never a pickle).
WRITE_FORMAT = Spec(schema=_no_pickle_format)
OUTPUT = Spec(Kind.OUTPUT, short="-o")
#: A positional argument on the command line.
ARGUMENT = Spec(argument=True)
BUDGET = Spec(Kind.BUDGET, service=SET, value=True)
DEVICE = Spec(Kind.DEVICE, service=SET, value="cpu")


def engine_setting(value: Any) -> Spec:
    """An engine setting the service fixes at ``value`` (``"local"``, or ``None``: unset)."""
    return Spec(Kind.ENGINE, service=FIXED, value=value)


def local(off: Any) -> Spec:
    """A choice for a local run; the service takes it only as ``off``."""
    return Spec(Kind.LOCAL, service=LOCAL, value=off)


def capped(cap: str | int, minimum: int = 1, **more: Any) -> Spec:
    """A count the service caps at ``cap`` (a number or a service configuration attribute)."""
    return Spec(Kind.COUNT, cap=cap, minimum=minimum, **more)


#: ``trust_pickle``-style flags: a local choice, off as ``False``.
LocalFlag = Annotated[bool, local(False)]
#: Engine settings: where forward passes run (the service runs them in its own process tree).
EngineName = Annotated[str, engine_setting("local")]
RayAddress = Annotated[str, engine_setting("local")]
EngineCount = Annotated[int | None, engine_setting(None), Field(ge=1)]
#: ``force``: run above the work budget, or replace an output (the service's caps are its budget).
Force = Annotated[bool, BUDGET]
#: ``device``: auto, cpu, cuda, cuda:N (a service job runs on the CPU).
Device = Annotated[str, DEVICE]

__all__ = ["ARGUMENT", "BUDGET", "DEVICE", "DICTIONARY", "DICTIONARY_IDENTICAL", "DICTIONARY_LINES", "DICTIONARY_OR_IDENTICAL",
           "FIXED", "FORMS", "LANGUAGE", "LOCAL", "METHOD", "MODEL", "NAME_PATTERN", "OTHER_MODEL", "OUTPUT", "PAIRS", "SET", "SET_PAIR",
           "STORE", "WORDS", "WORD_PATTERN", "WRITE_FORMAT", "Device", "EngineCount", "EngineName", "Force", "Kind",
           "LocalFlag", "MAX_ENTRY_CHARS", "Policy", "RayAddress", "Spec", "body_keys", "capped", "constrain", "engine_setting", "fields_of",
           "local", "non_null", "spec_of"]
