"""What every route of the service shares: the one error shape, the JSON body reader, the
headers of HTML pages, and access to the application's configuration, stores and jobs."""

from __future__ import annotations

import json
import re
from typing import Any

from fastapi import Request
from fastapi.responses import JSONResponse

from geobias.errors import ParameterError

# The pages are plain HTML with inline CSS and data: images: nothing else may load or run.
PAGE_HEADERS = {"Content-Security-Policy": "default-src 'none'; img-src data:; style-src 'unsafe-inline'",
                "X-Content-Type-Options": "nosniff"}


#: The error body of every 4xx and 5xx answer, for the OpenAPI description of every route.
ERROR_SCHEMA = {"type": "object", "required": ["error"], "additionalProperties": False, "properties": {
    "error": {"type": "object", "required": ["type", "message"], "additionalProperties": False,
              "properties": {"type": {"type": "string"}, "message": {"type": "string"}}}}}
ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    status: {"description": text, "content": {"application/json": {"schema": ERROR_SCHEMA}}}
    for status, text in ((400, "Bad input (the message says what)"), (401, "Missing or wrong bearer token"),
                         (404, "No such store, job or route"), (405, "Method not allowed"),
                         (409, "Name taken, or job already finished"), (413, "Body or upload too large"),
                         (422, "A parameter of the wrong type, out of range or above a cap; a word out of vocabulary"),
                         (429, "Job queue full"))
}


def error(status: int, type_: str, message: str, headers: dict | None = None) -> JSONResponse:
    """The one error shape: ``{"error": {"type", "message"}}`` with a one-line message."""
    one_line = " ".join(str(message).split()) or type_
    return JSONResponse({"error": {"type": type_, "message": one_line}}, status_code=status, headers=headers)


async def json_body(request: Request) -> dict[str, Any]:
    """The request body as a JSON object (an empty body is ``{}``).

    Raises
    ------
    ParameterError
        Not JSON, or not an object (HTTP 422).
    """
    try:
        body = json.loads(await request.body() or b"{}")
    except ValueError as exc:
        raise ParameterError(f"the body is not valid JSON: {exc}") from None
    if not isinstance(body, dict):
        raise ParameterError("the body must be a JSON object")
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
