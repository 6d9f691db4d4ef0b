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
* a text with more than ``config.max_words * 10`` lines (a dictionary, a sentence file);
* a word set given as a comma list with more than ``config.max_words`` entries.

Cost: one pass over the parsed values; ``str.count`` for lines and commas (C speed). The
parameter model and :func:`geobias.service.commands.check_caps` still run afterwards: these
caps are the same numbers, enforced before anything that could be slower than linear.
"""

from __future__ import annotations

import typing
from typing import Any

from geobias.errors import ParameterError

#: The deepest nesting a request body may have (objects and arrays): ours need four.
MAX_DEPTH = 32
#: The longest entry of a list (a word, a model id, a method name).
MAX_ENTRY_CHARS = 1000


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
    total = 0
    stack: list[tuple[Any, str, int]] = [(body, "body", 0)]
    while stack:
        value, where, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise ParameterError(f"the body is nested more than {MAX_DEPTH} levels deep", where)
        if isinstance(value, dict):
            for key, item in value.items():
                if isinstance(item, (dict, list)):
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


_WORD_SET_KEYS: dict[type, frozenset[str]] = {}


def word_set_keys(model) -> frozenset[str]:
    """The body keys (field names and their aliases) of ``model``'s word-set fields."""
    keys = _WORD_SET_KEYS.get(model)
    if keys is None:
        found = set()
        for name, info in model.model_fields.items():
            if _is_word_set(info.annotation) or any(_is_word_set_marker(m) for m in info.metadata):
                found.add(name)
                alias = info.validation_alias
                for choice in getattr(alias, "choices", None) or ([alias] if isinstance(alias, str) else []):
                    if isinstance(choice, str):
                        found.add(choice)
        keys = _WORD_SET_KEYS[model] = frozenset(found)
    return keys


def _is_word_set_marker(meta) -> bool:
    from geobias.commands._fields import _word_set

    return getattr(meta, "func", None) is _word_set


def _is_word_set(annotation) -> bool:
    if any(_is_word_set_marker(m) for m in getattr(annotation, "__metadata__", ())):
        return True
    return any(_is_word_set(a) for a in typing.get_args(annotation) if a is not type(None))


__all__ = ["MAX_DEPTH", "MAX_ENTRY_CHARS", "check_body", "word_set_keys"]
