"""Full content verification of stores: ``geobias vectors verify [NAME…]``.

Opening a store is cheap (:func:`geobias.store.cache.load_store`: two ``stat`` calls, a sampled
checksum; a small store is hashed in full). That catches a file replaced or resized, not bytes
changed in place with the modification time put back, or silent damage of a large store.
:func:`verify_stores` re-hashes every watched file (``vectors.npy``, ``words.txt``) in full and
compares each with the sha256 recorded in ``meta.json`` when the store was saved.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from geobias.results import Result
from geobias.store.cache import WATCHED, StoreChangedError, changed_files, is_cache


@dataclass(frozen=True)
class StoreCheck(Result):
    """One store's verification: its name and folder, the files re-hashed, those that changed,
    the bytes read and the seconds it took."""

    name: str
    path: str
    files: list[str]
    changed: list[str]
    bytes: int
    seconds: float


@dataclass(frozen=True)
class VerifyResult(Result):
    """Every store verified (:class:`StoreCheck`); ``ok`` when none changed."""

    stores: list[StoreCheck]
    ok: bool


def verify_stores(targets: list[str] | None, vectors_dir: str | Path) -> VerifyResult:
    """Re-hash stores in full against their recorded sha256.

    Parameters
    ----------
    targets : list of str, optional
        Store names under ``vectors_dir`` or store folders; default every store there.
    vectors_dir : path
        Where named stores live (``geobias vectors verify`` passes the library's vectors directory).

    Returns
    -------
    VerifyResult

    Raises
    ------
    StoreChangedError
        A file's sha256 differs from the recorded one: one line naming each store and file
        (after every store was checked).
    InputError
        A name that is no store.

    Examples
    --------
    >>> verify_stores(["fr-spacy-md"], "vectors").ok  # doctest: +SKIP
    True
    """
    from geobias.errors import InputError

    base = Path(vectors_dir)
    if not targets:
        paths = sorted(p for p in base.iterdir() if not p.name.startswith(".") and is_cache(p)) if base.is_dir() else []
    else:
        paths = []
        for t in targets:
            p = Path(t).expanduser()
            if not is_cache(p):
                p = base / t
            if not is_cache(p):
                raise InputError(f"no store {t!r} (neither a store folder nor a store under {base})")
            paths.append(p)
    checks, problems = [], []
    for p in paths:
        start = time.perf_counter()
        changed = changed_files(p)
        size = sum((p / f).stat().st_size for f in WATCHED if (p / f).exists())
        checks.append(StoreCheck(name=p.name, path=str(p), files=list(WATCHED), changed=[c[0] for c in changed],
                                 bytes=size, seconds=time.perf_counter() - start))
        problems += [f"store {p.name!r}: {f} changed (sha256 {a[:16]}…, recorded {e[:16]}…)" for f, a, e in changed]
    if problems:
        raise StoreChangedError("; ".join(problems) + "; reinstall or rebuild the store")
    return VerifyResult(stores=checks, ok=True)


__all__ = ["StoreCheck", "VerifyResult", "verify_stores"]
