"""A quick worker's analysis thread, in process: it computes with faiss's OpenMP in one thread
(a per-thread setting a new thread does not inherit), and answers the envelope as the redacted
JSON the route sends."""

from __future__ import annotations

import json
import multiprocessing
import threading
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the serve extra is not installed (pip install 'geobias[serve]')")
faiss = pytest.importorskip("faiss")


def test_the_analysis_thread_runs_openmp_in_one_thread_and_answers_redacted_json(tmp_path, monkeypatch):
    from geobias.service import commands, quick
    from geobias.service.config import ServiceConfig
    from geobias.service.lanes import Lanes
    from geobias.service.redact import Redactor

    config = ServiceConfig(vectors_dir=tmp_path / "vectors", data_dir=tmp_path / "data")
    ctx = multiprocessing.get_context("fork")
    monkeypatch.setattr(quick, "_WORKER", {"config": config, "stores": None, "flags": ctx.RawArray("b", 1),
                                           "lanes": Lanes(ctx, 1), "redact": Redactor(config)})

    def fake(config, stores, name, body, progress=None):  # what the analysis's thread sees
        return {"omp_threads": faiss.omp_get_max_threads(), "path": str(config.vectors_dir / "fr-spacy-md" / "x")}

    monkeypatch.setattr(commands, "run_quick", fake)
    default = []  # a plain new thread starts from the process's default (every core)
    thread = threading.Thread(target=lambda: default.append(faiss.omp_get_max_threads()))
    thread.start()
    thread.join()
    status, body, (wall, cpu) = quick._run(0, "neighbors", {})
    assert status == "ok" and isinstance(body, bytes) and wall >= 0 and cpu >= 0
    answer = json.loads(body)
    # one, whatever a new thread's default is (every core unless OMP_NUM_THREADS says otherwise)
    assert answer["omp_threads"] == 1, f"a new thread's default is {default[0]}"
    assert answer["path"] == "fr-spacy-md/x" and str(Path(config.vectors_dir)) not in body.decode()


def test_the_analysis_thread_is_reused_until_it_is_lowered(tmp_path, monkeypatch):
    """Cheap analyses run one after another in the same thread at normal priority; one that runs
    past the demotion limits is lowered to the idle class in its thread, which then ends, and the
    next analysis runs in a new thread at normal priority (a thread cannot raise itself again)."""
    import os
    import time

    from geobias.service import commands, quick
    from geobias.service.config import ServiceConfig
    from geobias.service.lanes import Lanes
    from geobias.service.redact import Redactor

    if not hasattr(os, "sched_getscheduler"):
        pytest.skip("no scheduling classes here")
    config = ServiceConfig(vectors_dir=tmp_path / "vectors", data_dir=tmp_path / "data")
    ctx = multiprocessing.get_context("fork")
    monkeypatch.setattr(quick, "_WORKER", {"config": config, "stores": None, "flags": ctx.RawArray("b", 1),
                                           "lanes": Lanes(ctx, 1), "redact": Redactor(config)})

    def fake(config, stores, name, body, progress=None):
        if body.get("long"):
            time.sleep(10 * quick.DEMOTE_AFTER)  # well past the clock's limit
        return {"thread": threading.get_native_id(), "policy": os.sched_getscheduler(threading.get_native_id())}

    monkeypatch.setattr(commands, "run_quick", fake)

    def run(body):
        status, answer, _ = quick._run(0, "neighbors", body)
        assert status == "ok"
        return json.loads(answer)

    first, second = run({}), run({})
    assert first["thread"] == second["thread"] and first["policy"] == second["policy"] == os.SCHED_OTHER
    long = run({"long": True})
    assert long["thread"] == first["thread"] and long["policy"] == os.SCHED_IDLE
    lowered = quick._WORKER.get("analyst")
    assert lowered is None  # the lowered thread is not kept
    after = run({})
    assert after["thread"] != first["thread"] and after["policy"] == os.SCHED_OTHER
    assert run({})["thread"] == after["thread"]
