"""Quick analyses in a pool of worker processes, one per admission slot.

Why processes: a quick analysis is CPU-bound Python and numpy. Run in threads of the server
process, the analyses share one interpreter lock with each other and with the event loop, which
then reads requests and writes answers only between their time slices, and one garbage
collection pauses them all: the latency of a request depends on what else runs (with threads the
p99 at 50 clients was 4.2 times the mean wait a fair queue gives; ``benchmarks/bench_serve.py``
compares the two modes). In ``quick_workers`` processes (forked from the jobs' pre-warmed
fork server), each analysis has an interpreter to itself, the event loop only parses, admits and
answers, and the admission queue in front of them (:class:`~geobias.service.http.Admission`, first
come first served) is the only place a request waits.

Each worker opens the stores it is asked for itself (memory-mapped: the pages are shared through
the page cache; each keeps its own normalised copy) with its own
:class:`~geobias.service.stores.StoreManager`, so the checks of a store changed on disk hold there
too. A request's slot has a byte in shared memory: the parent sets it when the client goes away and
the worker's run stops at its next cancel check (:class:`_SlotFlag`). Errors come back as the same
exception types (rebuilt from their class and message where they do not survive pickling); a bug's
traceback is logged by the parent. A worker that dies (killed, out of memory) fails its request
(500) and the pool is started again for the next one.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import os
import pickle
import signal
import traceback
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from geobias._progress import Progress
from geobias.errors import GeobiasError, ParameterError

log = logging.getLogger("geobias.service")

#: In a worker process: the service's configuration, its stores and the slots' cancel bytes.
_WORKER: dict[str, Any] = {}


class _SlotFlag(Progress):
    """A worker's progress reporter: cancelled once the parent sets the slot's byte."""

    def __init__(self, flags, slot: int):
        self._flags, self._slot = flags, slot

    def cancelled(self) -> bool:
        return bool(self._flags[self._slot])


def _init(config, flags) -> None:
    """Start of a worker: die with the fork server (so with the service), ignore Ctrl-C (the
    server handles it), open stores with this process's own manager."""
    from geobias.service.worker import _release_forkserver, die_with_parent

    parent = os.getppid()
    die_with_parent()
    if os.getppid() != parent:  # the fork server (and the service) died before the signal was armed
        os._exit(1)
    _release_forkserver()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    os.environ["GEOBIAS_VECTORS_DIR"] = str(config.vectors_dir)
    from geobias.service.stores import StoreManager

    _WORKER.update(config=config, stores=StoreManager(config), flags=flags)


def _portable(exc: BaseException) -> tuple:
    """``exc`` in a form that crosses the process boundary with its type and message intact."""
    try:
        back = pickle.loads(pickle.dumps(exc))
        if type(back) is type(exc) and str(back) == str(exc):
            return ("exc", back)
    except Exception:  # noqa: BLE001 - not picklable as it is: sent by name below
        pass
    if isinstance(exc, GeobiasError):
        return ("named", type(exc).__module__, type(exc).__qualname__, str(exc), getattr(exc, "field", None))
    errors = getattr(exc, "errors", None)
    if type(exc).__name__ == "ValidationError" and callable(errors):  # pydantic's: a 422 like the model's own
        parts = [f"{'.'.join(str(x) for x in e.get('loc', ())) or 'body'}: {e.get('msg')}" for e in errors()[:5]]
        return ("named", ParameterError.__module__, "ParameterError", "; ".join(parts), None)
    return ("bug", f"{type(exc).__name__}: {exc}", traceback.format_exc())


def _run(slot: int, name: str, body: dict[str, Any]) -> tuple:
    """In a worker: the quick command ``name`` on ``body``; ``("ok", envelope)`` or ``("raise", ...)``."""
    from geobias.service.commands import run_quick

    w = _WORKER
    try:
        return ("ok", run_quick(w["config"], w["stores"], name, body, progress=_SlotFlag(w["flags"], slot)))
    except Exception as exc:  # noqa: BLE001 - every error goes back to the request
        return ("raise", _portable(exc))


def _rebuild(info: tuple) -> BaseException:
    kind = info[0]
    if kind == "exc":
        return info[1]
    if kind == "named":
        _, module, qualname, message, field = info
        try:
            cls = getattr(importlib.import_module(module), qualname)
        except (ImportError, AttributeError):
            cls = GeobiasError
        if not (isinstance(cls, type) and issubclass(cls, GeobiasError)):
            cls = GeobiasError
        exc = cls.__new__(cls)
        Exception.__init__(exc, message)  # the message as raised; the class's own __init__ may format
        if isinstance(exc, ParameterError):
            exc.field = field
        return exc
    _, text, trace = info
    log.error("quick analysis failed in its worker process: %s\n%s", text, trace)
    return RuntimeError(text)


class QuickPool:
    """``workers`` processes that run quick commands (see the module docstring)."""

    def __init__(self, config, workers: int):
        from geobias.service.worker import context

        self.config, self.workers = config, workers
        self._ctx = context()
        self._flags = self._ctx.RawArray("b", workers)
        self._free = list(range(workers))
        self._executor: ProcessPoolExecutor | None = None

    def _pool(self) -> ProcessPoolExecutor:
        if self._executor is None:
            self._executor = ProcessPoolExecutor(self.workers, mp_context=self._ctx, initializer=_init,
                                                 initargs=(self.config, self._flags))
        return self._executor

    async def run(self, name: str, body: dict[str, Any], flag: Progress) -> dict[str, Any]:
        """The envelope of quick command ``name``; at most ``workers`` calls at once (the
        admission's limiter sees to it). ``flag.cancelled()`` is passed on to the worker.

        Raises
        ------
        GeobiasError and the others the command raises, as in the server process
        RuntimeError
            The worker process died (HTTP 500).
        """
        slot = self._free.pop()
        self._flags[slot] = 0
        try:
            future = asyncio.wrap_future(self._pool().submit(_run, slot, name, body))
            try:
                while not (await asyncio.wait({future}, timeout=0.1))[0]:
                    if flag.cancelled():
                        self._flags[slot] = 1
            except asyncio.CancelledError:  # the request itself was cancelled (the server is stopping)
                self._flags[slot] = 1
                raise
            status, payload = future.result()
        except BrokenProcessPool:
            broken, self._executor = self._executor, None
            if broken is not None:
                broken.shutdown(wait=False, cancel_futures=True)
            raise RuntimeError("the process computing this analysis died (killed, or out of memory)") from None
        finally:
            self._free.append(slot)
        if status == "ok":
            return payload
        raise _rebuild(payload)

    def close(self) -> None:
        """Stop the workers now (the service is shutting down): an analysis in progress is
        killed, not waited for, so that the server exits within seconds whatever they compute."""
        executor, self._executor = self._executor, None
        if executor is None:
            return
        procs = list((getattr(executor, "_processes", None) or {}).values())
        executor.shutdown(wait=False, cancel_futures=True)
        for proc in procs:  # the interpreter's exit would otherwise join them, however long they run
            try:
                proc.kill()
            except (OSError, ValueError):
                pass
