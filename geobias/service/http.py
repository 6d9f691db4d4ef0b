"""What every route of the service shares: the one error shape, the JSON body reader, the
headers of HTML pages, and access to the application's configuration, stores and jobs."""

from __future__ import annotations

import json
import re
from typing import Any

from fastapi import Request
from fastapi.responses import JSONResponse

from geobias.errors import GeobiasError, ParameterError
from geobias.service.limits import inline_defs  # noqa: F401  (the routes' body_schema; re-exported)

# The pages are plain HTML with inline CSS and data: images: nothing else may load or run.
PAGE_HEADERS = {"Content-Security-Policy": "default-src 'none'; img-src data:; style-src 'unsafe-inline'; "
                "frame-ancestors 'none'", "X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY"}


#: The error body of every 4xx and 5xx answer, for the OpenAPI description of every route.
ERROR_SCHEMA = {"type": "object", "required": ["error"], "additionalProperties": False, "properties": {
    "error": {"type": "object", "required": ["type", "message"], "additionalProperties": False,
              "properties": {"type": {"type": "string"}, "message": {"type": "string"},
                             "request_id": {"type": "string"}}}}}
ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    status: {"description": text, "content": {"application/json": {"schema": ERROR_SCHEMA}}}
    for status, text in ((400, "Input the schema allows that this service's data refuses (the message says what): "
                               "words the store does not hold, a word set that loses too many of its words to the "
                               "store's vocabulary, a file or dictionary that holds no usable entries"),
                         (401, "Missing or wrong bearer token"),
                         (404, "No such store, job or route"), (405, "Method not allowed"),
                         (403, "Cross-origin request refused"),
                         (408, "The request body did not arrive in time"),
                         (409, "Name taken, or job already finished"), (413, "Body or upload too large"),
                         (415, "A body that is not application/json"),
                         (422, "A request the schema refuses: a parameter of the wrong type, out of range or above a cap; "
                               "a rule across parameters"),
                         (429, "Job queue full, or this client's share of quick analyses taken (Retry-After)"),
                         (503, "Too many quick analyses waiting; retry after Retry-After seconds"))
}


#: The longest run of non-space characters (a word, a value) an error message quotes in full.
MAX_QUOTED = 64
#: The longest error message.
MAX_MESSAGE = 2000
_LONG_RUN = re.compile(rf"\S{{{MAX_QUOTED + 1},}}")


def _bounded(message: str) -> str:
    """``message`` with every run of more than :data:`MAX_QUOTED` non-space characters cut to its
    first :data:`MAX_QUOTED` and "…", and at most :data:`MAX_MESSAGE` characters in all: an
    answer never echoes an 800,000-character word back.

    >>> _bounded("word 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' not found")
    "word 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa… not found"
    """
    message = _LONG_RUN.sub(lambda m: m.group()[:MAX_QUOTED] + "…", message)
    return message if len(message) <= MAX_MESSAGE else message[: MAX_MESSAGE - 1] + "…"


def error(status: int, type_: str, message: str, headers: dict | None = None,
          request_id: str | None = None) -> JSONResponse:
    """The one error shape: ``{"error": {"type", "message"}}`` with a one-line message (and, for
    an internal error, ``request_id``, which names the log line that holds the details)."""
    one_line = _bounded(" ".join(str(message).split()) or type_)
    body: dict[str, Any] = {"type": type_, "message": one_line}
    if request_id is not None:
        body["request_id"] = request_id
    return JSONResponse({"error": body}, status_code=status, headers=headers)


class Busy(GeobiasError):
    """Every quick-analysis slot is taken and the wait queue is full (HTTP 503 + ``Retry-After``)."""

    retry_after = 1


class TooManyRequests(GeobiasError):
    """This client already has its share of quick analyses running and waiting (HTTP 429 +
    ``Retry-After``: about the time its own admitted work needs to drain)."""

    def __init__(self, message: str, retry_after: int = 1):
        super().__init__(message)
        self.retry_after = retry_after


#: Seconds a quick request runs (waiting included) before the watch for its client leaving starts
#: (:meth:`Admission.run`): a client that leaves sooner stops its analysis no later than this after.
WATCH_AFTER = 0.02


class Admission:
    """The admission of quick analyses: at most ``workers`` compute at once, up to
    ``max_waiting`` more wait for a slot, and past that a request gets :class:`Busy`.

    Per client (:func:`client_key`: the address, with the token's digest where the server has
    one): at most ``client_slots`` of its analyses compute at once and at most ``client_waiting``
    more wait; past that the client gets :class:`TooManyRequests` (429) while other clients are
    served as usual. A free slot goes round-robin across the clients that wait, first come first
    served within each client: to the waiting client served least recently, a client never served
    (or not since every waiting client was) first. So a client that arrives later waits behind no
    client just served, one client at its cap delays another's analysis by at most the remainder
    of one running analysis, and, with ``client_slots < workers`` (the default where there are two
    slots or more), not at all while a slot is free.

    With a ``pool`` (:class:`~geobias.service.quick.QuickPool`, the service's default) the
    analyses run in its ``workers`` processes; without one, in threads of this process (CPU-bound
    threads contending for one interpreter lock do less work per CPU second as they multiply, so
    Starlette's thread pool of 40 never runs them all at once).
    """

    def __init__(self, workers: int, max_waiting: int, pool=None, *, client_slots: int | None = None,
                 client_waiting: int | None = None):
        self.workers, self.max_waiting = workers, max_waiting
        self.client_slots = client_slots or max(1, workers - 1)
        self.client_waiting = max_waiting if client_waiting is None else client_waiting
        self.pool = pool
        self.in_flight = 0  # running and waiting, every client
        self.running = 0
        self._running_by: dict[str, int] = {}
        self._admitted_by: dict[str, int] = {}
        self._queues: dict[str, list] = {}  # client → waiting futures, oldest first; dict order: first come
        self._served: dict[str, int] = {}  # client → the serial number of its latest start (the round's order)
        self._serial = 0
        self._started_by: dict[str, list[float]] = {}  # client → start times of its running analyses
        self._seconds = 0.5  # moving mean of an analysis's duration (for Retry-After)

    async def run(self, fn, *, watch=None, client: str = "-", flag=None, timing: dict | None = None):
        """``fn()`` in a worker thread once a slot is free.

        ``watch``, an async callable, runs beside it once the request has been admitted for
        :data:`WATCH_AFTER` seconds (waiting included) and is cancelled when ``fn`` returns: a quick
        route watches for its client leaving and sets the run's cancel flag ``flag``
        (:class:`geobias._progress.CancelFlag`), so a waiting request leaves the queue and a running
        one stops at its next check; the slot is freed.
        ``timing``, a dict, receives ``wait`` and ``run`` (seconds in the queue, in the slot).

        Raises
        ------
        Busy
            ``workers + max_waiting`` requests are already admitted.
        TooManyRequests
            ``client`` already has ``client_slots + client_waiting`` requests admitted.
        """
        import anyio

        async def in_thread():
            try:  # a cancelled request (its server stopping) returns at once; the flag stops the thread's work
                return await anyio.to_thread.run_sync(fn, abandon_on_cancel=True)
            except BaseException:
                if flag is not None:
                    flag.cancel()
                raise

        return await self._admit(in_thread, watch, client, flag, timing)

    async def run_command(self, name: str, body: dict[str, Any], flag, *, fallback, watch=None, client: str = "-",
                          timing: dict | None = None):
        """The quick command ``name`` on ``body`` once a slot is free: in the pool's processes,
        or ``fallback()`` in a thread when there is no pool. ``flag``, ``watch``, ``client`` and
        ``timing`` as in :meth:`run`.

        Raises
        ------
        Busy, TooManyRequests
            As :meth:`run`.
        """
        if self.pool is None:
            return await self.run(fallback, watch=watch, client=client, flag=flag, timing=timing)
        return await self._admit(lambda: self.pool.run(name, body, flag, timing), watch, client, flag, timing)

    # ------------------------------------------------------------------ slots
    def _may_start(self, client: str) -> bool:
        return self.running < self.workers and self._running_by.get(client, 0) < self.client_slots

    def _start(self, client: str) -> None:
        self.running += 1
        self._running_by[client] = self._running_by.get(client, 0) + 1
        self._serial += 1
        self._served[client] = self._serial

    async def _acquire(self, client: str, flag) -> None:
        import asyncio

        from geobias.errors import Cancelled

        if not self._queues.get(client) and self._may_start(client) and not self._others_first(client):
            self._start(client)
            return
        fut = asyncio.get_running_loop().create_future()
        self._queues.setdefault(client, []).append(fut)
        try:
            while not fut.done():
                await asyncio.wait({fut}, timeout=0.1)
                if flag is not None and flag.cancelled() and not fut.done():
                    raise Cancelled("the client went away while its analysis waited")
        except BaseException:
            if fut.done() and not fut.cancelled():
                self._release(client)  # the slot was handed over as we left: pass it on
            else:
                fut.cancel()
                queue = self._queues.get(client)
                if queue is not None and fut in queue:
                    queue.remove(fut)
                    if not queue:
                        del self._queues[client]
            raise

    def _others_first(self, client: str) -> bool:
        """Another client waits and could take the free slot (it is its turn, not ours)."""
        return any(c != client and q and self._running_by.get(c, 0) < self.client_slots
                   for c, q in self._queues.items())

    def _release(self, client: str) -> None:
        self.running -= 1
        left = self._running_by.get(client, 1) - 1
        if left:
            self._running_by[client] = left
        else:
            self._running_by.pop(client, None)
        self._dispatch()

    def _dispatch(self) -> None:
        """Hand free slots to waiting clients, round-robin: the eligible client served least
        recently gets one (a client never served first, first come first served among them) and
        goes to the end of the round."""
        while self.running < self.workers:
            eligible = [c for c, q in self._queues.items() if q and self._running_by.get(c, 0) < self.client_slots]
            if not eligible:
                break
            chosen = min(eligible, key=lambda c: self._served.get(c, 0))  # min keeps the first of equals
            queue = self._queues[chosen]
            fut = queue.pop(0)
            if not queue:
                del self._queues[chosen]
            if fut.done():
                continue
            self._start(chosen)
            fut.set_result(None)
        self._forget()

    def _forget(self) -> None:
        """Drop the serial of each client with nothing admitted that was served before every client
        with something admitted: it would come first among them as a client never served does, and
        so after no one it came before (the map holds no more clients than matter to the round)."""
        oldest = min((self._served.get(c, 0) for c in self._admitted_by), default=self._serial + 1)
        for c in [c for c, n in self._served.items() if n < oldest and c not in self._admitted_by]:
            del self._served[c]

    def check(self, client: str = "-") -> None:
        """Refuse now, before the body is parsed, a request that would be refused at admission.

        Raises
        ------
        Busy, TooManyRequests
            As :meth:`run`.
        """
        import math
        import time

        if self.in_flight >= self.workers + self.max_waiting:
            raise Busy(f"{self.in_flight} quick analyses are running or waiting (the limit is "
                       f"{self.workers} + {self.max_waiting} waiting); retry shortly, or submit it as a job")
        mine = self._admitted_by.get(client, 0)
        if mine >= self.client_slots + self.client_waiting:
            # about the time this client's own admitted work needs: its analyses so far take at
            # least as long as the oldest one running has been running
            now = time.perf_counter()
            longest = max((now - t for t in self._started_by.get(client, ())), default=0.0)
            wait = max(1, math.ceil(max(self._seconds, longest) * mine / self.client_slots))
            raise TooManyRequests(f"you have {mine} quick analyses running or waiting (this service's share per "
                                  f"client is {self.client_slots} + {self.client_waiting} waiting); retry after "
                                  f"{wait} s, or submit it as a job", retry_after=wait)

    async def _admit(self, call, watch, client: str, flag, timing: dict | None = None):
        import asyncio
        import time

        self.check(client)
        mine = self._admitted_by.get(client, 0)
        self.in_flight += 1
        self._admitted_by[client] = mine + 1
        try:
            async def in_slot():
                arrived = time.perf_counter()
                await self._acquire(client, flag)
                started = time.perf_counter()
                self._started_by.setdefault(client, []).append(started)
                try:
                    if flag is not None:
                        flag.check_cancelled()  # its client left as the slot came
                    return await call()
                finally:
                    ran = time.perf_counter() - started
                    self._seconds = 0.8 * self._seconds + 0.2 * ran
                    if timing is not None:
                        timing.update(wait=started - arrived, run=ran)
                    mine_started = self._started_by.get(client, [])
                    mine_started.remove(started)
                    if not mine_started:
                        self._started_by.pop(client, None)
                    self._release(client)

            if watch is None:
                return await in_slot()
            # the watch as a plain task beside the call (an anyio task group per request cost the
            # event loop a tenth of a cheap request's time), started once the call has taken
            # WATCH_AFTER seconds (a cheap analysis is answered before then: a task made, run and
            # cancelled for it cost more of the event loop's time than the rest of its admission);
            # cancelled, and waited for, once the call returns
            watcher = None

            def start_watch() -> None:
                nonlocal watcher
                watcher = asyncio.ensure_future(watch())
                watcher.add_done_callback(_retrieve)

            timer = asyncio.get_running_loop().call_later(WATCH_AFTER, start_watch)
            try:
                return await in_slot()
            finally:
                timer.cancel()
                if watcher is not None:
                    watcher.cancel()
                    await asyncio.wait({watcher})
        finally:
            self.in_flight -= 1
            left = self._admitted_by.get(client, 1) - 1
            if left:
                self._admitted_by[client] = left
            else:
                self._admitted_by.pop(client, None)

    def close(self) -> None:
        """Stop the pool's processes, if any."""
        if self.pool is not None:
            self.pool.close()


def _retrieve(task) -> None:
    """A watch task's end: its exception, if any, logged as a bug would be (it never reaches a
    request: the watch only sets a cancel flag)."""
    if not task.cancelled() and task.exception() is not None:
        import logging

        logging.getLogger("geobias.service").error("a quick request's watch failed", exc_info=task.exception())


def client_key(request: Request) -> str:
    """Who a request is for fairness (:class:`Admission`, the job queue's shares): its peer
    address, marked ``token@`` where the server has a token.

    The key never hashes a header as sent: the guard has already compared the credential
    (``Authorization`` with its scheme in any case, or the login cookie) with the one token, so
    every request that gets here carries that same token, and ``Bearer T``, ``bearer  T``, the
    cookie or extra cookies beside it are one client, not several. Without a token, fairness is
    per address only: a local user can pick any source address in 127.0.0.0/8 and so take
    several shares; ``--token`` keeps such a user out altogether (docs/service.md, "Fairness")."""
    address = request.client.host if request.client else "-"
    return address if request.app.state.config.token is None else f"token@{address}"


class UnsupportedMediaType(GeobiasError):
    """A state-changing JSON route got another media type (HTTP 415)."""


async def json_body(request: Request, model=None, *, check: bool = True) -> dict[str, Any]:
    """The request body as a JSON object (an empty body is ``{}``), checked against the
    service's size caps before anything else reads it (:func:`geobias.service.limits.check_body`;
    ``model``, a parameter model class, names the fields whose comma lists are counted too).
    ``check=False`` leaves the caps to the caller, for a body whose model only its content names
    (``POST /jobs``: ``kind`` names it, and ``check_body`` then runs on ``params`` with that model).

    Raises
    ------
    UnsupportedMediaType
        A non-empty body whose ``Content-Type`` is not JSON (HTTP 415).
    ParameterError
        Not JSON, not an object, nested too deeply, or above a size cap (HTTP 422).
    """
    from geobias.service.limits import MAX_DEPTH, check_body  # noqa: I001

    raw = await request.body()
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if raw.strip() and not (ctype == "application/json" or ctype.endswith("+json")):
        # a form or text/plain body is what a cross-origin page can send without a preflight
        raise UnsupportedMediaType(f"the body must be application/json; got {ctype or 'no Content-Type'}")
    config = request.app.state.config
    passed = _PASSED.seen(config, model, raw) if check else False
    try:
        body = json.loads(raw or b"{}")
    except ValueError as exc:
        raise ParameterError(f"the body is not valid JSON: {exc}") from None
    except RecursionError:  # the parser's own stack: far deeper than any body we read
        raise ParameterError(f"the body is nested more than {MAX_DEPTH} levels deep") from None
    if passed:
        return body
    if not isinstance(body, dict):
        raise ParameterError("the body must be a JSON object")
    check_unicode(body)
    if check:
        check_body(config, body, model)
        _PASSED.add(config, model, raw)
    return body


class _Passed:
    """The latest :data:`SIZE` distinct request bodies (their bytes, at most :data:`LONGEST` of
    them) that passed :func:`json_body`'s checks, per configuration and parameter model: the checks
    are a pure function of the bytes, the configuration's caps and the model, so the same bytes pass
    again. Only the parsing is repeated (each request gets a body of its own); a body that was
    refused is checked, and refused, every time. The Unicode and size checks were a tenth of the
    event loop's time per cheap ``/neighbors`` request."""

    SIZE = 256
    LONGEST = 4096

    def __init__(self):
        # key → the configuration itself: held, so that its identity in the key is not reused
        self._held: dict[tuple[int, Any, bytes], Any] = {}

    def seen(self, config, model, raw: bytes) -> bool:
        return len(raw) <= self.LONGEST and self._held.get((id(config), model, raw)) is config

    def add(self, config, model, raw: bytes) -> None:
        if len(raw) > self.LONGEST:
            return
        if len(self._held) >= self.SIZE:
            self._held.pop(next(iter(self._held)))  # the oldest first
        self._held[(id(config), model, raw)] = config

    def clear(self) -> None:
        self._held.clear()


_PASSED = _Passed()


def check_unicode(body: Any) -> None:
    """Refuse a parsed body holding text that is not valid Unicode.

    JSON may escape a lone UTF-16 surrogate (``"\\ud800"``), and Python's parser also takes one
    UTF-8-encoded; either is a ``str`` no file, record or response can hold (encoding it raises).
    One pass of the encoder over the whole body finds any, in keys or values, at any depth.

    Raises
    ------
    ParameterError
        One line naming the first offending character's position (HTTP 422).
    """
    try:
        json.dumps(body, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as exc:
        bad = exc.object[exc.start : exc.start + 1]
        raise ParameterError(f"the body holds text that is not valid Unicode (a lone surrogate "
                             f"U+{ord(bad):04X}); send UTF-8 text") from None


class Contain:
    """ASGI middleware: an unexpected exception is answered by ``handler`` (the 500 envelope)
    here, before Starlette's outermost error middleware sees it; that middleware answers too but
    then re-raises to the server, which drops the connection. A keep-alive connection thus
    outlives a 500, as it does a 4xx (an exception after the answer started still propagates)."""

    def __init__(self, app, handler):
        self.app, self.handler = app, handler

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        started = False

        async def watched(message):
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, watched)
        except Exception as exc:
            if started:
                raise
            response = await self.handler(Request(scope, receive), exc)
            await response(scope, receive, send)


def body_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """``openapi_extra`` documenting a JSON body with ``schema`` (routes that validate it themselves);
    the schema's own ``$defs`` are inlined, since the document has no place for them."""
    return {"requestBody": {"required": True, "content": {"application/json": {"schema": inline_defs(schema)}}}}


def job_id(value: str) -> str:
    """``value`` if it has the shape of a job id.

    Raises
    ------
    JobNotFound
        Anything else (HTTP 404).
    """
    from geobias.service.jobs import JobNotFound

    if not re.fullmatch(r"[0-9a-f]{16}", value):
        raise JobNotFound(f"no job {value!r}")
    return value


def config(request: Request):
    """The service's :class:`~geobias.service.config.ServiceConfig`."""
    return request.app.state.config


def stores(request: Request):
    """The service's :class:`~geobias.service.stores.StoreManager`."""
    return request.app.state.stores


def jobs(request: Request):
    """The service's :class:`~geobias.service.jobs.JobManager`."""
    return request.app.state.jobs
