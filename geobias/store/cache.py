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
from pathlib import Path

import numpy as np

from geobias._io import atomic_directory
from geobias.errors import InputError, VectorFormatError
from geobias.store.vector_store import VectorStore

FORMAT = "geobias-store"
#: Stores up to this many words read ``words.txt`` when opened (a damaged file is reported at
#: once); larger ones read it on first use (:meth:`VectorStore._trusted_lazy`).
EAGER_WORDS = 100_000
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

    Parameters
    ----------
    store : VectorStore
    path : path-like
        Destination directory; its parent must exist.
    overwrite : bool, default False
        Replace an existing store (moved aside, removed once the new one is in place).

    Returns
    -------
    Path

    Raises
    ------
    InputError
        ``path`` exists and ``overwrite`` is False; a word contains a line break; the parent
        directory is missing or not writable (:func:`geobias._io.atomic_directory`).
    """
    bad = next((w for w in store.words if "\n" in w or "\r" in w), None)
    if bad is not None:
        raise InputError(f"word {bad!r} contains a line break and cannot be cached")
    with atomic_directory(path, what="store", overwrite=overwrite) as tmp:
        write_store_files(store, tmp)
    return Path(path).expanduser()


def write_store_files(store: VectorStore, directory: Path) -> None:
    """Write the three files of the cache format into an existing (temporary) ``directory``.

    Callers wrap it in :func:`geobias._io.atomic_directory`; :func:`save_store` is the public way.
    """
    np.save(directory / "vectors.npy", np.ascontiguousarray(store.vectors, dtype=np.float32))
    (directory / "words.txt").write_text("\n".join(store.words) + "\n", encoding="utf-8")
    meta = {
        "format": FORMAT,
        "version": VERSION,
        "n_words": len(store),
        "dim": store.dim,
        "lang": store.lang,
        "provenance": store.provenance,
        "sha256_vectors": sha256_file(directory / "vectors.npy"),
    }
    (directory / "meta.json").write_text(json.dumps(meta, indent=2, ensure_ascii=False), encoding="utf-8")


def load_store(path: str | os.PathLike, *, limit: int | None = None, mmap: bool = True) -> VectorStore:
    """Load a cached store; the matrix is memory-mapped read-only (near-instant).

    Parameters
    ----------
    path : path to the cache directory
    limit : int, optional
        Keep only the first ``limit`` rows.
    mmap : bool, default True
        Memory-map ``vectors.npy`` instead of reading it into memory.

    Returns
    -------
    VectorStore
        float32 rows, read-only, memory-mapped by default.

    Raises
    ------
    VectorFormatError
        Missing files, or sizes that disagree with ``meta.json``.

    Notes
    -----
    The NaN/inf scan of :class:`VectorStore` is skipped (rows were checked when the store was
    written) and the checksum is not recomputed, so a reload touches no page of the matrix;
    :func:`verify_store` checks a store that may be damaged on disk.
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
    declared = (meta.get("n_words"), meta.get("dim"))
    if vectors.ndim != 2 or vectors.shape != declared:
        raise VectorFormatError(
            f"{p}: vectors.npy has shape {vectors.shape}, "
            f"meta.json says {declared[0]}×{declared[1]}; the store is damaged, reinstall it"
        )
    if limit is not None and limit <= 0:
        raise InputError(f"--limit must be positive; got {limit}")
    words_path = p / "words.txt"
    n_total = vectors.shape[0]
    if limit is not None:
        vectors = vectors[:limit]

    def load_words() -> list[str]:
        words = words_path.read_text(encoding="utf-8").split("\n")
        if words and words[-1] == "":
            words.pop()
        if len(words) != n_total:
            raise VectorFormatError(
                f"{p}: vectors.npy has shape {(n_total, declared[1])}, words.txt {len(words)} lines, "
                f"meta.json says {declared[0]}×{declared[1]}; the store is damaged, reinstall it"
            )
        return words[: len(vectors)]

    prov = dict(meta.get("provenance") or {}, cache=str(p))
    # Rows and words were validated when the cache was written: skip the finiteness scan and the
    # duplicate check, and read words.txt only when a word is first needed (a 2,000,000-word
    # store reopens in milliseconds). Damage inside vectors.npy that keeps its size is caught by
    # verify_store; a words.txt of the wrong length on first use.
    if n_total <= EAGER_WORDS:
        words = load_words()
        return VectorStore(words, vectors, lang=meta.get("lang"), provenance=prov, check_finite=False)
    return VectorStore._trusted_lazy(load_words, vectors, lang=meta.get("lang"), provenance=prov)


def verify_store(path: str | os.PathLike) -> str:
    """Check a cached store's matrix against the sha256 recorded in its ``meta.json``.

    :func:`load_store` skips both this hash and the NaN/inf scan to stay near-instant; a
    store damaged on disk without a size change (a bit flip, rows overwritten with NaN) loads
    silently. ``geobias vectors info NAME|PATH --verify`` and ``geobias vectors install`` (on
    an existing store) call this. Cost: one sequential read of ``vectors.npy`` (~0.1 s for
    20,000 × 300) plus, for stores without a recorded checksum, a finiteness scan.

    Parameters
    ----------
    path : path-like
        A geobias store directory.

    Returns
    -------
    str
        The hex sha256 of ``vectors.npy`` (equal to the recorded one).

    Raises
    ------
    VectorFormatError
        Not a store, files inconsistent (see :func:`load_store`), a sha256 mismatch, or NaN/inf
        rows in a store whose ``meta.json`` records no checksum.
    """
    p = Path(path)
    store = load_store(p)  # structure and sizes
    recorded = json.loads((p / "meta.json").read_text(encoding="utf-8")).get("sha256_vectors")
    actual = sha256_file(p / "vectors.npy")
    if recorded is None:
        if not np.isfinite(store.vectors.sum(axis=1, dtype=np.float64)).all():
            raise VectorFormatError(f"{p}: vectors.npy contains NaN or inf rows; the store is damaged, reinstall it")
    elif actual != recorded:
        raise VectorFormatError(
            f"{p}: vectors.npy has sha256 {actual[:16]}… but meta.json records {recorded[:16]}…; "
            "the store is damaged on disk, reinstall it (geobias vectors install NAME --force)"
        )
    return actual
