"""The quick routes' pure-ASGI door (:class:`geobias.service.routers.analyses.QuickDoor`) answers
exactly what FastAPI's routing answered: for every request below, the service with the door and
the same FastAPI app without it (the guard straight in front of FastAPI) give the same status,
the same body byte for byte and the same headers (less the request id and the timings)."""

from __future__ import annotations

import pytest

pytest.importorskip("httpx")
pytest.importorskip("fastapi")

from _server import small_french_store  # noqa: E402

SMALL = "small-fr"
VARYING = {"x-request-id", "server-timing"}


@pytest.fixture(scope="module")
def clients(tmp_path_factory):
    from fastapi.testclient import TestClient

    from geobias.service.app import create_app
    from geobias.service.config import ServiceConfig
    from geobias.service.guard import Guard
    from geobias.service.routers.analyses import QuickDoor
    from geobias.store import save_store

    root = tmp_path_factory.mktemp("door")
    (root / "v").mkdir()
    save_store(small_french_store(), root / "v" / SMALL)
    config = ServiceConfig(vectors_dir=root / "v", data_dir=root / "d", quick_threads=True, quick_workers=1,
                           max_waiting=4)
    door = create_app(config)
    assert isinstance(door.inner, QuickDoor)
    without = Guard(door.app, config)  # the same FastAPI app, its state included, reached through FastAPI
    base = "http://127.0.0.1:8765"
    return (TestClient(door, base_url=base, raise_server_exceptions=False),
            TestClient(without, base_url=base, raise_server_exceptions=False), door.app)


def _same(a, b) -> None:
    assert a.status_code == b.status_code, (a.status_code, b.status_code, a.text, b.text)
    assert a.content == b.content
    strip = lambda r: sorted((k, v) for k, v in r.headers.items() if k not in VARYING)  # noqa: E731
    assert strip(a) == strip(b)


CASES = [
    ("/neighbors", {"lang": "fr", "store": SMALL, "word": "infirmière", "k": 3}, 200),
    ("/mweat", {"lang": "fr", "store": SMALL, "permutations": 200, "seed": 3, "bootstrap": 50}, 200),
    ("/neighbors", {"lang": "fr", "store": SMALL, "word": "pas-un-mot", "k": 3}, 400),
    ("/neighbors", {"lang": "fr", "store": "no-such-store", "word": "infirmière"}, 404),
    ("/neighbors", {"lang": "fr", "store": SMALL, "word": "infirmière", "k": 0}, 422),
    ("/neighbors", {"lang": "fr", "store": SMALL, "word": "infirmière", "nope": 1}, 422),
    ("/mweat", {"lang": "fr", "store": SMALL, "permutations": 10**12}, 422),
    ("/neighbors", [1, 2], 422),
]


@pytest.mark.parametrize(("path", "body", "status"), CASES)
def test_the_door_answers_what_fastapi_answered(clients, path, body, status):
    door, without, _ = clients
    a, b = door.post(path, json=body), without.post(path, json=body)
    assert a.status_code == status, a.text
    _same(a, b)
    if status == 200:
        assert "server-timing" in a.headers


@pytest.mark.parametrize("raw", [b"{not json", b"\"\\ud800\"", b'{"word": "\\ud800"}'])
def test_bodies_that_are_not_json_objects(clients, raw):
    door, without, _ = clients
    headers = {"content-type": "application/json"}
    a, b = door.post("/neighbors", content=raw, headers=headers), without.post("/neighbors", content=raw, headers=headers)
    assert a.status_code == 422
    _same(a, b)


def test_other_media_types_methods_and_paths_answer_alike(clients):
    door, without, _ = clients
    for call in (lambda c: c.post("/neighbors", content=b"word=x", headers={"content-type": "text/plain"}),
                 lambda c: c.get("/neighbors"), lambda c: c.put("/neighbors", json={}),
                 lambda c: c.post("/neighbors/", json={}), lambda c: c.post("/no-route", json={})):
        a, b = call(door), call(without)
        assert a.status_code >= 400
        _same(a, b)


def test_a_full_queue_and_a_bug_answer_alike(clients, monkeypatch):
    door, without, app = clients
    body = {"lang": "fr", "store": SMALL, "word": "infirmière", "k": 3}
    adm = app.state.admission
    adm.in_flight = adm.workers + adm.max_waiting
    try:
        a, b = door.post("/neighbors", json=body), without.post("/neighbors", json=body)
    finally:
        adm.in_flight = 0
    assert a.status_code == 503 and a.headers["retry-after"]
    _same(a, b)

    import geobias.service.commands as service_commands

    def broken(*args, **kwargs):
        raise RuntimeError("a bug at /srv/secret/path")

    monkeypatch.setattr(service_commands, "run_quick", broken)
    a, b = door.post("/neighbors", json=body), without.post("/neighbors", json=body)
    assert a.status_code == b.status_code == 500
    for r in (a, b):  # the message names the request id, which differs; never the path
        error = r.json()["error"]
        assert error["type"] == "InternalError" and error["request_id"] == r.headers["x-request-id"]
        assert "/srv/secret" not in r.text
