"""Job processes: forked from a pre-warmed fork server that has already imported numpy, scipy,
scikit-learn, faiss, matplotlib and the geobias command modules, so a job starts in a fraction
of a second instead of paying the imports again. Each job runs its command's ``run`` through
:func:`geobias.commands.execute` — the same call the CLI makes — and writes, atomically, into
its folder: ``result.json`` (the envelope) or ``error.json`` (``{"type", "message"}`` from the
:class:`~geobias.errors.GeobiasError` subclass), and ``progress.json`` (the latest stage, and
the fraction done when a bar runs) while it works.
"""

from __future__ import annotations

import ctypes
import json
import multiprocessing
import os
import signal
import sys
import time
from contextlib import contextmanager
from pathlib import Path

from geobias._progress import Progress

PRELOAD = ["geobias.service._forkserver_guard", "numpy", "scipy.stats", "sklearn.discriminant_analysis", "sklearn.model_selection", "faiss",
           "matplotlib", "matplotlib.figure", "pydantic", "geobias.commands",
           "geobias.metrics", "geobias.directions", "geobias.sources"]

_CTX = None


def context():
    """The fork-server context (started on first use, preloading :data:`PRELOAD`)."""
    global _CTX
    if _CTX is None:
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(PRELOAD)
        _CTX = ctx
    return _CTX


def die_with_parent() -> None:
    """``PR_SET_PDEATHSIG``: SIGKILL this process when its parent (the fork server, which itself
    exits when the service dies) goes away."""
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)
    except OSError:
        pass


def start_reaper() -> None:
    """Fork a reaper into this process's (new) process group: when this process dies (killed
    with the server, cancelled, or finished), the reaper SIGKILLs the whole group, so no child
    a job started (a loader's worker, a tokenizer's pool) outlives it, then dies with it."""
    parent = os.getpid()
    if os.fork() != 0:
        return
    try:
        signal.signal(signal.SIGHUP, lambda *_: os.killpg(0, signal.SIGKILL))
        signal.signal(signal.SIGTERM, lambda *_: os.killpg(0, signal.SIGKILL))
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGHUP)
        if os.getppid() != parent:  # the job died before the parent-death signal was armed
            os.killpg(0, signal.SIGKILL)
        os.closerange(3, 1024)
        while True:
            signal.pause()
    finally:
        os._exit(0)


def _release_forkserver() -> None:
    """Close this process's copy of the fork server's "alive" pipe. multiprocessing hands one to
    every child, so the fork server would outlive the service as long as a job runs, and the job
    (killed by ``PR_SET_PDEATHSIG`` only when the fork server exits) would outlive it too."""
    from multiprocessing import forkserver

    server = getattr(forkserver, "_forkserver", None)
    fd = getattr(server, "_forkserver_alive_fd", None)
    if fd is not None:
        try:
            os.close(fd)
        except OSError:
            pass
        server._forkserver_alive_fd = None


def write_json(path: Path, data) -> None:
    """Write ``data`` as JSON to ``path`` atomically (a reader sees the old file or the new one)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(json.dumps(data, ensure_ascii=False))
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


class JobProgress(Progress):
    """The job's progress reporter: the latest stage, note or bar position in ``progress.json``
    (at most every 0.2 s for a bar), which ``GET /jobs/{id}`` reports."""

    enabled = True

    def __init__(self, path: Path):
        self.path, self._last = path, 0.0

    def _write(self, message: str, fraction: float | None = None, *, force: bool = True) -> None:
        now = time.monotonic()
        if not force and now - self._last < 0.2:
            return
        self._last = now
        write_json(self.path, {"message": message[:300], "fraction": fraction})

    @contextmanager
    def status(self, description: str):
        self._write(description)
        yield lambda text: self._write(text)

    @contextmanager
    def bar(self, description: str, total: int):
        done = 0
        self._write(description, 0.0)

        def advance(n: int = 1) -> None:
            nonlocal done
            done += n
            self._write(description, min(1.0, done / total) if total else None, force=False)

        yield advance

    def note(self, text: str) -> None:
        self._write(text)


#: The CPU priority (``nice``) of a job process: jobs are batch work, and yield the cores to the
#: quick analyses that clients wait for.
JOB_NICE = 10


def yield_to_quick() -> None:
    """Lower this job process to :data:`JOB_NICE`, and its session's scheduling group too: a job
    is a session of its own (:func:`run_job`), and with Linux's automatic session groups the
    kernel shares the CPU between sessions before it looks at ``nice``, so that a job's session
    would otherwise get as much CPU as the whole service's (the server and every quick worker).
    Raising a priority number needs no privilege; where either is refused, it stays as it is."""
    try:
        if os.nice(0) < JOB_NICE:
            os.nice(JOB_NICE - os.nice(0))
    except OSError:
        pass
    try:
        with open("/proc/self/autogroup", "w") as fh:
            fh.write(str(JOB_NICE))
    except OSError:
        pass


def run_job(kind: str, params: dict, cwd: str, job_dir: str, env: dict[str, str]) -> None:
    """Entry point of a job process: a new session (so a cancel kills the whole group) with a
    reaper (:func:`start_reaper`), the
    job's working directory and environment, stray output to ``stdout.txt``/``stderr.txt``, then
    the command; exits 0 with ``result.json`` written, or 1 with ``error.json``."""
    parent = os.getppid()
    die_with_parent()
    if os.getppid() != parent:  # the fork server (and the service) died before the signal was armed
        os._exit(1)
    _release_forkserver()
    os.setsid()
    start_reaper()
    yield_to_quick()
    os.chdir(cwd)
    os.environ.clear()
    os.environ.update(env)
    folder = Path(job_dir)
    for fd, name in ((1, "stdout.txt"), (2, "stderr.txt")):
        target = os.open(folder / name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(target, fd)
        os.close(target)
    sys.stdout = open(1, "w", encoding="utf-8", closefd=False, buffering=1)  # noqa: SIM115
    sys.stderr = open(2, "w", encoding="utf-8", closefd=False, buffering=1)  # noqa: SIM115
    from geobias.commands import execute
    from geobias.errors import GeobiasError

    code = 0
    try:
        # a job runs by choice and can be cancelled: the command layer's work budget does not apply
        _, envelope = execute(kind, params, progress=JobProgress(folder / "progress.json"), budget=None)
        write_json(folder / "result.json", envelope)
    except GeobiasError as exc:
        write_json(folder / "error.json", {"type": type(exc).__name__, "message": " ".join(str(exc).split())})
        code = 1
    except MemoryError:
        write_json(folder / "error.json", {"type": "OutOfMemory", "message": "the job ran out of memory"})
        code = 1
    except Exception as exc:  # noqa: BLE001 - a bug: reported as such, never as the user's error
        write_json(folder / "error.json", {"type": "InternalError", "message": f"{type(exc).__name__}: {exc}"})
        code = 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
    os._exit(code)
