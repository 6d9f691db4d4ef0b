"""The FastAPI application: the routers (:mod:`geobias.service.routers`), the mapping of errors to
HTTP statuses (messages redacted of server paths; an internal error answered with its request id
only), the admission of quick analyses, and :class:`~geobias.service.guard.Guard` (host, origin,
token, body limits) around it all."""

from __future__ import annotations

import logging
import os
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from pydantic import ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect

from geobias.commands import WorkBudgetError
from geobias.errors import GeobiasError, ParameterError
from geobias.service.config import ServiceConfig
from geobias.service.guard import BodyTimeout, Guard
from geobias.service.http import (
    Admission,
    Busy,
    Contain,
    TooManyRequests,
    UnsupportedMediaType,
    error,
)
from geobias.service.jobs import JobConflict, JobManager, JobNotFound, QueueFull
from geobias.service.quick import QuickPool
from geobias.service.redact import Redactor
from geobias.service.stores import StoreExists, StoreManager, StoreNotFound, Verifier

log = logging.getLogger("geobias.service")

_STATUS = {StoreNotFound: 404, JobNotFound: 404, StoreExists: 409, JobConflict: 409, QueueFull: 429,
           UnsupportedMediaType: 415, ParameterError: 422, WorkBudgetError: 422}
_HTTP_TYPES = {400: "BadRequest", 401: "Unauthorized", 403: "Forbidden", 404: "NotFound", 405: "MethodNotAllowed",
               408: "RequestTimeout", 413: "PayloadTooLarge", 415: "UnsupportedMediaType", 422: "ValidationError",
               429: "QueueFull", 503: "Busy"}


def _validation_message(errors: list[dict[str, Any]]) -> str:
    parts = []
    for e in errors[:5]:
        loc = ".".join(str(x) for x in e.get("loc", ()) if x != "body") or "body"
        parts.append(f"{loc}: {e.get('msg')}")
    more = f" (+{len(errors) - 5} more)" if len(errors) > 5 else ""
    return "; ".join(parts) + more


def create_app(config: ServiceConfig) -> Guard:
    """The ASGI application of ``config``: FastAPI wrapped in :class:`Guard` (``.app`` is FastAPI)."""
    os.environ["GEOBIAS_VECTORS_DIR"] = str(config.vectors_dir)  # the library's named-store lookups
    config.data_dir.mkdir(parents=True, exist_ok=True)
    stores = StoreManager(config)
    jobs = JobManager(config, stores)

    verifier = Verifier(stores, config.verify_every)

    @asynccontextmanager
    async def lifespan(app):
        stores.cleanup_staging()
        jobs.start()
        verifier.start()  # every store re-hashed every config.verify_every seconds, in the background
        if config.prestart and app.state.admission.pool is not None:
            app.state.admission.pool.prestart()  # in threads: startup does not wait for them
        yield
        verifier.stop()
        app.state.admission.close()  # the quick analyses' worker processes
        jobs.stop()

    from geobias.service.http import ERROR_RESPONSES

    try:  # Swagger UI and ReDoc from the package's own files: /docs and /redoc work offline
        from fastapi_offline import FastAPIOffline as make_fastapi
    except ImportError:  # an older install of the serve extra: FastAPI's pages, which load a CDN
        make_fastapi = FastAPI
    app = make_fastapi(title="geobias", summary="Gender bias in the geometry of word representations",
                  version=_version(), lifespan=lifespan, responses=ERROR_RESPONSES)
    app.state.config, app.state.stores, app.state.jobs = config, stores, jobs
    app.state.verifier = verifier
    pool = None if config.quick_threads else QuickPool(config, config.quick_workers)
    app.state.admission = Admission(config.quick_workers, config.max_waiting, pool, client_slots=config.client_slots,
                                    client_waiting=config.client_waiting)
    redact = app.state.redact = Redactor(config)

    # ------------------------------------------------------------------ errors
    @app.exception_handler(GeobiasError)
    async def _geobias(request: Request, exc: GeobiasError):
        status = next((s for cls, s in _STATUS.items() if isinstance(exc, cls)), 400)
        # a parameter of the wrong type, range or choice: the one 422 shape, as for a malformed body
        name = "ValidationError" if isinstance(exc, ParameterError) else type(exc).__name__
        return error(status, name, redact.text(str(exc)))

    @app.exception_handler(TooManyRequests)
    async def _greedy(request: Request, exc: TooManyRequests):
        return error(429, "TooManyRequests", str(exc), headers={"Retry-After": str(exc.retry_after)})

    @app.exception_handler(ClientDisconnect)
    async def _gone(request: Request, exc: ClientDisconnect):
        # the body was cut mid-stream (an upload): nobody reads this answer; the log says 499
        return error(499, "ClientClosedRequest", "the client closed the connection before its body ended")

    @app.exception_handler(QueueFull)
    async def _queue_full(request: Request, exc: QueueFull):
        return error(429, "QueueFull", str(exc), headers={"Retry-After": str(exc.retry_after)})

    @app.exception_handler(Busy)
    async def _busy(request: Request, exc: Busy):
        return error(503, "Busy", str(exc), headers={"Retry-After": str(exc.retry_after)})

    @app.exception_handler(BodyTimeout)
    async def _slow_body(request: Request, exc: BodyTimeout):
        return error(408, "RequestTimeout", str(exc), headers={"Connection": "close"})

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError):
        return error(422, "ValidationError", redact.text(_validation_message(exc.errors())))

    @app.exception_handler(ValidationError)
    async def _invalid_params(request: Request, exc: ValidationError):
        return error(422, "ValidationError", redact.text(_validation_message(exc.errors())))

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException):
        # keep the exception's headers: a 405 lists the allowed methods (``Allow``), as HTTP requires:
        # those of every route of the path (Starlette names only the first route that matched it)
        headers = getattr(exc, "headers", None)
        if exc.status_code == 405:
            headers = {**(headers or {}), "Allow": ", ".join(_allowed_methods(app, request.scope))}
        return error(exc.status_code, _HTTP_TYPES.get(exc.status_code, "HTTPError"), redact.text(str(exc.detail)),
                     headers=headers)

    @app.exception_handler(Exception)
    async def _bug(request: Request, exc: Exception):
        # the details (which may name server paths) go to the log only; the client gets the id
        rid = getattr(request.state, "request_id", None) or "-"
        log.error("internal error in %s %s (request id %s)", request.method, request.url.path, rid, exc_info=exc)
        return error(500, "InternalError", f"internal error (a bug: please report it with request id {rid})",
                     request_id=rid)

    app.add_middleware(Contain, handler=_bug)  # a 500 keeps the connection open, as a 4xx does

    original_openapi = app.openapi

    def openapi():  # the document states what this service enforces (caps, patterns, codes)
        if app.openapi_schema is None:
            from geobias.commands import commands
            from geobias.service.limits import enrich_openapi

            app.openapi_schema = enrich_openapi(original_openapi(), config, commands())
        return app.openapi_schema

    app.openapi = openapi

    from geobias.service.routers import analyses, pages, webapp
    from geobias.service.routers import jobs as job_routes
    from geobias.service.routers import stores as store_routes

    for router in (store_routes.router, analyses.router, job_routes.router, pages.router, webapp.router):
        app.include_router(router)

    # the ASGI app: host, origin, token and body limits around FastAPI, quick routes answered directly
    return Guard(app, config, inner=analyses.QuickDoor(app))


def _allowed_methods(app, scope) -> list[str]:
    """The methods some route of ``scope``'s path answers (for ``Allow``), included routers too."""
    path = scope.get("path", "")

    def walk(routes, prefix: str):
        for route in routes:
            inner = getattr(route, "original_router", None) or getattr(route, "router", None)
            if inner is not None and not hasattr(route, "path_regex"):
                context = getattr(route, "include_context", None)
                yield from walk(inner.routes, prefix + (getattr(context, "prefix", "") or ""))
            else:
                yield prefix, route

    methods: set[str] = set()
    for prefix, route in walk(app.router.routes, ""):
        regex = getattr(route, "path_regex", None)
        if regex is not None and path.startswith(prefix) and regex.match(path[len(prefix):]):
            methods |= set(getattr(route, "methods", None) or ())
    return sorted(methods)


def _version() -> str:
    from geobias._version import __version__

    return __version__
