"""The FastAPI application: the routers (:mod:`geobias.service.routers`), the mapping of errors to
HTTP statuses, the body limits and the token."""

from __future__ import annotations

import hmac
import os
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from pydantic import ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from geobias.errors import GeobiasError, OutOfVocabularyError, ParameterError
from geobias.service.config import ServiceConfig
from geobias.service.http import error
from geobias.service.jobs import JobConflict, JobManager, JobNotFound, QueueFull
from geobias.service.stores import StoreExists, StoreManager, StoreNotFound

_STATUS = {StoreNotFound: 404, JobNotFound: 404, StoreExists: 409, JobConflict: 409, QueueFull: 429,
           OutOfVocabularyError: 422, ParameterError: 422}
_HTTP_TYPES = {400: "BadRequest", 401: "Unauthorized", 404: "NotFound", 405: "MethodNotAllowed",
               413: "PayloadTooLarge", 415: "UnsupportedMediaType", 422: "ValidationError", 429: "QueueFull"}


def _validation_message(errors: list[dict[str, Any]]) -> str:
    parts = []
    for e in errors[:5]:
        loc = ".".join(str(x) for x in e.get("loc", ()) if x != "body") or "body"
        parts.append(f"{loc}: {e.get('msg')}")
    more = f" (+{len(errors) - 5} more)" if len(errors) > 5 else ""
    return "; ".join(parts) + more


class Limits:
    """Pure ASGI middleware: bearer token, then request-body size limits (413).

    ``POST /stores`` (an upload) may carry ``max_upload_bytes``, which the route enforces while
    streaming; every other body is read here, up to ``max_body_bytes``, and replayed.
    """

    def __init__(self, app, config: ServiceConfig):
        self.app, self.config = app, config

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        if self.config.token is not None and not self._authorised(scope):
            return await error(401, "Unauthorized", "missing or wrong bearer token (Authorization: Bearer TOKEN)",
                               headers={"WWW-Authenticate": "Bearer"})(scope, receive, send)
        upload = scope["method"] == "POST" and scope["path"].rstrip("/") == "/stores"
        limit = self.config.max_upload_bytes if upload else self.config.max_body_bytes
        headers = dict(scope.get("headers") or [])
        declared = headers.get(b"content-length")
        if declared is not None:
            try:
                n = int(declared)
            except ValueError:
                return await error(400, "BadRequest", "invalid Content-Length")(scope, receive, send)
            if n > limit:
                return await error(413, "PayloadTooLarge", f"request body of {n:,} bytes exceeds this service's limit of {limit:,}")(scope, receive, send)
        if upload:
            return await self.app(scope, receive, send)
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                break
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                return await error(413, "PayloadTooLarge", f"request body exceeds this service's limit of {limit:,} bytes")(scope, receive, send)
            chunks.append(chunk)
            if not message.get("more_body"):
                break
        body = b"".join(chunks)
        sent = False

        async def replay():
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        return await self.app(scope, replay, send)

    def _authorised(self, scope) -> bool:
        headers = dict(scope.get("headers") or [])
        given = headers.get(b"authorization", b"").decode("latin-1")
        expected = f"Bearer {self.config.token}"
        return hmac.compare_digest(given.encode(), expected.encode())


def create_app(config: ServiceConfig) -> Limits:
    """The ASGI application of ``config``: FastAPI wrapped in :class:`Limits` (``.app`` is FastAPI)."""
    os.environ["GEOBIAS_VECTORS_DIR"] = str(config.vectors_dir)  # the library's named-store lookups
    config.data_dir.mkdir(parents=True, exist_ok=True)
    stores = StoreManager(config)
    jobs = JobManager(config, stores)

    @asynccontextmanager
    async def lifespan(app):
        stores.cleanup_staging()
        jobs.start()
        yield
        jobs.stop()

    from geobias.service.http import ERROR_RESPONSES

    app = FastAPI(title="geobias", summary="Gender bias in the geometry of word representations",
                  version=_version(), lifespan=lifespan, responses=ERROR_RESPONSES)
    app.state.config, app.state.stores, app.state.jobs = config, stores, jobs

    # ------------------------------------------------------------------ errors
    @app.exception_handler(GeobiasError)
    async def _geobias(request: Request, exc: GeobiasError):
        status = next((s for cls, s in _STATUS.items() if isinstance(exc, cls)), 400)
        # a parameter of the wrong type, range or choice: the one 422 shape, as for a malformed body
        name = "ValidationError" if isinstance(exc, ParameterError) else type(exc).__name__
        return error(status, name, str(exc))

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError):
        return error(422, "ValidationError", _validation_message(exc.errors()))

    @app.exception_handler(ValidationError)
    async def _invalid_params(request: Request, exc: ValidationError):
        return error(422, "ValidationError", _validation_message(exc.errors()))

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException):
        # keep the exception's headers: a 405 lists the allowed methods (``Allow``), as HTTP requires
        return error(exc.status_code, _HTTP_TYPES.get(exc.status_code, "HTTPError"), str(exc.detail),
                     headers=getattr(exc, "headers", None))

    @app.exception_handler(Exception)
    async def _bug(request: Request, exc: Exception):
        return error(500, "InternalError", f"{type(exc).__name__}: {exc} (a bug: please report it)")

    from geobias.service.routers import analyses, pages
    from geobias.service.routers import jobs as job_routes
    from geobias.service.routers import stores as store_routes

    for router in (store_routes.router, analyses.router, job_routes.router, pages.router):
        app.include_router(router)

    return Limits(app, config)  # the ASGI app: token and body limits around FastAPI


def _version() -> str:
    from geobias._version import __version__

    return __version__
