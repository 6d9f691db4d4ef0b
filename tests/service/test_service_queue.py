"""The job queue's cap is atomic and shared: admission and record are one transaction, each
client holds at most its share of the queue, runners serve clients round-robin, and a 429 says
when that client's own work should be done. One identity per client: the credential's spelling
does not make several clients.

The whole-server version (100 concurrent HTTP submissions, two clients filling the queue) is
``benchmarks/bench_abuse.py``; these tests drive the job manager itself, with no runner taking
jobs off the queue, so the counts are exact.
"""

from __future__ import annotations

import threading

import pytest

pytest.importorskip("fastapi", reason="the serve extra is not installed (pip install 'geobias[serve]')")

from _server import small_french_store  # noqa: E402

from geobias.service.jobs import FairQueue, QueueFull  # noqa: E402

SMALL = "small-fr"
PARAMS = {"lang": "fr", "vectors": SMALL, "word": "roi"}


@pytest.fixture()
def manager(tmp_path):
    from geobias.service.config import ServiceConfig
    from geobias.service.jobs import JobManager
    from geobias.service.stores import StoreManager
    from geobias.store import save_store

    (tmp_path / "v").mkdir()
    save_store(small_french_store(n_nouns=20, n_filler=20), tmp_path / "v" / SMALL)
    config = ServiceConfig(vectors_dir=tmp_path / "v", data_dir=tmp_path / "d", max_queue=16, workers=2,
                           quick_threads=True, verify_every=0)
    return JobManager(config, StoreManager(config))  # not started: nothing leaves the queue


def _flood(manager, clients: list[str]) -> tuple[list[str], list[QueueFull]]:
    admitted, refused, lock = [], [], threading.Lock()
    barrier = threading.Barrier(len(clients))

    def submit(client):
        barrier.wait()
        try:
            manager.submit("neighbors", PARAMS, client)
        except QueueFull as exc:
            with lock:
                refused.append(exc)
        else:
            with lock:
                admitted.append(client)

    threads = [threading.Thread(target=submit, args=(c,)) for c in clients]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return admitted, refused


def test_100_concurrent_submissions_never_overfill_the_queue(manager):
    clients = [f"127.0.0.{i % 7 + 1}" for i in range(100)]  # 7 clients, each over its share of 8
    admitted, refused = _flood(manager, clients)
    assert manager.records.count("queued") == len(admitted) == 16
    assert len(refused) == 84 and all(exc.retry_after >= 1 for exc in refused)
    assert max(admitted.count(c) for c in set(clients)) <= manager.config.client_queue
    # a refused submission leaves no folder: one per queued record
    assert len(list((manager.config.data_dir / "jobs").iterdir())) == 16


def test_two_clients_filling_the_queue_each_get_their_share(manager):
    admitted, refused = _flood(manager, ["a"] * 50 + ["b"] * 50)
    share = manager.config.client_queue
    assert share == 8 and admitted.count("a") == share and admitted.count("b") == share
    # the 429's Retry-After is that client's admitted work at the assumed run time, over the runners
    from geobias.service.jobs import DEFAULT_JOB_SECONDS

    assert {exc.retry_after for exc in refused} == {int(DEFAULT_JOB_SECONDS * share / manager.config.workers)}


def test_one_client_alone_cannot_lock_others_out(manager):
    admitted, _ = _flood(manager, ["greedy"] * 40)
    assert admitted.count("greedy") == manager.config.client_queue
    assert manager.submit("neighbors", PARAMS, "newcomer")["state"] == "queued"


def test_runners_serve_clients_round_robin():
    q = FairQueue()
    for i in range(6):
        q.put(f"a{i}", "a")
    q.put("b0", "b")
    q.put("b1", "b")
    q.put("c0", "c")
    order = [q.get() for _ in range(9)]
    assert order[:4] == ["a0", "b0", "c0", "a1"]  # the later clients wait one job each, not six
    assert order.index("b1") == 4 and order[5:] == ["a2", "a3", "a4", "a5"]
    q.stop_one()
    assert q.get() is None


def test_two_spellings_of_one_token_are_one_client(tmp_path):
    from starlette.requests import Request

    from geobias.service.config import ServiceConfig
    from geobias.service.http import client_key

    class App:
        class state:  # noqa: N801 - stands in for app.state
            config = ServiceConfig(vectors_dir=tmp_path, data_dir=tmp_path / "d", token="T", quick_threads=True)

    def key(host, *headers):
        scope = {"type": "http", "method": "GET", "path": "/", "headers": [(k.encode(), v.encode()) for k, v in headers],
                 "client": (host, 1234), "app": App}
        return client_key(Request(scope))

    one = key("127.0.0.2", ("authorization", "Bearer T"))
    assert one == key("127.0.0.2", ("authorization", "bearer  T"))
    assert one == key("127.0.0.2", ("cookie", "geobias_session=x; other=1"))
    assert one != key("127.0.0.3", ("authorization", "Bearer T"))
    App.state.config = ServiceConfig(vectors_dir=tmp_path, data_dir=tmp_path / "d", quick_threads=True)
    assert key("127.0.0.2") != key("127.0.0.3")  # without a token: per address, whatever the address


def test_with_a_token_a_new_source_address_is_no_new_share(tmp_path):
    """Without a token any local process can pick a source address in 127.0.0.0/8 and be another
    client; with ``--token`` such a process is refused before it takes any share."""
    from starlette.testclient import TestClient

    from geobias.service import ServiceConfig, create_app
    from geobias.store import save_store

    (tmp_path / "v").mkdir()
    save_store(small_french_store(n_nouns=20, n_filler=20), tmp_path / "v" / SMALL)
    config = ServiceConfig(vectors_dir=tmp_path / "v", data_dir=tmp_path / "d", token="s3cret", quick_threads=True,
                           quick_workers=1, verify_every=0)
    app = create_app(config)
    for address in ("127.0.0.7", "127.0.0.8"):
        with TestClient(app, base_url="http://127.0.0.1:8765", client=(address, 40000)) as c:
            assert c.post("/jobs", json={"kind": "neighbors", "params": PARAMS}).status_code == 401
            ok = c.post("/jobs", json={"kind": "neighbors", "params": PARAMS},
                        headers={"Authorization": "bearer s3cret"})
            assert ok.status_code == 202, ok.text
