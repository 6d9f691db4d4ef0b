"""Per-client fairness of the quick analyses' admission: a client's share of the slots and of
the waiting queue is bounded (429 + ``Retry-After`` past it, others served as usual), a free slot
goes round-robin across waiting clients, first come first served within each. The latency this
buys under load is measured by ``benchmarks/bench_serve.py`` (per-client addresses)."""

from __future__ import annotations

import threading
from functools import partial

import pytest

pytest.importorskip("fastapi", reason="the serve extra is not installed (pip install 'geobias[serve]')")
anyio = pytest.importorskip("anyio")

from _server import small_french_store  # noqa: E402

from geobias.service.http import Admission, Busy, TooManyRequests  # noqa: E402


def _gate():
    """A blocking work item: ``work(tag)`` records its start and waits for the gate."""
    gate, order, lock = threading.Event(), [], threading.Lock()

    def work(tag):
        def fn():
            with lock:
                order.append(tag)
            gate.wait(10)
            return tag
        return fn

    return gate, order, work


def test_a_greedy_client_gets_429_and_another_client_a_free_slot_at_once():
    adm = Admission(workers=2, max_waiting=8, client_slots=1, client_waiting=2)
    gate, order, work = _gate()
    outcomes: dict[str, list] = {"greedy": [], "other": []}

    async def main():
        async def one(client, tag):
            try:
                outcomes[client].append(await adm.run(work(tag), client=client))
            except (TooManyRequests, Busy) as exc:
                outcomes[client].append(exc)

        async with anyio.create_task_group() as tg:
            for i in range(10):
                tg.start_soon(one, "greedy", f"g{i}")
            await anyio.sleep(0.3)
            tg.start_soon(one, "other", "o0")
            await anyio.sleep(0.3)
            assert order == ["g0", "o0"]  # the other client started while the greedy one's waited
            gate.set()

    anyio.run(main)
    refused = [o for o in outcomes["greedy"] if isinstance(o, TooManyRequests)]
    assert len(refused) == 7 and all(r.retry_after >= 1 for r in refused)  # 1 running + 2 waiting admitted
    assert sorted(o for o in outcomes["greedy"] if isinstance(o, str)) == ["g0", "g1", "g2"]
    assert outcomes["other"] == ["o0"]
    assert adm.in_flight == 0 and adm.running == 0


def test_free_slots_go_round_robin_across_clients_fifo_within_each():
    adm = Admission(workers=1, max_waiting=20, client_slots=1, client_waiting=10)
    order, lock = [], threading.Lock()

    def work(tag):
        def fn():
            with lock:
                order.append(tag)
            return tag
        return fn

    async def main():
        hold = anyio.Event()

        async def blocker():
            await adm.run(lambda: anyio.from_thread.run(hold.wait), client="z")

        async with anyio.create_task_group() as tg:
            tg.start_soon(blocker)  # holds the only slot while the queue fills
            await anyio.sleep(0.2)
            for i in range(3):
                tg.start_soon(partial(adm.run, work(f"a{i}"), client="a"))
                await anyio.sleep(0.05)
            for i in range(3):
                tg.start_soon(partial(adm.run, work(f"b{i}"), client="b"))
                await anyio.sleep(0.05)
            hold.set()

    anyio.run(main)
    assert order == ["a0", "b0", "a1", "b1", "a2", "b2"]


def test_the_route_answers_429_with_retry_after_for_that_client_only(tmp_path):
    from starlette.testclient import TestClient

    from geobias.service import ServiceConfig, create_app
    from geobias.store import save_store

    (tmp_path / "v").mkdir()
    save_store(small_french_store(), tmp_path / "v" / "small-fr")
    config = ServiceConfig(vectors_dir=tmp_path / "v", data_dir=tmp_path / "d", quick_threads=True, quick_workers=2,
                           client_slots=1, client_waiting=1, verify_every=0)
    app = create_app(config)
    body = {"store": "small-fr", "word": "homme", "k": 2}
    with TestClient(app, base_url="http://127.0.0.1:8765", raise_server_exceptions=False) as c:
        adm = app.app.state.admission
        adm._admitted_by["testclient"] = 2  # this client's share is taken (one running, one waiting)
        r = c.post("/neighbors", json=body)
        assert r.status_code == 429 and int(r.headers["retry-after"]) >= 1
        assert r.json()["error"]["type"] == "TooManyRequests" and "\n" not in r.json()["error"]["message"]
        adm._admitted_by["someone-else"] = adm._admitted_by.pop("testclient")
        ok = c.post("/neighbors", json=body)
        assert ok.status_code == 200 and ok.headers["server-timing"].startswith("queue;dur=")


def test_a_client_arriving_later_waits_behind_no_client_just_served():
    """Clients a and b cycle through the one slot; c arrives while b0 runs, after a0 and b0 were
    served: the next slot is c's (a plain rotation with c at the back would serve a1 and b1 first)."""
    adm = Admission(workers=1, max_waiting=20, client_slots=1, client_waiting=10)
    order, lock, step = [], threading.Lock(), threading.Semaphore(0)

    def work(tag):
        def fn():
            with lock:
                order.append(tag)
            step.acquire(timeout=10)  # each analysis runs until the test lets it finish
            return tag
        return fn

    async def started(n):
        for _ in range(500):
            if len(order) >= n:
                return
            await anyio.sleep(0.01)
        raise AssertionError(f"{n} analyses did not start: {order}")

    async def main():
        async with anyio.create_task_group() as tg:
            tg.start_soon(partial(adm.run, work("z"), client="z"))  # holds the only slot while a and b queue
            await started(1)
            for client in "ab":
                for i in range(3):
                    tg.start_soon(partial(adm.run, work(f"{client}{i}"), client=client))
                    await anyio.sleep(0.02)
            step.release()  # z ends: a0
            await started(2)
            step.release()  # a0 ends: b0
            await started(3)
            tg.start_soon(partial(adm.run, work("c0"), client="c"))  # arrives while b0 runs
            await anyio.sleep(0.1)
            for n in range(4, 9):
                step.release()
                await started(n)
            step.release()

    anyio.run(main)
    assert order == ["z", "a0", "b0", "c0", "a1", "b1", "a2", "b2"]
    assert adm.in_flight == 0 and adm.running == 0 and not adm._queues
    assert set(adm._served) <= {"b"}  # idle clients served before every admitted one are forgotten
