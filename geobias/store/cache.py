"""The fast cache format of a store: a directory holding

- ``vectors.npy``: float32, C order, memory-mapped read-only on load;
- ``words.txt``: UTF-8, one word per line, row order;
- ``meta.json``: ``{"format": "geobias-store", "version": 1, "n_words", "dim", "lang",
  "provenance", "sha256_vectors"}``.

Writes are atomic: everything goes to a temporary sibling directory that is renamed into
place, so a crash never leaves a half-written store and an existing store is never clobbered
unless ``overwrite=True``.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path

import numpy as np

from geobias.errors import InputError, VectorFormatError
from geobias.store.vector_store import VectorStore

FORMAT = "geobias-store"
VERSION = 1


def is_cache(path: str | os.PathLike) -> bool:
    """True if ``path`` is a directory in the geobias cache format."""
    p = Path(path)
    return p.is_dir() and (p / "meta.json").is_file() and (p / "vectors.npy").is_file()


def sha256_file(path: str | os.PathLike, chunk: int = 1 << 22) -> str:
    """Hex SHA-256 of a file, read in 4 MiB chunks."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(chunk):
            h.update(block)
    return h.hexdigest()


def save_store(store: VectorStore, path: str | os.PathLike, *, overwrite: bool = False) -> Path:
    """Write ``store`` to ``path`` in the cache format, atomically.

    Raises
    ------
    InputError
        ``path`` exists and ``overwrite`` is False, or a word contains a newline.
    """
    dest = Path(path)
    if dest.exists() and not overwrite:
        raise InputError(f"{dest} already exists; choose another name or remove it first")
    bad = next((w for w in store.words if "\n" in w or "\r" in w), None)
    if bad is not None:
        raise InputError(f"word {bad!r} contains a line break and cannot be cached")
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", dir=dest.parent))
    try:
        np.save(tmp / "vectors.npy", np.ascontiguousarray(store.vectors, dtype=np.float32))
        (tmp / "words.txt").write_text("\n".join(store.words) + "\n", encoding="utf-8")
        meta = {
            "format": FORMAT,
            "version": VERSION,
            "n_words": len(store),
            "dim": store.dim,
            "lang": store.lang,
            "provenance": store.provenance,
            "sha256_vectors": sha256_file(tmp / "vectors.npy"),
        }
        (tmp / "meta.json").write_text(json.dumps(meta, indent=2, ensure_ascii=False), encoding="utf-8")
        if dest.exists():
            old = dest.with_name(f".{dest.name}.old")
            shutil.rmtree(old, ignore_errors=True)
            os.replace(dest, old)
            os.replace(tmp, dest)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(tmp, dest)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return dest


def load_store(path: str | os.PathLike, *, limit: int | None = None, mmap: bool = True) -> VectorStore:
    """Load a cached store; the matrix is memory-mapped read-only (near-instant).

    Parameters
    ----------
    path : path to the cache directory
    limit : int, optional
        Keep only the first ``limit`` rows.
    mmap : bool, default True
        Memory-map ``vectors.npy`` instead of reading it into memory.

    Raises
    ------
    VectorFormatError
        Missing files, or sizes that disagree with ``meta.json``.
    """
    p = Path(path)
    if not is_cache(p):
        raise VectorFormatError(f"{p} is not a geobias store (expected meta.json and vectors.npy)")
    try:
        meta = json.loads((p / "meta.json").read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise VectorFormatError(f"{p / 'meta.json'}: invalid JSON ({exc.msg}, line {exc.lineno})") from None
    if meta.get("format") != FORMAT:
        raise VectorFormatError(f"{p / 'meta.json'}: not a {FORMAT} file")
    try:
        vectors = np.load(p / "vectors.npy", mmap_mode="r" if mmap else None, allow_pickle=False)
    except ValueError as exc:
        raise VectorFormatError(f"{p / 'vectors.npy'}: unreadable ({exc})") from None
    words = (p / "words.txt").read_text(encoding="utf-8").split("\n")
    if words and words[-1] == "":
        words.pop()
    if vectors.ndim != 2 or vectors.shape[0] != len(words) or vectors.shape != (meta["n_words"], meta["dim"]):
        raise VectorFormatError(
            f"{p}: vectors.npy has shape {vectors.shape}, words.txt {len(words)} lines, "
            f"meta.json says {meta['n_words']}×{meta['dim']}; the store is damaged, reinstall it"
        )
    if limit is not None:
        if limit <= 0:
            raise InputError(f"--limit must be positive; got {limit}")
        words, vectors = words[:limit], vectors[:limit]
    prov = dict(meta.get("provenance") or {}, cache=str(p))
    # Rows were validated when the cache was written: skip the finiteness scan (near-instant reload).
    return VectorStore(words, vectors, lang=meta.get("lang"), provenance=prov, check_finite=False)
