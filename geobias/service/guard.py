"""The service's door: what every request passes before a route sees it.

In order: a request id (``X-Request-ID`` on every answer, and in the access log); the ``Host``
header (a loopback name or one given with ``--allowed-host``: a web page that rebinds its own
DNS name to 127.0.0.1 is refused, as Jupyter Server refuses it); the ``Origin`` of a
state-changing request (a browser page of another origin may not POST, PUT, PATCH or DELETE;
without an ``Origin``, a ``Referer`` of another origin is refused the same way); every answer
carries ``X-Frame-Options: DENY`` and ``frame-ancestors 'none'`` (no site may frame a page);
for a multipart upload, an ``Origin`` of this server or an ``X-Geobias-CSRF`` header (a custom
header a cross-origin page cannot send without a CORS preflight, which this server never
grants); the bearer token (scheme case-insensitive, RFC 9110 §11.1), or for pages the login
cookie; then the body's size limits (413) and read timeout (408).
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import os
import time
from http.cookies import SimpleCookie
from urllib.parse import urlsplit

import anyio

from geobias.service.config import ServiceConfig, is_loopback
from geobias.service.http import error

log = logging.getLogger("geobias.service")

#: Methods that change the server's state: their ``Origin`` must be this server's.
UNSAFE = frozenset({"POST", "PUT", "PATCH", "DELETE"})
#: The login cookie (``HttpOnly; SameSite=Strict``): a digest of the token, never the token.
COOKIE = "geobias_session"
CSRF_HEADER = b"x-geobias-csrf"
#: ``Host`` values whose verdict the guard remembers (a client cannot grow the memory past it).
HOSTS_SEEN = 64


class BodyTimeout(Exception):
    """No part of the request body arrived within ``config.body_timeout`` seconds (HTTP 408)."""


async def client_gone(receive) -> None:
    """Return once the client of a request whose body has been read disconnects (the server's
    ``receive`` answers ``http.disconnect``); a quiet wait past the body timeout is no disconnect."""
    import anyio

    while True:
        try:
            message = await receive()
        except BodyTimeout:
            continue
        if message.get("type") == "http.disconnect":
            return
        await anyio.sleep(0.05)  # no further body is expected: do not spin on one


def session_value(token: str) -> str:
    """The login cookie's value for ``token``: an HMAC of it, so the cookie never carries the token."""
    return hmac.new(token.encode(), b"geobias-session", hashlib.sha256).hexdigest()


def split_host(value: str) -> str:
    """The host part of a ``Host`` header or ``Origin`` authority (``[::1]:8000`` → ``::1``)."""
    value = value.strip().lower()
    if value.startswith("["):
        return value[1:value.find("]")] if "]" in value else value
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


def host_allowed(config: ServiceConfig, host_header: str) -> bool:
    """A loopback name (``localhost``, 127.0.0.0/8, ``::1``), the bound address, or an
    ``--allowed-host`` entry (``*`` allows every name)."""
    host = split_host(host_header)
    if not host:
        return False
    allowed = {h.lower() for h in config.allowed_hosts}
    return "*" in allowed or host in allowed or is_loopback(host) or host == (config.bind_host or "").lower()


class Guard:
    """Pure ASGI middleware around the FastAPI app; see the module docstring for the checks.

    ``POST /stores`` (an upload) may carry ``max_upload_bytes``, which the route enforces while
    streaming; every other body is read here, up to ``max_body_bytes``, and replayed. ``inner``, an
    ASGI app in front of ``app`` (the service's :class:`~geobias.service.routers.analyses.QuickDoor`),
    gets the requests that pass; ``app`` stays the FastAPI app (``.app.state``).
    """

    def __init__(self, app, config: ServiceConfig, inner=None):
        self.app, self.config, self.inner = app, config, inner or app
        self._hosts: dict[str, bool] = {}  # Host header → allowed, for the first HOSTS_SEEN values seen
        self._session = session_value(config.token) if config.token else None

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        rid = os.urandom(6).hex()  # twelve hex digits, as uuid4().hex[:12] gave, without building a UUID
        scope.setdefault("state", {})["request_id"] = rid
        started, status = time.perf_counter(), [0]

        async def send_with_id(message):
            if message["type"] == "http.response.start":
                status[0] = message["status"]
                message = {**message, "headers": _no_framing([*message.get("headers", []), (b"x-request-id", rid.encode())])}
            await send(message)

        try:
            await self._handle(scope, receive, send_with_id)
        finally:
            if self.config.access_log:
                client = scope.get("client") or ("-", 0)
                query = scope.get("query_string", b"").decode("latin-1")
                # 499 (nginx's "client closed request"): the body was cut before it ended
                shown = status[0] or (499 if scope["state"].get("client_closed") else "-")
                log.info('%s "%s %s%s" %s %.1f ms id=%s', client[0], scope["method"], scope["path"],
                         "?" + query if query else "", shown, (time.perf_counter() - started) * 1e3, rid)

    async def _handle(self, scope, receive, send):
        headers = {k.lower(): v for k, v in scope.get("headers") or []}
        host = headers.get(b"host", b"").decode("latin-1")
        allowed = self._hosts.get(host)
        if allowed is None:  # parsing an address costs each request a tenth of the guard's time
            allowed = host_allowed(self.config, host)
            if len(self._hosts) < HOSTS_SEEN:
                self._hosts[host] = allowed
        if not allowed:
            return await error(400, "BadRequest", f"Host {host!r} is not served here: use localhost or 127.0.0.1, "
                               "or start the server with --allowed-host NAME")(scope, receive, send)
        method = scope["method"]
        origin = headers.get(b"origin")
        referer = headers.get(b"referer") if origin is None else None
        if method in UNSAFE and ((origin is not None and not self._same_origin(origin.decode("latin-1"), host))
                                 or (referer is not None and not self._same_origin(referer.decode("latin-1"), host))):
            # a browser sends Origin; where it does not, a Referer of another site is the same signal
            return await error(403, "Forbidden", "cross-origin request refused: a page of another origin may not "
                               "change this server's state")(scope, receive, send)
        upload = method == "POST" and scope["path"].rstrip("/") == "/stores"
        ctype = headers.get(b"content-type", b"").decode("latin-1").lower()
        if upload and ctype.startswith("multipart/form-data") and origin is None and CSRF_HEADER not in headers:
            return await error(403, "Forbidden", "a multipart upload needs this server's Origin or an X-Geobias-CSRF "
                               "header (or send the file as the raw body)")(scope, receive, send)
        if self.config.token is not None and scope["path"] != "/login" and not self._authorised(headers, method):
            if method == "GET" and b"text/html" in headers.get(b"accept", b""):  # a browser: the login form
                return await _redirect("/login")(scope, receive, send)
            return await error(401, "Unauthorized", "missing or wrong bearer token (Authorization: Bearer TOKEN)",
                               headers={"WWW-Authenticate": "Bearer"})(scope, receive, send)
        limit = self.config.max_upload_bytes if upload else self.config.max_body_bytes
        declared = headers.get(b"content-length")
        if declared is not None:
            try:
                n = int(declared)
            except ValueError:
                return await error(400, "BadRequest", "invalid Content-Length")(scope, receive, send)
            if n > limit:
                return await error(413, "PayloadTooLarge", f"request body of {n:,} bytes exceeds this service's limit of {limit:,}")(scope, receive, send)
        timed = self._timed(receive)
        if upload:
            return await self.inner(scope, timed, send)
        chunks, size = [], 0
        try:
            while True:
                message = await timed()
                if message["type"] == "http.disconnect":  # cut mid-body: nobody to answer
                    scope["state"]["client_closed"] = True
                    return None
                if message["type"] != "http.request":
                    break
                chunk = message.get("body", b"")
                size += len(chunk)
                if size > limit:
                    return await error(413, "PayloadTooLarge", f"request body exceeds this service's limit of {limit:,} bytes")(scope, receive, send)
                chunks.append(chunk)
                if not message.get("more_body"):
                    break
        except BodyTimeout:
            return await error(408, "RequestTimeout", self._timeout_message(), headers={"Connection": "close"})(scope, receive, send)
        body = b"".join(chunks)
        sent = False

        async def replay():
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        return await self.inner(scope, replay, send)

    def _timeout_message(self) -> str:
        return f"no request body arrived for {self.config.body_timeout:g} s"

    def _timed(self, receive):
        """``receive`` that raises :class:`BodyTimeout` when a body part takes longer than the limit
        (:func:`asyncio.timeout`, one timer on the event loop, where there is one: anyio's cancel
        scope cost a cheap request's body read more than the read itself)."""
        limit = self.config.body_timeout

        async def timed():
            try:
                if _ASYNCIO_TIMEOUT is not None and _on_asyncio():
                    async with _ASYNCIO_TIMEOUT(limit):
                        return await receive()
                with anyio.fail_after(limit):  # Python 3.10, or not on asyncio
                    return await receive()
            except TimeoutError:
                raise BodyTimeout(self._timeout_message()) from None

        return timed

    @staticmethod
    def _same_origin(origin: str, host: str) -> bool:
        parts = urlsplit(origin)
        return parts.scheme in ("http", "https") and parts.netloc.lower() == host.strip().lower()

    def _authorised(self, headers: dict[bytes, bytes], method: str) -> bool:
        given = headers.get(b"authorization", b"").decode("latin-1").strip()
        scheme, _, value = given.partition(" ")
        if scheme.lower() == "bearer" and hmac.compare_digest(value.strip().encode(), self.config.token.encode()):
            return True
        # the pages after /login; the web app's own requests too, which name this server's Origin
        # (an unsafe request from another origin was refused above; the cookie is SameSite=Strict)
        if (method in ("GET", "HEAD") or b"origin" in headers) and b"cookie" in headers:
            cookie = SimpleCookie()
            try:
                cookie.load(headers[b"cookie"].decode("latin-1"))
            except Exception:  # noqa: BLE001 - a malformed cookie is no login
                return False
            morsel = cookie.get(COOKIE)
            return morsel is not None and hmac.compare_digest(morsel.value.encode(), self._session.encode())
        return False


#: :func:`asyncio.timeout` (Python 3.11 on), else ``None``.
_ASYNCIO_TIMEOUT = getattr(asyncio, "timeout", None)


def _on_asyncio() -> bool:
    """Whether the calling task runs on asyncio (not trio, through anyio)."""
    try:
        return asyncio.current_task() is not None
    except RuntimeError:
        return False


def _no_framing(headers: list) -> list:
    """``headers`` with ``X-Frame-Options: DENY`` and a ``Content-Security-Policy`` that says
    ``frame-ancestors 'none'`` (added to the page's own policy, or alone): no other site may show
    any answer of this server in a frame (clickjacking)."""
    out, has_csp = [], False
    for name, value in headers:
        low = name.lower()
        if low == b"x-frame-options":
            continue
        if low == b"content-security-policy":
            has_csp = True
            if b"frame-ancestors" not in value:
                value = value.rstrip(b"; ") + b"; frame-ancestors 'none'"
        out.append((name, value))
    if not has_csp:
        out.append((b"content-security-policy", b"frame-ancestors 'none'"))
    out.append((b"x-frame-options", b"DENY"))
    return out


def _redirect(location: str):
    """A 303 to ``location`` (a browser asking for a page of a token-protected server)."""
    from starlette.responses import RedirectResponse

    return RedirectResponse(location, status_code=303)
