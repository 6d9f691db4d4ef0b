"""Results as data: one row per estimate, numeric columns, nothing rounded.

The display tables (the terminal's, the report pages') round and annotate; a researcher loading
results into pandas, R or a spreadsheet wants the numbers. :func:`geobias.results.tidy_rows` turns
a result (or a result envelope) into rows of plain values:

* one row per **estimate**. Most results are one estimate (MWEAT, WEAT, RND, ...): their scalar
  fields form one row. A result made of several estimates says so with a ``tidy_rows()`` method
  (one dict per estimate), or holds them as records under ``rows``/``cells``/``table`` or as a
  mapping of records (``{method: {metric: value}}``: one row per key, in a ``key`` column);
* nested scalars flatten with ``_`` (``bootstrap_ci_low``), and a two-number interval ``*_ci``
  becomes ``*_ci_low`` and ``*_ci_high``; per-word lists stay in the JSON envelope;
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
from typing import Any

from geobias.results import tidy_columns, tidy_rows

__all__ = ["tidy_rows", "write_csv", "write_parquet"]


def write_csv(out, obj: Any) -> int:
    """Write :func:`~geobias.results.tidy_rows` of ``obj`` as CSV on the text stream ``out``
    (header first; empty cells for missing values); returns the number of rows."""
    rows = tidy_rows(obj)
    cols = tidy_columns(rows)
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(cols)
    for r in rows:
        writer.writerow(["" if r.get(c) is None else r.get(c) for c in cols])
    return len(rows)


def write_parquet(path, obj: Any, *, overwrite: bool = True) -> int:
    """Write :func:`~geobias.results.tidy_rows` of ``obj`` as a Parquet file at ``path`` (atomically,
    through polars); returns the number of rows.

    Raises
    ------
    InputError
        ``path`` cannot be written (see :func:`geobias.io.atomic.atomic_write`).
    """
    import polars as pl

    from geobias.io.atomic import atomic_write

    rows = tidy_rows(obj)
    frame = pl.DataFrame({c: [r.get(c) for r in rows] for c in tidy_columns(rows)}, strict=False)
    with atomic_write(path, what="--parquet", overwrite=overwrite) as f:
        frame.write_parquet(f)
    return len(rows)
