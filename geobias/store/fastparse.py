"""Fast path for word2vec / fastText text files: polars' multi-threaded CSV parser, block by block.

:func:`read_text_fast` parses a well-formed file at the speed of polars' own reader and returns
``None`` as soon as anything is off (or polars is not installed, or the encoding is not UTF-8);
:func:`geobias.store.formats.read_vectors` then re-reads the file with its careful line-by-line
parser, whose error messages (1-based line numbers, wrong dimension, non-numeric value, NaN/inf,
duplicate word, header count, empty line) therefore come out unchanged. A malformed file costs
one aborted fast attempt on top of the careful parse; a well-formed one is parsed once.

What the fast path checks on every block, so that it accepts exactly the files the careful
parser accepts (anything else falls back):

- every line has exactly ``1 + dim`` single-space-separated fields (plus one empty field when the
  first data line ends with a space, as fastText writes) — ragged or doubled separators fail;
- polars returned one row per line (no blank line skipped) and no field is missing or empty;
- every value parsed as a float and every row is finite;
- the row count agrees with the header (neither more nor fewer rows), no word repeats;
- no block but the file's first starts with a UTF-8 byte-order mark (polars drops one at the start
  of whatever it is handed; past the file's first bytes U+FEFF is a character of the word, which
  the careful parser keeps).

A byte-order mark as the file's first three bytes is skipped, as the careful parser skips it:
polars starts reading after it.

Values are parsed straight to float32 by polars (correctly rounded); the careful parser's
``numpy.fromstring`` parses to float64 and rounds again, which can differ in the last bit only for a
decimal lying within 2^-29 relative of a float32 rounding midpoint. The tests check both paths
agree bit for bit on 4-decimal (MUSE/fastText) and 9-significant-digit (our writer) files.

Memory: the output matrix is allocated once (its size is known from the header, or from one
newline-counting pass for header-less files) and filled block by block; a block is read as whole
lines (it ends at the end of the line crossing :func:`block_size` bytes, a sixteenth of the matrix),
parsed by polars, and its float32 columns, read in place, are copied once, column by column,
straight into the row-major matrix; finiteness is checked on the block's rows while they are still
in cache. A block costs about 1.7 times its size while it is parsed, so the peak is the matrix plus
about a tenth of it (plus polars' own runtime, about 30 MB once per process), never two full
copies, and the file is never memory-mapped.
``benchmarks/bench_parse.py`` measures it against polars' and pyarrow's readers.
"""

from __future__ import annotations

import re
from codecs import BOM_UTF8 as BOM
from pathlib import Path

import numpy as np

from geobias._numeric import all_finite
from geobias.io.sizes import MAX_LINE_BYTES, TEXT_BYTES_PER_DIM, check_declared

#: Bytes of text handed to polars at a time (whole lines): a sixteenth of the float32 matrix,
#: between these bounds. A block's transient memory (its bytes and polars' frame of them) is about
#: 1.7 times the block, so it stays near a tenth of the matrix; larger blocks cost fewer polars
#: calls (measured on 50,000 × 300 under load: 2.5 MB blocks peak 1.29× the matrix, 3.75 MB 1.36×,
#: 7.5 MB 1.48×). ``benchmarks/bench_parse.py`` measures the default against polars.
MIN_BLOCK = 1 << 21
MAX_BLOCK = 1 << 27
#: Bytes read at a time when counting the lines of a header-less file.
COUNT_BLOCK = 1 << 24
#: Bytes compared at a time when counting a block's newlines.
COUNT_PIECE = 1 << 20
_HEADER_RE = re.compile(rb"^\s*(\d+)\s+(\d+)\s*$")
_UTF8 = {"utf-8", "utf8", "utf_8"}
#: Widest rows the fast path takes: polars builds one column per dimension, which costs far more
#: than the careful parser's one ``numpy.fromstring`` per block for very wide rows.
FAST_MAX_DIMS = 8192


def available() -> bool:
    """True when the fast parser's engine (polars) can be imported."""
    try:
        import polars  # noqa: F401
    except ImportError:
        return False
    return True


def block_size(matrix_bytes: int) -> int:
    """Bytes of text per polars call when the float32 matrix takes ``matrix_bytes`` (see
    :data:`MIN_BLOCK`).

    >>> block_size(20 << 20) == MIN_BLOCK, block_size(57 << 20) >> 10, block_size(4 << 30) == MAX_BLOCK
    (True, 3648, True)
    """
    return min(MAX_BLOCK, max(MIN_BLOCK, matrix_bytes // 16))


def _count_newlines(data: bytes) -> int:
    """Newlines in ``data``, counted by NumPy a piece at a time (a few times faster than
    ``bytes.count``, with a bounded temporary)."""
    codes = np.frombuffer(data, dtype=np.uint8)
    return sum(int(np.count_nonzero(codes[i : i + COUNT_PIECE] == 10))
               for i in range(0, len(codes), COUNT_PIECE))


def _count_lines(path: Path) -> int:
    n = 0
    last = b"\n"
    with open(path, "rb") as fh:
        while chunk := fh.read(COUNT_BLOCK):
            n += chunk.count(b"\n")
            last = chunk[-1:]
    return n + (last != b"\n")


def read_text_fast(path: Path, limit: int | None, encoding: str, header: bool | None, *,
                   block: int | None = None, max_bytes: int | None = None):
    """Parse a word2vec/fastText text file with polars; ``None`` when the careful parser must run.

    Parameters
    ----------
    path : Path
    limit : int or None
        Keep the first ``limit`` rows.
    encoding : str
        Only UTF-8 takes the fast path.
    header : bool or None
        As in :func:`geobias.store.formats.read_vectors`.
    block : int, optional
        Bytes of text per polars call; default :func:`block_size` of the file.
    max_bytes : int, optional
        Largest float32 matrix accepted (see :func:`geobias.io.sizes.check_declared`).

    Returns
    -------
    tuple (words, vectors, info) or None
        ``words`` list of str, ``vectors`` float32 ndarray of shape (n_words, dim), ``info`` as the
        careful parser returns it; ``None`` if the file is not provably well-formed.

    Raises
    ------
    VectorFormatError
        The header declares a shape the file, ``max_bytes`` or the memory available cannot hold
        (the careful parser would refuse it with the same line).
    """
    if encoding.lower() not in _UTF8:
        return None
    try:
        import polars as pl
    except ImportError:
        return None
    size = path.stat().st_size
    with open(path, "rb") as fh:
        first = fh.readline(MAX_LINE_BYTES)
        # the file's byte-order mark, if any, is skipped: the text (header or first row) starts after it
        bom = len(BOM) if first.startswith(BOM) else 0
        first = first[bom:]
        if not first.endswith(b"\n") or first.startswith(BOM):
            return None  # no newline, or a word starting with U+FEFF after the mark: the careful parser judges
        m = _HEADER_RE.match(first.rstrip())
        if header is True and not m:
            return None
        n_declared = None
        if m and header is not False:
            n_declared, dim = int(m.group(1)), int(m.group(2))
            if n_declared <= 0 or dim <= 0:
                return None
            check_declared(path, n_declared, dim, bytes_left=size - bom - len(first),
                           row_bytes=TEXT_BYTES_PER_DIM * dim, limit=limit, max_bytes=max_bytes)
            if dim > FAST_MAX_DIMS:
                return None
            start = bom + len(first)
            sample = fh.readline(MAX_LINE_BYTES)
        else:
            parts = first.split(None, FAST_MAX_DIMS + 1)
            if len(parts) > FAST_MAX_DIMS + 1:
                return None
            dim = len(parts) - 1
            start = bom
            sample = first
        if dim < 1 or not sample.endswith(b"\n"):
            return None
        trailing = sample.endswith(b" \n")
        if n_declared is not None:
            cap = n_declared if limit is None else min(n_declared, limit)
        else:
            cap = _count_lines(path)
            if limit is not None:
                cap = min(cap, limit)
            check_declared(path, cap, dim, bytes_left=size - bom, row_bytes=TEXT_BYTES_PER_DIM * dim,
                           max_bytes=max_bytes, where="line count")
        out = np.empty((cap, dim), dtype=np.float32)
        if block is None:
            block = block_size(out.nbytes)
        schema = pl.Schema({"w": pl.String, **{f"v{j}": pl.Float32 for j in range(dim)}}
                           | ({"t": pl.String} if trailing else {}))
        word_series = []
        n = 0
        pos = start
        done = False
        while not done and pos < size:
            # whole lines only: the block ends at the end of the line that crosses pos + block
            end = size
            if pos + block < size:
                fh.seek(pos + block)
                tail = fh.readline(MAX_LINE_BYTES)
                end = pos + block + len(tail)
                if not tail.endswith(b"\n") and end < size:
                    return None  # a line longer than MAX_LINE_BYTES: the careful parser refuses it
            fh.seek(pos)
            chunk = fh.read(end - pos)
            if len(chunk) != end - pos or not chunk.endswith(b"\n"):
                return None  # no final newline (or the file changed): let the careful parser judge it
            if chunk.startswith(BOM):
                return None  # a word starting with U+FEFF, which polars would drop at a block's start
            pos = end
            n_lines = _count_newlines(chunk)
            try:
                df = pl.read_csv(
                    chunk, has_header=False, separator=" ", quote_char=None, schema=schema,
                    truncate_ragged_lines=False, raise_if_empty=True,
                )
            except Exception:  # noqa: BLE001 - any parse problem: the careful parser explains it
                return None
            del chunk
            rows = df.height
            columns = df.get_columns()
            words = columns[0]
            # an empty word is a null (polars reads an empty field as null), as is a blank line's
            if rows != n_lines or words.null_count():
                return None
            if trailing and columns[dim + 1].null_count() != rows:
                return None
            if n_declared is not None and n + rows > n_declared:
                return None  # more rows than the header declares
            take = min(rows, cap - n)
            if take < rows:
                done = True
            part = out[n : n + take]
            # one copy, column by column, straight into the row-major matrix (polars' float32
            # columns are read in place)
            for j in range(dim):
                column = columns[j + 1]
                if column.null_count():
                    return None
                part[:, j] = column.to_numpy()[:take]
            # while the block is in cache; after the float32 rounding a value beyond float32's
            # range became inf
            if not all_finite(part):
                return None
            word_series.append(words[:take])
            del df, columns, words
            n += take
            if n >= cap and (limit is not None or n_declared is None):
                done = True  # without a limit, read on: rows beyond the header's count are an error
    if n == 0 or (n_declared is not None and n < cap):
        return None  # empty, or truncated file (the careful parser says how)
    if not done and n_declared is None and n != cap:
        return None
    words = pl.concat(word_series) if len(word_series) > 1 else word_series[0]
    if words.n_unique() != n:
        return None
    vectors = out[:n]
    info = {"header": n_declared is not None, "declared_shape": [n_declared, dim] if n_declared else None}
    return words.to_list(), vectors, info
