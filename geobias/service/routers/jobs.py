"""``/jobs``: submit a command as a background job, follow it, cancel it, fetch its artefacts."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, JSONResponse

from geobias.commands import get
from geobias.errors import ParameterError
from geobias.service import http
from geobias.service.commands import job_kinds
from geobias.service.config import check_name
from geobias.service.jobs import JobNotFound
from geobias.service.limits import check_body

router = APIRouter(tags=["jobs"])
KINDS = job_kinds()


@router.post("/jobs", status_code=202, openapi_extra=http.body_schema({
    "type": "object", "required": ["kind"], "additionalProperties": False,
    "properties": {"kind": {"enum": KINDS}, "params": {"type": "object", "description": (
        "The command's parameters, as its parameter model names them (GET /commands).")}}}))
async def submit(request: Request) -> JSONResponse:
    """Submit a long analysis as a job; ``params`` are the command's parameters."""
    import anyio

    # the size caps: on all but params at once, on params with the model its kind names (a list of texts
    # is not a list of words)
    body = await http.json_body(request, check=False)
    check_body(http.config(request), {k: v for k, v in body.items() if k != "params"})
    unknown = sorted(set(body) - {"kind", "params"})
    if unknown:
        raise ParameterError(f"{unknown[0]}: unknown field (a job is {{kind, params}})", unknown[0])
    kind, params = body.get("kind"), body.get("params", {})
    if not isinstance(kind, str) or kind not in KINDS:
        got = repr(kind) if isinstance(kind, str) else f"a {type(kind).__name__}"
        raise ParameterError(f"kind must be one of {', '.join(KINDS)}; got {got}", "kind")
    if not isinstance(params, dict):
        raise ParameterError("params must be an object", "params")
    check_body(http.config(request), params, get(kind).params)  # comma lists of word sets, before the model
    jobs = http.jobs(request)
    client = http.client_key(request)
    job = await anyio.to_thread.run_sync(lambda: jobs.submit(kind, params, client))
    return JSONResponse(job, status_code=202, headers={"Location": f"/jobs/{job['id']}"})


@router.get("/jobs")
def list_jobs(request: Request, limit: int = 50) -> dict[str, Any]:
    """The latest jobs, newest first (at most 500)."""
    return {"jobs": http.jobs(request).list(max(1, min(limit, 500)))}


@router.get("/jobs/{job_id}")
def get_job(request: Request, job_id: str) -> dict[str, Any]:
    """A job's state, progress, and its envelope once done (or its typed error)."""
    return http.jobs(request).get(http.job_id(job_id))


@router.delete("/jobs/{job_id}")
def cancel_job(request: Request, job_id: str) -> dict[str, Any]:
    """Cancel a queued, starting or running job (its process is killed)."""
    return http.jobs(request).cancel(http.job_id(job_id))


@router.get("/jobs/{job_id}/artifacts/{name}")
def artifact(request: Request, job_id: str, name: str) -> FileResponse:
    """A file a finished job wrote (exported vectors, plots)."""
    jobs = http.jobs(request)
    job_id = http.job_id(job_id)
    check_name(name, "artefact name")
    if name not in jobs.artifacts(job_id):
        raise JobNotFound(f"job {job_id} has no artefact {name!r} (artefacts exist once a job is done)")
    return FileResponse(jobs.job_dir(job_id) / "artifacts" / name, filename=name)
