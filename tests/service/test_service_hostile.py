"""What a client declares is not trusted: hostile vector-file headers and text that is not Unicode.

Every hostile upload of ``tests/_hostile.py`` answers 400 with one line and leaves no store and
no staging behind; a 1000:1 .npz is held to the stored-size cap. Refusal times and the server's
memory under attack are measured in ``benchmarks/bench_abuse.py``.
"""

from __future__ import annotations

import pytest

pytest.importorskip("httpx", reason="the serve extra is not installed (pip install 'geobias[serve]')")
pytest.importorskip("fastapi", reason="the serve extra is not installed (pip install 'geobias[serve]')")

from _hostile import BOMB_CAP, bomb, corpus  # noqa: E402
from _server import small_french_store  # noqa: E402

SMALL = "small-fr"
CASES = corpus()


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    from geobias.store import save_store

    root = tmp_path_factory.mktemp("hostile")
    (root / "v").mkdir()
    save_store(small_french_store(), root / "v" / SMALL)
    return root


@pytest.fixture(scope="module")
def app_client(root):
    from starlette.testclient import TestClient

    from geobias.service import ServiceConfig, create_app

    config = ServiceConfig(vectors_dir=root / "v", data_dir=root / "d", quick_threads=True, quick_workers=1,
                           verify_every=0, max_store_bytes=BOMB_CAP)
    with TestClient(create_app(config), base_url="http://127.0.0.1:8765", raise_server_exceptions=False) as c:
        yield c


def _one_line_error(resp, status) -> str:
    statuses = (status,) if isinstance(status, int) else status
    assert resp.status_code in statuses, (resp.status_code, resp.text[:500])
    message = resp.json()["error"]["message"]
    assert message and "\n" not in message, message
    return message


def _upload(client, name, filename, content):
    return client.post("/stores", params={"name": name, "filename": filename}, content=content,
                       headers={"Content-Type": "application/octet-stream"})


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_hostile_upload_is_one_400_line_and_leaves_nothing(app_client, root, case):
    filename, content = CASES[case]
    name = f"h-{case}"
    msg = _one_line_error(_upload(app_client, name, filename, content), 400)
    assert filename in msg and str(root) not in msg, msg
    assert not (root / "v" / name).exists()
    assert not [p for p in (root / "d" / "uploads").iterdir() if p.name.startswith(".upload-")]


def test_a_compressed_upload_is_held_to_the_stored_size_cap(app_client, root):
    filename, content = bomb()
    assert len(content) < BOMB_CAP // 100  # it is small on the wire ...
    msg = _one_line_error(_upload(app_client, "bomb", filename, content), 400)
    assert "cap on a stored matrix" in msg  # ... and refused for what it would become
    assert not (root / "v" / "bomb").exists()


# ----------------------------------------------------------------------------- text that is not Unicode
def _json_posts(client) -> list[str]:
    """Every POST route whose body is JSON (all but the upload), from the service's own schema."""
    paths = client.get("/openapi.json").json()["paths"]
    return sorted(p for p, ops in paths.items() if "post" in ops and "{" not in p and p != "/stores")


SURROGATES = [
    b'{"lang": "fr", "store": "small-fr", "targets": ["\\ud800", "roi"], "words": ["\\udfff"]}',
    b'{"lang": "fr", "store": "small-fr", "\\ud800": 1}',  # in a key
    b'{"lang": "fr", "store": "small-fr", "targets": ["x"], "words": ["' + b"\xed\xa0\x80" + b'"]}',
]


@pytest.mark.parametrize("raw", SURROGATES, ids=["escaped", "key", "utf8-encoded"])
def test_a_lone_surrogate_is_one_4xx_line_on_every_route(app_client, raw):
    routes = _json_posts(app_client)
    assert "/ripa" in routes and "/jobs" in routes and len(routes) > 10
    for route in routes:
        if route == "/jobs":
            continue
        resp = app_client.post(route, content=raw, headers={"Content-Type": "application/json"})
        msg = _one_line_error(resp, 422)
        assert "not valid Unicode" in msg, (route, msg)


@pytest.mark.parametrize("raw", SURROGATES, ids=["escaped", "key", "utf8-encoded"])
def test_a_lone_surrogate_in_any_job_kind_leaves_nothing_on_disk(app_client, root, raw):
    from geobias.service.commands import job_kinds

    jobs_dir = root / "d" / "jobs"
    before = sorted(p.name for p in jobs_dir.iterdir())
    listed = len(app_client.get("/jobs").json()["jobs"])
    params = raw.decode("utf-8", "surrogatepass")
    for kind in job_kinds():
        body = f'{{"kind": "{kind}", "params": {params}}}'.encode("utf-8", "surrogatepass")
        msg = _one_line_error(app_client.post("/jobs", content=body, headers={"Content-Type": "application/json"}), 422)
        assert "not valid Unicode" in msg, (kind, msg)
    assert sorted(p.name for p in jobs_dir.iterdir()) == before
    assert len(app_client.get("/jobs").json()["jobs"]) == listed


def test_a_failed_record_leaves_no_job_folder(app_client, root, monkeypatch):
    """Past the edge too: whatever fails between the folder and the record removes the folder."""
    jobs = app_client.app.app.state.jobs  # the Guard wraps FastAPI
    before = sorted(p.name for p in (root / "d" / "jobs").iterdir())

    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(jobs.records, "admit", broken)
    resp = app_client.post("/jobs", json={"kind": "neighbors", "params": {"lang": "fr", "vectors": SMALL, "word": "roi"}})
    assert resp.status_code == 500
    assert sorted(p.name for p in (root / "d" / "jobs").iterdir()) == before


def test_a_500_is_answered_without_reaching_the_server(root):
    """Starlette's outer error middleware answers a bug and re-raises it to the server, which then
    drops the connection; the service answers it itself, so the exception never leaves the app
    (a test client that re-raises server exceptions sees a plain 500) and keep-alive survives."""
    from starlette.testclient import TestClient

    from geobias.service import ServiceConfig, create_app

    config = ServiceConfig(vectors_dir=root / "v", data_dir=root / "d500", quick_threads=True, quick_workers=1,
                           verify_every=0)
    app = create_app(config)

    @app.app.get("/boom")
    def boom():
        raise RuntimeError("a bug")

    with TestClient(app, base_url="http://127.0.0.1:8765", raise_server_exceptions=True) as c:
        resp = c.get("/boom")
        assert resp.status_code == 500 and resp.json()["error"]["type"] == "InternalError"
        assert c.get("/boom").status_code == 500


# ----------------------------------------------------------------------------- smaller
def test_quick_work_is_bounded_by_its_cost_with_a_pointer_to_jobs(app_client):
    words = [f"w{i}" for i in range(5000)]
    big = {"lang": "fr", "vectors": SMALL, "targets_x": words, "targets_y": words[::-1],
           "attributes_a": words, "attributes_b": words, "permutations": 1_000_000}
    msg = _one_line_error(app_client.post("/weat", json=big), 422)
    assert "quick budget" in msg and "POST /jobs" in msg and "20,000 words" in msg, msg
    # the same permutations over sets a fiftieth as large are within the budget (its cost is in the words)
    few = words[:100]
    small = {**big, "targets_x": few, "targets_y": few[::-1], "attributes_a": few, "attributes_b": few}
    assert "quick budget" not in app_client.post("/weat", json=small).text


def test_an_error_quotes_a_bounded_prefix_of_a_word(app_client):
    word = "x" * 800_000
    resp = app_client.post("/neighbors", json={"lang": "fr", "vectors": SMALL, "word": word})
    assert 400 <= resp.status_code < 500
    msg = resp.json()["error"]["message"]
    # no run of non-space characters beyond 64 and the ellipsis: the word is quoted by its prefix
    assert len(msg) < 3000 and max(len(t) for t in msg.split()) <= 65 and "xxxx…" in msg, msg[:200]
