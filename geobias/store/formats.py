"""Readers and writers for vector files.

Supported formats (``format=`` names):

``"w2v-text"`` (alias ``"vec"``)
    word2vec / fastText / GloVe text: an optional header line ``n_words dim``, then one line per
    word, ``word v1 v2 ... v_dim`` separated by single spaces (a trailing space, as fastText
    writes, is allowed). The header is detected (``header=None``) or forced (``True``/``False``).
    A UTF-8 byte-order mark as the file's first bytes is skipped (:data:`BOM`); with an encoding
    other than UTF-8 such a file is refused.
``"w2v-bin"``
    word2vec binary: header line, then ``word<space>`` + ``dim`` little-endian float32 per word,
    optionally followed by ``\\n`` (the original C tool writes it, gensim 4 does not).
``"fasttext-bin"``
    Facebook fastText ``.bin`` model, read with gensim's ``load_facebook_vectors``. The store holds
    the in-vocabulary rows; ``subword_words=[...]`` appends vectors computed from character
    n-grams for extra (out-of-vocabulary) words, opt-in.
``"kv"``
    gensim ``KeyedVectors.save`` file. **Loading unpickles it and can execute arbitrary code**,
    so it is refused unless ``trust_pickle=True`` (CLI: ``--trust-pickle``).
``"npz"``
    ``numpy.savez`` archive with ``words`` (unicode array) and ``vectors`` (2-D float) members;
    read with ``allow_pickle=False``.
``"cache"``
    A geobias store directory (:func:`geobias.store.save_store`), memory-mapped.

Every malformed input raises :class:`~geobias.errors.VectorFormatError` naming the file and the
1-based line (text) or record (binary): empty file, bad or wrong header counts, truncation, rows
of the wrong dimension, non-numeric values, NaN/inf rows, duplicate words, undecodable words.
"""

from __future__ import annotations

import codecs
import os
import re
import warnings
import zipfile
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np

from geobias.choices import ReadFormat, WriteFormat
from geobias.errors import InputError, VectorFormatError
from geobias.io.atomic import atomic_write, same_path, within
from geobias.io.sizes import (
    MAX_DIMS,
    MAX_LINE_BYTES,
    TEXT_BYTES_PER_DIM,
    CountingReader,
    check_allocation,
    check_declared,
)
from geobias.store.cache import is_cache, load_store
from geobias.store.vector_store import VectorStore
from geobias.validation import check_choice

_FASTTEXT_MAGIC = (793712314).to_bytes(4, "little")
_HEADER_RE = re.compile(rb"^\s*(\d+)\s+(\d+)\s*$")
_SIGNED_HEADER_RE = re.compile(rb"^\s*(-?\d+)\s+(-?\d+)\s*$")
_CONTROL_RE = re.compile(rb"[\x00-\x08\x0e-\x1f]")
#: UTF-8 byte-order mark. As a text file's first three bytes it says "UTF-8" and is dropped (Excel
#: and Notepad write one); anywhere else U+FEFF is a character (zero-width no-break space) and stays
#: part of the word as given, as Unicode reads it.
BOM = codecs.BOM_UTF8
_BLOCK = 1 << 23  # text is parsed in ~8 MiB blocks of whole lines (bounded peak memory)
_PICKLE_SUFFIXES = {".kv", ".model", ".pkl", ".pickle", ".wv"}


# ----------------------------------------------------------------------------- detection
def detect_format(path: str | os.PathLike) -> str:
    """Guess the format of ``path`` from its content (and extension where content is ambiguous).

    Returns
    -------
    str
        One of ``"cache"``, ``"npz"``, ``"fasttext-bin"``, ``"kv"``, ``"w2v-bin"``, ``"w2v-text"``.

    Raises
    ------
    VectorFormatError
        The path does not exist, is an unrelated directory, or the file is empty.
    """
    p = Path(path)
    if p.is_dir():
        if is_cache(p):
            return "cache"
        raise VectorFormatError(f"{p}: a directory but not a geobias store (no meta.json/vectors.npy)")
    if not p.is_file():
        raise VectorFormatError(f"{p}: no such file")
    with open(p, "rb") as fh:
        head = fh.read(1 << 16)
    if not head:
        raise VectorFormatError(f"{p}: empty file (no vectors)")
    if head.startswith(b"PK\x03\x04"):
        return "npz"
    if head.startswith(_FASTTEXT_MAGIC):
        return "fasttext-bin"
    if head[:1] == b"\x80" and len(head) > 1 and 2 <= head[1] <= 5:
        return "kv"
    if head.startswith(BOM):
        return "w2v-text"  # a UTF-8 byte-order mark: text (no binary or pickle format starts with one)
    first, nl, rest = head.partition(b"\n")
    if _HEADER_RE.match(first) and nl:
        # Text if the first record is a printable UTF-8 line; raw float32 bytes almost never are.
        line = rest.split(b"\n", 1)[0]
        return "w2v-text" if _is_text_line(line) else "w2v-bin"
    if p.suffix.lower() in _PICKLE_SUFFIXES:
        return "kv"
    return "w2v-text"


def _is_text_line(line: bytes) -> bool:
    try:
        line.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return not _CONTROL_RE.search(line)


# ----------------------------------------------------------------------------- reading
def read_vectors(
    path: str | os.PathLike,
    format: ReadFormat = "auto",
    limit: int | None = None,
    encoding: str = "utf-8",
    header: bool | None = None,
    lang: str | None = None,
    *,
    trust_pickle: bool = False,
    subword_words: Iterable[str] | None = None,
    max_bytes: int | None = None,
) -> VectorStore:
    """Read a vector file (or cached store) into a :class:`~geobias.store.VectorStore`.

    Parameters
    ----------
    path : path-like
        File or geobias store directory.
    format : {"auto", "w2v-text", "vec", "w2v-bin", "fasttext-bin", "kv", "npz", "cache"}
        ``"auto"`` (default) detects it with :func:`detect_format`.
    limit : int, optional
        Read only the first ``limit`` vectors (file order, usually frequency order).
    encoding : str, default "utf-8"
        Encoding of the words (text and binary word2vec).
    header : bool or None, default None
        Text files only: ``None`` detects the ``n_words dim`` line, ``True`` requires it,
        ``False`` treats the first line as a vector.
    lang : str, optional
        Language code recorded on the store.
    trust_pickle : bool, default False
        Allow ``"kv"`` files, which are unpickled (arbitrary code execution if malicious).
    subword_words : iterable of str, optional
        ``"fasttext-bin"`` only: out-of-vocabulary words whose vectors are computed from
        character n-grams and appended after the in-vocabulary rows.
    max_bytes : int, optional
        Largest float32 matrix (bytes) accepted: a header declaring more, or a compressed
        ``.npz`` member inflating beyond it, is refused before it is allocated (the service
        passes its stored-size cap). Whatever the cap, a declared shape is checked against the
        file's size and the memory available first (:func:`geobias.io.sizes.check_declared`).

    Returns
    -------
    VectorStore
        float32 rows in file order; ``provenance`` holds ``path``, ``format`` and ``limit``.

    Raises
    ------
    VectorFormatError
        Malformed file (the message names the file and 1-based line or record); a header whose
        declared shape the file, ``max_bytes`` or the memory available cannot hold.
    InputError
        ``limit <= 0``; a pickle without ``trust_pickle``; an unknown ``format``.
    """
    check_choice("format", format, ReadFormat)
    if limit is not None and limit <= 0:
        raise InputError(f"--limit must be positive; got {limit}")
    p = Path(path)
    fmt = detect_format(p) if format == "auto" else format
    if fmt != "cache" and not p.is_file():
        raise VectorFormatError(f"{p}: no such file")
    if subword_words is not None and fmt != "fasttext-bin":
        raise InputError("subword vectors for out-of-vocabulary words need a fastText .bin model")
    if fmt == "cache":
        store = load_store(p, limit=limit)
        if lang is not None:
            store.lang = lang
        return store
    try:
        words, vectors, info, checked_finite = _read_any(p, fmt, limit, encoding, header, trust_pickle,
                                                         subword_words, max_bytes)
    except MemoryError:  # a backstop: every reader weighs its declared shape before allocating
        raise _fail(p, None, "not enough memory to read these vectors") from None
    prov = {"path": str(p.resolve()), "format": "w2v-text" if fmt == "vec" else fmt, "limit": limit, **info}
    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    vectors.flags.writeable = False  # hand over without VectorStore taking another copy
    try:
        return VectorStore(words, vectors, lang=lang, provenance=prov, check_finite=not checked_finite)
    except InputError as exc:
        raise VectorFormatError(f"{p}: {exc}") from None


def _read_any(p: Path, fmt: str, limit, encoding, header, trust_pickle, subword_words, max_bytes):
    checked_finite = False
    if fmt in ("w2v-text", "vec"):
        from geobias.store.fastparse import read_text_fast  # polars; None -> careful parser

        fast = read_text_fast(p, limit, encoding, header, max_bytes=max_bytes)
        words, vectors, info = fast if fast is not None else _read_text(p, limit, encoding, header, max_bytes)
        checked_finite = fast is not None  # the fast path verified every row
    elif fmt == "w2v-bin":
        words, vectors, info = _read_w2v_binary(p, limit, encoding, max_bytes)
    elif fmt == "fasttext-bin":
        _check_fasttext_header(p, max_bytes)
        words, vectors, info = _read_fasttext_bin(p, limit, encoding, subword_words)
    elif fmt == "kv":
        words, vectors, info = _read_kv(p, limit, trust_pickle)
    else:  # npz
        words, vectors, info = _read_npz(p, limit, max_bytes)
    return words, vectors, info, checked_finite


def _shown(line: bytes, n: int = 40) -> str:
    """A short, readable excerpt of a raw line for a message (never a wall of escaped bytes)."""
    text = line[:n].decode("utf-8", "replace")
    text = "".join(c if c.isprintable() else "\ufffd" for c in text)
    return repr(text + ("…" if len(line) > n else ""))


def _looks_binary(line: bytes) -> bool:
    """Control bytes, or mostly non-ASCII bytes that are not UTF-8: raw data, not a text line."""
    line = line[:4096]
    if _CONTROL_RE.search(line):
        return True
    if _is_text_line(line):
        return False
    return sum(b >= 0x80 for b in line) > 0.3 * max(len(line), 1)


def _fail(path: Path, line: int | None, message: str) -> VectorFormatError:
    where = f"{path}, line {line}" if line is not None else str(path)
    return VectorFormatError(f"{where}: {message}")


def _iter_line_blocks(fh, path: Path, block: int = _BLOCK) -> Iterator[list[bytes]]:
    """Yield lists of complete lines (without ``\\n``), reading ~``block`` bytes at a time.

    A line longer than :data:`~geobias.io.sizes.MAX_LINE_BYTES` is refused as soon as that many
    bytes went by without a newline (it is never joined or split)."""
    carry = b""
    while True:
        chunk = fh.read(block)
        if not chunk:
            if carry:
                yield [carry]
            return
        chunk = carry + chunk
        cut = chunk.rfind(b"\n")
        if cut < 0:
            if len(chunk) > MAX_LINE_BYTES:
                raise _fail(path, None, f"a line longer than {MAX_LINE_BYTES:,} bytes: not a vector row")
            carry = chunk
            continue
        carry = chunk[cut + 1 :]
        if len(carry) > MAX_LINE_BYTES:
            raise _fail(path, None, f"a line longer than {MAX_LINE_BYTES:,} bytes: not a vector row")
        yield chunk[:cut].split(b"\n")


def _is_utf8(encoding: str) -> bool:
    """``encoding`` names UTF-8 (with or without ``-sig``)."""
    return encoding.lower().replace("-", "").replace("_", "") in ("utf8", "utf8sig")


def _read_text(path: Path, limit: int | None, encoding: str, header: bool | None, max_bytes: int | None = None):
    size = path.stat().st_size
    utf8 = _is_utf8(encoding)
    with open(path, "rb") as fh:
        blocks = _iter_line_blocks(fh, path)
        first_block = next(blocks, None)
        if first_block and first_block[0].startswith(BOM):
            if not utf8:
                raise _fail(path, 1, f"starts with a UTF-8 byte-order mark but the encoding given is {encoding!r}; "
                            "read it as UTF-8")
            # the file's byte-order mark is no part of its first line (header or word); size
            # counts the bytes after it
            first_block[0] = first_block[0][len(BOM) :]
            size -= len(BOM)
        # words are decoded a block at a time: "utf-8-sig" would drop a U+FEFF that starts a
        # block's first word (a character once the file's own mark is gone)
        codec = "utf-8" if utf8 else encoding
        if not first_block or not any(line.strip() for line in first_block):
            raise _fail(path, None, "empty file (no vectors)")
        if not first_block[0].strip():
            raise _fail(path, 1, "empty line at the start of the file")
        first = first_block[0].rstrip()
        if utf8 and _looks_binary(first):
            raise _fail(path, None, "binary data, not a word2vec/fastText text file (a word2vec binary "
                        "file starts with a text header 'n_words dim')")
        neg = _SIGNED_HEADER_RE.match(first)
        if neg and header is not False and (neg.group(1).startswith(b"-") or neg.group(2).startswith(b"-")):
            raise _fail(path, 1, f"header declares {int(neg.group(1))} vectors of dimension {int(neg.group(2))}")
        m = _HEADER_RE.match(first)
        if header is True and not m:
            raise _fail(path, 1, f"expected a header line 'n_words dim', found {_shown(first)}")
        n_declared: int | None = None
        if m and header is not False:
            n_declared, dim = int(m.group(1)), int(m.group(2))
            if n_declared <= 0 or dim <= 0:
                raise _fail(path, 1, f"header declares {n_declared} vectors of dimension {dim}")
            check_declared(path, n_declared, dim, bytes_left=size - len(first_block[0]) - 1,
                           row_bytes=TEXT_BYTES_PER_DIM * dim, limit=limit, max_bytes=max_bytes)
            line_no = 1
            pending = [first_block[1:]]
        else:
            parts = first.split(None, MAX_DIMS + 1)  # never more tokens than a row may have
            if len(parts) < 2:
                raise _fail(path, 1, f"expected 'word v1 v2 ...', found {_shown(first)}")
            if len(parts) > MAX_DIMS + 1:
                raise _fail(path, 1, f"more than {MAX_DIMS:,} values on the first line: wider than the "
                            "dimensions accepted")
            dim = len(parts) - 1
            line_no = 0
            pending = [first_block]
        want = limit  # without a limit, read on: lines beyond the header's count are an error
        words: list[str] = []
        index: dict[str, int] = {}
        chunks: list[np.ndarray] = []
        # With a header the final matrix is allocated once and filled block by block, so peak
        # memory is the matrix plus one block (no final concatenation copy).
        out = np.empty((min(n_declared, limit or n_declared), dim), np.float32) if n_declared else None
        blank_at: int | None = None  # first blank line seen (only allowed at the end)

        def handle(lines: list[bytes]) -> bool:
            """Parse one block of lines; return True when enough rows were read."""
            nonlocal line_no, blank_at
            wbytes: list[bytes] = []
            rests: list[bytes] = []
            row_lines: list[int] = []
            for raw in lines:
                line_no += 1
                line = raw.rstrip()
                if not line:
                    if blank_at is None:
                        blank_at = line_no
                    continue
                if blank_at is not None:
                    raise _fail(path, blank_at, "empty line inside the file")
                if n_declared is not None and len(words) + len(wbytes) >= n_declared:
                    raise _fail(
                        path, line_no,
                        f"wrong header count: header says {n_declared} vectors but the file has more",
                    )
                sp = line.find(b" ")
                if sp <= 0:
                    raise _fail(path, line_no, f"expected 'word' followed by {dim} values, found {_shown(line)}")
                rest = line[sp + 1 :]
                if rest.count(b" ") != dim - 1:
                    n = len(rest.split())
                    if n != dim:
                        raise _fail(path, line_no, f"expected {dim} values, found {n} (wrong dimension)")
                    rest = b" ".join(rest.split())
                wbytes.append(line[:sp])
                rests.append(rest)
                row_lines.append(line_no)
                if want is not None and len(words) + len(wbytes) >= want:
                    break
            if not wbytes:
                return want is not None and len(words) >= want
            try:
                decoded = b"\n".join(wbytes).decode(codec).split("\n")
            except UnicodeDecodeError:
                for w, ln in zip(wbytes, row_lines, strict=True):
                    try:
                        w.decode(codec)
                    except UnicodeDecodeError as exc:
                        raise _fail(path, ln, f"word is not valid {encoding} ({exc.reason})") from None
                raise
            except LookupError:
                raise InputError(f"unknown encoding {encoding!r}") from None
            base = len(words)
            for k, w in enumerate(decoded):
                prev = index.setdefault(w, base + k)
                if prev != base + k:
                    raise _fail(
                        path, row_lines[k],
                        f"duplicate word {w!r} (first seen as vector {prev + 1})",
                    )
            words.extend(decoded)
            if max_bytes is not None and len(words) * dim * 4 > max_bytes:
                raise _fail(path, row_lines[-1], f"more rows of {dim} values than the "
                            f"{max_bytes:,}-byte cap on a stored matrix")
            values = _parse_numbers(b" ".join(rests), len(rests) * dim)
            if values is None:
                _locate_bad_number(path, rests, row_lines, dim)
                values = _parse_numbers(b" ".join(rests), len(rests) * dim)
                assert values is not None  # _locate_bad_number raises otherwise
            mat = values.reshape(len(rests), dim)
            finite = np.isfinite(mat).all(axis=1)
            if not finite.all():
                k = int(np.flatnonzero(~finite)[0])
                raise _fail(path, row_lines[k], f"vector of {decoded[k]!r} contains NaN or inf")
            if out is not None and base + len(mat) <= len(out):
                out[base : base + len(mat)] = mat
            else:
                chunks.append(mat)
            return want is not None and len(words) >= want

        done = False
        for lines in pending:
            done = handle(lines)
        if not done:
            for lines in blocks:
                if handle(lines):
                    done = True
                    break
    if not words:
        raise _fail(path, None, "no vectors after the header" if n_declared is not None else "no vectors")
    if n_declared is not None and len(words) < n_declared and (limit is None or limit > len(words)):
        raise _fail(
            path, line_no,
            f"truncated file: the header says {n_declared} vectors but the file ends after {len(words)}",
        )
    if out is not None and not chunks:
        vectors = out[: len(words)]
    else:
        vectors = chunks[0] if len(chunks) == 1 else np.concatenate(chunks)
    if limit is not None and len(words) > limit:
        words, vectors = words[:limit], vectors[:limit]
    info = {"header": n_declared is not None, "declared_shape": [n_declared, dim] if n_declared else None}
    return words, vectors, info


def _parse_numbers(text: bytes, expected: int) -> np.ndarray | None:
    """Parse space-separated numbers with numpy's C parser; None if anything is off."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            values = np.fromstring(text, dtype=np.float32, sep=" ")  # noqa: NPY201 - text mode is supported
        except (ValueError, DeprecationWarning):
            return None
    return values if values.size == expected else None


def _locate_bad_number(path: Path, rests: list[bytes], row_lines: list[int], dim: int) -> None:
    for rest, ln in zip(rests, row_lines, strict=True):
        for tok in rest.split():
            try:
                float(tok)
            except ValueError:
                shown = tok[:30].decode("utf-8", "replace")
                raise _fail(path, ln, f"non-numeric value {shown!r}") from None
        if _parse_numbers(rest, dim) is None:
            raise _fail(path, ln, f"unparseable values (expected {dim} numbers)")


def _read_w2v_binary(path: Path, limit: int | None, encoding: str, max_bytes: int | None = None):
    size = path.stat().st_size
    with open(path, "rb") as fh:
        head = fh.readline(4096)
        if not head.strip():
            raise _fail(path, None, "empty file (no vectors)")
        neg = _SIGNED_HEADER_RE.match(head.rstrip(b"\n"))
        if neg and (neg.group(1).startswith(b"-") or neg.group(2).startswith(b"-")):
            raise _fail(path, 1, f"header declares {int(neg.group(1))} vectors of dimension {int(neg.group(2))}")
        m = _HEADER_RE.match(head.rstrip(b"\n"))
        if not m:
            raise _fail(path, 1, f"expected a word2vec header 'n_words dim', found {_shown(head.rstrip())}")
        n, dim = int(m.group(1)), int(m.group(2))
        if n <= 0 or dim <= 0:
            raise _fail(path, 1, f"header declares {n} vectors of dimension {dim}")
        # a record is at least a one-byte word, a space and dim float32 values
        check_declared(path, n, dim, bytes_left=size - len(head), row_bytes=4 * dim + 2,
                       limit=limit, max_bytes=max_bytes)
        buf = fh.read()
    count = n if limit is None else min(n, limit)
    rowbytes = 4 * dim
    out = np.empty((count, dim), dtype=np.float32)
    words: list[str] = []
    index: dict[str, int] = {}
    pos, size = 0, len(buf)
    for i in range(count):
        while pos < size and buf[pos] in (10, 13):  # newline after the previous vector
            pos += 1
        sp = buf.find(b" ", pos, pos + 4096)
        if sp < 0 or sp + 1 + rowbytes > size:
            raise _fail(
                path, None,
                f"truncated file: the header says {n} vectors but record {i + 1} is incomplete "
                f"(byte offset {len(head) + pos})",
            )
        try:
            word = buf[pos:sp].decode(encoding)
        except UnicodeDecodeError as exc:
            raise _fail(path, None, f"record {i + 1}: word is not valid {encoding} ({exc.reason})") from None
        if not word:
            raise _fail(path, None, f"record {i + 1}: empty word (byte offset {len(head) + pos})")
        prev = index.setdefault(word, i)
        if prev != i:
            raise _fail(path, None, f"record {i + 1}: duplicate word {word!r} (first seen as record {prev + 1})")
        words.append(word)
        out[i] = np.frombuffer(buf, dtype="<f4", count=dim, offset=sp + 1)
        pos = sp + 1 + rowbytes
    if count == n:
        rest = buf[pos:].strip(b"\r\n")
        if rest:
            raise _fail(
                path, None,
                f"wrong header count: the header says {n} vectors but {len(rest)} more bytes follow "
                "(is the dimension right?)",
            )
    finite = np.isfinite(out).all(axis=1)
    if not finite.all():
        k = int(np.flatnonzero(~finite)[0])
        raise _fail(path, None, f"record {k + 1}: vector of {words[k]!r} contains NaN or inf")
    return words, out, {"header": True, "declared_shape": [n, dim]}


def _read_fasttext_bin(path: Path, limit: int | None, encoding: str, subword_words):
    from gensim.models.fasttext import load_facebook_vectors

    try:
        kv = load_facebook_vectors(str(path), encoding=encoding)
    except Exception as exc:  # gensim raises struct/Value/Unicode errors on bad files
        raise _fail(path, None, f"not a readable fastText .bin model ({type(exc).__name__}: {exc})") from None
    words = list(kv.index_to_key)
    vectors = np.asarray(kv.vectors, dtype=np.float32)
    if limit is not None:
        words, vectors = words[:limit], vectors[:limit]
    extra = [w for w in dict.fromkeys(subword_words or []) if w not in set(words)]
    if extra:
        sub = np.stack([kv.get_vector(w) for w in extra]).astype(np.float32)
        words = words + extra
        vectors = np.vstack([vectors, sub])
    info = {"header": True, "declared_shape": [len(kv.index_to_key), kv.vector_size],
            "subword_words": extra}
    return words, vectors, info


def _read_kv(path: Path, limit: int | None, trust_pickle: bool):
    if not trust_pickle:
        raise InputError(
            f"{path} is a gensim KeyedVectors (pickle) file: loading it unpickles it, which can "
            "execute arbitrary code; pass --trust-pickle (trust_pickle=True) only if you trust its origin"
        )
    from gensim.models import KeyedVectors

    try:
        obj = KeyedVectors.load(str(path))
    except Exception as exc:  # unpickling failures come in many types
        raise _fail(path, None, f"not a readable gensim KeyedVectors file ({type(exc).__name__}: {exc})") from None
    kv = getattr(obj, "wv", obj)
    if not hasattr(kv, "index_to_key") or not hasattr(kv, "vectors"):
        raise _fail(path, None, f"unpickled a {type(obj).__name__}, not gensim KeyedVectors")
    words, vectors = list(kv.index_to_key), np.asarray(kv.vectors)
    if limit is not None:
        words, vectors = words[:limit], vectors[:limit]
    return words, vectors, {"header": None, "declared_shape": list(np.shape(kv.vectors))}


_NPY_HEADER_MAX = 1 << 16  # an .npy header longer than this is no array header


def _npy_header(path: Path, zf: zipfile.ZipFile, name: str):
    """Open member ``name`` and read its ``.npy`` header (at most 64 KiB of it).

    Returns ``(stream, info, shape, dtype, fortran_order, header_bytes)``; the stream is left
    at the first data byte."""
    info = zf.getinfo(name)
    raw = zf.open(info)
    head = CountingReader(raw, _NPY_HEADER_MAX, f"{path}: member {name!r}")
    version = np.lib.format.read_magic(head)
    if version == (1, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_1_0(head, max_header_size=_NPY_HEADER_MAX)
    else:
        shape, fortran, dtype = np.lib.format.read_array_header_2_0(head, max_header_size=_NPY_HEADER_MAX)
    return raw, info, tuple(int(d) for d in shape), dtype, fortran, head.count


def _read_member(path: Path, raw, info: zipfile.ZipInfo, shape, dtype, fortran: bool, header_bytes: int):
    """Read an array's data from a zip member into one allocation of its declared size, counting
    the bytes inflated: a member holding more (or fewer) bytes than its shape is refused."""
    data_bytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    if info.file_size != header_bytes + data_bytes:
        raise _fail(path, None, f"member {info.filename!r} declares {info.file_size:,} bytes but its array "
                    f"{shape} of {dtype} needs {header_bytes + data_bytes:,}")
    out = np.empty(shape[::-1] if fortran else shape, dtype=dtype)
    counted = CountingReader(raw, data_bytes, f"{path}: member {info.filename!r}")
    got = counted.readinto(out.reshape(-1).view(np.uint8)) if out.size else 0
    if got != data_bytes:
        raise _fail(path, None, f"member {info.filename!r} ends after {got:,} of its {data_bytes:,} data bytes")
    if raw.read(1):  # also makes zipfile check the member's CRC
        raise _fail(path, None, f"member {info.filename!r} inflates beyond its declared {info.file_size:,} bytes")
    return out.T if fortran else out


def _read_npz(path: Path, limit: int | None, max_bytes: int | None = None):
    """Read ``words`` and ``vectors`` from a ``numpy.savez`` archive (stored or deflated).

    Both members' ``.npy`` headers are read first and their declared shapes weighed
    (:func:`~geobias.io.sizes.check_declared`, against the member's declared size and
    ``max_bytes``) before either array is allocated; the data is then inflated into that one
    allocation, counting the bytes, so a member cannot inflate beyond its declared size."""
    try:
        with zipfile.ZipFile(path) as zf:
            members = {n[:-4] if n.endswith(".npy") else n: n for n in zf.namelist()}
            if "words" not in members or "vectors" not in members:
                raise _fail(path, None, f"an .npz vector file needs 'words' and 'vectors' arrays; found "
                            f"{sorted(members)[:10]}")
            wraw, winfo, wshape, wdtype, wfort, whead = _npy_header(path, zf, members["words"])
            vraw, vinfo, vshape, vdtype, vfort, vhead = _npy_header(path, zf, members["vectors"])
            if wdtype.hasobject or vdtype.hasobject:
                raise _fail(path, None, "'words' or 'vectors' is an object array, which needs unpickling and is "
                            "refused; save words with np.array(words, dtype=str)")
            if len(wshape) != 1 or wdtype.kind != "U":
                raise _fail(path, None, f"'words' must be a 1-D unicode array; got {wdtype} {wshape}")
            if len(vshape) != 2 or vshape[0] != wshape[0] or vdtype.kind != "f":
                raise _fail(
                    path, None,
                    f"'vectors' must be a 2-D float array with one row per word; got {vdtype} "
                    f"{vshape} for {wshape[0]} words",
                )
            n, dim = vshape
            if n == 0 or dim == 0:
                raise _fail(path, None, f"'vectors' declares shape {vshape}: no vectors")
            check_declared(path, n, dim, bytes_left=vinfo.file_size - vhead, row_bytes=dim * vdtype.itemsize,
                           max_bytes=max_bytes, where="'vectors' member")
            # the words: one fixed-width unicode cell each, as wide as the longest word
            check_allocation(path, n * wdtype.itemsize, max_bytes=max_bytes, where="'words' member")
            words_arr = _read_member(path, wraw, winfo, wshape, wdtype, wfort, whead)
            vectors = _read_member(path, vraw, vinfo, vshape, vdtype, vfort, vhead)
    except VectorFormatError:
        raise
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, KeyError, NotImplementedError, ValueError,
            SyntaxError, TypeError) as exc:
        # the zip magic without a readable archive (truncated, damaged, another kind of zip,
        # a compression method zipfile cannot read, a damaged .npy header): the file's fault
        text = str(exc).splitlines()[0][:200] if str(exc) else ""
        raise _fail(path, None, f"not a readable .npz archive ({type(exc).__name__}: {text})") from None
    words = words_arr.tolist()
    if limit is not None:
        words, vectors = words[:limit], vectors[:limit]
    return words, vectors, {"header": None, "declared_shape": [int(n), int(dim)]}


def _check_fasttext_header(path: Path, max_bytes: int | None) -> None:
    """Weigh a fastText ``.bin`` model's declared input matrix before gensim allocates it.

    The file starts with the magic and version (two int32), then the training arguments (12
    int32 and a float64: ``dim`` first, ``bucket`` ninth), then the dictionary (``size``, int32,
    first): the input matrix holds ``size + bucket`` rows of ``dim`` float32 values, all in the
    file (a quantised model, which gensim cannot read anyway, is refused by gensim)."""
    import struct

    with open(path, "rb") as fh:
        head = fh.read(8 + 12 * 4 + 8 + 4)
    if len(head) < 8 + 12 * 4 + 8 + 4:
        raise _fail(path, None, "truncated fastText .bin model (shorter than its header)")
    args = struct.unpack("<12i", head[8 : 8 + 48])
    (size,) = struct.unpack("<i", head[-4:])
    dim, bucket = args[0], args[8]
    if dim <= 0 or bucket < 0 or size <= 0:
        raise _fail(path, None, f"fastText header declares {size} words, {bucket} buckets of dimension {dim}")
    rows = size + bucket
    check_declared(path, rows, dim, bytes_left=path.stat().st_size - len(head), row_bytes=4 * dim)
    if max_bytes is not None:  # the store keeps the vocabulary's rows
        check_allocation(path, size * dim * 4, max_bytes=max_bytes, where="fastText header")


# ----------------------------------------------------------------------------- writing
def write_vectors(store: VectorStore, path: str | os.PathLike, format: WriteFormat = "w2v-text") -> Path:
    """Write ``store`` to ``path`` atomically (temporary file + ``os.replace``), rows in order.

    Parameters
    ----------
    store : VectorStore
    path : path-like
        Destination file; its directory must exist. Refused when it is the store's own
        source file, or a file inside the store directory it was read from.
    format : {"w2v-text", "vec", "w2v-bin", "kv", "npz"}, default "w2v-text"
        ``w2v-text``: header + ``word v1 ... v_dim`` with 9 significant digits (float32
        round-trips exactly); ``vec``: the same with fastText's trailing space; ``w2v-bin``:
        word2vec binary (gensim-readable); ``kv``: gensim ``KeyedVectors`` pickle; ``npz``:
        ``words`` + ``vectors`` arrays.

    Returns
    -------
    Path

    Raises
    ------
    InputError
        ``path`` is the store's source file or lies inside its source directory; a word contains whitespace (text/binary formats);
        ``path`` is a directory, or its directory is missing or not writable.
    """
    check_choice("format", format, WriteFormat)
    dest = Path(path)
    for key in ("path", "cache"):
        src = store.provenance.get(key)
        if src and same_path(src, dest):
            raise InputError(f"refusing to overwrite {dest}: it is the source of these vectors; choose another path")
        if src and within(dest, src):  # a file of the store being read (its words.txt, vectors.npy)
            raise InputError(f"refusing to write {dest}: it is inside the store {src} these vectors are read from; "
                             "choose a path outside it")
    if format in ("w2v-text", "vec", "w2v-bin"):
        # text formats split on any whitespace; word2vec binary ends a word at an ASCII space/newline
        ws = str.isspace if format != "w2v-bin" else " \t\n\r\x0b\x0c".__contains__
        bad = next((w for w in store.words if any(ws(c) for c in w)), None)
        if bad is not None:
            raise InputError(f"word {bad!r} contains whitespace and cannot be written as {format}")
    with atomic_write(dest, what="vector file") as fh:
        if format in ("w2v-text", "vec"):
            _write_text(store, fh, trailing=" " if format == "vec" else "")
        elif format == "w2v-bin":
            _write_binary(store, fh)
        elif format == "kv":
            store.to_keyedvectors().save(fh)  # a handle: one self-contained pickle
        else:
            np.savez(fh, words=np.array(store.words, dtype=str), vectors=store.vectors)
    return dest


def _write_text(store: VectorStore, fh, trailing: str) -> None:
    dim = store.dim
    fh.write(f"{len(store)} {dim}\n".encode())
    row_fmt = " ".join(["%.9g"] * dim)
    vectors = store.vectors
    words = store.words
    step = 4096
    for start in range(0, len(words), step):
        rows = vectors[start : start + step].tolist()
        lines = [f"{w} {row_fmt % tuple(r)}{trailing}\n" for w, r in zip(words[start : start + step], rows, strict=True)]
        fh.write("".join(lines).encode("utf-8"))


def _write_binary(store: VectorStore, fh) -> None:
    fh.write(f"{len(store)} {store.dim}\n".encode())
    vectors = np.ascontiguousarray(store.vectors, dtype="<f4")
    for w, row in zip(store.words, vectors, strict=True):
        fh.write(w.encode("utf-8") + b" " + row.tobytes() + b"\n")
