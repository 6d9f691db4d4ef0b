"""Job records in SQLite: the schema, its migration, and the job state machine as data.

The record is the truth about a job (see :mod:`geobias.service.jobs`). Every change of state goes
through :meth:`JobRecords.transition`, which allows only the changes listed in
:data:`TRANSITIONS` and applies one atomically (``UPDATE … WHERE state IN (allowed sources)``): a
job cancelled while its process starts, or finished while the server stops, can never be moved
back by a late writer.

Examples
--------
>>> sorted(TRANSITIONS["queued"])
['cancelled', 'starting']
>>> allowed_from("done")
('running', 'starting')
"""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path
from typing import Any

from geobias.errors import GeobiasError

STATES = ("queued", "starting", "running", "done", "failed", "cancelled")
FINISHED = ("done", "failed", "cancelled")

#: The allowed changes of state: ``{from: {to, ...}}``. ``starting``/``running`` → ``queued`` is
#: recovery after the server stopped; a finished state never changes.
TRANSITIONS: dict[str, frozenset[str]] = {
    "queued": frozenset({"starting", "cancelled"}),
    "starting": frozenset({"running", "done", "failed", "cancelled", "queued"}),
    "running": frozenset({"done", "failed", "cancelled", "queued"}),
    "done": frozenset(),
    "failed": frozenset(),
    "cancelled": frozenset(),
}

SCHEMA = """
CREATE TABLE IF NOT EXISTS jobs (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    params TEXT NOT NULL,
    argv TEXT NOT NULL,
    state TEXT NOT NULL,
    created REAL NOT NULL,
    started REAL,
    finished REAL,
    pid INTEGER,
    result TEXT,
    error TEXT,
    tries INTEGER NOT NULL DEFAULT 0,
    interruptions TEXT NOT NULL DEFAULT '[]'
)
"""
#: Columns added since the first schema (a database from an earlier version gains them).
ADDED_COLUMNS = {"tries": "INTEGER NOT NULL DEFAULT 0", "interruptions": "TEXT NOT NULL DEFAULT '[]'",
                 "client": "TEXT NOT NULL DEFAULT '-'"}
#: Columns a transition may set besides ``state`` (values are SQL parameters; JSON columns given
#: as Python objects are dumped).
_SETTABLE = {"started", "finished", "pid", "result", "error", "interruptions"}
_JSON = {"result", "error", "interruptions"}


class JobNotFound(GeobiasError):
    """No job has this id (HTTP 404)."""


def allowed_from(state: str) -> tuple[str, ...]:
    """The states a job may be in to move to ``state`` (sorted)."""
    return tuple(sorted(s for s, targets in TRANSITIONS.items() if state in targets))


class JobRecords:
    """The jobs table of one data directory (thread-safe; WAL, synchronous writes)."""

    def __init__(self, path: Path):
        self.path = path
        self._lock = threading.Lock()
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute(SCHEMA)
        have = {row[1] for row in self._db.execute("PRAGMA table_info(jobs)")}
        for column, decl in ADDED_COLUMNS.items():
            if column not in have:
                self._db.execute(f"ALTER TABLE jobs ADD COLUMN {column} {decl}")

    def _rows(self, sql: str, args: tuple = ()) -> list[dict[str, Any]]:
        with self._lock:
            cur = self._db.execute(sql, args)
            cols = [c[0] for c in cur.description]
            return [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]

    def insert(self, job_id: str, kind: str, command: str, params: dict[str, Any], created: float) -> None:
        """A new ``queued`` record (``argv`` keeps the command's name: the column predates the command layer)."""
        with self._lock:
            self._db.execute("INSERT INTO jobs (id, kind, params, argv, state, created) VALUES (?, ?, ?, ?, 'queued', ?)",
                             (job_id, kind, json.dumps(params, ensure_ascii=False), json.dumps([command]), created))

    def insert_done(self, job_id: str, kind: str, command: str, params: dict[str, Any], client: str, *,
                    started: float, finished: float, result: dict[str, Any]) -> None:
        """A record born ``done``: an analysis the web app ran on the quick path (one insert: it
        never queued, so no change of state is involved), with the same columns a finished job has."""
        with self._lock:
            self._db.execute(
                "INSERT INTO jobs (id, kind, params, argv, state, created, started, finished, result, tries, client) "
                "VALUES (?, ?, ?, ?, 'done', ?, ?, ?, ?, 1, ?)",
                (job_id, kind, json.dumps(params, ensure_ascii=False), json.dumps([command]), started, started,
                 finished, json.dumps(result, ensure_ascii=False), client))

    def admit(self, job_id: str, kind: str, command: str, params: dict[str, Any], created: float, client: str,
              *, max_queue: int, share: int) -> tuple[int, int] | None:
        """Insert a ``queued`` record for ``client`` if the queue has room: fewer than ``max_queue``
        jobs queued in all and fewer than ``share`` of them this client's. The counts and the
        insert are one ``BEGIN IMMEDIATE`` transaction, so concurrent submissions (threads of this
        server, or another process on the same database) can never overfill the queue.

        Returns
        -------
        None when the job was recorded, else ``(queued in all, queued for this client)``.
        """
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                total, mine = self._db.execute(
                    "SELECT COUNT(*), COALESCE(SUM(client = ?), 0) FROM jobs WHERE state = 'queued'", (client,)
                ).fetchone()
                if total >= max_queue or mine >= share:
                    self._db.execute("ROLLBACK")
                    return total, mine
                self._db.execute(
                    "INSERT INTO jobs (id, kind, params, argv, state, created, client) VALUES (?, ?, ?, ?, 'queued', ?, ?)",
                    (job_id, kind, json.dumps(params, ensure_ascii=False), json.dumps([command]), created, client))
                self._db.execute("COMMIT")
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise
        return None

    def work_of(self, client: str) -> int:
        """Jobs of ``client`` queued, starting or running."""
        return self._rows("SELECT COUNT(*) AS n FROM jobs WHERE client = ? AND state IN ('queued', 'starting', 'running')",
                          (client,))[0]["n"]

    def mean_seconds(self, last: int = 20) -> float | None:
        """Mean run time (``finished - started``) of the last ``last`` jobs that finished ``done``."""
        rows = self._rows("SELECT finished - started AS s FROM jobs WHERE state = 'done' AND started IS NOT NULL "
                          "ORDER BY finished DESC LIMIT ?", (last,))
        return sum(r["s"] for r in rows) / len(rows) if rows else None

    def row(self, job_id: str) -> dict[str, Any]:
        """The record of ``job_id``; :class:`JobNotFound` when there is none."""
        rows = self._rows("SELECT * FROM jobs WHERE id = ?", (job_id,))
        if not rows:
            raise JobNotFound(f"no job {job_id!r}")
        return rows[0]

    def state(self, job_id: str) -> str | None:
        rows = self._rows("SELECT state FROM jobs WHERE id = ?", (job_id,))
        return rows[0]["state"] if rows else None

    def latest(self, limit: int) -> list[dict[str, Any]]:
        return self._rows("SELECT * FROM jobs ORDER BY created DESC LIMIT ?", (limit,))

    def in_state(self, *states: str) -> list[dict[str, Any]]:
        marks = ", ".join("?" for _ in states)
        return self._rows(f"SELECT * FROM jobs WHERE state IN ({marks}) ORDER BY created", states)

    def count(self, state: str) -> int:
        return self._rows("SELECT COUNT(*) AS n FROM jobs WHERE state = ?", (state,))[0]["n"]

    def transition(self, job_id: str, to: str, *, add_try: bool = False, **fields: Any) -> bool:
        """Move ``job_id`` to state ``to`` if :data:`TRANSITIONS` allows it from its current state,
        setting ``fields`` in the same statement; returns whether it moved.

        Raises
        ------
        ValueError
            An unknown state or a field a transition may not set (a bug, not input).
        """
        if to not in TRANSITIONS:
            raise ValueError(f"unknown job state {to!r}")
        unknown = set(fields) - _SETTABLE
        if unknown:
            raise ValueError(f"a transition cannot set {sorted(unknown)}")
        sources = allowed_from(to)
        sets = ["state = ?"] + [f"{k} = ?" for k in fields] + (["tries = tries + 1"] if add_try else [])
        values = [to] + [json.dumps(v, ensure_ascii=False) if k in _JSON and v is not None and not isinstance(v, str)
                         else v for k, v in fields.items()]
        marks = ", ".join("?" for _ in sources)
        with self._lock:
            cur = self._db.execute(f"UPDATE jobs SET {', '.join(sets)} WHERE id = ? AND state IN ({marks})",
                                   (*values, job_id, *sources))
        return bool(cur.rowcount)

    def set_pid(self, job_id: str, pid: int) -> None:
        """Record a job's process (no change of state)."""
        with self._lock:
            self._db.execute("UPDATE jobs SET pid = ? WHERE id = ?", (pid, job_id))


__all__ = ["FINISHED", "STATES", "TRANSITIONS", "JobNotFound", "JobRecords", "allowed_from"]
