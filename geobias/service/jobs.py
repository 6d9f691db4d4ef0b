"""Background jobs: the record (SQLite) first, then a worker process running the command's ``run``.

States: ``queued`` → ``starting`` (its process is being started) → ``running`` → ``done`` |
``failed`` | ``cancelled``. The database under the
data directory is the truth: a restart keeps every finished result, queues again a job that was
running (jobs are deterministic and write only into their own folder, which is emptied first),
at most ``config.max_tries`` starts in all, each interruption kept in the job's record, and
queues again the jobs that never started. A job's processes die with the server
(``PR_SET_PDEATHSIG`` and a reaper that kills the job's process group), so nothing writes after a
crash.

A job's outputs become visible only with its record. Artefacts live in the job's folder and are
listed only once the job is ``done``. A job whose command declares a new store (an ``Output`` of
kind ``"store"``) writes it to a hidden sibling ``.job-<id>-<name>`` in the vectors directory (hidden entries are
never stores); once the process has exited with a result, the record is committed ``done`` and
then the folder is renamed to ``<name>``. Recovery finishes that rename for a ``done`` job (the
server died between the two steps) and removes the hidden folder of any other job, so a
re-queued try finds a clean slate.
"""

from __future__ import annotations

import json
import os
import queue
import re
import shutil
import signal
import sqlite3
import threading
import time
import uuid
from pathlib import Path
from typing import Any

from geobias.commands import get
from geobias.errors import GeobiasError
from geobias.service.commands import prepare_job
from geobias.service.config import ServiceConfig

STATES = ("queued", "starting", "running", "done", "failed", "cancelled")
FINISHED = ("done", "failed", "cancelled")

_SCHEMA = """
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
_ADDED_COLUMNS = {"tries": "INTEGER NOT NULL DEFAULT 0", "interruptions": "TEXT NOT NULL DEFAULT '[]'"}
_INTERRUPTED = "the server stopped while this job was running"
_STAGED = re.compile(r"\.job-([0-9a-f]{16})-(.+)")


class JobNotFound(GeobiasError):
    """No job has this id (HTTP 404)."""


class QueueFull(GeobiasError):
    """Too many queued jobs (HTTP 429)."""


class JobConflict(GeobiasError):
    """The job is not in a state that allows the request (HTTP 409)."""


def _start_forkserver() -> None:
    """Start the fork server now, from the calling thread (the service's main thread: the fork
    server's parent-death signal fires when the thread that started it ends), rather than at the
    first job. It imports the heavy modules once, in the background."""
    from multiprocessing import forkserver

    from geobias.service._forkserver_guard import ENV
    from geobias.service.worker import context

    context()
    os.environ[ENV] = str(os.getpid())  # read (and removed) by the fork server, see _forkserver_guard
    try:
        forkserver.ensure_running()
    except Exception:  # noqa: BLE001 - the first job starts it (and reports any failure)
        pass


class JobManager:
    """Queue, runner threads and SQLite records of a service's jobs."""

    def __init__(self, config: ServiceConfig, stores):
        self.config = config
        self.stores = stores
        self.root = config.data_dir / "jobs"
        self.root.mkdir(parents=True, exist_ok=True)
        self.db_path = config.data_dir / "jobs.sqlite3"
        self._db_lock = threading.Lock()
        self._db = sqlite3.connect(self.db_path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute(_SCHEMA)
        have = {row[1] for row in self._db.execute("PRAGMA table_info(jobs)")}
        for column, decl in _ADDED_COLUMNS.items():
            if column not in have:
                self._db.execute(f"ALTER TABLE jobs ADD COLUMN {column} {decl}")
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._procs: dict[str, Any] = {}
        self._start_lock = threading.Lock()
        self._threads: list[threading.Thread] = []
        self._stopping = False
        from geobias.service.redact import Redactor

        self.redact = Redactor(config)

    # ------------------------------------------------------------------ db helpers
    def _exec(self, sql: str, args: tuple = ()) -> sqlite3.Cursor:
        with self._db_lock:
            return self._db.execute(sql, args)

    def _row(self, job_id: str) -> dict[str, Any]:
        with self._db_lock:
            cur = self._db.execute("SELECT * FROM jobs WHERE id = ?", (job_id,))
            row = cur.fetchone()
            cols = [c[0] for c in cur.description]
        if row is None:
            raise JobNotFound(f"no job {job_id!r}")
        return dict(zip(cols, row, strict=True))

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> None:
        """Recover from a previous run, then start ``config.workers`` runner threads."""
        self._recover(time.time())
        self._reconcile_stores()
        with self._db_lock:
            queued = [r[0] for r in self._db.execute("SELECT id FROM jobs WHERE state = 'queued' ORDER BY created")]
        for job_id in queued:
            self._clear_outputs(job_id)
            self._queue.put(job_id)
        _start_forkserver()
        for i in range(self.config.workers):
            t = threading.Thread(target=self._worker, name=f"geobias-job-{i}", daemon=True)
            t.start()
            self._threads.append(t)

    def _recover(self, now: float) -> None:
        """Jobs the server was running when it stopped: queued again while they have tries left
        (the interruption recorded), else failed with the reason."""
        with self._db_lock:
            rows = self._db.execute("SELECT id, tries, interruptions FROM jobs WHERE state IN ('starting', 'running')").fetchall()
        for job_id, tries, interruptions in rows:
            history = [*json.loads(interruptions or "[]"), {"at": now, "reason": _INTERRUPTED}]
            if tries < self.config.max_tries:
                self._exec("UPDATE jobs SET state = 'queued', started = NULL, pid = NULL, interruptions = ? "
                           "WHERE id = ? AND state IN ('starting', 'running')", (json.dumps(history), job_id))
            else:
                error = {"type": "Interrupted", "message": f"{_INTERRUPTED}, {tries} time(s) out of "
                                                           f"{self.config.max_tries}; submit it again"}
                self._exec("UPDATE jobs SET state = 'failed', finished = ?, error = ?, interruptions = ? "
                           "WHERE id = ? AND state IN ('starting', 'running')", (now, json.dumps(error), json.dumps(history), job_id))
                self._clear_outputs(job_id)

    def _reconcile_stores(self) -> None:
        """Make the vectors directory agree with the records: a ``done`` job's staged store is
        published (the server stopped between the commit and the rename); any other staged
        store or writer's temporary is removed."""
        base = self.config.vectors_dir
        if not base.is_dir():
            return
        for entry in base.iterdir():
            m = _STAGED.fullmatch(entry.name)
            if m is None:
                continue
            job_id, name = m.groups()
            state = self._state(job_id)
            dest = base / name
            if (state == "done" and not entry.name.endswith(".tmp") and _is_store(entry)
                    and not os.path.lexists(dest)):
                os.rename(entry, dest)
            else:
                _remove(entry)

    def _state(self, job_id: str) -> str | None:
        with self._db_lock:
            row = self._db.execute("SELECT state FROM jobs WHERE id = ?", (job_id,)).fetchone()
        return None if row is None else row[0]

    def _remove_staged(self, job_id: str) -> None:
        """Remove the job's hidden store folder and its writer's temporaries, if any."""
        base = self.config.vectors_dir
        if base.is_dir():
            for entry in base.glob(f".job-{job_id}-*"):
                _remove(entry)

    def _clear_outputs(self, job_id: str) -> None:
        """Empty what an earlier, interrupted start of the job may have written."""
        self._remove_staged(job_id)
        folder = self.root / job_id
        shutil.rmtree(folder / "artifacts", ignore_errors=True)
        for name in ("result.json", "error.json", "progress.json", "stdout.txt", "stderr.txt"):
            (folder / name).unlink(missing_ok=True)
        for leftover in folder.glob(".*.tmp"):
            leftover.unlink(missing_ok=True)

    def stop(self) -> None:
        self._stopping = True
        for proc in list(self._procs.values()):
            self._kill(proc)
        for _ in self._threads:
            self._queue.put(None)

    # ------------------------------------------------------------------ API
    def submit(self, kind: str, params: dict[str, Any]) -> dict[str, Any]:
        """Validate and record a job, then queue it.

        Raises
        ------
        ParameterError
            Unknown, ill-typed or out-of-range parameters (HTTP 422).
        GeobiasError
            Invalid values (HTTP 4xx); nothing is recorded.
        QueueFull
            ``config.max_queue`` jobs are already waiting.
        """
        with self._db_lock:
            waiting = self._db.execute("SELECT COUNT(*) FROM jobs WHERE state = 'queued'").fetchone()[0]
        if waiting >= self.config.max_queue:
            raise QueueFull(f"{waiting} jobs are already queued (the limit is {self.config.max_queue}); retry later")
        job_id = uuid.uuid4().hex[:16]
        job_dir = self.root / job_id
        job_dir.mkdir(parents=True)
        try:
            cmd, prepared = prepare_job(self.config, self.stores, kind, params, job_dir)
        except BaseException:
            shutil.rmtree(job_dir, ignore_errors=True)
            raise
        # ``argv`` keeps the command's name (the column predates the command layer)
        self._exec(
            "INSERT INTO jobs (id, kind, params, argv, state, created) VALUES (?, ?, ?, ?, 'queued', ?)",
            (job_id, cmd.kind, json.dumps(prepared, ensure_ascii=False), json.dumps([cmd.name]), time.time()),
        )
        self._queue.put(job_id)
        return self.get(job_id)

    def get(self, job_id: str) -> dict[str, Any]:
        row = self._row(job_id)
        return self._public(row)

    def list(self, limit: int = 50) -> list[dict[str, Any]]:
        with self._db_lock:
            cur = self._db.execute("SELECT * FROM jobs ORDER BY created DESC LIMIT ?", (limit,))
            cols = [c[0] for c in cur.description]
            rows = [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]
        return [self._public(r, with_result=False) for r in rows]

    def cancel(self, job_id: str) -> dict[str, Any]:
        row = self._row(job_id)
        if row["state"] in FINISHED:
            raise JobConflict(f"job {job_id} is already {row['state']}")
        now = time.time()
        msg = json.dumps({"type": "Cancelled", "message": "cancelled by a DELETE request"})
        cur = self._exec("UPDATE jobs SET state = 'cancelled', finished = ?, error = ? WHERE id = ? AND state IN ('queued', 'starting', 'running')",
                         (now, msg, job_id))
        if cur.rowcount:
            proc = self._procs.get(job_id)
            if proc is not None:
                self._kill(proc)
        return self.get(job_id)

    def job_dir(self, job_id: str) -> Path:
        self._row(job_id)
        return self.root / job_id

    def artifacts(self, job_id: str) -> list[str]:
        """Names of the files a finished job wrote (none unless it is ``done``)."""
        row = self._row(job_id)
        if row["state"] != "done":
            return []
        d = self.root / job_id / "artifacts"
        if not d.is_dir():
            return []
        return sorted(p.name for p in d.iterdir() if p.is_file() and not p.name.startswith("."))

    # ------------------------------------------------------------------ views
    def _public(self, row: dict[str, Any], with_result: bool = True) -> dict[str, Any]:
        now = time.time()
        start, end = row["started"], row["finished"]
        elapsed = None if start is None else round((end or now) - start, 3)
        progress: dict[str, Any] = {"fraction": 1.0 if row["state"] == "done" else (0.0 if row["state"] in ("queued", "starting") else None),
                                    "elapsed_s": elapsed}
        if row["state"] == "running":
            latest = self._progress(row["id"])
            progress["last_message"] = self.redact(latest.get("message"), row["id"])
            if latest.get("fraction") is not None:
                progress["fraction"] = latest["fraction"]
        out = {
            "id": row["id"], "kind": row["kind"], "command": json.loads(row["argv"])[0], "state": row["state"],
            "created": row["created"], "started": start, "finished": end, "progress": progress,
            "params": self.redact(json.loads(row["params"]), row["id"]),
            "error": self.redact(json.loads(row["error"]), row["id"]) if row["error"] else None,
            "tries": row.get("tries", 0),
            "interruptions": json.loads(row.get("interruptions") or "[]"),
        }
        if with_result:
            out["result"] = self.redact(json.loads(row["result"]), row["id"]) if row["result"] else None
            out["artifacts"] = self.artifacts(row["id"]) if row["state"] == "done" else []
        return out

    def _progress(self, job_id: str) -> dict[str, Any]:
        try:
            return json.loads((self.root / job_id / "progress.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}

    # ------------------------------------------------------------------ running
    def _kill(self, proc) -> None:
        """SIGTERM the job's process group, SIGKILL it after 5 s."""
        for sig, wait in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 5.0)):
            try:
                os.killpg(proc.pid, sig)
            except (ProcessLookupError, PermissionError):
                try:
                    os.kill(proc.pid, sig)  # not yet its own session leader
                except (ProcessLookupError, PermissionError):
                    return
            proc.join(wait)
            if proc.exitcode is not None:
                return

    def _worker(self) -> None:
        while True:
            job_id = self._queue.get()
            if job_id is None or self._stopping:
                return
            try:
                self._run(job_id)
            except Exception as exc:  # noqa: BLE001 - a runner bug must not kill the runner thread
                self._exec("UPDATE jobs SET state = 'failed', finished = ?, error = ? WHERE id = ? AND state IN ('starting', 'running')",
                           (time.time(), json.dumps({"type": "InternalError", "message": f"{type(exc).__name__}: {exc}"}), job_id))

    def _run(self, job_id: str) -> None:
        row = self._row(job_id)
        if row["state"] != "queued":
            return
        job_dir = self.root / job_id
        cwd = job_dir / "cwd"  # empty: a store name can never resolve to a file of the job
        cwd.mkdir(parents=True, exist_ok=True)
        (job_dir / "artifacts").mkdir(exist_ok=True)
        params = json.loads(row["params"])
        staged = None
        publishes = get(row["kind"]).publishes  # a new store: written hidden, published once done
        if publishes is not None:
            self.config.vectors_dir.mkdir(parents=True, exist_ok=True)
            staged = self.config.vectors_dir / f".job-{job_id}-{params[publishes.field]}"
            self._remove_staged(job_id)
            params = {**params, publishes.field: str(staged)}
        env = dict(os.environ, GEOBIAS_VECTORS_DIR=str(self.config.vectors_dir), PYTHONUNBUFFERED="1")
        env.pop("GEOBIAS_DEBUG", None)
        env.pop("GEOBIAS_FORKSERVER_OF", None)
        from geobias.service.worker import context, run_job

        cur = self._exec("UPDATE jobs SET state = 'starting', started = ?, tries = tries + 1 "
                         "WHERE id = ? AND state = 'queued'", (time.time(), job_id))
        if not cur.rowcount:
            return  # cancelled meanwhile
        proc = context().Process(target=run_job, name=f"geobias-job-{job_id}", daemon=False, args=(
            row["kind"], params, str(cwd), str(job_dir), env))
        with self._start_lock:
            proc.start()
        self._procs[job_id] = proc
        self._exec("UPDATE jobs SET pid = ?, state = CASE state WHEN 'starting' THEN 'running' ELSE state END "
                   "WHERE id = ?", (proc.pid, job_id))
        if self._row(job_id)["state"] == "cancelled":  # cancelled between the two updates
            self._kill(proc)
        try:
            proc.join()
            rc = proc.exitcode
        finally:
            self._procs.pop(job_id, None)
        if self._stopping:
            return  # the next start queues it again (and clears what it wrote)
        now = time.time()
        result = self._read(job_dir / "result.json") if rc == 0 else None
        if result is not None:
            result = self.redact(result, job_id)
            if staged is None:
                self._exec("UPDATE jobs SET state = 'done', finished = ?, result = ? WHERE id = ? AND state IN ('starting', 'running')",
                           (now, json.dumps(result, ensure_ascii=False), job_id))
                return
            error = self._publish(job_id, staged, row, result, now)
            if error is None:
                return
        else:
            error = self._read(job_dir / "error.json") or {
                "type": "JobError", "message": f"the job's process ended without a result (exit code {rc})"}
        self._remove_staged(job_id)
        self._exec("UPDATE jobs SET state = 'failed', finished = ?, error = ? WHERE id = ? AND state IN ('starting', 'running')",
                   (now, json.dumps(self.redact(error, job_id), ensure_ascii=False), job_id))

    def _publish(self, job_id: str, staged: Path, row: dict[str, Any], result: Any, now: float) -> dict | None:
        """Commit the job ``done``, then rename its staged store to its name; or return the error
        that fails it (the store missing, the name taken meanwhile)."""
        name = json.loads(row["params"])["out"]
        dest = self.config.vectors_dir / name
        with self.stores.publish_lock:
            if not _is_store(staged):
                return {"type": "JobError", "message": "the job ended without writing its store"}
            if os.path.lexists(dest):
                return {"type": "StoreExists", "message": f"a store named {name!r} was created while the job ran; "
                                                          "submit it again with another out"}
            cur = self._exec("UPDATE jobs SET state = 'done', finished = ?, result = ? WHERE id = ? AND state IN ('starting', 'running')",
                             (now, json.dumps(result, ensure_ascii=False), job_id))
            if cur.rowcount:
                os.rename(staged, dest)  # after the commit: a crash in between is finished by recovery
            else:
                _remove(staged)  # cancelled meanwhile
        return None

    @staticmethod
    def _read(path: Path) -> Any:
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None


def _is_store(path: Path) -> bool:
    from geobias.store import is_cache

    return is_cache(path)


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)
