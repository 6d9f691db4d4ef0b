"""What a vector file declares about its size, checked before anything is allocated.

Every vector reader (word2vec/fastText text, word2vec binary, ``.npy``/``.npz``, spaCy's vector
table, fastText ``.bin``) reads a header that declares how many rows of how many dimensions
follow, and would allocate the matrix from it. A header is a claim, not a fact: 22 bytes
(``2 1000000000`` then one row) declare 8 GB. :func:`check_declared` is the one place where the
claim is weighed, right after the header is read and before the first allocation:

1. the dimension is at most :data:`MAX_DIMS` (wider than any published embedding);
2. the rows to be read fit in the bytes the file has left: a text row needs at least 2 bytes per
   dimension (a separator and a digit), a binary row exactly 4 per float32 value (plus the word
   and its separator), an ``.npy`` array exactly its ``itemsize`` per value;
3. the float32 matrix (``rows × dims × 4`` bytes) is within the caller's cap on a stored matrix
   (``max_bytes``: the service passes its stored-size cap; the library has none by default);
4. the matrix fits in the memory the system has available now.

A refusal is one :class:`~geobias.errors.VectorFormatError` line naming the file and the
declared shape. :class:`CountingReader` bounds what a compressed member (a ``.npz``'s
``vectors.npy``) may actually inflate to while it is read.
"""

from __future__ import annotations

import os
from pathlib import Path

from geobias.errors import VectorFormatError

#: Widest vector accepted (published static and contextual embeddings have at most 12,288).
MAX_DIMS = 65_536
#: Bytes a text row needs per dimension at least: one separator and one digit.
TEXT_BYTES_PER_DIM = 2
#: Bytes of one float32 value in a binary file.
FLOAT32_BYTES = 4
#: Longest text line read: :data:`MAX_DIMS` values of up to 64 characters each, and a word of up
#: to 1 MiB. A longer line is no vector row, and is refused before it is split into tokens.
MAX_LINE_BYTES = 64 * MAX_DIMS + (1 << 20)


def available_memory() -> int | None:
    """Bytes of memory the system can hand out now (``MemAvailable``), or None if unknown."""
    try:
        with open("/proc/meminfo", "rb") as fh:
            for line in fh:
                if line.startswith(b"MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def _human(n: float) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if n < 1024 or unit == "PiB":
            return f"{n:,.0f} {unit}" if unit == "bytes" else f"{n:,.1f} {unit}"
        n /= 1024
    raise AssertionError("unreachable")


def check_declared(
    path: str | os.PathLike,
    rows: int,
    dims: int,
    *,
    bytes_left: int,
    row_bytes: int,
    limit: int | None = None,
    max_bytes: int | None = None,
    where: str = "header",
) -> int:
    """Refuse a declared ``rows × dims`` matrix that the file or this machine cannot hold.

    Parameters
    ----------
    path : path-like
        The file, for the message.
    rows, dims : int
        What the header declares (both positive; the readers refuse 0 and negatives first).
    bytes_left : int
        Bytes of the file (or member) after the header.
    row_bytes : int
        Fewest bytes one row can take in this format: ``2 * dims`` for text,
        ``4 * dims + 2`` for word2vec binary (a word byte and a space), ``itemsize * dims`` for
        ``.npy``.
    limit : int, optional
        Rows the caller will read (a ``limit`` shorter than the file); default all of them.
    max_bytes : int, optional
        Largest float32 matrix (bytes) the caller accepts.
    where : str, default "header"
        What declared the shape, for the message (``"header"``, ``"record 'vectors.npy'"``).

    Returns
    -------
    int
        The rows that will be read: ``min(rows, limit)``.

    Raises
    ------
    VectorFormatError
        One line: the dimension is above :data:`MAX_DIMS`, the rows cannot fit in the file's
        bytes, the matrix is above ``max_bytes`` or above the memory available.

    Examples
    --------
    >>> check_declared("a.vec", 2, 3, bytes_left=20, row_bytes=6)
    2
    >>> check_declared("a.vec", 2, 1_000_000_000, bytes_left=8, row_bytes=2_000_000_000)
    Traceback (most recent call last):
    ...
    geobias.errors.VectorFormatError: a.vec: the header declares 2 × 1,000,000,000 values, wider than the 65,536 dimensions accepted
    """
    name = Path(path)
    shape = f"{rows:,} × {dims:,}"
    if dims > MAX_DIMS:
        raise VectorFormatError(f"{name}: the {where} declares {shape} values, wider than the "
                                f"{MAX_DIMS:,} dimensions accepted")
    read = rows if limit is None else min(rows, limit)
    need = read * row_bytes
    if bytes_left <= 0 < need:
        raise VectorFormatError(f"{name}: no vectors after the {where} (it declares {shape} values)")
    if need > bytes_left:
        raise VectorFormatError(f"{name}: the {where} declares {shape} values, which need at least "
                                f"{_human(need)} but the file has {_human(max(bytes_left, 0))} after it "
                                "(a wrong header or a truncated file)")
    check_allocation(path, read * dims * FLOAT32_BYTES, max_bytes=max_bytes, where=where,
                     what=f"{shape} values, a")
    return read


def check_allocation(path: str | os.PathLike, nbytes: int, *, max_bytes: int | None = None,
                     where: str = "header", what: str = "a") -> None:
    """Refuse an allocation of ``nbytes`` above ``max_bytes`` or the memory available now.

    Raises
    ------
    VectorFormatError
        One line naming ``path``, what declared the size and the limit it passes.

    Examples
    --------
    >>> check_allocation("a.npz", 10, max_bytes=8, where="'words' member")
    Traceback (most recent call last):
    ...
    geobias.errors.VectorFormatError: a.npz: the 'words' member declares a 10 bytes matrix, above the 8 bytes cap on a stored matrix
    """
    name = Path(path)
    if max_bytes is not None and nbytes > max_bytes:
        raise VectorFormatError(f"{name}: the {where} declares {what} {_human(nbytes)} matrix, "
                                f"above the {_human(max_bytes)} cap on a stored matrix")
    free = available_memory()
    if free is not None and nbytes > free:
        raise VectorFormatError(f"{name}: the {where} declares {what} {_human(nbytes)} matrix, "
                                f"more than the {_human(free)} of memory available")


class CountingReader:
    """A file-like reader that refuses to yield more than ``cap`` bytes in all.

    Wraps a stream whose length is only declared (a compressed zip member): ``read`` raises
    :class:`~geobias.errors.VectorFormatError` as soon as the bytes read so far exceed ``cap``,
    so a member that inflates beyond what its header promised costs at most ``cap`` bytes.

    Examples
    --------
    >>> import io
    >>> r = CountingReader(io.BytesIO(b"abcdef"), cap=4, name="m")
    >>> r.read(3)
    b'abc'
    >>> r.read(3)
    Traceback (most recent call last):
    ...
    geobias.errors.VectorFormatError: m: inflates beyond its declared 4 bytes
    """

    def __init__(self, raw, cap: int, name: str):
        self.raw, self.cap, self.name, self.count = raw, cap, name, 0

    def read(self, n: int = -1) -> bytes:
        want = self.cap - self.count + 1 if n is None or n < 0 else min(n, self.cap - self.count + 1)
        data = self.raw.read(max(want, 0))
        self.count += len(data)
        if self.count > self.cap:
            raise VectorFormatError(f"{self.name}: inflates beyond its declared {self.cap:,} bytes")
        return data

    def readinto(self, buf) -> int:
        """Fill ``buf`` (a writable buffer) in 8 MiB steps; return the bytes written."""
        view = memoryview(buf).cast("B")
        done = 0
        while done < len(view):
            data = self.read(min(len(view) - done, 1 << 23))
            if not data:
                break
            view[done : done + len(data)] = data
            done += len(data)
        return done


__all__ = ["FLOAT32_BYTES", "MAX_DIMS", "MAX_LINE_BYTES", "TEXT_BYTES_PER_DIM", "CountingReader", "available_memory", "check_allocation", "check_declared"]
