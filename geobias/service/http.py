"""What every route of the service shares: the one error shape, the JSON body reader, the
headers of HTML pages, and access to the application's configuration, stores and jobs."""

from __future__ import annotations

import json
import re
from typing import Any

from fastapi import Request
from fastapi.responses import JSONResponse

from geobias.errors import GeobiasError, ParameterError

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
    for status, text in ((400, "Bad input (the message says what)"), (401, "Missing or wrong bearer token"),
                         (404, "No such store, job or route"), (405, "Method not allowed"),
                         (403, "Cross-origin request refused"),
                         (408, "The request body did not arrive in time"),
                         (409, "Name taken, or job already finished"), (413, "Body or upload too large"),
                         (415, "A body that is not application/json"),
                         (422, "A parameter of the wrong type, out of range or above a cap; a word out of vocabulary"),
                         (429, "Job queue full"), (503, "Too many quick analyses waiting; retry after Retry-After seconds"))
}


def error(status: int, type_: str, message: str, headers: dict | None = None,
          request_id: str | None = None) -> JSONResponse:
    """The one error shape: ``{"error": {"type", "message"}}`` with a one-line message (and, for
    an internal error, ``request_id``, which names the log line that holds the details)."""
    one_line = " ".join(str(message).split()) or type_
    body: dict[str, Any] = {"type": type_, "message": one_line}
    if request_id is not None:
        body["request_id"] = request_id
    return JSONResponse({"error": body}, status_code=status, headers=headers)


class Busy(GeobiasError):
    """Every quick-analysis slot is taken and the wait queue is full (HTTP 503 + ``Retry-After``)."""

    retry_after = 1


class Admission:
    """At most ``workers`` quick analyses compute at once; up to ``max_waiting`` more wait for a
    slot, first come first served; past that a request gets :class:`Busy`.

    With a ``pool`` (:class:`~geobias.service.quick.QuickPool`, the service's default) the
    analyses run in its ``workers`` processes; without one, in threads of this process (a
    capacity limiter on the threads they run in). Either way Starlette's thread pool of 40 never
    runs them all at once: CPU-bound threads contending for one interpreter lock do less work per
    CPU second as they multiply.
    """

    def __init__(self, workers: int, max_waiting: int, pool=None):
        self.workers, self.max_waiting = workers, max_waiting
        self.pool = pool
        self.in_flight = 0
        self._limiter = None

    async def run(self, fn, *, watch=None):
        """``fn()`` in a worker thread once a slot is free.

        ``watch``, an async callable, runs beside it from admission on (waiting included) and is
        cancelled when ``fn`` returns: a quick route watches for its client leaving and sets the
        run's cancel flag (:class:`geobias._progress.CancelFlag`), so the work stops at its next
        check and the slot is freed.

        Raises
        ------
        Busy
            ``workers + max_waiting`` requests are already admitted.
        """
        import anyio

        return await self._admit(lambda: anyio.to_thread.run_sync(fn, limiter=self._limiter), watch)

    async def run_command(self, name: str, body: dict[str, Any], flag, *, fallback, watch=None):
        """The quick command ``name`` on ``body`` once a slot is free: in the pool's processes,
        or ``fallback()`` in a thread when there is no pool. ``flag`` and ``watch`` as in :meth:`run`.

        Raises
        ------
        Busy
            ``workers + max_waiting`` requests are already admitted.
        """
        if self.pool is None:
            return await self.run(fallback, watch=watch)

        async def call():
            async with self._limiter:  # first come, first served
                flag.check_cancelled()  # its client left while it waited
                return await self.pool.run(name, body, flag)

        return await self._admit(call, watch)

    async def _admit(self, call, watch):
        import anyio

        if self._limiter is None:  # created in the event loop, on first use
            self._limiter = anyio.CapacityLimiter(self.workers)
        if self.in_flight >= self.workers + self.max_waiting:
            raise Busy(f"{self.in_flight} quick analyses are running or waiting (the limit is "
                       f"{self.workers} + {self.max_waiting} waiting); retry shortly, or submit it as a job")
        self.in_flight += 1
        try:
            if watch is None:
                return await call()
            failure = None
            async with anyio.create_task_group() as tg:
                tg.start_soon(watch)
                try:
                    result = await call()
                except Exception as exc:  # noqa: BLE001 - raised below, not wrapped in the group's ExceptionGroup
                    failure = exc
                finally:
                    tg.cancel_scope.cancel()
            if failure is not None:
                raise failure
            return result
        finally:
            self.in_flight -= 1

    def close(self) -> None:
        """Stop the pool's processes, if any."""
        if self.pool is not None:
            self.pool.close()


class UnsupportedMediaType(GeobiasError):
    """A state-changing JSON route got another media type (HTTP 415)."""


async def json_body(request: Request, model=None) -> dict[str, Any]:
    """The request body as a JSON object (an empty body is ``{}``), checked against the
    service's size caps before anything else reads it (:func:`geobias.service.limits.check_body`;
    ``model``, a parameter model class, names the fields whose comma lists are counted too).

    Raises
    ------
    UnsupportedMediaType
        A non-empty body whose ``Content-Type`` is not JSON (HTTP 415).
    ParameterError
        Not JSON, not an object, nested too deeply, or above a size cap (HTTP 422).
    """
    from geobias.service.limits import MAX_DEPTH, check_body

    raw = await request.body()
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if raw.strip() and not (ctype == "application/json" or ctype.endswith("+json")):
        # a form or text/plain body is what a cross-origin page can send without a preflight
        raise UnsupportedMediaType(f"the body must be application/json; got {ctype or 'no Content-Type'}")
    try:
        body = json.loads(raw or b"{}")
    except ValueError as exc:
        raise ParameterError(f"the body is not valid JSON: {exc}") from None
    except RecursionError:  # the parser's own stack: far deeper than any body we read
        raise ParameterError(f"the body is nested more than {MAX_DEPTH} levels deep") from None
    if not isinstance(body, dict):
        raise ParameterError("the body must be a JSON object")
    check_body(request.app.state.config, body, model)
    return body


def body_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """``openapi_extra`` documenting a JSON body with ``schema`` (routes that validate it themselves);
    the schema's own ``$defs`` are inlined, since the document has no place for them."""
    return {"requestBody": {"required": True, "content": {"application/json": {"schema": inline_defs(schema)}}}}


def inline_defs(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with every ``{"$ref": "#/$defs/X"}`` replaced by the definition (no recursion in ours)."""
    defs = schema.get("$defs", {})

    def walk(node):
        if isinstance(node, dict):
            ref = node.get("$ref", "")
            if ref.startswith("#/$defs/"):
                return walk(defs[ref.split("/")[-1]])
            return {k: walk(v) for k, v in node.items() if k != "$defs"}
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    return walk(schema)


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
