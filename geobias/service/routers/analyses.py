"""The analyses: one ``POST /{name}`` route per quick command of the command layer, generated
from the registry (body validated by the command's own parameter model, the envelope answered),
and ``GET /commands``, the catalogue."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from geobias._progress import CancelFlag
from geobias.commands import Command, commands
from geobias.errors import Cancelled
from geobias.service import http
from geobias.service.guard import client_gone

log = logging.getLogger("geobias.service")

router = APIRouter(tags=["analyses"])
#: Each quick route's path and handler (``POST /{kind}``), which :class:`QuickDoor` calls directly.
QUICK: dict[str, Callable[[Request], Awaitable[Response]]] = {}


@router.get("/commands")
def list_commands() -> dict[str, Any]:
    """Every command: whether it is a quick route or a job kind, and its parameters' JSON schema."""
    return {"commands": [{"name": c.name, "kind": c.kind, "summary": c.summary, "quick": c.quick, "job": c.job,
                          "parameters": c.params.model_json_schema()}
                         for c in commands() if c.quick or c.job]}


async def answer(request: Request, cmd: Command, body: dict[str, Any], timing: dict[str, float],
                 client: str | None = None) -> bytes | None:
    """Run quick command ``cmd`` on ``body`` for ``request``'s client (admission, a quick worker, the
    client's leaving watched); its envelope as the JSON the route answers, or ``None`` when the client
    went away and the analysis was stopped. ``timing`` receives where the time went; ``client``, the
    request's :func:`~geobias.service.http.client_key` where the caller has it."""
    from geobias.service.commands import run_quick

    if client is None:
        client = http.client_key(request)
    config, stores, redact = http.config(request), http.stores(request), request.app.state.redact
    flag = CancelFlag()

    async def watch() -> None:  # the client left: stop the work at its next check
        await client_gone(request.receive)
        flag.cancel()

    try:
        return await request.app.state.admission.run_command(
            cmd.name, body, flag, watch=watch, client=client, timing=timing,
            fallback=lambda: redact.json(run_quick(config, stores, cmd.name, body, progress=flag)))
    except Cancelled:
        if not flag.cancelled():
            raise
        rid = getattr(request.state, "request_id", "-")
        log.info("%s stopped: the client went away (request id %s)", cmd.kind, rid)
        return None


def server_timing(timing: dict[str, float]) -> str:
    """Where a quick request's time went (``Server-Timing``, W3C): waiting for a slot, in the slot,
    and of that the worker's own clock and CPU time (a worker process; the thread's otherwise)."""
    spent = f"queue;dur={1e3 * timing.get('wait', 0):.1f}, run;dur={1e3 * timing.get('run', 0):.1f}"
    if "compute" in timing:
        spent += f", compute;dur={1e3 * timing['compute']:.1f}, cpu;dur={1e3 * timing['cpu']:.1f}"
    return spent


class JsonBytes(Response):
    """A quick route's answer: ``body``, JSON already encoded, with its ``Server-Timing``; the same
    status, headers (in the same order) and body as ``Response(body, media_type="application/json",
    headers={"Server-Timing": timing})``, made without Starlette's general header building (which
    lowercases, encodes and searches the given headers for each answer)."""

    media_type = "application/json"

    def __init__(self, body: bytes, timing: str):
        self.status_code, self.background, self.body = 200, None, body
        self.raw_headers = [(b"server-timing", timing.encode("latin-1")),
                            (b"content-length", str(len(body)).encode("latin-1")),
                            (b"content-type", b"application/json")]


def _quick_route(cmd: Command) -> None:
    """``POST /{kind}``: validate the body with the command's parameter model, run it on the open
    stores in a quick worker process (at most ``quick_workers`` at once, first come first served:
    :class:`~geobias.service.http.Admission`, :mod:`geobias.service.quick`),
    answer the envelope (the same ``result`` as ``geobias {name} --json``, server paths redacted). A
    client that disconnects stops its analysis (waiting or running) at the next cancel check.

    The worker answers the envelope already encoded and redacted
    (:meth:`~geobias.service.redact.Redactor.json`), which the route sends as it is: the event loop,
    which every request shares, neither decodes nor walks nor encodes a result."""
    async def route(request: Request) -> Any:
        client = http.client_key(request)
        request.app.state.admission.check(client)  # past its share: refused before parsing
        body = await http.json_body(request, cmd.params)  # the size caps, before the model runs
        timing: dict[str, float] = {}
        result = await answer(request, cmd, body, timing, client)
        if result is None:
            return http.error(499, "ClientClosedRequest", "the client closed the connection; the analysis was stopped")
        return JsonBytes(result, server_timing(timing))

    QUICK[f"/{cmd.kind}"] = route
    router.add_api_route(f"/{cmd.kind}", route, methods=["POST"], name=cmd.kind, summary=cmd.summary,
                         description=f"``geobias {cmd.name}``. {cmd.params.__doc__ or ''}",
                         openapi_extra=http.body_schema(cmd.params.model_json_schema(mode="validation")))


for _cmd in commands():
    if _cmd.quick:
        _quick_route(_cmd)


class QuickDoor:
    """Pure ASGI in front of the FastAPI app ``app``: ``POST`` to a quick route's path goes straight
    to its handler (:data:`QUICK`), everything else to ``app``.

    A quick request is the service's cheapest and most frequent, and FastAPI's way to its handler
    cost about as much CPU as the handler itself (its error and telemetry middleware, matching the
    path against every route, solving the handler's dependencies: a fifth of the event loop's time
    per ``/neighbors`` in a profile). The handler reads nothing FastAPI adds (it takes the
    :class:`~starlette.requests.Request` and answers a :class:`~starlette.responses.Response`), and an
    exception it raises is answered by the handler ``app`` registered for the nearest class in its
    MRO (the ``Exception`` one for a bug), as FastAPI's middleware would: the same status, body and
    headers. The route stays registered with ``app`` (the OpenAPI document, and any method or path
    this door passes on: a ``GET``, a trailing slash)."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        handler = QUICK.get(scope.get("path", "")) if scope["type"] == "http" and scope["method"] == "POST" else None
        if handler is None or scope.get("root_path"):
            return await self.app(scope, receive, send)
        scope["app"] = self.app  # ``request.app``: the state the handler reads
        request = Request(scope, receive)
        try:
            response = await handler(request)
        except Exception as exc:
            response = await self._handler_for(exc)(request, exc)
        await response(scope, receive, send)

    def _handler_for(self, exc: Exception):
        handlers = self.app.exception_handlers
        return next(handlers[cls] for cls in type(exc).__mro__ if cls in handlers)
