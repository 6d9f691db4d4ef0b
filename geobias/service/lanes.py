"""Core lanes: while a long quick analysis runs beside cheap ones, the two get separate cores.

A quick analysis that runs past :data:`geobias.service.quick.DEMOTE_AFTER` is lowered to the idle
scheduling class, so that any other thread takes its core at once. That is not enough on its
own: a core busy even with idle-class work is a busy core to what lies below the kernel (a
virtual machine's host deschedules a vCPU that never idles, a container's CPU quota is spent by
it), and the kernel still places a cheap request's wake-ups on it, treating a core that runs only
idle-class work as free. Measured on the 2-core development machine
(``benchmarks/bench_abuse.py``): a cheap ``/neighbors`` beside a permutation test at the cap had
a p99 2.1–2.6 × its p99 alone with the idle class and 4–5 × with ``nice`` 19; in the worst
cases the worker that was to answer was woken on the busy core and ran 4–13 ms later.

So while at least one analysis is long and another is running (cheap) or started within the
last :data:`HOLD` second, the cores this process may use are split in two (:func:`split`): the long analyses' threads get the first
part, the cheap analyses' worker processes and the server's event loop the other (at least one
core, half of them where there are more). Once only one kind runs, every process gets every
core again: an analysis alone on the service (a long one included) keeps all the cores.

:class:`Lanes` holds the state in shared memory, so that the server and each worker apply it:
the server when a slot is taken or freed, a worker when its analysis is lowered, each second
while it runs, and when it ends. Setting another process's affinity needs the same user only. Linux only; elsewhere
nothing is pinned.
"""

from __future__ import annotations

import os
import time

#: A slot's lane: every core, the long analyses' cores, the cheap analyses' cores.
ALL, LONG, CHEAP = 0, 1, 2
#: Seconds the lanes stay split after an analysis last started (each starts cheap).
HOLD = 1.0


def split(cores: set[int]) -> tuple[set[int], set[int]] | None:
    """``(long, cheap)``: the cores for long analyses and for everything else, or ``None`` where
    there are too few to split (one core).

    >>> split({0, 1})
    ({0}, {1})
    >>> split({0, 1, 2, 3, 4})
    ({0, 1, 2}, {3, 4})
    """
    if len(cores) < 2:
        return None
    ordered = sorted(cores)
    keep = max(1, len(ordered) // 2)
    return set(ordered[:-keep]), set(ordered[-keep:])


def assignment(busy: list[int], long: list[int], recent: bool = False) -> list[int]:
    """Each slot's lane and, last, the event loop's: ``LONG`` for a long analysis and ``CHEAP``
    for the rest while both kinds run, ``ALL`` otherwise. ``busy[i]``: slot ``i`` runs an
    analysis; ``long[i]``: that analysis has been lowered; ``recent``: an analysis started
    within the last :data:`HOLD` seconds (counts as one running: a client's next request
    follows its last within milliseconds, and the lanes should not flip between the two).

    >>> assignment([1, 1], [1, 0])
    [1, 2, 2]
    >>> assignment([1, 0], [1, 0])
    [0, 0, 0]
    >>> assignment([1, 0], [1, 0], recent=True)
    [1, 2, 2]
    """
    longs = [b and g for b, g in zip(busy, long, strict=True)]
    cheap = [b and not g for b, g in zip(busy, long, strict=True)]
    if not (any(longs) and (any(cheap) or recent)):
        return [ALL] * (len(busy) + 1)
    return [LONG if g else CHEAP for g in longs] + [CHEAP]


class Lanes:
    """The shared state of a pool's lanes: per slot whether it is busy and whether its analysis
    is long, the worker's pid, the lane each process was last given; made in the server, passed
    to each worker (whose ``slot`` is set there).

    Parameters
    ----------
    ctx
        The multiprocessing context the workers start from.
    workers : int
        Slots in the pool.
    The server's event loop records its thread with :meth:`serving` (from that thread).
    """

    def __init__(self, ctx, workers: int):
        self.workers = workers
        self.busy = ctx.RawArray("b", workers)
        self.long = ctx.RawArray("b", workers)
        self.pids = ctx.RawArray("i", workers + 1)
        self.given = ctx.RawArray("b", workers + 1)
        self.lock = ctx.Lock()
        self.cheap_seen = ctx.RawValue("d", 0.0)  # time.monotonic() when an analysis last started
        try:
            self.every = os.sched_getaffinity(0)
        except (OSError, AttributeError):
            self.every = set()
        self.cores = split(self.every)

    def set(self, array, slot: int, value: int, wait: float = 0.05) -> None:
        """``array[slot] = value`` (``array``: :attr:`busy` or :attr:`long`), then the lanes it
        implies applied (``wait`` as in :meth:`apply`)."""
        array[slot] = value
        if array is self.busy and value:  # every analysis starts cheap
            self.cheap_seen.value = time.monotonic()
        self.apply(wait)

    def apply(self, wait: float = 0.05) -> None:
        """Give each process the cores of its lane where that changed (see the module docstring).
        Another process applying them at the moment is waited for at most ``wait`` seconds (the
        server's event loop passes 0 and leaves it to that one and the next change)."""
        if self.cores is None or (not any(self.long) and not any(self.given)):
            return  # no analysis is long and every process has every core: nothing to change (no lock taken)
        if not self.lock.acquire(timeout=wait):
            return
        try:
            recent = time.monotonic() - self.cheap_seen.value < HOLD
            wanted = assignment(list(self.busy), list(self.long), recent)
            for index, lane in enumerate(wanted):
                pid = self.pids[index]
                if pid <= 0 or self.given[index] == lane:
                    continue
                cores = self.every if lane == ALL else self.cores[0] if lane == LONG else self.cores[1]
                # the server: its event loop's thread alone; a worker: every thread it has
                tids = [pid] if index == self.workers else threads_of(pid)
                for tid in tids:
                    try:
                        os.sched_setaffinity(tid, cores)
                    except OSError:  # the thread or process has ended
                        pass
                self.given[index] = lane
        finally:
            self.lock.release()

    def serving(self) -> None:
        """Record the calling thread as the server's event loop (once)."""
        if self.pids[self.workers] == 0:
            self.pids[self.workers] = _thread_id()

    def reset(self) -> None:
        """Every process to every core (the pool is closing)."""
        for slot in range(self.workers):
            self.busy[slot] = self.long[slot] = 0
        self.apply()

    def started(self, slot: int, pid: int) -> None:
        """Slot ``slot`` has a new worker, ``pid``: it has every core until the lanes say otherwise."""
        self.pids[slot] = pid
        self.given[slot] = ALL
        self.long[slot] = 0


def _thread_id() -> int:
    import threading

    return threading.get_native_id()


def threads_of(pid: int) -> list[int]:
    """The thread ids of process ``pid`` (Linux; empty elsewhere or once it has ended)."""
    try:
        return [int(t) for t in os.listdir(f"/proc/{pid}/task")]
    except OSError:
        return []
