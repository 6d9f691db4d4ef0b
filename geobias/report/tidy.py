"""Results as data: one row per estimate, numeric columns, nothing rounded.

The display tables (the terminal's, the report pages') round and annotate; a researcher loading
results into pandas, R or a spreadsheet wants the numbers. :func:`geobias.results.tidy_rows` turns
a result (or a result envelope) into rows of plain values:

* one row per **estimate**. Most results are one estimate (MWEAT, WEAT, RND, ...): their scalar
  fields form one row. A result made of several estimates says so with a ``tidy_rows()`` method
  (one dict per estimate), or holds them as records under ``rows``/``cells``/``table`` or as a
  mapping of records (``{method: {metric: value}}``: one row per key, in a ``key`` column);
* nested scalars flatten with ``_`` (``bootstrap_ci_low``), and a two-number interval ``*_ci``
  becomes ``*_ci_low`` and ``*_ci_high``; per-word lists are the result's *item tables*
  (:func:`geobias.results.item_tables`: one row per pair, word, occupation, cell or method, with
  the run's identifying columns), written instead of the summary with ``items=True`` or ``table=NAME``;
* from an envelope, every row also carries ``command``, ``geobias_version``, ``store``, ``lang``
  and the run's ``seed``.

This module writes them: :func:`write_csv` (header first, RFC 4180, full precision) and
:func:`write_parquet` (through polars, atomically). ``Result.to_frame()`` gives a pandas
``DataFrame`` of the same rows.

Examples
--------
>>> import io
>>> buf = io.StringIO()
>>> write_csv(buf, {"statistic": 2.1, "p_value": 0.02, "p_value_ci": [0.019, 0.021], "per_word": [{"w": 1}]})
1
>>> buf.getvalue().splitlines()
['statistic,p_value,p_value_ci_low,p_value_ci_high', '2.1,0.02,0.019,0.021']
"""

from __future__ import annotations

import csv
import json
from typing import Any

from geobias.results import ID_COLUMNS, item_table, item_tables, tidy_columns, tidy_rows

__all__ = ["COLUMNS", "column_metadata", "item_tables", "tidy_rows", "write_csv", "write_parquet"]

#: What the columns of the tables mean: ``{column: (description, unit)}`` (unit ``""`` for a
#: count, a label or a dimensionless ratio). A Parquet file carries the entries of its columns
#: (:func:`column_metadata`); a column not listed here is described by the result's documentation.
COLUMNS: dict[str, tuple[str, str]] = {
    "command": ("the geobias command that produced the row", ""),
    "store": ("the vector store (named source or file) the run read", ""),
    "lang": ("ISO 639-1 language code", ""),
    "seed": ("the run's random seed (permutations, bootstrap); empty when the run draws nothing", ""),
    "geobias_version": ("the geobias version that produced the row", ""),
    "test": ("the word-set test the run measured (a built-in name)", ""),
    "query_word": ("the word whose neighbours the row lists", ""),
    "model": ("the language model or classifier the run probed", ""),
    "encoder": ("the sentence encoder the run used", ""),
    "masculine": ("masculine form of the occupation", ""),
    "feminine": ("feminine form of the occupation", ""),
    "english": ("the occupation's English word", ""),
    "s_masculine": ("association s(w_m, A, B) of the masculine form: mean similarity to A minus mean "
                    "similarity to B", "cosine similarity"),
    "s_feminine": ("association s(w_f, A, B) of the feminine form", "cosine similarity"),
    "bias": ("the pair's MWEAT term |s(w_m)| - |s(w_f)| (positive: the masculine form is the more associated)",
             "cosine similarity"),
    "word": ("the word (for RIPA, the target word or masculine/feminine pair)", ""),
    "target": ("the target set the word belongs to (X or Y)", ""),
    "s": ("association s(w, A, B): mean similarity to A minus mean similarity to B", "cosine similarity"),
    "ripa": ("RIPA: inner product of the unit word vector with the relation vector", "inner product"),
    "word_interval_low": ("lower end of the word's bootstrap interval over the defining pairs", "inner product"),
    "word_interval_high": ("upper end of the word's bootstrap interval over the defining pairs", "inner product"),
    "weat_en": ("WEAT association s(E_o, A, B) of the English occupation", "cosine similarity"),
    "mweat_signed": ("signed MWEAT term |s(w_m)| - |s(w_f)| of the occupation in lang", "cosine similarity"),
    "similarity": ("cosine similarity to the query word", "cosine similarity"),
    "method": ("the mitigation method (original: the vectors as given)", ""),
    "metric": ("the atlas metric's key", ""),
    "label": ("the metric's name as the atlas shows it", ""),
    "value": ("the metric's estimate", "the metric's own"),
    "p_value": ("p-value of the metric's test", "probability"),
    "low": ("lower end of the bootstrap interval (over the words)", "the estimate's"),
    "high": ("upper end of the bootstrap interval (over the words)", "the estimate's"),
    "standard_error": ("bootstrap standard error", "the estimate's"),
    "q_value": ("Benjamini-Hochberg q-value over the family the result corrects together (the atlas's cells; "
                "CrowS-Pairs' and StereoSet's bias types)", "probability"),
    "quantity": ("the bootstrapped quantity", ""),
    "estimate": ("the quantity on the full word sets", "the quantity's"),
    "confidence": ("the interval's confidence level", "probability"),
    "n_resamples": ("bootstrap resamples drawn", "count"),
    "two_form": ("whether the occupation has distinct masculine and feminine forms", ""),
    "x_m": ("masculine form's projection on the semantic gender direction d_s", "inner product"),
    "x_f": ("feminine form's projection on d_s", "inner product"),
    "y_m": ("masculine form's projection on the grammatical gender direction d_g", "inner product"),
    "y_f": ("feminine form's projection on d_g", "inner product"),
}


def column_metadata(columns: list[str]) -> dict[str, dict[str, str]]:
    """``{column: {"description": ..., "unit": ...}}`` of ``columns`` from :data:`COLUMNS` (empty
    strings for a column it does not list)."""
    return {c: dict(zip(("description", "unit"), COLUMNS.get(c, ("", "")), strict=True)) for c in columns}


def _rows(obj: Any, items: bool, table: str | None) -> list[dict[str, Any]]:
    """The summary rows of ``obj``, or (``items`` or a ``table`` name) one of its item tables."""
    if items or table is not None:
        return item_table(obj, table)
    return tidy_rows(obj)


def write_csv(out, obj: Any, *, items: bool = False, table: str | None = None) -> int:
    """Write :func:`~geobias.results.tidy_rows` of ``obj`` (with ``items``, its main item table; with
    ``table``, that item table: :func:`~geobias.results.item_tables`) as CSV on the text stream
    ``out`` (header first; empty cells for missing values); returns the number of rows.

    Raises
    ------
    InputError
        ``table`` is not one of the result's item tables, or it has none.
    """
    rows = _rows(obj, items, table)
    cols = tidy_columns(rows)
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(cols)
    for r in rows:
        writer.writerow(["" if r.get(c) is None else r.get(c) for c in cols])
    return len(rows)


def write_parquet(path, obj: Any, *, overwrite: bool = True, items: bool = False, table: str | None = None) -> int:
    """Write :func:`~geobias.results.tidy_rows` of ``obj`` (or, as :func:`write_csv` chooses, one of
    its item tables) as a Parquet file at ``path`` (atomically, through polars); returns the number
    of rows.

    The file's key-value metadata says what it holds: ``geobias.table`` (``"summary"`` or the
    item table's name), ``geobias.columns`` (JSON: per column its ``description`` and ``unit``,
    :func:`column_metadata`), and ``geobias.command`` / ``geobias.version`` when known. Read them
    with ``polars.read_parquet_metadata(path)`` or ``pyarrow.parquet.ParquetFile(path).metadata.metadata``.

    Raises
    ------
    InputError
        ``path`` cannot be written (see :func:`geobias.io.atomic.atomic_write`); ``table`` is not
        one of the result's item tables.
    """
    import polars as pl

    from geobias.io.atomic import atomic_write

    rows = _rows(obj, items, table)
    cols = tidy_columns(rows)
    frame = pl.DataFrame({c: [r.get(c) for r in rows] for c in cols}, strict=False)
    name = "summary" if not (items or table) else (table or next(iter(item_tables(obj))))
    metadata = {"geobias.table": name, "geobias.columns": json.dumps(column_metadata(cols), ensure_ascii=False)}
    first = rows[0] if rows else {}
    for key in ID_COLUMNS:
        if key in ("command", "geobias_version") and first.get(key) is not None:
            metadata["geobias." + ("version" if key == "geobias_version" else key)] = str(first[key])
    with atomic_write(path, what="--parquet", overwrite=overwrite) as f:
        frame.write_parquet(f, metadata=metadata)
    return len(rows)
