"""Job processes: forked from a pre-warmed fork server that has already imported numpy, scipy,
scikit-learn, faiss, matplotlib and the geobias command modules, so a job starts in a fraction
of a second instead of paying the imports again. Each job runs ``geobias.cli.main(argv)`` —
exactly the command line a user would type — with stdout/stderr going to the job's files.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys

PRELOAD = ["numpy", "scipy.stats", "sklearn.discriminant_analysis", "sklearn.model_selection", "faiss",
           "matplotlib", "matplotlib.figure", "geobias.cli", "geobias.metrics", "geobias.directions",
           "geobias.sources", "geobias.report.tables"]

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


def run_job(argv: list[str], cwd: str, stdout: str, stderr: str, env: dict[str, str]) -> None:
    """Entry point of a job process: a new session (so a cancel kills the whole group), the
    job's working directory and environment, stdout/stderr to files, then the command."""
    die_with_parent()
    _release_forkserver()
    os.setsid()
    os.chdir(cwd)
    os.environ.clear()
    os.environ.update(env)
    for fd, path in ((1, stdout), (2, stderr)):
        target = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(target, fd)
        os.close(target)
    sys.stdout = open(1, "w", encoding="utf-8", closefd=False, buffering=1)  # noqa: SIM115
    sys.stderr = open(2, "w", encoding="utf-8", closefd=False, buffering=1)  # noqa: SIM115
    from geobias.cli import _options, main

    # The commands' progress (rich status lines, progress bars) shows only on a terminal; make
    # their stderr console behave as one, so the job's stderr file carries its progress, which
    # GET /jobs/{id} reports as ``last_message``.
    _options.stderr._force_terminal = True
    _options.stderr.is_interactive = True
    os.environ["GEOBIAS_PROGRESS"] = "1"  # jobs run with --json into a file: progress stays on
    try:
        main(argv)
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
