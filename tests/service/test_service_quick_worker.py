"""A quick worker process (:func:`geobias.service.quick._serve`, forked here with the command
replaced): its analysis thread computes with faiss's OpenMP in one thread (a per-thread setting a
new thread does not inherit), answers the envelope as the redacted JSON the route sends, is reused
from call to call while it runs at normal priority, and is lowered to the idle class once a call runs
past the clock's or the CPU's limit; the next call then runs in a new thread at normal priority."""

from __future__ import annotations

import json
import multiprocessing
import os
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the serve extra is not installed (pip install 'geobias[serve]')")
faiss = pytest.importorskip("faiss")


def _fake(config, stores, name, body, progress=None):
    """What the analysis's thread sees; ``body`` says how long to run, on the clock or the CPU."""
    from geobias.service import quick

    if body.get("sleep"):
        time.sleep(10 * quick.DEMOTE_AFTER)  # well past the clock's limit
    if body.get("spin"):
        start = time.thread_time()
        # well past the CPU's limit: the main thread, woken by the timer, waits for the interpreter lock
        # (up to its switch interval, 5 ms, at each step) before it can look and lower
        while time.thread_time() - start < 10 * quick.DEMOTE_CPU:
            pass
    me = threading.get_native_id()
    return {"thread": me, "policy": os.sched_getscheduler(me) if hasattr(os, "sched_getscheduler") else None,
            "omp_threads": faiss.omp_get_max_threads(), "path": str(config.vectors_dir / "fr-spacy-md" / "x")}


@pytest.fixture
def worker(tmp_path, monkeypatch):
    """``call(body) -> (status, answer, (wall, cpu))`` on a forked worker, and the worker's process."""
    from geobias.service import commands, quick
    from geobias.service.config import ServiceConfig
    from geobias.service.lanes import Lanes

    config = ServiceConfig(vectors_dir=tmp_path / "vectors", data_dir=tmp_path / "data")
    monkeypatch.setattr(commands, "run_quick", _fake)  # before the fork: the worker inherits it
    ctx = multiprocessing.get_context("fork")
    ours, theirs = ctx.Pipe(duplex=True)
    lanes = Lanes(ctx, 1)
    flags = ctx.RawArray("b", 1)

    def serve():  # a forked child holds a copy of our end too: closed, as a fork server's child never has it
        ours.close()
        quick._serve(theirs, config, flags, lanes, 0)

    proc = ctx.Process(target=serve, daemon=True)
    proc.start()
    lanes.started(0, proc.pid)
    theirs.close()

    def call(body):
        ours.send_bytes(quick._dumps(("neighbors", body)))
        assert ours.poll(60), "the worker did not answer"
        status, answer, timing = quick._loads(ours.recv_bytes())
        assert status == "ok", answer
        return json.loads(answer), timing

    yield call, proc, ours, config
    ours.close()
    proc.join(10)
    if proc.is_alive():
        proc.kill()


def test_the_analysis_thread_runs_openmp_in_one_thread_and_answers_redacted_json(worker):
    call, _, _, config = worker
    default = []  # a plain new thread starts from the process's default (every core)
    thread = threading.Thread(target=lambda: default.append(faiss.omp_get_max_threads()))
    thread.start()
    thread.join()
    answer, (wall, cpu) = call({})
    assert wall >= 0 and cpu >= 0
    # one, whatever a new thread's default is (every core unless OMP_NUM_THREADS says otherwise)
    assert answer["omp_threads"] == 1, f"a new thread's default is {default[0]}"
    assert answer["path"] == "fr-spacy-md/x" and str(Path(config.vectors_dir)) not in json.dumps(answer)


@pytest.mark.parametrize("limit", ["sleep", "spin"])
def test_the_analysis_thread_is_reused_until_it_is_lowered(worker, limit):
    """Past the clock's limit (``sleep``) or the CPU's (``spin``)."""
    if not hasattr(os, "sched_getscheduler"):
        pytest.skip("no scheduling classes here")
    call, *_ = worker
    first, second = call({})[0], call({})[0]
    assert first["thread"] == second["thread"] and first["policy"] == second["policy"] == os.SCHED_OTHER
    long, (wall, cpu) = call({limit: True})
    assert long["thread"] == first["thread"] and long["policy"] == os.SCHED_IDLE
    assert (wall if limit == "sleep" else cpu) >= 0.9 * 10 * (0.05 if limit == "sleep" else 0.02)
    after = call({})[0]  # a new thread, at normal priority: a thread cannot raise itself again
    assert after["thread"] != first["thread"] and after["policy"] == os.SCHED_OTHER
    assert call({})[0]["thread"] == after["thread"]


def test_cheap_calls_are_never_lowered(worker):
    if not hasattr(os, "sched_getscheduler"):
        pytest.skip("no scheduling classes here")
    call, *_ = worker
    answers = [call({})[0] for _ in range(50)]
    assert {a["thread"] for a in answers} == {answers[0]["thread"]}
    assert {a["policy"] for a in answers} == {os.SCHED_OTHER}


def test_the_worker_exits_when_its_pipe_closes(worker):
    call, proc, ours, _ = worker
    call({})
    ours.close()
    proc.join(30)
    assert proc.exitcode == 0
