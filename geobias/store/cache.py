"""The fast cache format of a store: a directory holding

- ``vectors.npy``: float32, C order, memory-mapped read-only on load;
- ``words.txt``: UTF-8, one word per line, row order;
- ``meta.json``: ``{"format": "geobias-store", "version": 1, "n_words", "dim", "lang",
  "provenance", "sha256_vectors", "sample_sha256", "sha256_words", "files"}``.

``files`` records the size, modification time (ns), status-change time (ns) and inode of
``vectors.npy`` and ``words.txt`` as saved. A user can set a file's modification time back
(``touch -d``, ``os.utime``) but not its status-change time, which every write, ``utime``,
``chmod`` or replacement moves forward, nor its inode, which a replaced file changes: a file
changed in place with its modification time restored therefore no longer matches its stamp.
Opening a store stats them (two system calls: the fast path); when any differs, the
file is re-hashed (:func:`check_unchanged`): a different sha256 refuses the store with
:class:`StoreChangedError`, the same one (a ``touch``, a copy that kept the bytes) records the new
size and time in ``meta.json`` (atomically) and the store opens. A store saved before ``files``
existed is verified once, on its first open, against its recorded ``sha256_vectors``; its
``words.txt`` checksum and both stamps are recorded then (trusted on that first open). Where
``meta.json`` cannot be rewritten (a read-only folder) the check is repeated at every open.

A small store (:data:`HASH_AT_OPEN_BYTES`) is hashed in full at open even when its stamps match,
until one full hash finds it as saved with files that last changed at least :data:`SETTLE_NS`
before that hash began: ``meta.json`` then records ``verified_ns``, and later opens with the same
stamps stat only (any write since would have moved a ``ctime``). The trade-off: damage that moves
no stamp (a failing disk, a write to the raw device) is no longer looked for at every open, only
by the sampled checksum, ``geobias vectors verify`` and the service's verifier;
``GEOBIAS_HASH_EVERY_OPEN=1`` restores the hash at every open.

Loading also checks cheaply that the matrix was not damaged in place (same size, bytes
overwritten): the sha256 of the ``.npy`` header and 64 evenly spaced 4 KiB blocks
(``sample_sha256``, stores written by geobias 0.1 and later) and the finiteness of every row (of
:data:`FULL_SCAN_BYTES` or less; of a row sample above). :func:`verify_store` re-hashes the
whole file.

Writes are atomic: everything goes to a temporary sibling directory that is renamed into
place, so a crash never leaves a half-written store and an existing store is never clobbered
unless ``overwrite=True``.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from geobias._numeric import all_finite
from geobias.errors import InputError, VectorFormatError
from geobias.io.atomic import atomic_directory, atomic_write, clean_stale_temporaries
from geobias.store.vector_store import VectorStore

FORMAT = "geobias-store"
#: Stores up to this many words read ``words.txt`` when opened (a damaged file is reported at
#: once); larger ones read it on first use (:meth:`VectorStore._trusted_lazy`).
EAGER_WORDS = 100_000
VERSION = 1

#: Matrices up to this size get a full finiteness scan on load (~10 ms for 30 MB).
FULL_SCAN_BYTES = 256 << 20
_SAMPLE_BLOCKS = 64
_SAMPLE_BLOCK = 4096
_SAMPLE_ROWS = 4096
#: The files whose size and modification time ``meta.json["files"]`` records, with the meta key
#: of each one's sha256.
WATCHED = {"vectors.npy": "sha256_vectors", "words.txt": "sha256_words"}


class StoreChangedError(VectorFormatError):
    """A store's file changed on disk since the store was saved: its size or modification time
    differs from ``meta.json``'s record and its sha256 from the recorded one."""


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


def sample_checksum(path: str | os.PathLike) -> str:
    """Hex sha256 of a file's size, its first 4 KiB (the ``.npy`` header) and 64 evenly spaced
    4 KiB blocks: a cheap fingerprint (65 page reads whatever the size) that catches bytes
    overwritten in those blocks; :func:`sha256_file` covers the rest."""
    size = os.path.getsize(path)
    h = hashlib.sha256(str(size).encode())
    last = max(size - _SAMPLE_BLOCK, 0)
    offsets = sorted({0, *(last * i // (_SAMPLE_BLOCKS - 1) for i in range(_SAMPLE_BLOCKS))})
    with open(path, "rb") as fh:
        for off in offsets:
            fh.seek(off)
            h.update(fh.read(_SAMPLE_BLOCK))
    return h.hexdigest()


#: Repair advice for a damaged store whose provenance names a ``source``: functions
#: ``hint(path, source) -> str | None`` registered with :func:`register_repair_hint` by the layer
#: that knows the named sources and where they are installed (:mod:`geobias.sources.registry`
#: registers one when imported). The first non-None answer is used; else the advice is generic.
_REPAIR_HINTS: list[Callable[[Path, Any], str | None]] = []


def register_repair_hint(hint: Callable[[Path, Any], str | None]) -> None:
    """Add ``hint(path, source)`` to the repair advice of damaged stores (once per function)."""
    if hint not in _REPAIR_HINTS:
        _REPAIR_HINTS.append(hint)


def _repair_hint(p: Path, meta: dict) -> str:
    source = (meta.get("provenance") or {}).get("source")
    for hint in _REPAIR_HINTS:
        text = hint(p, source)
        if text:
            return text
    return "rebuild it from its source vectors (or delete the folder and save it again)"


#: Stores whose watched files total at most this many bytes are hashed in full at open unless a
#: settled verification of the same stamps is recorded (:func:`check_unchanged`; sha256 runs at
#: about 1 GB/s on one core: ~60 ms here); ``GEOBIAS_HASH_AT_OPEN_MB`` overrides it.
HASH_AT_OPEN_BYTES = 64 << 20

#: How long before a full verification a file's last change (its ``mtime`` and ``ctime``) must lie
#: for that verification to vouch for the file's later opens: more than a file system's timestamp
#: granularity (2 s on FAT; Linux stamps files from a clock that lags by up to a scheduler tick), so
#: that any write after the verification gives the file a newer ``ctime`` than the one recorded.
SETTLE_NS = 2_000_000_000


def hash_at_open_bytes() -> int:
    """The size up to which a store is hashed at open (:data:`HASH_AT_OPEN_BYTES`, or
    ``$GEOBIAS_HASH_AT_OPEN_MB`` mebibytes; 0 turns it off)."""
    env = os.environ.get("GEOBIAS_HASH_AT_OPEN_MB")
    if env:
        try:
            return max(0, int(float(env) * (1 << 20)))
        except ValueError:
            pass
    return HASH_AT_OPEN_BYTES


def hash_every_open() -> bool:
    """Whether ``$GEOBIAS_HASH_EVERY_OPEN`` is ``1``: a store of at most :func:`hash_at_open_bytes` is
    then hashed in full at every open, whatever its recorded verification (the opt-out of the
    shortcut, for file systems whose stamps cannot be trusted, or to look for silent damage at
    every open)."""
    return os.environ.get("GEOBIAS_HASH_EVERY_OPEN") == "1"


def settled(stamps: dict[str, dict[str, int]], at_ns: int) -> bool:
    """Whether every file of ``stamps`` last changed at least :data:`SETTLE_NS` before ``at_ns``
    (a wall-clock time in ns): a full hash started at ``at_ns`` then vouches for the files as long
    as their stamps stay the same, since any later write moves ``ctime`` past the recorded one.

    >>> settled({"vectors.npy": {"mtime_ns": 0, "ctime_ns": 10}}, at_ns=SETTLE_NS + 10)
    True
    >>> settled({"vectors.npy": {"mtime_ns": 0, "ctime_ns": 11}}, at_ns=SETTLE_NS + 10)
    False
    """
    return all(max(st["mtime_ns"], st["ctime_ns"]) <= at_ns - SETTLE_NS for st in stamps.values())


def changed_files(directory: str | os.PathLike) -> list[tuple[str, str, str | None]]:
    """Re-hash every watched file of a store in full and compare with ``meta.json``'s record.

    Returns
    -------
    list of (file name, actual sha256, recorded sha256 or None)
        The files whose sha256 differs from the recorded one (empty: the store is as saved);
        a file with nothing recorded is not listed.

    Raises
    ------
    VectorFormatError
        Not a store, or ``meta.json`` unreadable.
    """
    p = Path(directory)
    if not is_cache(p):
        raise VectorFormatError(f"{p} is not a geobias store (expected meta.json and vectors.npy)")
    try:
        meta = json.loads((p / "meta.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise VectorFormatError(f"{p / 'meta.json'}: unreadable ({exc})") from None
    out = []
    for name, key in WATCHED.items():
        expected = meta.get(key)
        if expected is None:
            continue
        try:
            actual = sha256_file(p / name)
        except OSError as exc:
            raise VectorFormatError(f"{p / name}: unreadable ({exc.strerror or exc})") from None
        if actual != expected:
            out.append((name, actual, expected))
    return out


def check_hashes(directory: str | os.PathLike) -> None:
    """:func:`changed_files`, raising for the first changed file.

    Raises
    ------
    StoreChangedError
        One line naming the store, the file and both checksums.
    """
    p = Path(directory)
    changed = changed_files(p)
    if changed:
        name, actual, expected = changed[0]
        raise StoreChangedError(
            f"store {p.name!r}: {name} changed since the store was saved (damaged on disk or overwritten: "
            f"sha256 {actual[:16]}…, recorded {expected[:16]}…); reinstall or rebuild it"
        )


def file_stamps(directory: Path) -> dict[str, dict[str, int]]:
    """``{name: {"size", "mtime_ns", "ctime_ns", "ino"}}`` of the :data:`WATCHED` files in
    ``directory`` (``os.stat``): ``ctime_ns`` and ``ino`` are what ``utime`` cannot set back."""
    out = {}
    for name in WATCHED:
        st = os.stat(directory / name)
        out[name] = {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "ctime_ns": st.st_ctime_ns, "ino": st.st_ino}
    return out


def check_unchanged(p: Path, meta: dict) -> None:
    """Refuse a store whose files changed since it was saved (see the module docstring).

    The fast path is two ``os.stat`` calls. A file whose size, modification time, status-change
    time or inode differs from ``meta["files"]`` (or a store that records none) is re-hashed and
    compared with its recorded sha256; when every checksum matches, the new stamps (and, for an
    older store, the sha256 of ``words.txt``) are written into ``meta.json`` atomically.

    A store whose watched files total at most :func:`hash_at_open_bytes` is re-hashed in full at
    open, whatever its stamps say, unless ``meta["verified_ns"]`` records a full verification of
    these very stamps that started at least :data:`SETTLE_NS` after the files last changed
    (:func:`settled`): such a verification is recorded after every full hash that finds the files
    as saved, and any write since would have moved a file's ``ctime`` past the recorded one. So
    every change made through the file system (also one with its modification time put back) is
    still refused; silent damage that moves no stamp is found by the sampled checksum where it
    lands in a sampled block, and otherwise by :func:`verify_store` (``geobias vectors verify``) and
    the service's verifier, no longer by every open. ``GEOBIAS_HASH_EVERY_OPEN=1``
    (:func:`hash_every_open`) hashes such a store at every open, as before the shortcut.

    Raises
    ------
    StoreChangedError
        One line naming the store and the file, and how to repair it.
    """
    started = time.time_ns()  # before the stat: a write after it gets a newer ctime than a settled stamp
    try:
        now = file_stamps(p)
    except OSError:
        return  # a missing file: the loader reports it
    recorded = meta.get("files") or {}
    small = sum(st["size"] for st in now.values()) <= hash_at_open_bytes()
    verified = meta.get("verified_ns")
    if recorded == now and not small:
        return
    if recorded == now and isinstance(verified, int) and settled(now, verified) and not hash_every_open():
        return  # a small store, fully verified with these stamps once they had settled
    update: dict[str, Any] = {"files": now}
    for name, key in WATCHED.items():
        if recorded.get(name) == now[name] and not small:
            continue
        actual = sha256_file(p / name)
        expected = meta.get(key)
        if expected is None:
            update[key] = actual  # nothing to compare with: recorded from now on (an older store)
        elif actual != expected:
            raise StoreChangedError(
                f"store {p.name!r} ({p}): {name} changed since the store was saved (damaged on disk or "
                f"overwritten: sha256 {actual[:16]}…, recorded {expected[:16]}…); {_repair_hint(p, meta)}"
            )
    # every file hashed in full (a small store) with stamps that had settled: the verification vouches
    # for the next opens; otherwise none is recorded (a stale one would be refused by settled() anyway)
    proof = started if small and settled(now, started) else None
    if recorded == now and (proof is None or proof == verified):
        return  # nothing new to record (a store still settling is re-hashed at its next open)
    record = {k: v for k, v in {**meta, **update}.items() if k != "verified_ns"}
    if proof is not None:
        record["verified_ns"] = proof
    try:
        if file_stamps(p) != now:
            return  # changed again while hashed: the next open checks it
        with atomic_write(p / "meta.json", mode="w", what="store metadata") as fh:
            fh.write(json.dumps(record, indent=2, ensure_ascii=False))
    except (OSError, InputError):
        pass  # a read-only store (or another writer won): checked again at the next open


def check_integrity(p: Path, meta: dict, vectors: np.ndarray) -> None:
    """Cheap on-open check of a store's matrix (see the module docstring).

    Raises
    ------
    VectorFormatError
        One line: what is wrong and how to repair it.
    """
    recorded = meta.get("sample_sha256")
    if recorded is not None and sample_checksum(p / "vectors.npy") != recorded:
        raise VectorFormatError(
            f"{p}: vectors.npy does not match its recorded checksum (damaged on disk); {_repair_hint(p, meta)}"
        )
    n = vectors.shape[0]
    if vectors.nbytes <= FULL_SCAN_BYTES or n <= _SAMPLE_ROWS:
        rows = vectors
    else:
        rows = vectors[:: max(1, n // _SAMPLE_ROWS)]
    if not all_finite(np.asarray(rows)):
        raise VectorFormatError(
            f"{p}: vectors.npy contains NaN or inf rows (damaged on disk); {_repair_hint(p, meta)}"
        )


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
        directory is missing or not writable (:func:`geobias.io.atomic.atomic_directory`).
    """
    bad = next((w for w in store.words if "\n" in w or "\r" in w), None)
    if bad is not None:
        raise InputError(f"word {bad!r} contains a line break and cannot be cached")
    with atomic_directory(path, what="store", overwrite=overwrite) as tmp:
        write_store_files(store, tmp)
    return Path(path).expanduser()


def write_store_files(store: VectorStore, directory: Path) -> None:
    """Write the three files of the cache format into an existing (temporary) ``directory``.

    Callers wrap it in :func:`geobias.io.atomic.atomic_directory`; :func:`save_store` is the public way.
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
        "sample_sha256": sample_checksum(directory / "vectors.npy"),
        "sha256_words": sha256_file(directory / "words.txt"),
        "files": file_stamps(directory),  # renames keep them: the published store's own
    }
    (directory / "meta.json").write_text(json.dumps(meta, indent=2, ensure_ascii=False), encoding="utf-8")


def load_store(
    path: str | os.PathLike, *, limit: int | None = None, mmap: bool = True, check: bool = True
) -> VectorStore:
    """Load a cached store; the matrix is memory-mapped read-only (near-instant).

    Parameters
    ----------
    path : path to the cache directory
    limit : int, optional
        Keep only the first ``limit`` rows.
    mmap : bool, default True
        Memory-map ``vectors.npy`` instead of reading it into memory.
    check : bool, default True
        Cheap damage check (:func:`check_integrity`): sampled checksum, finiteness of rows.

    Returns
    -------
    VectorStore
        float32 rows, read-only, memory-mapped by default.

    Raises
    ------
    VectorFormatError
        Missing files, sizes that disagree with ``meta.json``, or damage found by the cheap
        check (the message says how to repair); :class:`StoreChangedError` when a file's size or
        time changed and its sha256 with it (:func:`check_unchanged`).

    Notes
    -----
    The full sha256 is not recomputed (:func:`verify_store` does that); the cheap check reads
    65 pages plus, for matrices up to :data:`FULL_SCAN_BYTES`, every row once.
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

    if check:
        check_unchanged(p, meta)  # two stats; a changed file is re-hashed (StoreChangedError)
        check_integrity(p, meta, vectors)  # finiteness scan (or its sample) and sampled checksum
    clean_stale_temporaries(p)  # leftovers of a killed install/save of this store (ours, stale only)
    prov = dict(meta.get("provenance") or {}, cache=str(p))
    # Rows and words were validated when the cache was written: VectorStore skips its own
    # finiteness scan (check_integrity above did it, or its sample) and the duplicate check, and
    # words.txt is read only when a word is first needed (a 2,000,000-word store reopens in
    # milliseconds). A words.txt of the wrong length is reported on first use; verify_store
    # re-hashes the whole matrix.
    if n_total <= EAGER_WORDS:
        words = load_words()
        return VectorStore(words, vectors, lang=meta.get("lang"), provenance=prov, check_finite=False)
    return VectorStore._trusted_lazy(load_words, vectors, lang=meta.get("lang"), provenance=prov)


def verify_store(path: str | os.PathLike) -> str:
    """Check a cached store's matrix against the sha256 recorded in its ``meta.json``.

    :func:`load_store` only samples (:func:`check_integrity`); a bit flip outside the sampled
    blocks of a finite row is found only here. ``geobias vectors info NAME|PATH --verify`` and ``geobias vectors install`` (on
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
    store = load_store(p, check=False)  # structure and sizes; the full hash follows
    recorded = json.loads((p / "meta.json").read_text(encoding="utf-8")).get("sha256_vectors")
    actual = sha256_file(p / "vectors.npy")
    if recorded is None:
        if not all_finite(store.vectors):
            raise VectorFormatError(f"{p}: vectors.npy contains NaN or inf rows; the store is damaged, reinstall it")
    elif actual != recorded:
        raise VectorFormatError(
            f"{p}: vectors.npy has sha256 {actual[:16]}… but meta.json records {recorded[:16]}…; "
            "the store is damaged on disk, reinstall it (geobias vectors install NAME --force)"
        )
    check_unchanged(p, json.loads((p / "meta.json").read_text(encoding="utf-8")))  # words.txt; records the stamps
    return actual
