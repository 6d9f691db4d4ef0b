"""The service as a trust boundary (issue 27): Host and Origin checks, answers without server
paths, internal errors answered by request id, admission of quick analyses, the token's sources
and scheme, the pages' login cookie, the body read timeout, and what ``serve`` prints.

A real server in a subprocess where the network matters (Host, Origin, timeouts, the log); the
ASGI app in-process where a test needs to reach inside (a route that fails, a full queue).
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

httpx = pytest.importorskip("httpx", reason="the serve extra is not installed (pip install 'geobias[serve]')")
pytest.importorskip("fastapi", reason="the serve extra is not installed (pip install 'geobias[serve]')")

from _server import ServerProcess, small_french_store  # noqa: E402

SMALL = "small-fr"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    import numpy as np

    from geobias.store import VectorStore, save_store

    root = tmp_path_factory.mktemp("guard")
    vectors = root / "vectors"
    vectors.mkdir()
    fr = small_french_store()
    save_store(fr, vectors / SMALL)
    en = VectorStore(list(fr.words), np.asarray(fr.vectors), lang="en", provenance={"source": str(vectors / "x" / "y.vec")})
    save_store(en, vectors / "small-en")
    with ServerProcess(vectors, root / "data", "--workers", "1", "--body-timeout", "2") as srv:
        srv.client = srv.client(timeout=60)
        srv.root = root
        yield srv
        srv.client.close()


def _error(resp, status: int, type_: str | None = None) -> dict:
    assert resp.status_code == status, (resp.status_code, resp.text)
    body = resp.json()["error"]
    if type_ is not None:
        assert body["type"] == type_, body
    return body


def _names(c) -> set[str]:
    return {s["name"] for s in c.get("/stores").json()["stores"] if s["installed"]}


# ----------------------------------------------------------------------------- Origin and Host
def test_cross_origin_form_upload_is_refused(server):
    """What a web page can send without a preflight: a multipart form POST, from another origin
    (refused, 403), or from a browser that sends no Origin (refused without the CSRF header)."""
    c = server.client
    body = b"2 3\nun 0.1 0.2 0.3\ndeux 0.3 0.2 0.1\n"
    r = c.post("/stores", params={"name": "evil"}, files={"file": ("v.vec", body)},
               headers={"Origin": "http://attacker.example"})
    _error(r, 403, "Forbidden")
    _error(c.post("/stores", params={"name": "evil"}, files={"file": ("v.vec", body)}), 403, "Forbidden")
    # a cross-origin JSON-in-text/plain job submission and a cross-origin cancel: refused too
    _error(c.post("/jobs", content=b'{"kind": "mweat", "params": {}}', headers={
        "Origin": "http://attacker.example", "Content-Type": "text/plain"}), 403)
    _error(c.delete("/jobs/0123456789abcdef", headers={"Origin": "null"}), 403)
    # the same text/plain body with no Origin: not JSON, so not accepted either (415)
    _error(c.post("/mweat", content=b'{"lang": "fr"}', headers={"Content-Type": "text/plain"}), 415,
           "UnsupportedMediaType")
    assert "evil" not in _names(c) and not (server.vectors_dir / "evil").exists()


def test_same_origin_upload_is_accepted(server):
    c = server.client
    body = b"2 3\nun 0.1 0.2 0.3\ndeux 0.3 0.2 0.1\n"
    r = c.post("/stores", params={"name": "mine"}, files={"file": ("v.vec", body)}, headers={"Origin": server.url})
    assert r.status_code == 201, r.text
    r = c.post("/stores", params={"name": "mine-too"}, files={"file": ("v.vec", body)},
               headers={"X-Geobias-CSRF": "1"})
    assert r.status_code == 201, r.text
    # a raw body (curl --data-binary) with no Origin: not something a page can send cross-origin
    r = c.post("/stores", params={"name": "mine-raw"}, content=body)
    assert r.status_code == 201, r.text
    assert {"mine", "mine-too", "mine-raw"} <= _names(c)
    ok = c.post("/mweat", json={"lang": "fr", "store": SMALL, "permutations": 100}, headers={"Origin": server.url})
    assert ok.status_code == 200, ok.text


@pytest.mark.parametrize("host", ["attacker.example:{port}", "attacker.example", "127.0.0.1.nip.io:{port}", ""])
def test_rebinding_host_is_refused(server, host):
    c = server.client
    value = host.format(port=server.port)
    _error(c.get("/stores", headers={"Host": value}), 400, "BadRequest")
    _error(c.post("/mweat", json={"lang": "fr", "store": SMALL}, headers={"Host": value}), 400)


@pytest.mark.parametrize("host", ["localhost:{port}", "127.0.0.1:{port}", "LOCALHOST:{port}", "[::1]:{port}"])
def test_loopback_hosts_are_served(server, host):
    assert server.client.get("/stores", headers={"Host": host.format(port=server.port)}).status_code == 200


def _app(tmp_path, **options):
    from starlette.testclient import TestClient

    from geobias.service import ServiceConfig, create_app
    from geobias.store import save_store

    (tmp_path / "v").mkdir(exist_ok=True)
    if not (tmp_path / "v" / SMALL).exists():
        save_store(small_french_store(), tmp_path / "v" / SMALL)
    config = ServiceConfig(vectors_dir=tmp_path / "v", data_dir=tmp_path / "d", **options)
    app = create_app(config)
    return app, TestClient(app, base_url="http://127.0.0.1:8765", raise_server_exceptions=False)


def test_allowed_host_option(tmp_path):
    _, c = _app(tmp_path, allowed_hosts=("lab.example",))
    assert c.get("/stores", headers={"Host": "lab.example:8765"}).status_code == 200
    assert c.get("/stores", headers={"Host": "other.example:8765"}).status_code == 400
    _, anyhost = _app(tmp_path, allowed_hosts=("*",), token="t0k")
    assert anyhost.get("/stores", headers={"Host": "other.example", "Authorization": "Bearer t0k"}).status_code == 200
    assert anyhost.post("/neighbors", headers={"Host": "rebound.example"}, json={}).status_code == 401


def test_any_host_needs_a_token(tmp_path):
    """``--allowed-host '*'`` without a token would let a DNS-rebinding page in: refused at start."""
    from geobias.errors import InputError
    from geobias.service import ServiceConfig

    with pytest.raises(InputError, match="--token"):
        ServiceConfig(vectors_dir=tmp_path / "v", data_dir=tmp_path / "d", allowed_hosts=("*",))


# ----------------------------------------------------------------------------- no paths in answers
def test_no_answer_contains_a_server_path(server):
    """Every route, answers and errors alike: the data directory, the vectors directory and the
    test's temporary root never appear (a store made from a file, a store whose provenance names
    a path, a mitigate and an align job, a directions plot, a bad upload, an unknown store)."""
    c = server.client
    texts: list[str] = []

    def keep(resp):
        texts.append(resp.text)
        return resp

    keep(c.get("/stores"))
    for name in ("small-en", SMALL):
        keep(c.get(f"/stores/{name}"))
    keep(c.post("/stores", params={"name": "from-file", "lang": "fr"}, content=b"2 3\nun 0.1 0.2 0.3\ndeux 0.3 0.2 0.1\n"))
    keep(c.post("/stores", params={"name": "broken"}, content=b"2 3\nun 0.1 nan 0.3\ndeux 0.3 0.2 0.1\n"))
    keep(c.get("/stores/nothing-here"))
    for route, body, status in (("/mweat", {"lang": "fr", "store": SMALL, "permutations": 200}, 200),
                                ("/weat", {"lang": "fr", "store": SMALL, "test": "career-family", "permutations": 200}, 200),
                                ("/neighbors", {"store": SMALL, "word": "homme", "k": 3}, 200),
                                ("/directions", {"lang": "fr", "store": SMALL, "max_per_class": 40, "cv": 2}, 200),
                                ("/mweat", {"lang": "fr", "store": "small-en"}, None),
                                ("/neighbors", {"store": "../etc", "word": "x"}, None)):
        r = keep(c.post(route, json=body))
        assert status is None or r.status_code == status, (route, r.text)
        assert r.status_code < 500, r.text
    jobs = [c.post("/jobs", json={"kind": "mitigate", "params": {"method": "shift-ori", "lang": "fr", "store": SMALL,
                                                                  "format": "w2v-text"}}).json()["id"],
            c.post("/jobs", json={"kind": "align", "params": {"src": "fr", "tgt": "en", "src_vectors": SMALL,
                                                               "tgt_vectors": "small-en", "dictionary": "identical",
                                                               "out": "aligned-leak"}}).json()["id"],
            c.post("/jobs", json={"kind": "directions", "params": {"lang": "fr", "store": SMALL, "max_per_class": 40,
                                                                    "cv": 2}}).json()["id"]]
    for job_id in jobs:
        deadline = time.monotonic() + 180
        while c.get(f"/jobs/{job_id}").json()["state"] not in ("done", "failed", "cancelled"):
            keep(c.get(f"/jobs/{job_id}"))
            assert time.monotonic() < deadline
            time.sleep(0.2)
        job = keep(c.get(f"/jobs/{job_id}")).json()
        assert job["state"] == "done", job
        keep(c.get(f"/jobs/{job_id}/report"))
    assert "aligned-leak" in _names(c)
    keep(c.get("/stores/aligned-leak"))
    for path in ("/jobs", "/", "/commands"):
        keep(c.get(path))
    roots = {str(server.root), str(server.root.resolve()), str(server.data_dir), str(server.vectors_dir)}
    for text in texts:
        for root in roots:
            assert root not in text, (root, text[:500])
    assert not any(re.search(r'"/(?:tmp|home|root|var|srv)/', t) for t in texts)


def test_internal_error_is_answered_with_a_request_id_only(tmp_path, caplog):
    app, c = _app(tmp_path)

    def boom():
        raise RuntimeError(f"cannot open {tmp_path}/secret/file")

    app.app.add_api_route("/boom", boom)
    with caplog.at_level("ERROR", logger="geobias.service"):
        r = c.get("/boom")
    body = _error(r, 500, "InternalError")
    assert set(body) == {"type", "message", "request_id"} and re.fullmatch(r"[0-9a-f]{12}", body["request_id"])
    assert str(tmp_path) not in r.text and body["request_id"] in body["message"]
    assert r.headers["x-request-id"] == body["request_id"]
    logged = [rec for rec in caplog.records if body["request_id"] in rec.getMessage()]
    assert logged and logged[0].exc_info is not None  # the details are in the log, under the id


def test_redactor_names_stores_and_artefacts():
    from geobias.service.config import ServiceConfig
    from geobias.service.redact import Redactor

    r = Redactor(ServiceConfig(vectors_dir=Path("/srv/v"), data_dir=Path("/srv/d")))
    job = "0123456789abcdef"
    assert r.text(f"saved to /srv/v/.job-{job}-mine", job) == "saved to mine"
    assert r.text(f"/srv/d/jobs/{job}/artifacts/plot.png", job) == "plot.png"
    assert r.text("read /home/me/words.txt, line 3") == "read words.txt, line 3"
    assert r.text("see https://example.org/a/b and fr/en") == "see https://example.org/a/b and fr/en"
    assert r({"k": ["/srv/v/x", 1.5, None]}) == {"k": ["x", 1.5, None]}


# ----------------------------------------------------------------------------- admission
def test_admission_bounds_running_and_waiting():
    import threading

    import anyio

    from geobias.service.http import Admission, Busy

    adm = Admission(workers=1, max_waiting=1)
    release, running, peak = threading.Event(), [0], [0]

    def work():
        running[0] += 1
        peak[0] = max(peak[0], running[0])
        release.wait(10)
        running[0] -= 1
        return "ok"

    outcomes = []

    async def main():
        async def one():
            try:
                outcomes.append(await adm.run(work))
            except Busy as exc:
                outcomes.append(exc)

        async with anyio.create_task_group() as tg:
            for _ in range(3):
                tg.start_soon(one)
            await anyio.sleep(0.3)
            release.set()

    anyio.run(main)
    assert outcomes.count("ok") == 2 and sum(isinstance(o, Busy) for o in outcomes) == 1
    assert peak[0] == 1  # one at a time, the second waited for the slot
    assert adm.in_flight == 0


def test_full_queue_answers_503_with_retry_after(tmp_path):
    app, c = _app(tmp_path, quick_workers=1, max_waiting=0)
    app.app.state.admission.in_flight = 1  # one analysis computing, none may wait
    r = c.post("/mweat", json={"lang": "fr", "store": SMALL, "permutations": 100})
    _error(r, 503, "Busy")
    assert r.headers["retry-after"] == "1"
    app.app.state.admission.in_flight = 0
    assert c.post("/mweat", json={"lang": "fr", "store": SMALL, "permutations": 100}).status_code == 200


# ----------------------------------------------------------------------------- token and login
def test_bearer_scheme_is_case_insensitive_and_cookie_only_reads(tmp_path):
    from geobias.service.guard import COOKIE

    _, c = _app(tmp_path, token="s3cret")
    for scheme in ("Bearer", "bearer", "BEARER"):
        assert c.get("/stores", headers={"Authorization": f"{scheme} s3cret"}).status_code == 200
    _error(c.get("/stores", headers={"Authorization": "Bearer s3cre"}), 401)
    assert c.get("/login").status_code == 200  # the form needs no token
    wrong = c.post("/login", content=b"token=nope", headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert wrong.status_code == 401 and COOKIE not in wrong.cookies
    ok = c.post("/login", content=b"token=s3cret", headers={"Content-Type": "application/x-www-form-urlencoded"},
                follow_redirects=False)
    assert ok.status_code == 303 and ok.headers["location"] == "/"
    cookie = ok.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie.replace("Strict", "strict") and "s3cret" not in cookie
    value = ok.cookies[COOKIE]
    c.cookies.clear()
    _error(c.get("/"), 401)
    c.cookies.set(COOKIE, value)
    page = c.get("/")
    assert page.status_code == 200 and "<html" in page.text.lower()
    # the cookie opens the pages, never a state change
    _error(c.post("/mweat", json={"lang": "fr", "store": SMALL}), 401)
    c.cookies.set(COOKIE, "forged")
    _error(c.get("/"), 401)


def _serve(tmp_path, *args, env=None, timeout=30):
    port = socket.socket()
    port.bind(("127.0.0.1", 0))
    number = port.getsockname()[1]
    port.close()
    proc = subprocess.Popen([sys.executable, "-c", "from geobias.cli import main; main()", "serve", "--port",
                             str(number), "--data-dir", str(tmp_path / "d"), "--vectors-dir", str(tmp_path / "v"), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=dict(os.environ, **(env or {})))
    url = f"http://127.0.0.1:{number}"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            httpx.get(url + "/openapi.json", timeout=1)
            break
        except httpx.HTTPError:
            time.sleep(0.1)
    return proc, url


def _finish(proc) -> str:
    proc.terminate()
    out, _ = proc.communicate(timeout=20)
    return out


def test_token_sources_and_what_serve_prints(tmp_path):
    (tmp_path / "tok").write_text("from-a-file\n")
    proc, url = _serve(tmp_path, "--token-file", str(tmp_path / "tok"))
    try:
        assert httpx.get(url + "/stores", headers={"Authorization": "Bearer from-a-file"}).status_code == 200
        assert httpx.get(url + "/stores").status_code == 401
    finally:
        out = _finish(proc)
    assert f"http://127.0.0.1:{url.rsplit(':', 1)[1]}/" in out and str((tmp_path / "d").resolve()) in out
    assert "token: --token-file" in out and "from-a-file" not in out
    assert re.search(r'"GET /stores" 200 [\d.]+ ms id=[0-9a-f]{12}', out) and '"GET /stores" 401' in out

    proc, url = _serve(tmp_path, "--quiet", env={"GEOBIAS_TOKEN": "from-env"})
    try:
        assert httpx.get(url + "/stores", headers={"Authorization": "bearer from-env"}).status_code == 200
    finally:
        out = _finish(proc)
    assert "GET /stores" not in out and "http://" not in out

    proc, url = _serve(tmp_path, "--token", "in-argv")
    out = _finish(proc)
    assert "warning: --token is visible" in out and "token: --token" in out


# ----------------------------------------------------------------------------- body timeout
def test_stalled_body_gets_408(server):
    with socket.create_connection(("127.0.0.1", server.port), timeout=20) as s:
        s.sendall(f"POST /mweat HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nContent-Type: application/json\r\n"
                  "Content-Length: 100\r\n\r\n{\"lang\"".encode())
        started = time.monotonic()
        answer = s.recv(4096).decode("latin-1")
    assert answer.startswith("HTTP/1.1 408"), answer
    assert 1.5 < time.monotonic() - started < 15  # --body-timeout 2


# ----------------------------------------------------------------------------- offline docs
def test_docs_and_redoc_work_offline(tmp_path):
    """/docs and /redoc load Swagger UI and ReDoc from the server itself: no CDN, no web fonts."""
    pytest.importorskip("fastapi_offline", reason="fastapi-offline is not installed (serve extra)")
    _, c = _app(tmp_path)
    for page in ("/docs", "/redoc"):
        r = c.get(page)
        assert r.status_code == 200 and "text/html" in r.headers["content-type"]
        assert "cdn.jsdelivr" not in r.text and "fonts.googleapis" not in r.text and "https://" not in r.text
        scripts = re.findall(r'src="([^"]+\.js)"', r.text)
        assert scripts, r.text[:300]
        for src in scripts:
            js = c.get(src)
            assert js.status_code == 200 and len(js.content) > 100_000, src  # the real bundle
