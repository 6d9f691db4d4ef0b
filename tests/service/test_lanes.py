"""Core lanes (geobias/service/lanes.py): while a long quick analysis runs beside cheap ones, the
two get disjoint cores, and everything gets every core back once only one kind runs. What this
buys in latency is measured by benchmarks/bench_abuse.py, not asserted here."""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
import threading
import time

import pytest

from geobias.service.lanes import ALL, CHEAP, HOLD, LONG, Lanes, assignment, split

linux_affinity = pytest.mark.skipif(
    not hasattr(os, "sched_getaffinity") or len(os.sched_getaffinity(0)) < 2,
    reason="needs Linux CPU affinity and at least two cores")


@pytest.mark.parametrize("n", range(1, 17))
def test_split_gives_disjoint_lanes_covering_every_core(n):
    cores = set(range(3, 3 + n))  # not starting at 0: a container's allowed set need not
    lanes = split(cores)
    if n == 1:
        assert lanes is None
        return
    long, cheap = lanes
    assert long and cheap and not long & cheap and long | cheap == cores
    assert len(cheap) == max(1, n // 2)


def test_assignment_splits_only_while_both_kinds_run():
    assert assignment([0, 0, 0], [0, 0, 0]) == [ALL] * 4
    assert assignment([1, 1, 0], [0, 0, 0]) == [ALL] * 4  # cheap ones only
    assert assignment([1, 1, 0], [1, 1, 0]) == [ALL] * 4  # long ones only: every core for them
    assert assignment([1, 1, 0], [1, 0, 0]) == [LONG, CHEAP, CHEAP, CHEAP]
    # a cheap analysis just ended: the split holds; an idle slot waits on the cheap cores
    assert assignment([1, 0, 0], [1, 0, 0], recent=True) == [LONG, CHEAP, CHEAP, CHEAP]
    # a stale long mark on a free slot does not count
    assert assignment([0, 1], [1, 0]) == [ALL] * 3


@linux_affinity
def test_apply_pins_each_process_to_its_lane_and_gives_every_core_back():
    every = os.sched_getaffinity(0)
    long_cores, cheap_cores = split(every)
    sleepers = [subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"]) for _ in range(2)]
    lanes = Lanes(multiprocessing.get_context("spawn"), 2)
    loop_thread: dict = {}
    done = threading.Event()

    def event_loop():  # stands in for the server's event loop: a thread of its own, not pytest's
        lanes.serving()
        loop_thread["tid"] = threading.get_native_id()
        done.wait(30)

    t = threading.Thread(target=event_loop)
    t.start()
    try:
        while "tid" not in loop_thread:
            time.sleep(0.01)
        for slot, proc in enumerate(sleepers):
            lanes.started(slot, proc.pid)
        lanes.set(lanes.busy, 0, 1)
        lanes.set(lanes.busy, 1, 1)
        assert all(os.sched_getaffinity(p.pid) == every for p in sleepers)  # cheap ones only
        lanes.set(lanes.long, 0, 1)  # slot 0's analysis has been lowered
        assert os.sched_getaffinity(sleepers[0].pid) == long_cores
        assert os.sched_getaffinity(sleepers[1].pid) == cheap_cores
        assert os.sched_getaffinity(loop_thread["tid"]) == cheap_cores
        assert os.sched_getaffinity(0) == every, "only the event loop's thread is pinned, not its process"
        lanes.set(lanes.busy, 1, 0)  # the cheap one ended; it started less than HOLD ago: the split holds
        assert os.sched_getaffinity(sleepers[0].pid) == long_cores
        lanes.cheap_seen.value = time.monotonic() - HOLD - 0.1
        lanes.apply()  # as the long analysis's worker does each second
        assert all(os.sched_getaffinity(p.pid) == every for p in sleepers)
        assert os.sched_getaffinity(loop_thread["tid"]) == every
        lanes.set(lanes.busy, 1, 1)
        assert os.sched_getaffinity(sleepers[1].pid) == cheap_cores
        lanes.reset()
        assert all(os.sched_getaffinity(p.pid) == every for p in sleepers)
        assert os.sched_getaffinity(loop_thread["tid"]) == every
    finally:
        done.set()
        t.join()
        for proc in sleepers:
            proc.kill()
            proc.wait()


@linux_affinity
def test_a_long_quick_analysis_runs_idle_class_on_its_lane_beside_a_cheap_one(tmp_path):
    pytest.importorskip("httpx")
    pytest.importorskip("fastapi")
    from _server import ServerProcess, small_french_store

    from geobias.store import save_store

    vectors = tmp_path / "vectors"
    vectors.mkdir()
    save_store(small_french_store(), vectors / "small-fr")
    every = os.sched_getaffinity(0)
    long_cores, cheap_cores = split(every)
    huge = {"lang": "fr", "store": "small-fr", "permutations": 500_000_000}
    with ServerProcess(vectors, tmp_path / "data", "--quick-workers", "2", "--client-slots", "2",
                       "--max-permutations", "1000000000") as srv, srv.client(timeout=30) as c:
        assert c.post("/neighbors", json={"store": "small-fr", "word": "homme", "k": 3}).status_code == 200
        long_request = threading.Thread(target=lambda: _post_until_timeout(srv.url + "/mweat", huge), daemon=True)
        long_request.start()
        seen: dict = {}
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not seen.get("pinned"):
            r = c.post("/neighbors", json={"store": "small-fr", "word": "homme", "k": 3})
            assert r.status_code == 200, r.text
            for pid in _quick_workers(srv.proc.pid):
                idle = [t for t in _tids(pid) if _policy(t) == os.SCHED_IDLE]
                if idle:
                    seen["idle"] = True
                    seen["pinned"] = all(_affinity(t) == long_cores for t in idle)
                    others = [p for p in _quick_workers(srv.proc.pid) if p != pid]
                    seen["others"] = [_affinity(p) for p in others]
            time.sleep(0.05)
        assert seen.get("idle"), "the long analysis was not lowered to the idle class"
        assert seen.get("pinned"), "the long analysis did not move to its lane beside the cheap requests"
        assert all(a == cheap_cores for a in seen["others"])


def _post_until_timeout(url, body):
    import httpx

    try:
        httpx.post(url, json=body, timeout=20)
    except httpx.HTTPError:
        pass


def _quick_workers(server_pid: int) -> list[int]:
    """The server's quick workers: the fork server's children outside a session of their own
    (a job process starts one)."""
    out = []
    for child in _children(server_pid):
        for grand in _children(child):
            if os.getsid(grand) != grand:
                out.append(grand)
    return out


def _children(pid: int) -> list[int]:
    found = []
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/children") as fh:
                found += [int(c) for c in fh.read().split()]
        except OSError:
            pass
    return found


def _tids(pid: int) -> list[int]:
    try:
        return [int(t) for t in os.listdir(f"/proc/{pid}/task")]
    except OSError:
        return []


def _policy(tid: int) -> int | None:
    try:
        return os.sched_getscheduler(tid)
    except OSError:
        return None


def _affinity(tid: int):
    try:
        return os.sched_getaffinity(tid)
    except OSError:
        return None
