"""The web app's routes: ``/app`` (the analyses), ``/app/{kind}`` (a form), ``POST /app/run`` (a
form's run: on the quick path where the command has one, else a job), a finished run's view,
its downloads (``/jobs/{id}/envelope.json``, ``/tables/{i}.csv``, ``/plots/{i}.png|svg``),
``/compare`` and the app's one script (``/static/app.js``)."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any, Literal

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response

from geobias.service import http
from geobias.service.jobs import JobConflict, JobNotFound

router = APIRouter(tags=["web app"])


def _html(body: str) -> HTMLResponse:
    from geobias.service.webapp import APP_HEADERS

    return HTMLResponse(body, headers=APP_HEADERS)


@router.get("/app", response_class=HTMLResponse, include_in_schema=False)
def catalogue() -> HTMLResponse:
    """Every analysis the app runs, each linked to its form."""
    from geobias.service import webapp

    return _html(webapp.catalogue())


@router.get("/app/{kind}", response_class=HTMLResponse, include_in_schema=False)
def form(request: Request, kind: str) -> HTMLResponse:
    """The form of one analysis, generated from its parameter model."""
    from geobias.languages import LANGUAGES
    from geobias.service import limits, webapp

    cmd = next((c for c in webapp.app_commands() if c.kind == kind), None)
    if cmd is None:
        raise JobNotFound(f"no analysis {kind!r} in the app; see /app")
    config = http.config(request)
    caps = limits.caps(config, cmd.params)  # each capped field's largest value here, read from its kind
    langs = {code: lang.name for code, lang in LANGUAGES.items()}
    return _html(webapp.command_form(cmd, http.stores(request).listing(), langs, caps))


@router.post("/app/run", include_in_schema=False)
async def run_analysis(request: Request) -> Response:
    """Run an analysis from a form: the body is ``POST /jobs``'s (``{kind, params}``).

    A command with a quick route (``POST /{kind}``: the capability the service answers directly)
    runs on the quick path, as that route runs it (admission, a quick worker), and its result is
    recorded as a finished job (:meth:`~geobias.service.jobs.JobManager.record_quick`): the app
    shows, downloads and compares it as any run. It becomes a job instead when it is above the
    quick budget or the quick slots and their queue are full, as any other analysis is: the answer
    is then ``POST /jobs``'s (202 and the queued record), which the page follows."""
    import time

    import anyio

    from geobias.commands import WorkBudgetError, get
    from geobias.errors import InputError
    from geobias.service.http import Busy, TooManyRequests
    from geobias.service.limits import check_body
    from geobias.service.routers import jobs as job_routes
    from geobias.service.routers.analyses import answer, server_timing

    body = await http.json_body(request, check=False)
    try:
        cmd = get(body["kind"]) if isinstance(body.get("kind"), str) else None
    except InputError:  # not a command: POST /jobs says so in its words
        cmd = None
    params = body.get("params", {})
    if cmd is None or not cmd.quick or not isinstance(params, dict) or set(body) - {"kind", "params"}:
        return await job_routes.submit(request)  # its checks and messages for what is not a quick run
    check_body(http.config(request), params, cmd.params)
    client = http.client_key(request)
    timing: dict[str, float] = {}
    started = time.time()
    try:
        request.app.state.admission.check(client)
        result = await answer(request, cmd, params, timing)
    except (WorkBudgetError, Busy, TooManyRequests):
        return await job_routes.submit(request)  # too long for the quick path, or no quick slot: a job
    if result is None:
        return http.error(499, "ClientClosedRequest", "the client closed the connection; the analysis was stopped")
    envelope = json.loads(result)
    jobs = http.jobs(request)
    job = await anyio.to_thread.run_sync(lambda: jobs.record_quick(cmd.kind, envelope, client, started, time.time()))
    return JSONResponse(job, headers={"Location": f"/jobs/{job['id']}", "Server-Timing": server_timing(timing)})


def _done(request: Request, job_id: str) -> dict[str, Any]:
    job = http.jobs(request).get(http.job_id(job_id))
    if job["state"] != "done":
        raise JobConflict(f"job {job['id']} is {job['state']}: its results exist once it is done")
    return job


@router.get("/app/jobs/{job_id}/view", response_class=HTMLResponse, include_in_schema=False)
def view(request: Request, job_id: str) -> HTMLResponse:
    """A finished (or failed) job's tables, plots and download links, as a fragment for the app."""
    from geobias.service import pages

    jobs = http.jobs(request)
    job = jobs.get(http.job_id(job_id))
    return _html(pages.cached_result_view(job, jobs.job_dir(job["id"])))


_CSV = {"text/csv": {"schema": {"type": "string"}}}
_PARQUET = {"application/vnd.apache.parquet": {"schema": {"type": "string", "format": "binary"}}}


@router.get("/jobs/{job_id}/envelope.json", response_class=Response, responses={200: {
    "description": "The envelope", "content": {"application/json": {"schema": {"type": "object"}}}}})
def envelope(request: Request, job_id: str) -> Response:
    """A finished job's JSON envelope, as a download (``geobias CMD --json`` prints the same)."""
    job = _done(request, job_id)
    body = json.dumps(job["result"], ensure_ascii=False, indent=2)
    return Response(body, media_type="application/json",
                    headers={"Content-Disposition": f'attachment; filename="{job["command"].replace(" ", "-")}-{job["id"]}.json"'})


@router.get("/jobs/{job_id}/data.{fmt}", response_class=Response,
            responses={200: {"description": "The result's rows, as the format names", "content": {**_CSV, **_PARQUET}}})
def data(request: Request, job_id: str, fmt: Literal["csv", "parquet"], table: str | None = None) -> Response:
    """A finished job's result as data: one row per estimate, every number in full, as ``csv`` or
    ``parquet`` (what ``geobias CMD --csv`` / ``--parquet`` write); with ``?table=NAME``, that item
    table instead (one row per pair, word, occupation, cell or method: ``--table NAME``). An unknown
    name is a 400 that lists the result's tables."""
    import io
    import tempfile
    from pathlib import Path

    from geobias.errors import ParameterError
    from geobias.report.tidy import write_csv, write_parquet

    if fmt not in ("csv", "parquet"):
        raise ParameterError(f"data format must be csv or parquet; got {fmt!r}", "fmt")
    job = _done(request, job_id)
    name = f'{job["command"].replace(" ", "-")}-{job["id"]}{"" if table is None else "-" + table}.{fmt}'
    headers = {"Content-Disposition": f'attachment; filename="{name}"'}
    if fmt == "csv":
        buf = io.StringIO()
        write_csv(buf, job["result"], table=table)
        return Response(buf.getvalue(), media_type="text/csv; charset=utf-8", headers=headers)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "data.parquet"
        write_parquet(path, job["result"], table=table)
        body = path.read_bytes()
    return Response(body, media_type="application/vnd.apache.parquet", headers=headers)


@router.get("/jobs/{job_id}/tables/{index}.csv", response_class=Response,
            responses={200: {"description": "The table", "content": _CSV}})
def table_csv(request: Request, job_id: str, index: int) -> Response:
    """Table ``index`` (from 0, in the report's order) of a finished job, as CSV."""
    from geobias.service import pages

    job = _done(request, job_id)
    tables = pages.run_tables(job)
    if not 0 <= index < len(tables):
        raise JobNotFound(f"job {job['id']} has {len(tables)} tables (0 to {len(tables) - 1}); no table {index}")
    return Response(pages.table_csv(tables[index]), media_type="text/csv; charset=utf-8",
                    headers={"Content-Disposition": f'attachment; filename="{job["id"]}-table-{index}.csv"'})


@router.get("/jobs/{job_id}/plots/{index}.{fmt}")
def plot(request: Request, job_id: str, index: int, fmt: str) -> Response:
    """Plot ``index`` (from 0, in the report's order) of a finished job, as ``png`` or ``svg``
    (SVG for the plots drawn from the result; a PNG the command wrote exists as PNG only)."""
    from geobias.errors import ParameterError
    from geobias.service import pages

    if fmt not in ("png", "svg"):
        raise ParameterError(f"plot format must be png or svg; got {fmt!r}", "fmt")
    job = _done(request, job_id)
    try:
        data = pages.cached_plot(job, http.jobs(request).job_dir(job["id"]), index, fmt)
    except LookupError as exc:
        raise JobNotFound(str(exc)) from None
    media = {"png": "image/png", "svg": "image/svg+xml"}[fmt]
    return Response(data, media_type=media,
                    headers={"Content-Disposition": f'attachment; filename="{job["id"]}-plot-{index}.{fmt}"'})


@router.get("/jobs/{job_id}/outputs/{folder}/{name}")
def output_file(request: Request, job_id: str, folder: str, name: str) -> Response:
    """A file of a finished job's report folder, as its command declares it (``Output(kind="report")``):
    ``index.html`` as a page (self-contained: styles and images inline), any other as a download."""
    import mimetypes

    from geobias.commands import get

    job = _done(request, job_id)
    output = get(job["kind"]).output(folder)
    if output is None:
        raise JobNotFound(f"job {job['id']} ({job['command']}) has no report {folder!r}")
    if name not in output.files:
        raise JobNotFound(f"the report {folder!r} has {', '.join(output.files)}; no {name!r}")
    path = http.jobs(request).job_dir(job["id"]) / "artifacts" / folder / name
    if not path.is_file():
        raise JobNotFound(f"job {job['id']} left no {folder}/{name}")
    media = mimetypes.guess_type(name)[0] or "application/octet-stream"
    if name.endswith(".parquet"):
        media = "application/vnd.apache.parquet"
    headers = dict(http.PAGE_HEADERS) if name == "index.html" else {
        "Content-Disposition": f'attachment; filename="{job["id"]}-{name}"'}
    return Response(path.read_bytes(), media_type=media + ("; charset=utf-8" if media.startswith("text/") else ""),
                    headers=headers)


@router.get("/compare", response_class=HTMLResponse, include_in_schema=False)
def compare(request: Request, a: str | None = None, b: str | None = None) -> HTMLResponse:
    """Two finished runs side by side (pick them from the lists)."""
    from geobias.service import pages, webapp

    jobs = http.jobs(request)
    ja = jobs.get(http.job_id(a)) if a else None
    jb = jobs.get(http.job_id(b)) if b else None
    views = None
    if ja is not None and jb is not None:
        views = tuple(pages.cached_result_view(j, jobs.job_dir(j["id"])) for j in (ja, jb))
    return _html(webapp.compare(jobs.list(200), ja, jb, views))


@router.get("/static/app.js", include_in_schema=False)
def script() -> Response:
    """The app's script (vendored in the package; no build step)."""
    text = resources.files("geobias.service").joinpath("static", "app.js").read_text(encoding="utf-8")
    return Response(text, media_type="text/javascript; charset=utf-8",
                    headers={"Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff"})
