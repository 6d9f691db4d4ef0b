"""Stores seen by the service: the registry's installed sources and stores saved by name under
the vectors directory. Each is opened once (memory-mapped) and shared by every request.

Content verification: a process (the server, each quick worker) hashes a store in full the
first time it opens it (:func:`geobias.store.cache.check_hashes`), and the server re-hashes every
store in the background every ``config.verify_every`` seconds (:class:`Verifier`). A store
found changed is written into one verdict file under the data directory (:class:`Verdicts`);
every process looks at that file (one ``stat``) before each use of a store, so every quick
worker closes the store at its next request: they never disagree about it. The verdict stands
until the store's files change again (a reinstall: opened anew, verified in full) or the
verifier finds the recorded checksums again.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import logging
import os
import shutil
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from geobias.errors import GeobiasError, InputError, VectorFormatError
from geobias.service.config import ServiceConfig, check_name
from geobias.service.redact import Redactor

log = logging.getLogger("geobias.service")


class Verdicts:
    """Stores found changed on disk, shared by the server and its quick workers through one JSON
    file (``{name: {"message", "stamps"}}``) written atomically under a file lock; a process
    re-reads it when its ``stat`` changes."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self._seen: tuple | None = None
        self._refused: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()

    def _stat(self):
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return None
        return (st.st_ino, st.st_mtime_ns, st.st_size)

    def current(self) -> dict[str, dict[str, Any]]:
        """The verdicts now in force (one ``stat``; the file is read only when it changed)."""
        seen = self._stat()
        if seen != self._seen:
            with self._lock:
                try:
                    data = json.loads(self.path.read_text(encoding="utf-8"))
                except (OSError, ValueError):
                    data = {}
                self._refused, self._seen = (data if isinstance(data, dict) else {}), seen
        return self._refused

    def _update(self, change) -> None:
        from geobias.io.atomic import atomic_write

        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path.with_suffix(".lock"), "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                data = json.loads(self.path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                data = {}
            if change(data) is False:
                return
            with atomic_write(self.path, mode="w", what="store verdicts") as fh:
                fh.write(json.dumps(data, indent=1))

    def refuse(self, name: str, message: str, stamps) -> None:
        """Record that store ``name`` (with these file stamps) failed its verification."""
        self._update(lambda d: d.__setitem__(name, {"message": message, "stamps": stamps, "at": time.time()}))

    def clear(self, name: str) -> None:
        """Withdraw the verdict on ``name`` (it verified again)."""
        self._update(lambda d: d.pop(name, None) is not None)


class StoreNotFound(GeobiasError):
    """No installed registry source or saved store has this name (HTTP 404)."""


class StoreExists(GeobiasError):
    """An upload names a store that already exists (HTTP 409)."""


# Upload formats the service reads. No "kv": gensim KeyedVectors files are pickles.
UPLOAD_FORMATS = ("auto", "w2v-text", "vec", "w2v-bin", "fasttext-bin", "npz")


class StoreManager:
    """Named stores under ``config.vectors_dir``, opened once and cached.

    A name is valid only if it is a plain name (:func:`check_name`) and names an installed
    registry source or a geobias store directory there; no request names a path.
    """

    def __init__(self, config: ServiceConfig):
        self.config = config
        self.verdicts = Verdicts(config.data_dir / "store-verdicts.json")
        self._open: dict[str, Any] = {}
        self._lock = threading.Lock()
        #: Held while a store name is checked and taken (an upload's save, a job's publication).
        self.publish_lock = threading.Lock()
        self._redact = Redactor(config)

    # ------------------------------------------------------------------ listing
    def _path(self, name: str) -> Path:
        from geobias.sources.registry import SOURCES
        from geobias.store import is_cache

        check_name(name)
        path = self.config.vectors_dir / name
        if not is_cache(path):
            known = [s for s in SOURCES if s == name]
            hint = (f"registry source {name!r} is not installed (run `geobias vectors install {name}`)"
                    if known else f"no store named {name!r}")
            raise StoreNotFound(f"{hint}; GET /stores lists the available stores")
        return path

    def names(self) -> list[str]:
        from geobias.store import is_cache

        base = self.config.vectors_dir
        if not base.is_dir():
            return []
        # dot-entries are the atomic writers' temporary siblings: never visible
        return sorted(p.name for p in base.iterdir() if not p.name.startswith(".") and is_cache(p))

    def describe(self, name: str) -> dict[str, Any]:
        """Name, shape, language, provenance, sha256 and whether it is a registry source."""
        from geobias.sources.registry import SOURCES

        path = self._path(name)
        try:
            meta = json.loads((path / "meta.json").read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise VectorFormatError(f"store {name!r}: unreadable meta.json ({exc})") from None
        src = SOURCES.get(name)
        prov = self._redact(dict(meta.get("provenance") or {}))  # names, never the server's paths
        return {
            "name": name,
            "shape": [meta.get("n_words"), meta.get("dim")],
            "lang": meta.get("lang") or (src.lang if src else None),
            "registry": src is not None,
            "installed": True,
            "sha256_vectors": meta.get("sha256_vectors"),
            "sha256_expected": src.sha256_vectors if src else None,
            "licence": src.licence if src else prov.get("licence"),
            "provenance": prov,
            "open": name in self._open,
        }

    def listing(self) -> list[dict[str, Any]]:
        """Every installed or saved store, then registry sources that are not installed."""
        from geobias.sources.registry import SOURCES

        rows = []
        for name in self.names():
            try:
                rows.append(self.describe(name))
            except GeobiasError:
                continue  # damaged or vanished meanwhile: not listed
        have = {r["name"] for r in rows}
        for src in SOURCES.values():
            if src.name not in have:
                rows.append({"name": src.name, "shape": list(src.shape), "lang": src.lang, "registry": True,
                             "installed": False, "sha256_vectors": None, "sha256_expected": src.sha256_vectors,
                             "licence": src.licence, "provenance": {"source": src.name, "description": src.description},
                             "open": False})
        return rows

    # ------------------------------------------------------------------ opening
    def get(self, name: str):
        """The open store ``name`` (memory-mapped; loaded on first use, then shared).

        Every use stats the verdict file and the store's files (three system calls): a store
        found changed by any process is refused (:class:`Verdicts`); when the files' size or
        time differs from what they were when it was opened, it is opened again. Opening hashes
        it in full (:func:`geobias.store.cache.check_hashes`): a changed file is refused with
        :class:`~geobias.store.StoreChangedError` (and the verdict recorded for every process),
        a touched one accepted."""
        verdict = self.verdicts.current().get(name)
        entry = self._open.get(name)
        if verdict is None and entry is not None and entry[2] is not None and entry[2] == _fingerprint(entry[3]):
            return entry[0]  # the same files as when it was opened (paths joined then)
        from geobias.sources.registry import SOURCES
        from geobias.store import load_store
        from geobias.store.cache import StoreChangedError, check_hashes

        if verdict is not None:
            if verdict.get("stamps") == _stamps(self.config.vectors_dir / name):
                self._open.pop(name, None)  # closed here too: every process refuses it alike
                raise StoreChangedError(verdict.get("message") or f"store {name!r} changed on disk")
            self._open.pop(name, None)  # its files changed since (a reinstall): opened anew, verified in full
        entry = self._open.get(name)
        if entry is not None and entry[1] == _stamps(self.config.vectors_dir / name):
            return entry[0]
        path = self._path(name)
        with self._lock:
            entry = self._open.get(name)
            stamps = _stamps(path)
            if entry is None or entry[1] != stamps:
                self._open.pop(name, None)  # changed on disk: never served again unverified
                try:
                    store = load_store(path)
                    check_hashes(path)  # in full, at this process's first open of it
                except StoreChangedError as exc:
                    self.verdicts.refuse(name, self._redact.text(str(exc)), stamps)
                    raise
                if verdict is not None:
                    self.verdicts.clear(name)
                if store.lang is None and name in SOURCES:
                    store.lang = SOURCES[name].lang
                # derived views built once here, not raced for by concurrent requests
                store.unit_vectors  # noqa: B018
                # the stamps taken before it was opened and verified, in the form of the check before each use
                entry = self._open[name] = (store, stamps, _as_fingerprint(stamps), _watched(path))
        return entry[0]

    def verify_all(self) -> list[str]:
        """Re-hash every store under the vectors directory in full (the background
        :class:`Verifier`'s round); record a verdict for each changed one and withdraw those that
        verify again. Returns the names found changed."""
        from geobias.store.cache import StoreChangedError, check_hashes

        bad = []
        for name in self.names():
            path = self.config.vectors_dir / name
            stamps = _stamps(path)
            try:
                check_hashes(path)
            except StoreChangedError as exc:
                bad.append(name)
                if self.verdicts.current().get(name, {}).get("stamps") != stamps:
                    log.warning("store %s changed on disk: refused from now on", name)
                    self.verdicts.refuse(name, self._redact.text(str(exc)), stamps)
                with self._lock:
                    self._open.pop(name, None)
            except (GeobiasError, OSError):
                continue  # vanished or unreadable meanwhile: its next open says why
            else:
                if name in self.verdicts.current():
                    self.verdicts.clear(name)
        return bad

    def default_for(self, lang: str) -> str:
        from geobias.sources.registry import default_source

        return default_source(lang)

    # ------------------------------------------------------------------ upload
    def staging_dir(self) -> Path:
        d = self.config.data_dir / "uploads"
        d.mkdir(parents=True, exist_ok=True)
        return Path(tempfile.mkdtemp(prefix=".upload-", dir=d))

    def save_upload(self, staged: Path, name: str, filename: str, *, lang: str | None,
                    fmt: str = "auto", sha256: str | None = None) -> dict[str, Any]:
        """Validate the staged file with the library's readers and save it as store ``name``
        (atomically); the staging directory is removed whatever happens.

        Raises
        ------
        InputError / VectorFormatError
            The file is malformed: the reader's message, naming ``filename`` (not the staging path).
        StoreExists
            ``name`` is taken.
        """
        from geobias.languages import get_language
        from geobias.sources import read_vectors
        from geobias.sources.registry import SOURCES
        from geobias.store import save_store
        from geobias.store.formats import detect_format

        try:
            check_name(name)
            if name in SOURCES:
                raise StoreExists(f"{name!r} is a registry source name; choose another store name")
            code = get_language(lang).code if lang is not None else None
            if fmt not in UPLOAD_FORMATS:
                raise InputError(f"format must be one of {', '.join(UPLOAD_FORMATS)}; got {fmt!r} "
                                 "(gensim KeyedVectors pickles are refused by the service)")
            dest = self.config.vectors_dir / name
            if dest.exists():
                raise StoreExists(f"a store named {name!r} already exists; choose another name")
            path = staged / "upload"
            detected = detect_format(path) if fmt == "auto" else fmt
            if detected in ("kv", "cache"):
                raise InputError(f"{filename}: looks like a gensim KeyedVectors pickle, which the service "
                                 "never loads; upload word2vec text/binary, fastText .bin or .npz")
            store = read_vectors(path, format=detected, lang=code, max_bytes=self.config.max_store_bytes)
            store.provenance = {"uploaded": filename, "format": store.provenance.get("format"),
                                "sha256_upload": sha256}
            self.config.vectors_dir.mkdir(parents=True, exist_ok=True)
            with self.publish_lock:
                if dest.exists():
                    raise StoreExists(f"a store named {name!r} already exists; choose another name")
                save_store(store, dest)
            return self.describe(name)
        except GeobiasError as exc:
            text = str(exc).replace(str((staged / "upload").resolve()), filename).replace(str(staged / "upload"), filename)
            if isinstance(exc, StoreExists) or text == str(exc):
                raise
            cls = type(exc) if type(exc) in (GeobiasError, InputError, VectorFormatError) else InputError
            raise cls(text) from None
        finally:
            shutil.rmtree(staged, ignore_errors=True)

    def cleanup_staging(self) -> None:
        """Remove upload staging left by a server that died mid-upload."""
        d = self.config.data_dir / "uploads"
        if d.is_dir():
            for p in d.iterdir():
                if p.name.startswith(".upload-"):
                    shutil.rmtree(p, ignore_errors=True)


class Verifier:
    """A daemon thread that calls ``stores.verify_all()`` every ``every`` seconds (0: never),
    beside the requests: hashing reads the files, it takes no lock a request waits on."""

    def __init__(self, stores: StoreManager, every: float):
        self.stores, self.every = stores, every
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.rounds = 0

    def start(self) -> None:
        if self.every > 0 and self._thread is None:
            self._thread = threading.Thread(target=self._loop, name="geobias-verify", daemon=True)
            self._thread.start()

    def _loop(self) -> None:
        while not self._stop.wait(self.every):
            try:
                self.stores.verify_all()
            except Exception:  # noqa: BLE001 - a failed round is logged; the next one runs
                log.exception("store verification round failed")
            self.rounds += 1

    def stop(self) -> None:
        self._stop.set()


def _watched(path: Path) -> tuple[str, ...]:
    """The paths of a store's watched files (:data:`geobias.store.cache.WATCHED`), joined once."""
    from geobias.store.cache import WATCHED

    return tuple(os.path.join(path, name) for name in WATCHED)


def _fingerprint(files: tuple[str, ...]) -> tuple | None:
    """What :func:`_stamps` records of each of ``files`` (size, modification and status-change
    times, inode), as one tuple, or None when one is missing: the check before each use of an open
    store, on paths joined when it was opened (:func:`_watched`)."""
    try:
        return tuple((st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino) for st in map(os.stat, files))
    except OSError:
        return None


def _as_fingerprint(stamps) -> tuple | None:
    """``stamps`` (:func:`_stamps`) as :func:`_fingerprint` gives them."""
    from geobias.store.cache import WATCHED

    if stamps is None:
        return None
    return tuple((stamps[n]["size"], stamps[n]["mtime_ns"], stamps[n]["ctime_ns"], stamps[n]["ino"]) for n in WATCHED)


def _stamps(path: Path):
    """The size and modification time of a store's files, or None when one is missing."""
    from geobias.store.cache import file_stamps

    try:
        return file_stamps(path)
    except OSError:
        return None


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(1 << 22):
            h.update(block)
    return h.hexdigest()
