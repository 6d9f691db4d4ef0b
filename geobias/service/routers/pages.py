"""The HTML pages: the home page (stores and jobs) and a job's report."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from geobias.service import http

router = APIRouter(tags=["pages"])


@router.get("/jobs/{job_id}/report", response_class=HTMLResponse)
def job_report(request: Request, job_id: str) -> HTMLResponse:
    """A job's report: the command's tables and plots, server-rendered."""
    from geobias.service import pages

    jobs = http.jobs(request)
    job = jobs.get(http.job_id(job_id))
    return HTMLResponse(pages.report(job, jobs.job_dir(job["id"]) / "artifacts"), headers=http.PAGE_HEADERS)


@router.get("/", response_class=HTMLResponse)
def home(request: Request) -> HTMLResponse:
    """The stores and the latest jobs."""
    from geobias.service import pages

    return HTMLResponse(pages.home(http.stores(request).listing(), http.jobs(request).list(30)),
                        headers=http.PAGE_HEADERS)
