"""The HTML pages: the home page (stores and jobs) and a job's report."""

from __future__ import annotations

import hmac
from urllib.parse import parse_qs

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse

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


@router.get("/login", response_class=HTMLResponse, include_in_schema=False)
def login_form(request: Request) -> HTMLResponse:
    """The token login form (a server started with a token)."""
    from geobias.service import pages

    return HTMLResponse(pages.login(), headers=http.PAGE_HEADERS)


@router.post("/login", include_in_schema=False)
async def login(request: Request):
    """Check the posted token; on success set the session cookie (``HttpOnly; SameSite=Strict``)
    and go to the home page, else show the form again (401)."""
    from geobias.service import pages
    from geobias.service.guard import COOKIE, session_value

    token = http.config(request).token
    if token is None:
        return RedirectResponse("/", status_code=303)
    raw = (await request.body())[:4096].decode("utf-8", "replace")
    given = (parse_qs(raw).get("token") or [""])[0]
    if not hmac.compare_digest(given.encode(), token.encode()):
        return HTMLResponse(pages.login("wrong token"), status_code=401, headers=http.PAGE_HEADERS)
    resp = RedirectResponse("/", status_code=303)
    resp.set_cookie(COOKIE, session_value(token), httponly=True, samesite="strict", path="/")
    return resp
