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
listed only once the job is ``done``; a new store a job makes is published as
:mod:`geobias.service.publication` describes.

This module runs jobs (the queue, runner threads, the job's process); the records and the allowed
changes of state are :mod:`geobias.service.records`.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import signal
import threading
import time
import uuid
from collections import deque
from pathlib import Path
from typing import Any

from geobias.commands import get
from geobias.errors import GeobiasError
from geobias.service import publication
from geobias.service.commands import prepare_job, stores_of
from geobias.service.config import ServiceConfig
from geobias.service.records import FINISHED, STATES, JobNotFound, JobRecords  # noqa: F401 (re-exported)

_INTERRUPTED = "the server stopped while this job was running"


class QueueFull(GeobiasError):
    """Too many queued jobs, in all or for this client (HTTP 429 + ``Retry-After``)."""

    def __init__(self, message: str, retry_after: int = 1):
        super().__init__(message)
        self.retry_after = retry_after


#: Seconds a job is assumed to take before any has finished (for ``Retry-After``).
DEFAULT_JOB_SECONDS = 30.0


class FairQueue:
    """Job ids waiting for a runner, served round-robin across clients.

    Each client has its own first-in-first-out line; a runner takes the first job of the client
    at the front of the round, and that client goes to the back of the round (deficit round
    robin with a quantum of one job: jobs are not priced in advance). A client with many jobs
    queued therefore delays another client's next job by at most one job per runner.

    Examples
    --------
    >>> q = FairQueue()
    >>> for job, client in [("a1", "a"), ("a2", "a"), ("a3", "a"), ("b1", "b")]:
    ...     q.put(job, client)
    >>> [q.get() for _ in range(4)]
    ['a1', 'b1', 'a2', 'a3']
    """

    def __init__(self):
        self._cond = threading.Condition()
        self._lines: dict[str, deque[str]] = {}  # insertion order is the round
        self._stops = 0

    def put(self, job_id: str, client: str = "-") -> None:
        with self._cond:
            self._lines.setdefault(client, deque()).append(job_id)
            self._cond.notify()

    def stop_one(self) -> None:
        """Make one waiting (or the next) ``get`` return None: a runner thread's end."""
        with self._cond:
            self._stops += 1
            self._cond.notify()

    def get(self) -> str | None:
        with self._cond:
            while True:
                if self._stops:
                    self._stops -= 1
                    return None
                if self._lines:
                    client = next(iter(self._lines))
                    line = self._lines.pop(client)
                    job_id = line.popleft()
                    if line:
                        self._lines[client] = line  # to the back of the round
                    return job_id
                self._cond.wait()


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
        self.records = JobRecords(self.db_path)
        self._queue = FairQueue()
        self._procs: dict[str, Any] = {}
        self._start_lock = threading.Lock()
        self._threads: list[threading.Thread] = []
        self._stopping = False
        from geobias.service.redact import Redactor

        self.redact = Redactor(config)

    def _row(self, job_id: str) -> dict[str, Any]:
        return self.records.row(job_id)

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> None:
        """Recover from a previous run, then start ``config.workers`` runner threads."""
        self._recover(time.time())
        self._reconcile_stores()
        for row in self.records.in_state("queued"):
            self._clear_outputs(row["id"])
            self._queue.put(row["id"], row.get("client") or "-")
        _start_forkserver()
        for i in range(self.config.workers):
            t = threading.Thread(target=self._worker, name=f"geobias-job-{i}", daemon=True)
            t.start()
            self._threads.append(t)

    def _recover(self, now: float) -> None:
        """Jobs the server was running when it stopped: queued again while they have tries left
        (the interruption recorded), else failed with the reason."""
        for row in self.records.in_state("starting", "running"):
            job_id, tries = row["id"], row["tries"]
            history = [*json.loads(row["interruptions"] or "[]"), {"at": now, "reason": _INTERRUPTED}]
            if tries < self.config.max_tries:
                self.records.transition(job_id, "queued", started=None, pid=None, interruptions=history)
            else:
                error = {"type": "Interrupted", "message": f"{_INTERRUPTED}, {tries} time(s) out of "
                                                           f"{self.config.max_tries}; submit it again"}
                self.records.transition(job_id, "failed", finished=now, error=error, interruptions=history)
                self._clear_outputs(job_id)

    def _reconcile_stores(self) -> None:
        publication.reconcile(self.config.vectors_dir, self.records.state)

    def _remove_staged(self, job_id: str) -> None:
        publication.remove_staged(self.config.vectors_dir, job_id)

    def _clear_outputs(self, job_id: str) -> None:
        """Empty what an earlier, interrupted start of the job may have written."""
        self._remove_staged(job_id)
        folder = self.root / job_id
        shutil.rmtree(folder / "artifacts", ignore_errors=True)
        for name in ("result.json", "error.json", "progress.json", "stdout.txt", "stderr.txt", "view.html"):
            (folder / name).unlink(missing_ok=True)
        for leftover in folder.glob(".*.tmp"):
            leftover.unlink(missing_ok=True)

    def stop(self) -> None:
        self._stopping = True
        for proc in list(self._procs.values()):
            self._kill(proc)
        for _ in self._threads:
            self._queue.stop_one()

    # ------------------------------------------------------------------ API
    def submit(self, kind: str, params: dict[str, Any], client: str = "-") -> dict[str, Any]:
        """Validate and record a job for ``client``, then queue it.

        Admission and the record are one transaction (:meth:`JobRecords.admit`): at most
        ``config.max_queue`` jobs are ever queued, at most ``config.client_queue`` of them one
        client's; runners take the clients' jobs round-robin (:class:`FairQueue`).

        Raises
        ------
        ParameterError
            Unknown, ill-typed or out-of-range parameters (HTTP 422).
        GeobiasError
            Invalid values (HTTP 4xx); nothing is recorded.
        QueueFull
            The queue, or this client's share of it, is full (HTTP 429, with a ``retry_after``
            from this client's admitted work).
        """
        self._refuse_if_full(self.records.count("queued"), None, client)  # cheap, before the work
        job_id = uuid.uuid4().hex[:16]
        job_dir = self.root / job_id
        job_dir.mkdir(parents=True)
        try:
            cmd, prepared = prepare_job(self.config, self.stores, kind, params, job_dir)
            full = self.records.admit(job_id, cmd.kind, cmd.name, prepared, time.time(), client,
                                      max_queue=self.config.max_queue, share=self.config.client_queue)
            if full is not None:
                self._refuse_if_full(*full, client)
        except BaseException:
            shutil.rmtree(job_dir, ignore_errors=True)  # no record, no folder
            raise
        self._queue.put(job_id, client)
        return self.get(job_id)

    def record_quick(self, kind: str, envelope: dict[str, Any], client: str, started: float,
                     finished: float) -> dict[str, Any]:
        """Record a quick analysis's result (the web app's quick path) as a finished job, so that
        its view, downloads, report page and comparison are a job's. ``envelope`` is the answer of
        the quick route (redacted); its recorded options are the job's parameters."""
        cmd = get(kind)
        job_id = uuid.uuid4().hex[:16]
        (self.root / job_id).mkdir(parents=True)
        params = (envelope.get("inputs") or {}).get("options") or {}
        try:
            self.records.insert_done(job_id, cmd.kind, cmd.name, params, client, started=started, finished=finished,
                                     result=envelope)
        except BaseException:
            shutil.rmtree(self.root / job_id, ignore_errors=True)
            raise
        return self.get(job_id)

    def _refuse_if_full(self, total: int, mine: int | None, client: str) -> None:
        cap, share = self.config.max_queue, self.config.client_queue
        if total < cap and (mine is None or mine < share):
            return
        wait = self.retry_after(client)
        if total >= cap:
            raise QueueFull(f"{total} jobs are already queued (the limit is {cap}); retry after {wait} s",
                            retry_after=wait)
        raise QueueFull(f"you have {mine} jobs queued (this service's share per client is {share} of "
                        f"{cap}); retry after {wait} s", retry_after=wait)

    def retry_after(self, client: str) -> int:
        """Seconds until ``client``'s admitted work (its jobs queued, starting or running) is
        likely done: that many jobs at the mean run time of recent jobs, over the runners."""
        mean = self.records.mean_seconds() or DEFAULT_JOB_SECONDS
        work = max(1, self.records.work_of(client))
        return max(1, math.ceil(mean * work / self.config.workers))

    def get(self, job_id: str) -> dict[str, Any]:
        row = self._row(job_id)
        return self._public(row)

    def list(self, limit: int = 50) -> list[dict[str, Any]]:
        rows = self.records.latest(limit)
        return [self._public(r, with_result=False) for r in rows]

    def cancel(self, job_id: str) -> dict[str, Any]:
        row = self._row(job_id)
        if row["state"] in FINISHED:
            raise JobConflict(f"job {job_id} is already {row['state']}")
        now = time.time()
        error = {"type": "Cancelled", "message": "cancelled by a DELETE request"}
        if self.records.transition(job_id, "cancelled", finished=now, error=error):
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
                self.records.transition(job_id, "failed", finished=time.time(),
                                        error={"type": "InternalError", "message": f"{type(exc).__name__}: {exc}"})

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
            staged = publication.staged_path(self.config.vectors_dir, job_id, params[publishes.field])
            self._remove_staged(job_id)
            params = {**params, publishes.field: str(staged)}
        env = dict(os.environ, GEOBIAS_VECTORS_DIR=str(self.config.vectors_dir), PYTHONUNBUFFERED="1")
        env.pop("GEOBIAS_DEBUG", None)
        env.pop("GEOBIAS_FORKSERVER_OF", None)
        from geobias.service.worker import context, run_job

        if not self.records.transition(job_id, "starting", started=time.time(), add_try=True):
            return  # cancelled meanwhile
        try:  # never on a store found changed: verdict, stamps (ctime, inode) and a first-open hash
            for name in stores_of(row["kind"], json.loads(row["params"])):
                self.stores.get(name)
        except GeobiasError as exc:
            self._remove_staged(job_id)
            self.records.transition(job_id, "failed", finished=time.time(), error=self.redact(
                {"type": type(exc).__name__, "message": str(exc)}, job_id))
            return
        proc = context().Process(target=run_job, name=f"geobias-job-{job_id}", daemon=False, args=(
            row["kind"], params, str(cwd), str(job_dir), env))
        with self._start_lock:
            proc.start()
        self._procs[job_id] = proc
        self.records.set_pid(job_id, proc.pid)
        self.records.transition(job_id, "running")
        if self.records.state(job_id) == "cancelled":  # cancelled between the two updates
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
                if self.records.transition(job_id, "done", finished=now, result=result):
                    self._prerender(job_id)
                return
            error = publication.publish(
                self.config.vectors_dir, json.loads(row["params"])[publishes.field], staged,
                lambda: self.records.transition(job_id, "done", finished=now, result=result),
                self.stores.publish_lock, field=publishes.field)
            if error is None:
                self._prerender(job_id)
                return
        else:
            error = self._read(job_dir / "error.json") or {
                "type": "JobError", "message": f"the job's process ended without a result (exit code {rc})"}
        self._remove_staged(job_id)
        self.records.transition(job_id, "failed", finished=now, error=self.redact(error, job_id))

    def _prerender(self, job_id: str) -> None:
        """Render a finished job's view in the background, so that its page answers at once."""
        def render() -> None:
            from geobias.service.pages import cached_result_view

            try:
                cached_result_view(self.get(job_id), self.root / job_id)
            except Exception:  # noqa: BLE001 - the page renders it on request instead
                pass

        threading.Thread(target=render, name=f"geobias-view-{job_id}", daemon=True).start()

    @staticmethod
    def _read(path: Path) -> Any:
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
