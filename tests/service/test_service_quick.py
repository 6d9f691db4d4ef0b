"""Quick analyses run in worker processes (one per --quick-workers slot), not in the server's
threads: the server's own process never computes one, a worker killed mid-analysis fails that
request alone (500 with a request id) and the next request is served by a new worker; errors
keep their types and statuses across the process boundary."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

from _server import ServerProcess, small_french_store  # noqa: E402

SMALL = "small-fr"


def _children(pid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int((entry / "stat").read_text().rsplit(") ", 1)[1].split()[1]) == pid:
                    out.append(int(entry.name))
            except (OSError, IndexError, ValueError):
                continue
    return out


def _quick_workers(server_pid: int) -> list[int]:
    """The fork server's children that are not job processes (no job runs in these tests)."""
    workers = []
    for child in _children(server_pid):
        try:
            cmdline = Path(f"/proc/{child}/cmdline").read_bytes()
        except OSError:
            continue
        if b"forkserver" in cmdline:
            workers += _children(child)
    return workers


def test_a_killed_quick_worker_fails_its_request_alone(tmp_path):
    from geobias.store import save_store

    vectors = tmp_path / "vectors"
    vectors.mkdir()
    save_store(small_french_store(), vectors / SMALL)
    small = {"lang": "fr", "store": SMALL, "permutations": 1000}
    with ServerProcess(vectors, tmp_path / "data", "--quick-workers", "1", "--max-permutations", "1000000000") as srv, \
            srv.client(timeout=60) as c:
        first = c.post("/mweat", json=small)
        assert first.status_code == 200, first.text
        workers = _quick_workers(srv.proc.pid)
        assert len(workers) == 1 and srv.proc.pid not in workers
        # errors cross the process boundary with their type and status
        r = c.post("/mweat", json={**small, "permutations": 2_000_000_000})
        assert r.status_code == 422 and r.json()["error"]["type"] == "ValidationError", r.text
        r = c.post("/neighbors", json={"store": SMALL, "word": "no-such-word-here", "k": 3})
        assert 400 <= r.status_code < 500 and "no-such-word-here" in r.json()["error"]["message"], r.text

        answer = {}
        slow = threading.Thread(target=lambda: answer.update(r=c.post("/mweat", json={**small, "permutations": 500_000_000})))
        slow.start()
        time.sleep(1.5)  # the analysis is under way in the worker
        os.kill(workers[0], signal.SIGKILL)
        slow.join(30)
        assert answer["r"].status_code == 500 and answer["r"].json()["error"]["type"] == "InternalError"
        # a new worker (on a new connection: the server closes one that carried an internal error)
        again = httpx.post(srv.url + "/mweat", json=small, timeout=60)
        assert again.status_code == 200 and again.json()["result"] == first.json()["result"]
        now = _quick_workers(srv.proc.pid)
        assert now and now != workers
        srv.kill()  # SIGKILL: the workers die with the server (through the fork server)
        deadline = time.monotonic() + 10
        while any(_alive(p) for p in now) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(_alive(p) for p in now), "a quick worker outlived the server"


def _alive(pid: int) -> bool:
    try:
        return (Path(f"/proc/{pid}/stat").read_text().rsplit(") ", 1)[1][0]) != "Z"
    except (OSError, IndexError):
        return False


def test_an_error_raised_in_a_worker_arrives_as_the_same_error(tmp_path):
    """Each error a quick command raises in a worker process reaches the server as the error the
    same call raises in the server's own process: same class, message and attributes (the words
    out of vocabulary, the sets that lost words, the parameter's name), with no class looked up
    by name."""
    import asyncio

    from geobias.errors import GeobiasError
    from geobias.service import ServiceConfig
    from geobias.service.commands import run_quick
    from geobias.service.quick import QuickPool
    from geobias.service.stores import StoreManager
    from geobias.store import save_store

    vectors = tmp_path / "vectors"
    vectors.mkdir()
    save_store(small_french_store(), vectors / SMALL)
    config = ServiceConfig(vectors_dir=vectors, data_dir=tmp_path / "data", verify_every=0)
    bodies = {
        "neighbors": {"store": SMALL, "word": "no-such-word-here", "k": 3},
        "weat": {"store": SMALL, "targets_x": ["zz1", "zz2", "zz3"], "targets_y": ["homme", "femme"],
                 "attributes_a": ["roi", "reine"], "attributes_b": ["zz4", "zz5"], "permutations": 100},
        "mweat": {"store": "no-such-store", "lang": "fr"},
    }
    here = StoreManager(config)
    expected = {}
    for name, body in bodies.items():
        with pytest.raises(GeobiasError) as caught:
            run_quick(config, here, name, body)
        expected[name] = caught.value

    async def in_workers():
        pool = QuickPool(config, 1)
        try:
            got = {}
            for name, body in bodies.items():
                try:
                    await pool.run(name, body, _Never())
                except GeobiasError as exc:
                    got[name] = exc
            return got
        finally:
            pool.close()

    got = asyncio.run(in_workers())
    assert set(got) == set(bodies)
    for name, exc in expected.items():
        back = got[name]
        assert type(back) is type(exc) and str(back) == str(exc), (name, back, exc)
        assert vars(back) == vars(exc), name
    assert {type(e).__name__ for e in got.values()} >= {"OutOfVocabularyError", "LostVocabularyError"}
    assert got["neighbors"].words == ["no-such-word-here"]


class _Never:
    def cancelled(self) -> bool:
        return False


def test_geobias_serve_starts_every_quick_worker_before_the_first_request(tmp_path):
    """``geobias serve`` starts its workers at startup, in the background: the first request on a
    slot does not wait for a worker to start (50-150 ms, seconds on a cold fork server)."""
    from geobias.store import save_store

    vectors = tmp_path / "vectors"
    vectors.mkdir()
    save_store(small_french_store(), vectors / SMALL)
    with ServerProcess(vectors, tmp_path / "data", "--quick-workers", "2") as srv:
        deadline = time.monotonic() + 60
        while len(_quick_workers(srv.proc.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        workers = sorted(_quick_workers(srv.proc.pid))
        assert len(workers) == 2, "the quick workers were not started ahead of the first request"
        with srv.client(timeout=60) as c:
            for _ in range(4):
                assert c.post("/neighbors", json={"store": SMALL, "word": "homme", "k": 3}).status_code == 200
        assert sorted(_quick_workers(srv.proc.pid)) == workers, "a request started a worker of its own"
