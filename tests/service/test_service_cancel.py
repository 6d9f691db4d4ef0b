"""Cancellation: a cancelled job's process is gone long before its work would end (how soon is
measured by benchmarks/bench_cancel.py, not asserted here); a quick analysis whose client
goes away stops (its slot is freed for the next request); the library's loops stop when the
progress reporter's cancel flag is set."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import pytest

from geobias._progress import CancelFlag, loop_bar
from geobias.errors import Cancelled

SMALL = "small-fr"
HUGE = 500_000_000  # minutes of permutations: only a stop ends it in time


@pytest.fixture(scope="module")
def vectors(tmp_path_factory):
    from _server import small_french_store

    from geobias.store import save_store

    root = tmp_path_factory.mktemp("vectors")
    save_store(small_french_store(), root / SMALL)
    return root


def test_loop_bar_and_stages_stop_once_the_flag_is_set():
    flag = CancelFlag()
    steps = 0
    with pytest.raises(Cancelled), loop_bar(flag, 10, "batches") as bar:
        for _ in range(10):
            bar.update()
            steps += 1
            if steps == 3:
                flag.cancel()
    assert steps == 3
    with pytest.raises(Cancelled), flag.stage("next stage"):
        pass


def test_execute_stops_a_permutation_test_within_a_second(vectors):
    from geobias.commands import execute

    class Watched(CancelFlag):
        """A flag that also tells when the run has asked it often enough to be inside its permutations."""

        asked = threading.Event()
        calls = 0

        def cancelled(self) -> bool:
            self.calls += 1
            if self.calls >= 3:  # execute's check, the loading stage, then the permutation test's chunks
                self.asked.set()
            return super().cancelled()

    flag, outcome = Watched(), {}

    def work():
        try:
            execute("mweat", {"lang": "fr", "vectors": str(vectors / SMALL), "permutations": HUGE}, progress=flag,
                    budget=None)
        except Cancelled as exc:
            outcome["error"] = exc

    t = threading.Thread(target=work)
    t.start()
    assert flag.asked.wait(120)  # store opened, permutations under way
    assert t.is_alive()
    flag.cancel()
    t.join(1.0)
    assert not t.is_alive() and "cancelled after" in str(outcome["error"])


def _server_deps():
    pytest.importorskip("httpx")
    pytest.importorskip("fastapi")
    pytest.importorskip("uvicorn")




def test_a_cancelled_job_stops_long_before_its_work_would_end(vectors, tmp_path):
    _server_deps()
    from _server import ServerProcess, process_alive

    data = tmp_path / "data"
    with ServerProcess(vectors, data, "--workers", "1", "--max-permutations", "1000000000") as srv, \
            srv.client(timeout=30) as c:
        job = c.post("/jobs", json={"kind": "mweat", "params": {"lang": "fr", "store": SMALL, "permutations": HUGE}}).json()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # running, inside its permutation test
            now = c.get(f"/jobs/{job['id']}").json()
            if now["state"] == "running" and now["progress"].get("last_message") == "permutations":
                break
            time.sleep(0.1)
        assert now["progress"].get("last_message") == "permutations", now
        with sqlite3.connect(data / "jobs.sqlite3") as db:
            pid = db.execute("SELECT pid FROM jobs WHERE id = ?", (job["id"],)).fetchone()[0]
        assert process_alive(pid)
        from geobias.service.worker import JOB_NICE

        nice = int(Path(f"/proc/{pid}/stat").read_text().rsplit(") ", 1)[1].split()[16])
        assert nice == JOB_NICE, "a job runs at a lower CPU priority than the quick analyses"
        answer = c.delete(f"/jobs/{job['id']}").json()
        deadline = time.monotonic() + 30  # the job's own work takes minutes: only the cancel ends it by then
        while process_alive(pid) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not process_alive(pid), "the job's process outlived its cancel"
        assert answer["state"] == "cancelled" and answer["error"]["type"] == "Cancelled"
        after = c.post("/jobs", json={"kind": "mweat", "params": {"lang": "fr", "store": SMALL, "permutations": 10}})
        deadline = time.monotonic() + 120  # one runner: the next job runs once the cancelled one is handled
        while c.get(f"/jobs/{after.json()['id']}").json()["state"] not in ("done", "failed") \
                and time.monotonic() < deadline:
            time.sleep(0.1)
        assert c.get(f"/jobs/{job['id']}").json()["state"] == "cancelled"  # the runner kept the record


def test_a_quick_analysis_stops_when_its_client_goes_away(vectors, tmp_path):
    _server_deps()
    import httpx
    from _server import ServerProcess

    with ServerProcess(vectors, tmp_path / "data", "--quick-workers", "1", "--max-permutations", "1000000000") as srv:
        huge = {"lang": "fr", "store": SMALL, "permutations": HUGE}
        with pytest.raises(httpx.ReadTimeout):  # the client gives up and closes its connection
            httpx.post(srv.url + "/mweat", json=huge, timeout=2.0)
        # one quick slot: this waits for the first analysis (minutes of work) unless it stopped
        r = httpx.post(srv.url + "/mweat", json={"lang": "fr", "store": SMALL, "permutations": 1000}, timeout=30)
        assert r.status_code == 200, r.text
        deadline = time.monotonic() + 5
        while "mweat stopped: the client went away" not in srv.log.read_text() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert "mweat stopped: the client went away" in srv.log.read_text()


def test_a_model_scoring_loop_stops_at_the_next_batch(tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from _tiny_models import make_random_bert, vocabulary_for

    from geobias.contextual.kurita import kurita_association
    from geobias.contextual.masking import ProbeSentence
    from geobias.engine import LocalEngine

    sentences = [f"my {w} is a nurse ." for w in ("brother", "sister", "father", "mother")]
    model = make_random_bert(tmp_path / "m", vocabulary_for(sentences), hidden_size=16, seed=1)
    probes = [ProbeSentence.from_words(s, s.split()[1], "nurse") for s in sentences]
    flag = CancelFlag()
    with LocalEngine(threads=1) as eng:
        lm = eng.load_masked_lm(str(model), "cpu")
        kurita_association(lm, probes, batch_size=1, progress=flag)  # runs while the flag is clear
        flag.cancel()
        with pytest.raises(Cancelled):
            kurita_association(lm, probes, batch_size=1, progress=flag)


def test_an_enclosing_cancellable_block_still_applies_inside_execute(vectors):
    from geobias._progress import Progress
    from geobias.commands import execute
    from geobias.stats import cancellable

    with cancellable(lambda: True), pytest.raises(Cancelled, match="cancelled after"):
        execute("mweat", {"lang": "fr", "vectors": str(vectors / SMALL), "permutations": 200_000,
                          "permutation_method": "monte-carlo"}, progress=Progress())
