"""The FastAPI application: routes per resource, the one error shape, limits and the token."""

from __future__ import annotations

import hmac
import os
import re
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse
from pydantic import ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from geobias.errors import GeobiasError, OutOfVocabularyError, ParameterError
from geobias.service.config import ServiceConfig, check_name
from geobias.service.jobs import JobConflict, JobManager, JobNotFound, QueueFull
from geobias.service.stores import StoreExists, StoreManager, StoreNotFound, sha256_of

_STATUS = {StoreNotFound: 404, JobNotFound: 404, StoreExists: 409, JobConflict: 409, QueueFull: 429,
           OutOfVocabularyError: 422, ParameterError: 422}
# The pages are plain HTML with inline CSS and data: images: nothing else may load or run.
_PAGE_HEADERS = {"Content-Security-Policy": "default-src 'none'; img-src data:; style-src 'unsafe-inline'",
                 "X-Content-Type-Options": "nosniff"}
_HTTP_TYPES = {400: "BadRequest", 401: "Unauthorized", 404: "NotFound", 405: "MethodNotAllowed",
               413: "PayloadTooLarge", 415: "UnsupportedMediaType", 422: "ValidationError", 429: "QueueFull"}


def error(status: int, type_: str, message: str, headers: dict | None = None) -> JSONResponse:
    one_line = " ".join(str(message).split()) or type_
    return JSONResponse({"error": {"type": type_, "message": one_line}}, status_code=status, headers=headers)


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

    app = FastAPI(title="geobias", summary="Gender bias in the geometry of word representations",
                  version=_version(), lifespan=lifespan)
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
        return error(exc.status_code, _HTTP_TYPES.get(exc.status_code, "HTTPError"), str(exc.detail))

    @app.exception_handler(Exception)
    async def _bug(request: Request, exc: Exception):
        return error(500, "InternalError", f"{type(exc).__name__}: {exc} (a bug: please report it)")

    # ------------------------------------------------------------------ stores
    @app.get("/stores", tags=["stores"])
    def list_stores() -> dict[str, Any]:
        """Installed registry sources, saved and uploaded stores, then registry sources not installed."""
        return {"stores": stores.listing()}

    @app.get("/stores/{name}", tags=["stores"])
    def get_store(name: str) -> dict[str, Any]:
        return stores.describe(name)

    @app.post("/stores", status_code=201, tags=["stores"])
    async def upload_store(request: Request, name: str, lang: str | None = None, format: str = "auto",
                           filename: str | None = None) -> dict[str, Any]:
        """Upload a vector file as the body (``curl --data-binary @file``) or as the ``file`` field
        of a multipart form; it is streamed to disk, read by the library's readers and saved
        atomically as store ``name``."""
        import anyio

        check_name(name)
        if (config.vectors_dir / name).exists():
            raise StoreExists(f"a store named {name!r} already exists; choose another name")
        staged = stores.staging_dir()
        try:
            target = staged / "upload"
            size = 0
            ctype = request.headers.get("content-type", "")
            if ctype.startswith("multipart/form-data"):
                form = await request.form(max_files=1, max_fields=10)
                part = form.get("file")
                if part is None or isinstance(part, str):
                    raise GeobiasError("multipart upload without a 'file' part")
                filename = filename or part.filename
                with open(target, "wb") as fh:
                    while chunk := await part.read(1 << 20):
                        size += len(chunk)
                        if size > config.max_upload_bytes:
                            return _too_large(config)
                        fh.write(chunk)
                await form.close()
            else:
                with open(target, "wb") as fh:
                    async for chunk in request.stream():
                        size += len(chunk)
                        if size > config.max_upload_bytes:
                            return _too_large(config)
                        fh.write(chunk)
            shown = re.sub(r"[^\w.\-]", "_", filename or f"upload of {name}")[:100] or "upload"
            digest = await anyio.to_thread.run_sync(sha256_of, target)
            desc = await anyio.to_thread.run_sync(
                lambda: stores.save_upload(staged, name, shown, lang=lang, fmt=format, sha256=digest))
            return desc
        finally:
            import shutil

            shutil.rmtree(staged, ignore_errors=True)

    # ------------------------------------------------------------------ quick analyses and jobs
    from geobias.service.commands import job_kinds

    for cmd in _quick_commands():
        _add_quick_route(app, config, stores, cmd)

    kinds = job_kinds()

    @app.post("/jobs", status_code=202, tags=["jobs"], openapi_extra=_body_schema({
        "type": "object", "required": ["kind"], "additionalProperties": False,
        "properties": {"kind": {"enum": kinds}, "params": {"type": "object", "description": (
            "The command's parameters, as its parameter model names them (GET /commands).")}}}))
    async def submit(request: Request) -> JSONResponse:
        """Submit a long analysis as a job; ``params`` are the command's parameters."""
        body = await _json_body(request)
        unknown = sorted(set(body) - {"kind", "params"})
        if unknown:
            raise ParameterError(f"{unknown[0]}: unknown field (a job is {{kind, params}})", unknown[0])
        kind, params = body.get("kind"), body.get("params", {})
        if kind not in kinds:
            raise ParameterError(f"kind must be one of {', '.join(kinds)}; got {kind!r}", "kind")
        if not isinstance(params, dict):
            raise ParameterError("params must be an object", "params")
        import anyio

        job = await anyio.to_thread.run_sync(lambda: jobs.submit(kind, params))
        return JSONResponse(job, status_code=202, headers={"Location": f"/jobs/{job['id']}"})

    @app.get("/commands", tags=["analyses"])
    def list_commands() -> dict[str, Any]:
        """Every command: whether it is a quick route or a job kind, and its parameters' JSON schema."""
        from geobias.commands import commands

        return {"commands": [{"name": c.name, "kind": c.kind, "summary": c.summary, "quick": c.quick, "job": c.job,
                              "parameters": c.params.model_json_schema()}
                             for c in commands() if c.quick or c.job]}

    @app.get("/jobs", tags=["jobs"])
    def list_jobs(limit: int = 50) -> dict[str, Any]:
        return {"jobs": jobs.list(max(1, min(limit, 500)))}

    @app.get("/jobs/{job_id}", tags=["jobs"])
    def get_job(job_id: str) -> dict[str, Any]:
        return jobs.get(_job_id(job_id))

    @app.delete("/jobs/{job_id}", tags=["jobs"])
    def cancel_job(job_id: str) -> dict[str, Any]:
        return jobs.cancel(_job_id(job_id))

    @app.get("/jobs/{job_id}/artifacts/{name}", tags=["jobs"])
    def artifact(job_id: str, name: str) -> FileResponse:
        job_id = _job_id(job_id)
        check_name(name, "artefact name")
        if name not in jobs.artifacts(job_id):
            raise JobNotFound(f"job {job_id} has no artefact {name!r} (artefacts exist once a job is done)")
        return FileResponse(jobs.job_dir(job_id) / "artifacts" / name, filename=name)

    @app.get("/jobs/{job_id}/report", response_class=HTMLResponse, tags=["pages"])
    def job_report(job_id: str) -> HTMLResponse:
        from geobias.service import pages

        job = jobs.get(_job_id(job_id))
        return HTMLResponse(pages.report(job, jobs.job_dir(job["id"]) / "artifacts"), headers=_PAGE_HEADERS)

    @app.get("/", response_class=HTMLResponse, tags=["pages"])
    def home() -> HTMLResponse:
        from geobias.service import pages

        return HTMLResponse(pages.home(stores.listing(), jobs.list(30)), headers=_PAGE_HEADERS)

    return Limits(app, config)  # the ASGI app: token and body limits around FastAPI


def _quick_commands():
    from geobias.commands import commands

    return [c for c in commands() if c.quick]


def _body_schema(schema: dict[str, Any]) -> dict[str, Any]:
    return {"requestBody": {"required": True, "content": {"application/json": {"schema": schema}}}}


async def _json_body(request: Request) -> dict[str, Any]:
    import json

    try:
        body = json.loads(await request.body() or b"{}")
    except ValueError as exc:
        raise ParameterError(f"the body is not valid JSON: {exc}") from None
    if not isinstance(body, dict):
        raise ParameterError("the body must be a JSON object")
    return body


def _add_quick_route(app: FastAPI, config: ServiceConfig, stores: StoreManager, cmd) -> None:
    """``POST /{kind}``: validate the body with the command's parameter model, run it here, answer
    the envelope (the same ``result`` as ``geobias {name} --json``)."""
    from geobias.service.commands import run_quick

    async def route(request: Request) -> dict[str, Any]:
        import anyio

        body = await _json_body(request)
        return await anyio.to_thread.run_sync(lambda: run_quick(config, stores, cmd.name, body))

    schema = cmd.params.model_json_schema(mode="validation")
    app.add_api_route(f"/{cmd.kind}", route, methods=["POST"], tags=["analyses"], name=cmd.kind,
                      summary=cmd.summary, description=f"``geobias {cmd.name}``. {cmd.params.__doc__ or ''}",
                      openapi_extra=_body_schema(schema))


def _job_id(job_id: str) -> str:
    if not re.fullmatch(r"[0-9a-f]{16}", job_id):
        raise JobNotFound(f"no job {job_id!r}")
    return job_id


def _too_large(config: ServiceConfig) -> JSONResponse:
    return error(413, "PayloadTooLarge", f"upload exceeds this service's limit of {config.max_upload_bytes:,} bytes")


def _version() -> str:
    from geobias import __version__

    return __version__
