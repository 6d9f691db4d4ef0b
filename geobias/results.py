"""The one result convention: frozen dataclasses that convert to JSON and back."""

from __future__ import annotations

import contextvars
import dataclasses
import functools
import json
import math
import sys
from collections.abc import Mapping
from typing import Any


def jsonable(obj: Any) -> Any:
    """Convert dataclasses, numpy scalars/arrays, tuples and paths to JSON-able values.

    Non-finite floats become ``None`` (JSON has no NaN). A dataclass is converted field by
    field, or, when it has a ``_json_keys`` tuple, attribute by attribute in that order (a
    result that embeds another and keeps a flat JSON form, e.g. :class:`geobias.metrics.WeatResult`).
    """
    t = type(obj)  # the plain scalars first, by exact type: most of a result's values (the service's quick path)
    if t is str or obj is None or t is int or t is bool:
        return obj
    if t is float:
        return obj if math.isfinite(obj) else None
    np = sys.modules.get("numpy")  # not imported here (CLI startup): no numpy object exists without it
    if np is None:
        np = _NoNumpy
    keys = _json_keys(t)
    if keys is not None:
        if keys is _ASK_INSTANCE:
            keys = obj._json_keys
        return {k: jsonable(getattr(obj, k)) for k in keys}
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return jsonable(obj.tolist())
    if isinstance(obj, (np.bool_, bool)):
        return bool(obj)
    if isinstance(obj, (np.integer, int)):
        return int(obj)
    if isinstance(obj, (np.floating, float)):
        f = float(obj)
        return f if math.isfinite(f) else None
    if obj is None or isinstance(obj, str):
        return obj
    return str(obj)


#: :func:`_json_keys` of a type whose ``_json_keys`` is computed per instance (a property).
_ASK_INSTANCE: Any = object()


@functools.cache
def _json_keys(t: type) -> Any:
    """The attributes a dataclass instance of type ``t`` is written with (``_json_keys``, else its
    fields, in order); ``None`` for a type that is not a dataclass, :data:`_ASK_INSTANCE` where
    ``_json_keys`` is a property."""
    if not dataclasses.is_dataclass(t):
        return None
    keys = getattr(t, "_json_keys", None)  # a result whose JSON form differs from its fields
    if isinstance(keys, property):
        return _ASK_INSTANCE
    return tuple(keys) if keys is not None else tuple(f.name for f in dataclasses.fields(t))


class _NoNumpy:
    class ndarray: ...  # noqa: N801 - stand-ins that no object is an instance of

    class bool_: ...  # noqa: N801

    class integer: ...  # noqa: N801

    class floating: ...  # noqa: N801


class Result:
    """Mixin for frozen result dataclasses: ``to_dict()``, ``to_json()``, ``from_dict()``, and the
    result as data: ``to_frame()`` (pandas, one row per estimate) and a table in Jupyter."""

    def to_dict(self) -> dict[str, Any]:
        return jsonable(self)

    def to_frame(self, table: str | None = None):
        """The result as a pandas ``DataFrame``: one row per estimate (see :func:`tidy_rows`), or,
        with ``table``, one of its item tables (see :func:`item_tables`; :meth:`table_names` lists them).

        Raises
        ------
        InputError
            ``table`` is not one of :meth:`table_names`; pandas is not installed.
        """
        return to_frame(self, table=table)

    def table_names(self) -> list[str]:
        """The names of the result's item tables (``to_frame(table=NAME)``), the main one first."""
        return list(item_tables(self))

    def _repr_html_(self) -> str:
        return html_summary(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]):
        """The result again from its JSON form (:meth:`to_dict`), e.g. a stored envelope's ``result``.

        Each field is rebuilt by its type annotation: nested results through their own
        ``from_dict``, lists and tuples element by element, arrays with ``numpy.asarray``. A
        field embedded flat in the JSON (see ``_json_keys``) is rebuilt from the same dict.
        Non-finite floats were written as ``null`` and stay ``None``.

        Raises
        ------
        InputError
            ``data`` is not this result's JSON form (a missing field without a default).

        Examples
        --------
        >>> from geobias.store.neighbors import Neighbor
        >>> Neighbor.from_dict({"word": "reine", "similarity": 0.7})
        Neighbor(word='reine', similarity=0.7)
        """
        from geobias.errors import InputError

        if not isinstance(data, dict):
            raise InputError(f"{cls.__name__}.from_dict needs a JSON object; got {type(data).__name__}")
        hints = _hints(cls)
        kwargs: dict[str, Any] = {}
        for f in dataclasses.fields(cls):
            hint = hints.get(f.name)
            if f.name in data:
                kwargs[f.name] = _revive(hint, data[f.name])
            elif isinstance(hint, type) and issubclass(hint, Result):  # embedded flat (``_json_keys``)
                kwargs[f.name] = hint.from_dict(data)
            elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise InputError(f"not a {cls.__name__}: no {f.name!r} in the data")
        return cls(**kwargs)

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)


def result_type(qualified_name: str) -> type:
    """The result class named ``"package.module.ClassName"`` (a command's declared ``result``).

    The one place where geobias imports a module by its name: a command declares its result type
    by name so that registering it imports no analysis (and `geobias --help` stays light); the
    type is imported here when a stored result is rebuilt. A test resolves every declared name and
    checks that these imports close no import cycle.

    Raises
    ------
    InputError
        No such module or class, or the class is not a :class:`Result`.

    Examples
    --------
    >>> result_type("geobias.store.neighbors.Neighbor").__name__
    'Neighbor'
    """
    import importlib

    from geobias.errors import InputError

    module, _, name = qualified_name.rpartition(".")
    try:
        cls = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError, ValueError):
        raise InputError(f"no result type {qualified_name!r}") from None
    if not (isinstance(cls, type) and issubclass(cls, Result)):
        raise InputError(f"{qualified_name} is not a result type")
    return cls


def _hints(cls: type) -> dict[str, Any]:
    """The resolved type annotations of a dataclass (those that cannot be resolved are left out)."""
    import typing

    try:
        return typing.get_type_hints(cls)
    except (NameError, TypeError):
        hints = {}
        for klass in reversed(cls.__mro__):
            module = sys.modules.get(klass.__module__)
            for name, ann in getattr(klass, "__annotations__", {}).items():
                try:
                    hints[name] = eval(ann, vars(module)) if isinstance(ann, str) else ann  # noqa: S307
                except Exception:  # noqa: BLE001 - a name only imported for type checking
                    continue
        return hints


def _revive(hint: Any, value: Any) -> Any:
    import types
    import typing

    if value is None or hint is None:
        return value
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in args if a is not type(None)]
        return _revive(options[0], value) if len(options) == 1 else value
    if isinstance(hint, type) and issubclass(hint, Result) and isinstance(value, dict):
        return hint.from_dict(value)
    if getattr(hint, "__name__", "") == "ndarray" or origin is not None and getattr(origin, "__name__", "") == "ndarray":
        import numpy as np

        return np.asarray(value, dtype=float if value and not isinstance(value[0], str) else None)
    if origin is list and isinstance(value, list):
        return [_revive(args[0] if args else None, v) for v in value]
    if origin is dict and isinstance(value, dict) and len(args) == 2:
        return {k: _revive(args[1], v) for k, v in value.items()}
    if origin is tuple and isinstance(value, list):
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_revive(args[0], v) for v in value)
        return tuple(_revive(a, v) for a, v in zip(args, value, strict=False)) if args else tuple(value)
    return value


# Inputs that a command resolved while it ran (vector stores with their provenance), collected
# for the result envelope. A context variable, so concurrent service requests do not mix them.
_RECORDED: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar("geobias_inputs", default=None)


def start_recording() -> contextvars.Token:
    """Begin collecting inputs for one command (returns the token for :func:`stop_recording`)."""
    return _RECORDED.set({})


def stop_recording(token: contextvars.Token) -> None:
    _RECORDED.reset(token)


def record_input(key: str, value: Any) -> None:
    """Note an input that a command resolved (no-op outside a recording)."""
    current = _RECORDED.get()
    if current is not None:
        current[key] = jsonable(value)


def recorded_inputs() -> dict[str, Any]:
    """The inputs recorded since :func:`start_recording` (empty outside a recording)."""
    return dict(_RECORDED.get() or {})


def envelope(command: str, inputs: dict[str, Any], result: Any) -> dict[str, Any]:
    """The one JSON shape of every result, on every front door (CLI ``--json``, Python, HTTP).

    Returns
    -------
    dict
        ``{"command": str, "geobias_version": str, "inputs": dict, "result": dict}``;
        ``inputs`` holds the options the command was given and the vector stores it resolved
        (provenance, sha256 when known), ``result`` the result's ``to_dict()``.
    """
    from geobias._version import __version__

    body = result.to_dict() if hasattr(result, "to_dict") else jsonable(result)
    return {
        "command": command,
        "geobias_version": __version__,
        "inputs": jsonable(inputs),
        "result": body,
    }


# ----------------------------------------------------------------------------- results as data
# One row per estimate, numeric columns, nothing rounded (see :mod:`geobias.report.tidy`, which
# writes them as CSV and Parquet). Here, beside the result types, so that every result has
# ``to_frame()`` and a table in Jupyter (``_repr_html_``).
#: Keys of a result under which its estimates are listed (each a record).
_ROW_KEYS = ("rows", "cells", "table")


def _scalar(v: Any) -> bool:
    return v is None or isinstance(v, (bool, int, float, str))


def _clean(v: Any) -> Any:
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def _flatten(data: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """The scalar leaves of ``data`` (nested mappings joined with ``_``; intervals split)."""
    out: dict[str, Any] = {}
    for k, v in data.items():
        key = f"{prefix}{k}"
        if _scalar(v):
            out[key] = _clean(v)
        elif isinstance(v, Mapping):
            out.update(_flatten(v, key + "_"))
        elif isinstance(v, (list, tuple)) and len(v) == 2 and all(isinstance(x, (int, float)) or x is None for x in v) \
                and (key.endswith("_ci") or key.endswith("interval")):
            out[key + "_low"], out[key + "_high"] = _clean(v[0]), _clean(v[1])
    return out


def _records(value: Any) -> list[dict[str, Any]] | None:
    """``value`` as records when it is a list of mappings or a mapping of mappings (keyed)."""
    if isinstance(value, list) and value and all(isinstance(x, Mapping) for x in value):
        return [_flatten(x) for x in value]
    if isinstance(value, Mapping) and value and all(isinstance(x, Mapping) for x in value.values()):
        return [{"key": k, **_flatten(x)} for k, x in value.items()]
    return None


def _result_rows(result: Any) -> list[dict[str, Any]]:
    tidy = getattr(result, "tidy_rows", None)
    if callable(tidy):
        return [_flatten(r) for r in tidy()]
    data = jsonable(result)
    if not isinstance(data, Mapping):
        return [{"value": _clean(data)}] if _scalar(data) else []
    scalars = _flatten({k: v for k, v in data.items() if _records(v) is None})
    for key in _ROW_KEYS:  # a result made of several estimates
        rows = _records(data.get(key))
        if rows:
            return [{**{k: v for k, v in scalars.items() if k not in r}, **r} for r in rows]
    lists = {k: _records(v) for k, v in data.items() if isinstance(v, list) and _records(v)}
    if len(lists) == 1 and not any(isinstance(v, float) for v in scalars.values()):
        # no estimate of its own, one list of records (sources, neighbours): those are the data
        name, rows = next(iter(lists.items()))
        # a record's field named like one of the result's own keeps the list's name as prefix
        return [{**scalars, **{(f"{name}_{k}" if k in scalars else k): v for k, v in r.items()}} for r in rows]
    nested = {k: v for k, v in data.items() if isinstance(v, Mapping) and v and all(isinstance(x, Mapping) for x in v.values())}
    if not scalars and len(nested) == 1:  # {"table": {...}}-like under another name
        return _records(next(iter(nested.values()))) or []
    if not scalars and data and all(isinstance(v, Mapping) for v in data.values()):  # {method: {metric: value}}
        return _records(data) or []
    return [scalars]


def _split_envelope(obj: Any) -> tuple[dict[str, Any], Any]:
    """``(identifying columns, result)`` of an envelope; ``({}, obj)`` for anything else."""
    if not (isinstance(obj, Mapping) and {"command", "result", "inputs"} <= set(obj)):
        return {}, obj
    inputs = obj.get("inputs") or {}
    options = inputs.get("options") or {}
    stores = {k: v for k, v in inputs.items() if k != "options" and isinstance(v, Mapping)}
    first = next(iter(stores.values()), {})
    meta = {"command": obj["command"], "geobias_version": obj.get("geobias_version"),
            "store": (first.get("provenance") or {}).get("source") or first.get("given") or options.get("vectors"),
            "lang": options.get("lang") or first.get("lang")}
    if "seed" in options:
        meta["seed"] = options["seed"]
    return meta, obj["result"]


def tidy_rows(obj: Any) -> list[dict[str, Any]]:
    """One dict per estimate of a result object, a result's JSON form, or a result envelope.

    Parameters
    ----------
    obj : Result, dict
        A result (``geobias.results.Result`` or its ``to_dict()``), or an envelope
        ``{command, geobias_version, inputs, result}`` (its metadata becomes columns).

    Returns
    -------
    list of dict
        Plain values (float, int, bool, str or None; non-finite floats as None), the same keys in
        every row of one result.
    """
    meta, result = _split_envelope(obj)
    rows = _result_rows(result)
    keys: list[str] = []
    for r in rows:
        keys += [k for k in r if k not in keys]
    out = []
    for r in rows:
        row = {**meta, **{k: r.get(k) for k in keys}}
        if "seed" in r:
            row["seed"] = r["seed"]
        out.append(row)
    return out


def _columns(rows: list[dict[str, Any]]) -> list[str]:
    cols: list[str] = []
    for r in rows:
        cols += [k for k in r if k not in cols]
    return cols


def tidy_columns(rows: list[dict[str, Any]]) -> list[str]:
    """Every key of ``rows``, in first-seen order."""
    cols: list[str] = []
    for r in rows:
        cols += [k for k in r if k not in cols]
    return cols


def to_frame(obj: Any, table: str | None = None):
    """:func:`tidy_rows` of ``obj`` (or, with ``table``, that item table of :func:`item_tables`) as a
    pandas ``DataFrame`` (pandas is imported on use).

    Raises
    ------
    InputError
        ``table`` is not one of the result's item tables; pandas is not installed (``pip install
        pandas``; the command line's ``--csv`` needs nothing).
    """
    rows = tidy_rows(obj) if table is None else item_table(obj, table)
    try:
        import pandas as pd
    except ImportError:
        from geobias.errors import InputError

        raise InputError("to_frame needs pandas (pip install pandas); --csv and --parquet need nothing more") from None
    return pd.DataFrame(rows, columns=tidy_columns(rows))


def html_table(obj: Any, *, max_rows: int = 50) -> str:
    """:func:`tidy_rows` of ``obj`` as an HTML table (numbers in full; at most ``max_rows`` rows)."""
    import html  # here: its entity table is a few ms of every command's start-up

    rows = tidy_rows(obj)
    cols = tidy_columns(rows)
    head = "".join(f"<th>{html.escape(c)}</th>" for c in cols)
    body = "".join("<tr>" + "".join(f"<td>{'' if r.get(c) is None else html.escape(str(r.get(c)))}</td>" for c in cols)
                   + "</tr>" for r in rows[:max_rows])
    more = f"<p>{len(rows) - max_rows} more rows</p>" if len(rows) > max_rows else ""
    name = type(obj).__name__
    return f"<table><caption>{html.escape(name)}</caption><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{more}"


# ----------------------------------------------------------------------------- item tables
# Besides the one-row summary, a result's item-level figures (MWEAT's per-pair scores, RIPA's
# per-word projections, correlate's occupations, the neighbours, evaluate's methods, the atlas's
# cells) as long tables: one row per item, with the run's identifying columns first.

#: The columns that identify a run, first in every item table (``None`` where unknown: a result
#: given without its envelope has no command).
ID_COLUMNS = ("command", "store", "lang", "seed", "geobias_version")

#: The key column of a table made of a mapping of records (``{method: {metric: value}}``).
_KEY_NAMES = {"table": "method", "bootstrap_sums": "quantity", "lists": "list", "metrics": "metric",
              "coverage": "resource", "timings": "method", "details": "method"}

#: The result's own fields that say what was asked (the neighbours' query word, WEAT's test): every
#: row of its item tables carries them, as ``query_<name>`` where a row has a field of that name.
_QUERY_KEYS = ("test", "word", "model", "encoder")

#: A record's fields that a nested table's rows carry (the atlas's ``lang`` beside each occupation).
_PARENT_KEYS = ("lang", "language", "store", "method", "test", "model", "corpus")


def _is_records(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(x, Mapping) for x in value)


def _is_keyed_records(value: Any) -> bool:
    return isinstance(value, Mapping) and bool(value) and all(isinstance(x, Mapping) for x in value.values())


def _numeric_leaf(row: Mapping[str, Any]) -> bool:
    return any(isinstance(v, (int, float)) and not isinstance(v, bool) for v in row.values())


def _parallel(data: Mapping[str, Any], key: str) -> list[dict[str, Any]] | None:
    """Rows of the lists beside ``data[key]`` (a list of n words) that have n numbers or n intervals
    each (RIPA's ``words``, ``ripa``, ``word_intervals``); ``None`` when there are none."""
    words = data[key]
    n = len(words)
    column = key[:-1] if key.endswith("s") else key
    columns: dict[str, list[Any]] = {column: list(words)}
    for k, v in data.items():
        if k == key or not isinstance(v, list) or len(v) != n:
            continue
        if all(x is None or isinstance(x, (int, float)) and not isinstance(x, bool) for x in v):
            columns[k] = [_clean(x) for x in v]
        elif all(isinstance(x, list) and len(x) == 2 for x in v):
            name = k[:-1] if k.endswith("s") else k
            columns[name + "_low"] = [_clean(x[0]) for x in v]
            columns[name + "_high"] = [_clean(x[1]) for x in v]
    if len(columns) == 1:
        return None
    return [{c: vals[i] for c, vals in columns.items()} for i in range(n)]


def _derive_tables(data: Mapping[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """The item tables found in a result's JSON form (see :func:`item_tables`)."""
    found: dict[str, list[dict[str, Any]]] = {}
    children: dict[str, list[dict[str, Any]]] = {}
    for key, value in data.items():
        if _is_records(value):
            rows = []
            for record in value:
                rows.append(_flatten(record))
                parent = {k: record[k] for k in _PARENT_KEYS if isinstance(record.get(k), str)}
                for sub, sub_value in record.items():  # a list of records inside each record (cells → occupations)
                    if _is_records(sub_value):
                        children.setdefault(sub, []).extend({**parent, **_flatten(r)} for r in sub_value)
            found[key] = rows
        elif _is_keyed_records(value):
            rows = [{_KEY_NAMES.get(key, "key"): k, **_flatten(x)} for k, x in value.items()]
            if any(_numeric_leaf(r) for r in rows):
                found[key] = rows
        elif isinstance(value, list) and value and all(isinstance(x, str) for x in value):
            rows = _parallel(data, key)
            if rows:
                found[key] = rows
    for key, rows in children.items():
        found[key if key not in found else f"items_{key}"] = rows
    first = [k for k in _ROW_KEYS if k in found]  # a result made of several estimates: those first
    return {k: found[k] for k in [*first, *[k for k in found if k not in first]]}


def item_tables(obj: Any) -> dict[str, list[dict[str, Any]]]:
    """The item-level tables of a result, a result's JSON form, or a result envelope, in long form.

    Each table is one row per item: MWEAT's ``per_word`` (one row per occupation pair), WEAT's
    ``per_word``, RIPA's ``words`` (per word: its RIPA and interval), correlate's
    ``per_occupation``, the neighbours' ``neighbors``, evaluate's ``table`` (one row per method),
    the atlas's ``rows`` (language × metric) and ``occupations`` (language × occupation). They are
    found in the result's JSON form, so a stored result gives the same tables as a fresh one:

    * a list of records is a table named by its key; a list of records inside each of those
      records is a table too, its rows carrying the parent's ``lang``/``method``/... fields;
    * a mapping of records (``{method: {metric: value}}``) is a table with the mapping's key as a
      column (``method``, ``quantity``, ``key``...), when its records hold numbers;
    * a list of n words with sibling lists of n numbers or n intervals (``[low, high]``) is a table
      named by the words' key (intervals split into ``*_low`` and ``*_high``).

    Every row starts with the run's identifying columns :data:`ID_COLUMNS` (``command``, ``store``,
    ``lang``, ``seed``, ``geobias_version``: from the envelope; without one, the result's own
    ``lang`` and ``seed`` where it has them, else ``None``). A row's own value of one of these (the
    atlas's per-language ``lang``) wins. Nested mappings flatten with ``_``.

    Parameters
    ----------
    obj : Result, dict
        A result, its ``to_dict()``, or its envelope ``{command, geobias_version, inputs, result}``.

    Returns
    -------
    dict of str to list of dict
        ``{table name: rows}``, the main table first (the result's several estimates, under
        ``rows``/``cells``/``table``, where it has them; else the first found). Empty when the
        result has no item-level figures.

    Examples
    --------
    >>> tables = item_tables({"mean": 0.2, "words": ["roi", "reine"], "ripa": [0.5, -0.1]})
    >>> list(tables), tables["words"][1]
    (['words'], {'command': None, 'store': None, 'lang': None, 'seed': None, 'geobias_version': None, 'word': 'reine', 'ripa': -0.1})
    """
    meta, result = _split_envelope(obj)
    data = jsonable(result)
    if not isinstance(data, Mapping):
        return {}
    ids = {c: meta.get(c) for c in ID_COLUMNS}
    for c in ("lang", "seed"):
        if ids[c] is None and _scalar(data.get(c)):
            ids[c] = data.get(c)
    query = {k: data[k] for k in _QUERY_KEYS if isinstance(data.get(k), str)}
    out = {}
    for name, rows in _derive_tables(data).items():
        keys = tidy_columns(rows)
        asked = {(f"query_{k}" if k in keys else k): v for k, v in query.items()}
        out[name] = [{**ids, **asked, **{k: r.get(k) for k in keys}} for r in rows]
    return out


def item_table(obj: Any, table: str | None = None) -> list[dict[str, Any]]:
    """One of :func:`item_tables` of ``obj``: ``table``, or the main one when ``None``.

    Raises
    ------
    InputError
        The result has no item table of that name (the message lists those it has), or none at all.
    """
    from geobias.errors import InputError

    tables = item_tables(obj)
    if not tables:
        raise InputError("this result has no item table (its figures are the one summary row)")
    if table is None:
        return next(iter(tables.values()))
    if table not in tables:
        raise InputError(f"no item table {table!r}; this result has {', '.join(tables)}")
    return tables[table]


#: Fields shown first in the Jupyter summary, when a result has them (its key figures).
_KEY_FIGURES = ("statistic", "effect_size", "p_value", "p_value_ci_low", "p_value_ci_high", "spearman", "mean",
                "mean_abs", "value", "low", "high", "bootstrap_low", "bootstrap_high", "difference",
                "n_pairs", "n_occupations", "n_x", "n_y", "n_a", "n_b", "n_ok", "n_failed", "k", "word")


def _sig(v: Any) -> str:
    """A cell at 4 significant digits (numbers) or as text."""
    if isinstance(v, float):
        return f"{v:.4g}"
    return "" if v is None else str(v)


def html_summary(obj: Any, *, max_rows: int = 20) -> str:
    """A compact HTML view of a result for Jupyter: its key figures at 4 significant digits, the
    other summary fields and each item table (at most ``max_rows`` rows) behind ``<details>`` toggles.

    The numbers in full are in ``to_frame()``; this is for reading.
    """
    import html

    rows = tidy_rows(obj)
    name = html.escape(type(obj).__name__)
    first = rows[0] if len(rows) == 1 else {}
    key = [k for k in _KEY_FIGURES if k in first and first[k] is not None][:8]
    parts = [f"<div class='geobias-result'><strong>{name}</strong>"]
    if key:
        parts.append("<table><tr>" + "".join(f"<th>{html.escape(k)}</th>" for k in key) + "</tr><tr>"
                     + "".join(f"<td>{html.escape(_sig(first[k]))}</td>" for k in key) + "</tr></table>")
    rest = {k: v for k, v in first.items() if k not in key}
    if rest:
        parts.append(f"<details><summary>all {len(first)} fields</summary><table>"
                     + "".join(f"<tr><th>{html.escape(k)}</th><td>{html.escape(_sig(v))}</td></tr>"
                               for k, v in rest.items()) + "</table></details>")
    tables = item_tables(obj)
    if len(rows) > 1 and not tables:
        tables = {"rows": rows}
    for tname, trows in tables.items():
        cols = [c for c in tidy_columns(trows) if c not in ID_COLUMNS or any(r.get(c) != trows[0].get(c) for r in trows)]
        cols = [c for c in cols if any(r.get(c) is not None for r in trows)]
        head = "".join(f"<th>{html.escape(c)}</th>" for c in cols)
        body = "".join("<tr>" + "".join(f"<td>{html.escape(_sig(r.get(c)))}</td>" for c in cols) + "</tr>"
                       for r in trows[:max_rows])
        more = f"<p>{len(trows) - max_rows} more rows: to_frame(table={tname!r})</p>" if len(trows) > max_rows else ""
        parts.append(f"<details><summary>{html.escape(tname)}: {len(trows)} rows "
                     f"(to_frame(table={html.escape(repr(tname))}))</summary><table><thead><tr>{head}</tr></thead>"
                     f"<tbody>{body}</tbody></table>{more}</details>")
    parts.append("</div>")
    return "".join(parts)
