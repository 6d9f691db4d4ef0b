"""Quick analyses in a pool of worker processes, one per admission slot.

Why processes: a quick analysis is CPU-bound Python and numpy. Run in threads of the server
process, the analyses share one interpreter lock with each other and with the event loop, which
then reads requests and writes answers only between their time slices, and one garbage
collection pauses them all: the latency of a request depends on what else runs (with threads the
p99 at 50 clients was 4.2 times the mean wait a fair queue gives; ``benchmarks/bench_serve.py``
compares the two modes). In ``quick_workers`` processes (forked from the jobs' pre-warmed
fork server), each analysis has an interpreter to itself, the event loop only parses, admits and
answers, and the admission queue in front of them (:class:`~geobias.service.http.Admission`,
round-robin across clients) is the only place a request waits.

Each slot has its own worker process and a pipe to it, which the event loop itself writes the
call to and watches for the answer (``loop.add_reader``): no thread of the server stands between
a request and its worker. (A :class:`concurrent.futures.ProcessPoolExecutor` hands each call
through its management thread and a queue's feeder thread; each hand-over waits for the
interpreter lock, and while the event loop parses another client's large body that wait was
most of a cheap request's tail: 17–95 ms of the slowest 5 % of ``/neighbors`` in
``benchmarks/bench_abuse.py``, against 1–2 ms of computing.)

An analysis runs in a thread of its worker, which reads the call from the pipe and answers it
itself (:class:`_Worker`: no other thread wakes for a cheap call); one still running after :data:`DEMOTE_AFTER`
seconds, or once it has used :data:`DEMOTE_CPU` seconds of CPU, is lowered to the idle scheduling class (``SCHED_IDLE``: its thread and the threads it
started, not the worker's main thread; ``nice`` 19 where the class is missing), so that while a
client's long permutation test runs, another client's cheap request, in another worker at normal
priority, takes a core the moment it wakes (the next analysis starts in a new thread at normal
priority; no privilege is needed to lower a priority). While a long analysis runs beside cheap
ones, the two also get separate cores (:mod:`geobias.service.lanes`). BLAS and OpenMP compute in
the analysis's own thread (one thread each per worker): a BLAS thread pool outlives the
analysis that started it, so it could be neither lowered with one analysis nor raised for the
next.

Each worker opens the stores it is asked for itself (memory-mapped: the pages are shared through
the page cache; each keeps its own normalised copy) with its own
:class:`~geobias.service.stores.StoreManager`, so the checks of a store changed on disk hold there
too. A request's slot has a byte in shared memory: the parent sets it when the client goes away and
the worker's run stops at its next cancel check (:class:`_SlotFlag`). Errors come back as the same
exception: every :class:`~geobias.errors.GeobiasError` pickles as itself (class, message,
attributes), pydantic's validation errors become the :class:`~geobias.errors.ParameterError` the
model's own would, and anything else is a bug whose traceback the parent logs (HTTP 500). A
worker that dies (killed, out of memory) fails its request (500) and its slot starts a new one
for the next.
"""

from __future__ import annotations

import asyncio
import logging
import os
import pickle
import select
import signal
import traceback
import weakref
from typing import Any

from geobias._progress import Progress
from geobias.errors import Cancelled, GeobiasError, ParameterError, _restore
from geobias.service.lanes import Lanes, threads_of

log = logging.getLogger("geobias.service")

#: In a worker process: the service's configuration, its stores and the slots' cancel bytes.
_WORKER: dict[str, Any] = {}


class _SlotFlag(Progress):
    """A worker's progress reporter: cancelled once the parent sets the slot's byte."""

    def __init__(self, flags, slot: int):
        self._flags, self._slot = flags, slot

    def cancelled(self) -> bool:
        return bool(self._flags[self._slot])


def _init(config, flags, lanes) -> None:
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
    from geobias.service.redact import Redactor
    from geobias.service.stores import StoreManager

    _WORKER.update(config=config, stores=StoreManager(config), flags=flags, lanes=lanes, redact=Redactor(config))
    _one_compute_thread()


def _one_compute_thread() -> None:
    """BLAS and OpenMP compute in the analysis's own thread: the pool's parallelism is its
    workers, and a BLAS thread pool outlives the analyses it serves, so a long analysis's share
    of it could not be lowered with the analysis (its threads were started by an earlier one)."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)
    _one_omp_thread()


def _one_omp_thread() -> None:
    """faiss's OpenMP in one thread, for the calling thread: OpenMP's thread count is a setting of
    each thread (a new thread starts from the process's default, every core), so each analysis's
    thread sets it again. Without it a nearest-neighbour search started a team of OpenMP threads
    in every new analysis thread, whose spinning cost more CPU than the search (1.4 → 2.7 ms for
    ``/neighbors`` on fr-spacy-md)."""
    try:
        import faiss

        faiss.omp_set_num_threads(1)
    except ImportError:  # pragma: no cover - faiss is a core dependency
        pass


def _portable(exc: BaseException) -> tuple:
    """``exc`` in a form that crosses the process boundary as the same error."""
    if isinstance(exc, GeobiasError):
        try:
            pickle.dumps(exc)
            return ("exc", exc)
        except Exception:  # noqa: BLE001 - an attribute that does not pickle: the error without it
            return ("exc", _restore(type(exc), tuple(str(a) for a in exc.args), {}))
    errors = getattr(exc, "errors", None)
    if type(exc).__name__ == "ValidationError" and callable(errors):  # pydantic's: a 422 like the model's own
        parts = [f"{'.'.join(str(x) for x in e.get('loc', ())) or 'body'}: {e.get('msg')}" for e in errors()[:5]]
        return ("exc", ParameterError("; ".join(parts)))
    return ("bug", f"{type(exc).__name__}: {exc}", traceback.format_exc())


#: Seconds an analysis runs at normal CPU priority before its threads are lowered to the idle
#: class; sooner once they have used :data:`DEMOTE_CPU` seconds of CPU (a permutation test uses
#: two cores from its start, and every millisecond it competes at normal priority delays the cheap
#: requests beside it).
DEMOTE_AFTER = 0.05
#: CPU seconds (all of the worker's threads) after which an analysis is lowered.
DEMOTE_CPU = 0.02


#: Seconds between the server's looks at running calls' cancel flags (:meth:`QuickPool._watch`).
LOOK_EVERY = 0.1


#: The most threads an analysis computes in at once (BLAS and OpenMP in its own thread; a permutation
#: test draws in a second one): its CPU time grows at most this many times as fast as the clock.
ANALYSIS_THREADS = 2
#: The signal of the timer that wakes a worker's main thread to look at a running analysis.
LOOK_SIGNAL = signal.SIGALRM


def _next_look(elapsed: float, used: float) -> float:
    """Seconds until an analysis that has run ``elapsed`` seconds and used ``used`` seconds of CPU
    could reach either limit (the CPU's no sooner than :data:`ANALYSIS_THREADS` times as fast as the
    clock), at least 2 ms.

    >>> round(_next_look(0.0, 0.0), 3)  # the CPU's limit, at two threads' pace
    0.01
    >>> round(_next_look(0.03, 0.015), 4)
    0.0025
    """
    return max(0.002, min(DEMOTE_AFTER - elapsed, (DEMOTE_CPU - used) / ANALYSIS_THREADS))


def _call(slot: int, name: str, body: dict[str, Any]) -> tuple:
    """In a worker: the quick command ``name`` on ``body``: ``("ok", body)``, ``body`` the envelope
    as the JSON the route answers (redacted: :meth:`~geobias.service.redact.Redactor.json`), or
    ``("raise", error)`` (:func:`_portable`)."""
    from geobias.service.commands import run_quick

    w = _WORKER
    try:
        envelope = run_quick(w["config"], w["stores"], name, body, progress=_SlotFlag(w["flags"], slot))
        return ("ok", w["redact"].json(envelope))
    except Exception as exc:  # noqa: BLE001 - every error goes back to the request
        return ("raise", _portable(exc))


class _Worker:
    """A worker's two threads. Its analysis thread reads a call from the pipe, runs it (:func:`_call`)
    and answers it, one after another: no other thread is woken for a call. While it runs, a timer is
    armed (``setitimer``, the clock's) for when it could first reach a limit (:func:`_next_look`); the
    worker's main thread waits for its signal (``sigwait``; every thread of the worker blocks it), so
    that it wakes only for an analysis still running then: it lowers one past a limit, and arms the
    timer again for one that is not yet (:meth:`watch`). The CPU is read only then, with
    ``time.process_time`` (a CPU-time timer would make the kernel read the process's CPU time from
    its timer's tick-updated sum, and the worker's reported CPU with it). A thread lowered to the idle class cannot
    raise itself again: the lowered thread answers its call and ends, and the main thread starts a
    new analysis thread for the next call (handing each call from the main thread to a reused
    analysis thread and its answer back cost a cheap analysis two thread wake-ups, 0.05–0.15 ms of
    CPU in the worker under ``benchmarks/bench_serve.py``).

    Each answer is ``("ok", body, (wall, cpu))`` or ``("raise", error, (wall, cpu))``, ``wall`` and
    ``cpu`` the seconds the call took on the clock and on the worker's CPU (all its threads)."""

    def __init__(self, conn, slot: int):
        import threading

        self.conn, self.slot = conn, slot
        self.lock = threading.Lock()  # between the two threads: running, lowered, started, before
        self.running = self.lowered = False
        self.started = (0.0, 0.0)  # the running call's start: (clock, process CPU) seconds
        self.before: frozenset[int] = frozenset()  # the worker's threads when it started
        self.ended = threading.Event()  # a lowered analysis thread has answered its call
        self.analyst = self._analyst()

    def _analyst(self):
        import threading

        thread = threading.Thread(target=self._answer, name="quick-analysis", daemon=True)
        thread.start()
        return thread

    def _answer(self) -> None:
        """The analysis thread: read, run, answer, until the pipe closes (the worker exits) or it
        was lowered (it ends after answering). An answer that cannot be sent (the server dropped this
        worker) ends the worker: no other thread would read the pipe again."""
        try:
            self._answer_calls()
        except BaseException:  # noqa: BLE001 - the pipe broke under an answer
            os._exit(1)

    def _answer_calls(self) -> None:
        import time

        _one_omp_thread()
        conn = self.conn
        while True:
            try:
                name, body = _loads(conn.recv_bytes())
            except (EOFError, OSError):  # the server closed the pipe (or died)
                os._exit(0)
            before = _threads_now()
            wall, cpu = time.perf_counter(), time.process_time()
            with self.lock:
                self.running, self.started, self.before = True, (wall, cpu), before
                signal.setitimer(signal.ITIMER_REAL, _next_look(0.0, 0.0))
            out = _call(self.slot, name, body)
            with self.lock:  # (the main thread arms the timer again only under the lock, while it runs)
                self.running = False
                signal.setitimer(signal.ITIMER_REAL, 0)
                lowered = self.lowered
            reply = (*out, (time.perf_counter() - wall, time.process_time() - cpu))
            try:
                conn.send_bytes(_dumps(reply))
            except (pickle.PicklingError, TypeError, AttributeError) as exc:  # an answer that does not pickle: a bug
                conn.send_bytes(_dumps(("raise", ("bug", f"{type(exc).__name__}: {exc}", traceback.format_exc()),
                                        reply[2])))
            if lowered:
                self.ended.set()
                return

    def watch(self) -> None:
        """The main thread: wait for the timer's signal; lower the running analysis's thread and those
        it started (a permutation test draws in a second one; threads it starts from now on inherit
        the priority), move it to the long analyses' lane while it runs (every core again once the
        cheap ones have stopped), then start the next analysis thread. A signal of an analysis that
        has ended (its timer fired as it ended) finds none running, or one short of both limits, whose
        look it arms again (for the same time that one armed, or less)."""
        import time

        lanes = _WORKER["lanes"]
        while True:
            signal.sigwait({LOOK_SIGNAL})
            with self.lock:
                if not self.running or self.lowered:
                    continue  # it ended as the timer fired
                wall, cpu = self.started
                used, elapsed = time.process_time() - cpu, time.perf_counter() - wall
                if used < DEMOTE_CPU and elapsed < DEMOTE_AFTER:
                    signal.setitimer(signal.ITIMER_REAL, _next_look(elapsed, used))
                    continue
                self.lowered = True
                before, analyst = self.before, self.analyst
            for tid in (set(threads_of(os.getpid())) - before) | {analyst.native_id}:
                _demote(tid)
            lanes.set(lanes.long, self.slot, 1)  # to the long analyses' cores while cheap ones run
            while not self.ended.wait(1.0):
                lanes.apply()  # every core again once the cheap ones have stopped
            lanes.set(lanes.long, self.slot, 0)
            analyst.join()
            self.ended.clear()
            with self.lock:
                self.lowered = False
            self.analyst = self._analyst()


def _threads_now() -> frozenset[int]:
    """This worker's threads (their ids), read again only when their number has changed since the
    last read: one ``stat`` of ``/proc/self/task`` (its link count is the number of threads + 2)
    where listing it cost a cheap analysis tens of microseconds. A thread that started as another
    ended since is then missing, and would be lowered with a long analysis: between analyses none
    starts but an analysis thread replacing a lowered one, which is lowered with its analysis anyway."""
    try:
        count = os.stat("/proc/self/task").st_nlink
    except OSError:
        return frozenset(threads_of(os.getpid()))
    held = _WORKER.get("thread_ids")
    if held is None or held[0] != count:
        held = _WORKER["thread_ids"] = (count, frozenset(threads_of(os.getpid())))
    return held[1]


def _demote(tid: int) -> None:
    """Thread ``tid`` to the idle scheduling class (Linux ``SCHED_IDLE``): it runs only on a core
    nothing else of its session wants, and any other thread that wakes takes the core at once
    (``nice`` 19 still shares a core with a woken thread for a scheduler slice, milliseconds);
    ``nice`` 19 where the class is missing. Lowering needs no privilege; the thread is the
    analysis's own and ends with it, so nothing has to be raised again."""
    try:
        os.sched_setscheduler(tid, os.SCHED_IDLE, os.sched_param(0))
        return
    except (OSError, AttributeError):
        pass
    try:
        os.setpriority(os.PRIO_PROCESS, tid, 19)  # on Linux: that thread alone
    except (OSError, AttributeError):
        pass


def _serve(conn, config, flags, lanes, slot: int) -> None:
    """A worker process's life: answer calls from its pipe, one at a time, until it closes
    (:class:`_Worker`). The timer's signal is blocked first, before any thread starts, so that
    every thread inherits the mask and only the main thread's ``sigwait`` takes them."""
    signal.pthread_sigmask(signal.SIG_BLOCK, {LOOK_SIGNAL})
    _init(config, flags, lanes)
    _Worker(conn, slot).watch()


def _dumps(message) -> bytes:
    """``message`` as the bytes that cross a quick worker's pipe: plain pickle, where the pipe's own
    ``send`` pickles with multiprocessing's reducers (for handles and sockets, which no call or answer
    holds), copying the pickler's dispatch table at each message."""
    return pickle.dumps(message, pickle.HIGHEST_PROTOCOL)


_loads = pickle.loads


def _rebuild(info: tuple) -> BaseException:
    if info[0] == "exc":
        return info[1]
    _, text, trace = info
    log.error("quick analysis failed in its worker process: %s\n%s", text, trace)
    return RuntimeError(text)


class _Died(Exception):
    """The worker process's end of the pipe closed: it died."""


class QuickPool:
    """``workers`` processes that run quick commands (see the module docstring)."""

    def __init__(self, config, workers: int):
        from geobias.service.worker import context

        self.config, self.workers = config, workers
        self._ctx = context()
        self._flags = self._ctx.RawArray("b", workers)
        self._lanes = Lanes(self._ctx, workers)
        self._free = list(range(workers))
        self._procs: list = [None] * workers  # per slot: (process, the server's end of its pipe)
        self._starting: dict[int, asyncio.Future] = {}  # slot → its worker's start, while under way
        self._watched: dict[int, Progress] = {}  # slot → the cancel flag of the call it runs
        self._answers: dict[int, asyncio.Future] = {}  # slot → the future its call's answer goes to
        self._reading: dict[int, tuple] = {}  # slot → (loop, the pipe it watches, its descriptor)
        self._looking: asyncio.TimerHandle | None = None  # the timer of the next look at them
        # at the latest when the interpreter exits (before multiprocessing joins its children, which
        # would otherwise wait forever for workers waiting for their next call)
        weakref.finalize(self, _kill_all, self._procs)

    def _alive(self, slot: int):
        """Slot ``slot``'s worker and pipe, or ``None`` when it has none that lives.

        A worker's sentinel becomes readable when it ends: one ``select`` on it tells a running
        worker (``is_alive`` asked only then; it made a poll selector for each request)."""
        held = self._procs[slot]
        if held is None:
            return None
        try:
            ended = select.select([held[0].sentinel], [], [], 0)[0]
        except (OSError, ValueError):  # its sentinel is closed
            return None
        return None if ended and not held[0].is_alive() else held

    def _worker(self, slot: int):
        """Start slot ``slot``'s worker (in a thread: starting the fork server, the first time,
        imports for seconds)."""
        self._drop(slot)
        ours, theirs = self._ctx.Pipe(duplex=True)
        proc = self._ctx.Process(target=_serve, args=(theirs, self.config, self._flags, self._lanes, slot),
                                 name=f"geobias-quick-{slot}")
        proc.start()
        self._lanes.started(slot, proc.pid)
        theirs.close()  # the worker's end lives in the worker alone: its death reads as EOF here
        self._procs[slot] = (proc, ours)
        return self._procs[slot]

    async def _ready(self, slot: int, flag: Progress):
        """Slot ``slot``'s worker and pipe, started (in a thread) if it has none; a client that
        leaves meanwhile is answered at once, and the start goes on for the next call.

        Raises
        ------
        Cancelled
            ``flag`` was cancelled while the worker started.
        """
        held = self._alive(slot)
        if held is not None:
            return held
        start = self._starting.get(slot)
        if start is None:
            start = self._start_in_thread(slot)
        while not (await asyncio.wait({start}, timeout=0.1))[0]:
            if flag.cancelled():
                raise Cancelled("the client went away while its analysis waited")
        return start.result()

    def prestart(self) -> None:
        """Start every slot's worker now, each in a thread (call from the event loop): a slot's
        first request then finds its worker running instead of waiting for it to start."""
        for slot in range(self.workers):
            if self._alive(slot) is None and slot not in self._starting:
                self._start_in_thread(slot).add_done_callback(_log_failed_start)

    def _start_in_thread(self, slot: int) -> asyncio.Future:
        self._unread(slot)  # here, in the event loop's thread: the old pipe is closed in the thread
        start = self._starting[slot] = asyncio.ensure_future(asyncio.to_thread(self._worker, slot))
        start.add_done_callback(lambda _: self._starting.pop(slot, None))
        return start

    def _drop(self, slot: int) -> None:
        """Kill slot ``slot``'s worker (if any) and close its pipe."""
        held, self._procs[slot] = self._procs[slot], None
        self._lanes.pids[slot] = 0  # its pid may be reused by a process the lanes must not pin
        if held is None:
            return
        proc, conn = held
        try:
            proc.kill()
        except (OSError, ValueError, AttributeError):
            pass
        conn.close()

    async def run(self, name: str, body: dict[str, Any], flag: Progress, timing: dict | None = None) -> bytes:
        """The envelope of quick command ``name``, as the JSON the route answers (redacted in the
        worker: :meth:`~geobias.service.redact.Redactor.json`); at most ``workers`` calls at once (the
        admission's limiter sees to it). ``flag.cancelled()`` is passed on to the worker.
        ``timing``, a dict, receives ``compute`` and ``cpu``: the seconds the worker spent on the
        call, on the clock and on the CPU (their difference is time the worker waited for a core).

        Raises
        ------
        GeobiasError and the others the command raises, as in the server process
        RuntimeError
            The worker process died (HTTP 500).
        """
        slot = self._free.pop()
        self._flags[slot] = 0
        self._lanes.serving()
        self._lanes.set(self._lanes.busy, slot, 1, wait=0)  # the event loop never waits on it
        loop = asyncio.get_running_loop()
        try:
            proc, conn = await self._ready(slot, flag)
            self._read(slot, conn, loop)
            answer = self._answers[slot] = loop.create_future()
            conn.send_bytes(_dumps((name, body)))
            self._watch(slot, flag, loop)
            try:
                await answer
            except asyncio.CancelledError:  # the request itself was cancelled (the server is stopping)
                self._unread(slot)  # before the pipe closes: the loop watches no closed descriptor
                self._drop(slot)  # its answer would otherwise wait in the pipe for the next call
                raise
            finally:
                self._watched.pop(slot, None)
            status, payload, (compute, cpu) = answer.result()
            if timing is not None:
                timing.update(compute=compute, cpu=cpu)
        except (_Died, BrokenPipeError, EOFError, ConnectionError):
            self._unread(slot)
            self._drop(slot)
            raise RuntimeError("the process computing this analysis died (killed, or out of memory)") from None
        finally:
            self._answers.pop(slot, None)
            self._lanes.set(self._lanes.busy, slot, 0, wait=0)
            self._free.append(slot)
        if status == "ok":
            return payload
        raise _rebuild(payload)

    def _read(self, slot: int, conn, loop) -> None:
        """Have the event loop watch slot ``slot``'s pipe ``conn`` for answers (:meth:`_readable`),
        once for each worker: the pipe stays watched between its calls (adding and removing it for each
        call was a tenth of a cheap request's time in the event loop)."""
        held = self._reading.get(slot)
        if held is not None and held[1] is conn:
            return
        self._unread(slot)
        loop.add_reader(conn.fileno(), self._readable, slot, conn)
        self._reading[slot] = (loop, conn, conn.fileno())

    def _unread(self, slot: int) -> None:
        """Stop watching slot ``slot``'s pipe (in the event loop's thread, before the pipe closes)."""
        held = self._reading.pop(slot, None)
        if held is not None:
            held[0].remove_reader(held[2])

    def _readable(self, slot: int, conn) -> None:
        """Slot ``slot``'s pipe has something to read: its call's answer, or the end of a worker that
        died (the call, if one waits, fails with :class:`_Died`; the pipe is no longer watched)."""
        answer = self._answers.get(slot)
        try:
            got = _loads(conn.recv_bytes())
        except (EOFError, OSError):
            self._unread(slot)
            if answer is not None and not answer.done():
                answer.set_exception(_Died())
            return
        if answer is not None and not answer.done():
            answer.set_result(got)

    def _watch(self, slot: int, flag: Progress, loop) -> None:
        """Pass ``flag``'s cancelling on to slot ``slot``'s worker while its call runs: every
        :data:`LOOK_EVERY` seconds one timer of the pool looks at the flags of every running call
        (:meth:`_look`), and stops once none runs (a timer per call cost a cheap request more of the
        event loop's time than the look)."""
        self._watched[slot] = flag
        if self._looking is None:
            self._looking = loop.call_later(LOOK_EVERY, self._look, loop)

    def _look(self, loop) -> None:
        for slot, flag in self._watched.items():
            if flag.cancelled():
                self._flags[slot] = 1
        self._looking = loop.call_later(LOOK_EVERY, self._look, loop) if self._watched else None

    def close(self) -> None:
        """Stop the workers now (the service is shutting down): an analysis in progress is
        killed, not waited for, so that the server exits within seconds whatever they compute."""
        for slot in range(self.workers):
            self._unread(slot)
            self._drop(slot)
        self._lanes.reset()  # the event loop's thread gets every core back


def _log_failed_start(start: asyncio.Future) -> None:
    """A worker started ahead of need failed to start: logged (its slot's first request tries again)."""
    if not start.cancelled() and start.exception() is not None:
        log.warning("a quick worker failed to start: %s", start.exception())


def _kill_all(procs: list) -> None:
    """Kill every worker in ``procs`` (a pool's per-slot list) and close its pipe."""
    for slot, held in enumerate(procs):
        procs[slot] = None
        if held is None:
            continue
        proc, conn = held
        try:
            proc.kill()
            proc.join(5)
        except (OSError, ValueError, AttributeError, AssertionError):
            pass
        conn.close()
