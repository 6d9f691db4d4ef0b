"""``/stores``: list, describe and upload vector stores."""

from __future__ import annotations

import re
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from geobias.errors import GeobiasError
from geobias.service import http
from geobias.service.config import ServiceConfig, check_name
from geobias.service.stores import StoreExists, sha256_of

router = APIRouter(tags=["stores"])


@router.get("/stores")
def list_stores(request: Request) -> dict[str, Any]:
    """Installed registry sources, saved and uploaded stores, then registry sources not installed."""
    return {"stores": http.stores(request).listing()}


@router.get("/stores/{name}")
def get_store(request: Request, name: str) -> dict[str, Any]:
    """One store: shape, language, provenance, sha256."""
    return http.stores(request).describe(name)


@router.post("/stores", status_code=201, openapi_extra={"requestBody": {"required": True, "content": {
    "application/octet-stream": {"schema": {"type": "string", "format": "binary"}},
    "multipart/form-data": {"schema": {"type": "object", "required": ["file"],
                                       "properties": {"file": {"type": "string", "format": "binary"}}}}}}})
async def upload_store(request: Request, name: str, lang: str | None = None, format: str = "auto",
                       filename: str | None = None) -> dict[str, Any]:
    """Upload a vector file as the body (``curl --data-binary @file``) or as the ``file`` field
    of a multipart form; it is streamed to disk, read by the library's readers and saved
    atomically as store ``name``."""
    import anyio

    config, stores = http.config(request), http.stores(request)
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
                        return too_large(config)
                    fh.write(chunk)
            await form.close()
        else:
            with open(target, "wb") as fh:
                async for chunk in request.stream():
                    size += len(chunk)
                    if size > config.max_upload_bytes:
                        return too_large(config)
                    fh.write(chunk)
        shown = re.sub(r"[^\w.\-]", "_", filename or f"upload of {name}")[:100] or "upload"
        digest = await anyio.to_thread.run_sync(sha256_of, target)
        desc = await anyio.to_thread.run_sync(
            lambda: stores.save_upload(staged, name, shown, lang=lang, fmt=format, sha256=digest))
        return desc
    finally:
        import shutil

        shutil.rmtree(staged, ignore_errors=True)


def too_large(config: ServiceConfig) -> JSONResponse:
    return http.error(413, "PayloadTooLarge", f"upload exceeds this service's limit of {config.max_upload_bytes:,} bytes")
