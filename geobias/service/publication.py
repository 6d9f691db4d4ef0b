"""Publishing the stores that jobs make: written hidden, renamed once the job's record is ``done``.

A job whose command declares a new store (``Output(kind="store")``) writes it to a hidden sibling
``.job-<id>-<name>`` in the vectors directory (hidden entries are never stores). Once its process
has exited with a result, the record is committed ``done`` and then the folder is renamed to
``<name>``; :func:`reconcile` finishes that rename after a crash between the two steps and removes
the hidden folder of any other job, so a re-queued try finds a clean slate.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path

STAGED = re.compile(r"\.job-([0-9a-f]{16})-(.+)")


def staged_path(vectors_dir: Path, job_id: str, name: str) -> Path:
    """Where job ``job_id`` writes the store it will publish as ``name``."""
    return vectors_dir / f".job-{job_id}-{name}"


def is_store(path: Path) -> bool:
    from geobias.store import is_cache

    return is_cache(path)


def remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def remove_staged(vectors_dir: Path, job_id: str) -> None:
    """Remove the job's hidden store folder and its writer's temporaries, if any."""
    if vectors_dir.is_dir():
        for entry in vectors_dir.glob(f".job-{job_id}-*"):
            remove(entry)


def reconcile(vectors_dir: Path, state_of: Callable[[str], str | None]) -> None:
    """Make the vectors directory agree with the records: a ``done`` job's staged store is
    published (the server stopped between the commit and the rename); any other staged store or
    writer's temporary is removed."""
    if not vectors_dir.is_dir():
        return
    for entry in vectors_dir.iterdir():
        m = STAGED.fullmatch(entry.name)
        if m is None:
            continue
        job_id, name = m.groups()
        dest = vectors_dir / name
        if (state_of(job_id) == "done" and not entry.name.endswith(".tmp") and is_store(entry)
                and not os.path.lexists(dest)):
            os.rename(entry, dest)
        else:
            remove(entry)


def publish(vectors_dir: Path, name: str, staged: Path, commit: Callable[[], bool], lock, *,
            field: str) -> dict | None:
    """Commit the job ``done`` (``commit()``, true when the record moved), then rename its staged
    store to ``name``; or return the error that fails it (the store missing, the name taken meanwhile).
    ``field`` is the parameter that named the store (the command's declared store output)."""
    dest = vectors_dir / name
    with lock:
        if not is_store(staged):
            return {"type": "JobError", "message": "the job ended without writing its store"}
        if os.path.lexists(dest):
            return {"type": "StoreExists", "message": f"a store named {name!r} was created while the job ran; "
                                                      f"submit it again with another {field}"}
        if commit():
            os.rename(staged, dest)  # after the commit: a crash in between is finished by recovery
        else:
            remove(staged)  # cancelled meanwhile
    return None


__all__ = ["STAGED", "is_store", "publish", "reconcile", "remove", "remove_staged", "staged_path"]
