"""`geobias serve` end to end: a real uvicorn server in a subprocess, spoken to with httpx.

Every endpoint on a small synthetic French store; jobs through their whole life; bad input
(malformed uploads, unknown names, path-like names, oversized bodies, out-of-range numbers)
answered 4xx with the one error shape and nothing written; the token rule.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

httpx = pytest.importorskip("httpx", reason="the serve extra is not installed (pip install 'geobias[serve]')")
pytest.importorskip("fastapi", reason="the serve extra is not installed (pip install 'geobias[serve]')")
pytest.importorskip("uvicorn", reason="the serve extra is not installed (pip install 'geobias[serve]')")

from _server import ServerProcess, process_alive, small_french_store, wait_job  # noqa: E402

from geobias.query import WordQuery  # noqa: E402

SMALL = "small-fr"


@pytest.fixture(scope="module")
def small_file(tmp_path_factory) -> Path:
    from geobias.sources import write_vectors

    path = tmp_path_factory.mktemp("files") / "small.vec"
    write_vectors(small_french_store(), path, "w2v-text")
    return path


@pytest.fixture(scope="module")
def server(tmp_path_factory, small_file):
    from geobias.store import save_store

    root = tmp_path_factory.mktemp("service")
    vectors = root / "vectors"
    vectors.mkdir()
    save_store(small_french_store(), vectors / SMALL)
    with ServerProcess(vectors, root / "data", "--workers", "2", "--max-upload-mb", "2") as srv:
        srv.client = srv.client(timeout=60)
        yield srv
        srv.client.close()




def assert_error(resp, status: int, type_: str | None = None, contains: str | None = None) -> dict:
    assert resp.status_code == status, (resp.status_code, resp.text)
    body = resp.json()
    assert set(body) == {"error"} and set(body["error"]) == {"type", "message"}, body
    assert "\n" not in body["error"]["message"]
    if type_ is not None:
        assert body["error"]["type"] == type_, body
    if contains is not None:
        assert contains in body["error"]["message"], body
    return body["error"]


def store_names(client) -> set[str]:
    return {s["name"] for s in client.get("/stores").json()["stores"] if s["installed"]}


# ----------------------------------------------------------------------------- stores
def test_stores_list_and_describe(server):
    c = server.client
    stores = {s["name"]: s for s in c.get("/stores").json()["stores"]}
    assert stores[SMALL]["installed"] and stores[SMALL]["shape"] == [len(small_french_store()), 32]
    assert stores[SMALL]["lang"] == "fr" and len(stores[SMALL]["sha256_vectors"]) == 64
    assert not stores["fr-spacy-md"]["installed"] and stores["fr-spacy-md"]["registry"]  # listed, not installed here
    one = c.get(f"/stores/{SMALL}").json()
    assert one["name"] == SMALL and one["shape"] == stores[SMALL]["shape"]
    assert_error(c.get("/stores/fr-spacy-md"), 404, "StoreNotFound", "not installed")
    assert_error(c.get("/stores/nope"), 404, "StoreNotFound")


def test_upload_then_analyse(server, small_file):
    c = server.client
    with open(small_file, "rb") as fh:
        r = c.post("/stores", params={"name": "uploaded-fr", "lang": "fr", "filename": "small.vec"}, content=fh.read())
    assert r.status_code == 201, r.text
    assert r.json()["shape"] == [len(small_french_store()), 32] and r.json()["provenance"]["uploaded"] == "small.vec"
    # the same vectors as the pre-saved store: the same MWEAT
    a = c.post("/mweat", json={"lang": "fr", "store": "uploaded-fr", "permutations": 2000}).json()["result"]
    b = c.post("/mweat", json={"lang": "fr", "store": SMALL, "permutations": 2000}).json()["result"]
    assert a["statistic"] == pytest.approx(b["statistic"], abs=1e-5) and a["n_pairs"] == b["n_pairs"] > 10
    # multipart form upload too (a client, not a web page: it says so with the CSRF header)
    with open(small_file, "rb") as fh:
        r = c.post("/stores", params={"name": "form-fr", "lang": "fr"}, files={"file": ("mine.vec", fh)},
                   headers={"X-Geobias-CSRF": "1"})
    assert r.status_code == 201, r.text
    assert r.json()["provenance"]["uploaded"] == "mine.vec"
    # names are never reused
    assert_error(c.post("/stores", params={"name": "form-fr"}, content=b"1 2\nw 1 2\n"), 409, "StoreExists")


@pytest.mark.parametrize("header", [b"", b"3 4\n"])
def test_upload_with_a_byte_order_mark(server, header):
    """An uploaded .vec starting with a UTF-8 BOM (Notepad) is stored as the same file without one:
    its first word is 'un', not '\ufeffun' (before: 'un' out of vocabulary, or with a header a
    400 "line 2: expected 1 values, found 4")."""
    c = server.client
    rows = b"un 0.1 0.2 0.3 0.4\ndeux 0.1 0.2 0.3 0.5\ntrois 0.2 0.1 0.3 0.4\n"
    name = f"bom-{'header' if header else 'rows'}"
    r = c.post("/stores", params={"name": name, "filename": "bom.vec"}, content=b"\xef\xbb\xbf" + header + rows)
    assert r.status_code == 201, r.text
    assert r.json()["shape"] == [3, 4]
    r = c.post("/neighbors", json={"store": name, "word": "un", "k": 2})
    assert r.status_code == 200, r.text
    assert [n["word"] for n in r.json()["result"]["neighbors"]] == ["deux", "trois"]


# ----------------------------------------------------------------------------- quick analyses
def test_neighbors(server):
    store = small_french_store()
    r = server.client.post("/neighbors", json={"store": SMALL, "word": "infirmier", "k": 3})
    assert r.status_code == 200, r.text
    env = r.json()
    assert set(env) == {"command", "geobias_version", "inputs", "result"} and env["command"] == "neighbors"
    expected = store.most_similar("infirmier", 3)
    got = [(n["word"], n["similarity"]) for n in env["result"]["neighbors"]]
    assert [w for w, _ in got] == [w for w, _ in expected]
    assert np.allclose([s for _, s in got], [s for _, s in expected], atol=1e-6)
    assert env["inputs"]["vectors"]["given"] == SMALL


def test_mweat_matches_library(server):
    from geobias import wordlists
    from geobias.metrics import mweat

    store = small_french_store()
    male, female = wordlists.attribute_words("fr")
    lib = mweat(store, WordQuery.two_form(wordlists.occupations("fr"), male, female), permutations=5000, seed=3, oov="ignore").to_dict()
    r = server.client.post("/mweat", json={"lang": "fr", "store": SMALL, "permutations": 5000, "seed": 3})
    got = r.json()["result"]
    assert got["p_value"] == lib["p_value"] and got["n_pairs"] == lib["n_pairs"]
    assert got["statistic"] == pytest.approx(lib["statistic"], rel=1e-6)
    # inline lists
    r = server.client.post("/mweat", json={"store": SMALL, "targets": [["infirmière", "infirmier"], ["avocate", "avocat", "lawyer"]],
                                           "male": ["homme", "il"], "female": ["femme", "elle"], "permutations": 100})
    assert r.status_code == 200, r.text
    assert r.json()["result"]["n_pairs"] == 2


def test_weat_and_directions(server):
    c = server.client
    r = c.post("/weat", json={"lang": "fr", "store": SMALL, "test": "career-family", "permutations": 1000})
    assert r.status_code == 200, r.text
    res = r.json()["result"]
    assert res["n_permutations"] == 1000 and res["test"] and -2 <= res["effect_size"] <= 2
    r = c.post("/weat", json={"store": SMALL, "X": ["infirmier", "avocat"], "Y": ["infirmière", "avocate"],
                              "A": ["homme"], "B": ["femme"], "permutations": 10})
    assert r.status_code == 200, r.text
    r = c.post("/directions", json={"lang": "fr", "store": SMALL, "max_per_class": 80, "cv": 3})
    assert r.status_code == 200, r.text
    res = r.json()["result"]
    # the synthetic grammatical axis (axis 1) separates the nouns perfectly
    assert res["lda_cv_accuracy"] > 0.9 and len(res["d_s"]) == 32


def test_translate_eval(server):
    r = server.client.post("/translate-eval", json={"src": "fr", "tgt": "fr", "src_store": SMALL, "tgt_store": SMALL,
                                                    "dictionary": "infirmier infirmier\navocat avocat\nhomme homme\n"})
    assert r.status_code == 200, r.text
    res = r.json()["result"]
    assert res["nn"]["precision"]["p_at_1"] == 1.0  # a store against itself retrieves every word


# ----------------------------------------------------------------------------- jobs
def test_job_lifecycle_report_and_artifacts(server):
    c = server.client
    r = c.post("/jobs", json={"kind": "mweat", "params": {"lang": "fr", "store": SMALL, "permutations": 3000, "seed": 1}})
    assert r.status_code == 202, r.text
    assert r.headers["location"] == f"/jobs/{r.json()['id']}" and r.json()["state"] in ("queued", "starting", "running")
    job = wait_job(c, r.json()["id"])
    assert job["state"] == "done", job
    # the job ran `geobias mweat --json`: the same result as the synchronous route
    sync = c.post("/mweat", json={"lang": "fr", "store": SMALL, "permutations": 3000, "seed": 1}).json()
    assert job["result"]["command"] == "mweat"
    assert job["result"]["result"] == sync["result"]
    page = c.get(f"/jobs/{job['id']}/report")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "<table" in page.text and "data:image/png;base64," in page.text and "Most biased pairs" in page.text
    home = c.get("/")
    assert home.status_code == 200 and job["id"] in home.text and SMALL in home.text

    r = c.post("/jobs", json={"kind": "directions", "params": {"lang": "fr", "store": SMALL, "max_per_class": 60, "cv": 3}})
    job = wait_job(c, r.json()["id"])
    assert job["state"] == "done", job
    assert job["artifacts"] == ["gender-plane.png"]
    png = c.get(f"/jobs/{job['id']}/artifacts/gender-plane.png")
    assert png.status_code == 200 and png.content[:8] == b"\x89PNG\r\n\x1a\n"
    assert_error(c.get(f"/jobs/{job['id']}/artifacts/nothing.png"), 404)
    assert_error(c.get(f"/jobs/{job['id']}/artifacts/..%2F..%2Fjobs.sqlite3"), 404)
    assert_error(c.get(f"/jobs/{job['id']}/artifacts/.hidden"), 400, "InputError")


def test_mitigate_job_exports_vectors(server):
    c = server.client
    r = c.post("/jobs", json={"kind": "mitigate", "params": {"method": "shift-ori", "lang": "fr", "store": SMALL,
                                                             "format": "w2v-text"}})
    assert r.status_code == 202, r.text
    job = wait_job(c, r.json()["id"])
    assert job["state"] == "done", job
    vec = [a for a in job["artifacts"] if a.endswith((".txt", ".vec"))]
    assert vec, job["artifacts"]
    text = c.get(f"/jobs/{job['id']}/artifacts/{vec[0]}").text
    n, d = map(int, text.split("\n", 1)[0].split())
    assert (n, d) == (len(small_french_store()), 32)


def test_failed_job_reports_the_cli_message(server):
    c = server.client
    r = c.post("/jobs", json={"kind": "mweat", "params": {"store": SMALL, "targets": [["zzz", "yyy"]],
                                                          "male": ["homme"], "female": ["femme"], "permutations": 10}})
    job = wait_job(c, r.json()["id"])
    assert job["state"] == "failed"
    assert job["error"]["type"] == "LostVocabularyError" and "out of vocabulary" in job["error"]["message"]
    assert job["artifacts"] == []
    page = c.get(f"/jobs/{job['id']}/report")
    assert page.status_code == 200 and "out of vocabulary" in page.text


def test_cancel_and_queue_limit(tmp_path):
    from geobias.store import save_store

    vectors = tmp_path / "vectors"
    vectors.mkdir()
    save_store(small_french_store(), vectors / SMALL)
    slow = {"kind": "mweat", "params": {"lang": "fr", "store": SMALL, "permutations": 200_000_000}}
    with ServerProcess(vectors, tmp_path / "data", "--workers", "1", "--max-queue", "1",
                       "--max-permutations", "1000000000") as srv, srv.client(timeout=30) as c:
        running = c.post("/jobs", json=slow).json()
        # wait until the runner has taken the first job (else it still counts as queued)
        deadline = time.monotonic() + 60
        while c.get(f"/jobs/{running['id']}").json()["state"] in ("queued", "starting") and time.monotonic() < deadline:
            time.sleep(0.1)
        first = c.get(f"/jobs/{running['id']}").json()
        assert first["state"] == "running", first
        queued = c.post("/jobs", json=slow).json()
        assert queued["state"] == "queued", queued
        assert_error(c.post("/jobs", json=slow), 429, "QueueFull")
        assert c.delete(f"/jobs/{queued['id']}").json()["state"] == "cancelled"
        cancelled = c.delete(f"/jobs/{running['id']}").json()
        assert cancelled["state"] == "cancelled" and cancelled["error"]["type"] == "Cancelled"
        assert_error(c.delete(f"/jobs/{running['id']}"), 409, "JobConflict")
        # the single runner is free again only once it has handled the cancelled job: a job after it finishing
        # proves the runner's last word on the cancelled one is written
        after = wait_job(c, c.post("/jobs", json={"kind": "mweat", "params": {
            "lang": "fr", "store": SMALL, "permutations": 10}}).json()["id"])
        assert after["state"] == "done"
        assert c.get(f"/jobs/{running['id']}").json()["state"] == "cancelled"  # the runner did not overwrite it


# ----------------------------------------------------------------------------- bad input
BAD_UPLOADS = {
    "truncated": (b"3 4\nun 0.1 0.2 0.3 0.4\ndeux 0.1 0.2\n", "line 3"),
    "ragged": (b"un 0.1 0.2 0.3\ndeux 0.1 0.2\ntrois 0.5 0.6 0.7\n", "line 2"),
    "nan": (b"2 3\nun 0.1 nan 0.3\ndeux 0.1 0.2 0.3\n", ""),
    "garbage": (bytes(range(256)) * 8, ""),
    "empty": (b"", "empty"),
}


@pytest.mark.parametrize("case", sorted(BAD_UPLOADS))
def test_bad_uploads_are_4xx_and_write_nothing(server, case):
    data, fragment = BAD_UPLOADS[case]
    before = sorted(p.name for p in server.vectors_dir.iterdir())
    r = server.client.post("/stores", params={"name": f"bad-{case}", "filename": f"{case}.vec"}, content=data)
    err = assert_error(r, 400)
    assert err["type"] in ("VectorFormatError", "InputError")
    assert f"{case}.vec" in err["message"] and "upload" not in err["message"].split(f"{case}.vec")[0][-10:]
    assert fragment in err["message"]
    assert str(server.data_dir) not in err["message"]  # never the staging path
    assert sorted(p.name for p in server.vectors_dir.iterdir()) == before
    assert not list((server.data_dir / "uploads").iterdir())


def test_pickle_upload_refused(server, tmp_path):
    gensim = pytest.importorskip("gensim")
    kv = gensim.models.KeyedVectors(3)
    kv.add_vectors(["a", "b"], np.eye(2, 3, dtype=np.float32))
    kv.save(str(tmp_path / "x.kv"))
    err = assert_error(server.client.post("/stores", params={"name": "pickled", "filename": "x.kv"},
                                          content=(tmp_path / "x.kv").read_bytes()), 400)
    assert "pickle" in err["message"]
    assert "pickled" not in store_names(server.client)


def test_oversized_bodies(server):
    c = server.client
    big = b"w " + b"0.1 " * 700_000  # > 2 MiB upload limit of this server
    assert_error(c.post("/stores", params={"name": "too-big"}, content=big), 413, "PayloadTooLarge")

    def chunks():  # no Content-Length: the limit is enforced while streaming
        for _ in range(40):
            yield b"x" * 100_000

    assert_error(c.post("/stores", params={"name": "too-big"}, content=chunks()), 413, "PayloadTooLarge")
    assert "too-big" not in store_names(c)
    huge_json = {"store": SMALL, "word": "x" * (5 << 20)}
    assert_error(c.post("/neighbors", json=huge_json), 413, "PayloadTooLarge")


@pytest.mark.parametrize("name", ["../../etc/passwd", "..", ".hidden", "a/b", "fr-spacy-md/../x", "x" * 65, ""])
def test_path_like_names(server, name):
    c = server.client
    r = c.post("/stores", params={"name": name}, content=b"1 2\nw 1 2\n")
    assert r.status_code in (400, 404, 409, 422), r.text
    assert_error(r, r.status_code)
    r = c.post("/mweat", json={"lang": "fr", "store": name, "permutations": 10})
    assert r.status_code in (400, 404), r.text
    assert_error(r, r.status_code)
    assert not Path("/etc/passwd.tmp").exists()
    for p in server.vectors_dir.parent.rglob("*"):
        assert "passwd" not in p.name


@pytest.mark.parametrize(
    ("route", "body", "status", "type_"),
    [
        ("/mweat", {"lang": "fr", "store": "unknown-store"}, 404, "StoreNotFound"),
        ("/mweat", {"lang": "fr", "store": SMALL, "permutations": -5}, 422, "ValidationError"),
        ("/mweat", {"lang": "fr", "store": SMALL, "permutations": 0}, 422, "ValidationError"),
        ("/mweat", {"lang": "fr", "store": SMALL, "permutations": 10**9}, 422, "ValidationError"),
        ("/mweat", {"store": SMALL, "targets": [["zzz", "yyy"]], "male": ["qqq"], "female": ["rrr"]}, 400,
         "LostVocabularyError"),
        ("/mweat", {"lang": "xx", "store": SMALL}, 400, "InputError"),
        ("/mweat", {"lang": "fr", "store": SMALL, "permutations": "many"}, 422, "ValidationError"),
        ("/mweat", {"lang": "fr", "store": SMALL, "bogus": 1}, 422, "ValidationError"),
        ("/mweat", {"store": SMALL, "targets": [["a"]], "male": ["homme"], "female": ["femme"]}, 400, "InputError"),
        ("/weat", {"store": SMALL, "X": ["zzz"], "Y": ["yyy"], "A": ["homme"], "B": ["femme"]}, 400,
         "LostVocabularyError"),
        ("/weat", {"store": SMALL, "X": ["a"] * 10_001, "Y": ["b"], "A": ["c"], "B": ["d"]}, 422, "ValidationError"),  # above the cap: refused before the model looks for duplicates
        ("/neighbors", {"store": SMALL, "word": "zzzz"}, 400, "OutOfVocabularyError"),
        ("/neighbors", {"store": SMALL, "word": "homme", "k": -1}, 422, "ValidationError"),
        ("/neighbors", {"store": SMALL, "word": "homme", "k": 10**6}, 422, "ValidationError"),
        ("/mweat", {"lang": "fr", "store": SMALL, "seed": -1}, 422, "ValidationError"),  # a bad value, never a 500
        ("/mweat", {"lang": "fr", "store": SMALL, "targets": "/etc/passwd"}, 400, "InputError"),  # no server files
        ("/directions", {"lang": "fr", "store": SMALL, "cv": 1}, 422, "ValidationError"),
        ("/translate-eval", {"src": "fr", "tgt": "fr", "src_store": SMALL, "tgt_store": SMALL, "dictionary": "a b c\n"}, 422, "ValidationError"),
        ("/translate-eval", {"src": "fr", "tgt": "fr", "src_store": SMALL, "tgt_store": SMALL, "dictionary": ""}, 422, "ValidationError"),
    ],
)
def test_bad_requests(server, route, body, status, type_):
    assert_error(server.client.post(route, json=body), status, type_)


def test_bad_jobs_and_unknown_ids(server):
    c = server.client
    n_jobs = len(c.get("/jobs").json()["jobs"])
    assert_error(c.post("/jobs", json={"kind": "rm-rf", "params": {}}), 422, "ValidationError")
    assert_error(c.post("/jobs", json={"kind": "mweat", "params": {"lang": "fr", "store": SMALL, "permutations": -1}}), 422, "ValidationError")
    assert_error(c.post("/jobs", json={"kind": "mweat", "params": {"store": "../../etc/passwd"}}), 400, "InputError")
    assert_error(c.post("/jobs", json={"kind": "align", "params": {"src": "fr", "tgt": "fr", "dictionary": "identical",
                                                                   "out": SMALL}}), 409, "StoreExists")
    assert_error(c.post("/jobs", json={"kind": "probe-malor", "params": {"model": "/etc"}}), 400, "InputError")
    assert_error(c.post("/jobs", json={"kind": "probe-malor", "params": {"model": "../x"}}), 400, "InputError")
    assert_error(c.post("/jobs", json={"kind": "mweat", "params": {"nope": 1}}), 422, "ValidationError")
    assert len(c.get("/jobs").json()["jobs"]) == n_jobs  # nothing recorded
    assert_error(c.get("/jobs/0123456789abcdef"), 404, "JobNotFound")
    assert_error(c.get("/jobs/../../etc/passwd"), 404)
    assert_error(c.get("/jobs/zz/report"), 404, "JobNotFound")
    assert_error(c.delete("/jobs/0123456789abcdef"), 404, "JobNotFound")
    assert_error(c.get("/nowhere"), 404, "NotFound")
    assert_error(c.put("/stores"), 405, "MethodNotAllowed")
    assert_error(c.post("/mweat", content=b"{not json", headers={"content-type": "application/json"}), 422, "ValidationError")


# ----------------------------------------------------------------------------- restart
def test_restart_after_sigkill(tmp_path, small_file):
    """Finished jobs survive a crash; the job that was running is queued again with the reason;
    an upload cut off by the crash leaves no store and no staging file behind."""

    from geobias.store import save_store

    vectors, data = tmp_path / "vectors", tmp_path / "data"
    vectors.mkdir()
    save_store(small_french_store(), vectors / SMALL)
    srv = ServerProcess(vectors, data, "--workers", "1", "--max-permutations", "1000000000").start()
    try:
        c = srv.client(timeout=30)
        done = wait_job(c, c.post("/jobs", json={"kind": "mweat", "params": {"lang": "fr", "store": SMALL, "permutations": 500}}).json()["id"])
        assert done["state"] == "done"
        slow = c.post("/jobs", json={"kind": "mweat", "params": {"lang": "fr", "store": SMALL, "permutations": 500_000_000}}).json()
        deadline = time.monotonic() + 30
        while c.get(f"/jobs/{slow['id']}").json()["state"] != "running" and time.monotonic() < deadline:
            time.sleep(0.1)
        queued = c.post("/jobs", json={"kind": "mweat", "params": {"lang": "fr", "store": SMALL, "permutations": 400}}).json()
        assert queued["state"] == "queued"  # one worker, busy

        # an upload in flight when the server dies
        def slow_body():
            yield small_file.read_bytes()[:50_000]
            time.sleep(30)
            yield b""

        import threading

        threading.Thread(target=lambda: _ignore(lambda: httpx.post(srv.url + "/stores", params={"name": "half"},
                                                                    content=slow_body(), timeout=60)), daemon=True).start()
        deadline = time.monotonic() + 10
        while not any((data / "uploads").glob(".upload-*/upload")) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert any((data / "uploads").glob(".upload-*/upload"))
        _kill_with_its_job(srv, data, slow["id"])  # SIGKILL: no shutdown code runs
        c.close()

        srv.start()
        c = srv.client(timeout=30)
        again = c.get(f"/jobs/{done['id']}").json()
        assert again["state"] == "done" and again["result"] == done["result"]
        lost = c.get(f"/jobs/{slow['id']}").json()  # interrupted: queued again, the interruption kept
        assert lost["state"] in ("queued", "starting", "running") and lost["error"] is None
        assert [i["reason"] for i in lost["interruptions"]] == ["the server stopped while this job was running"]
        c.delete(f"/jobs/{slow['id']}")  # 500,000,000 permutations: not waited for
        assert wait_job(c, queued["id"])["state"] == "done"  # never started: run after the restart
        assert "half" not in store_names(c) and not (vectors / "half").exists()
        assert not list((data / "uploads").iterdir())
        assert sorted(p.name for p in vectors.iterdir() if not p.name.startswith(".")) == [SMALL]
        c.close()
    finally:
        srv.stop()


def _ignore(fn):
    try:
        fn()
    except Exception:  # noqa: BLE001 - the connection dies with the server, as intended
        pass


def _kill_with_its_job(srv, data, job_id: str) -> None:
    """SIGKILL the server once the running job's process is recorded; check that the job's
    process does not outlive it."""
    import sqlite3

    deadline, pid = time.monotonic() + 30, None
    while pid is None and time.monotonic() < deadline:
        with sqlite3.connect(data / "jobs.sqlite3") as db:
            pid = db.execute("SELECT pid FROM jobs WHERE id = ?", (job_id,)).fetchone()[0]
        time.sleep(0.02)
    assert pid is not None, "the job never started"
    srv.kill()
    deadline = time.monotonic() + 10
    while process_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not process_alive(pid), "the job process outlived the server"




# ----------------------------------------------------------------------------- token and host
def test_token_required_off_loopback(tmp_path):
    r = subprocess.run([sys.executable, "-c", "from geobias.cli import main; main()", "serve", "--host", "0.0.0.0",
                        "--data-dir", str(tmp_path / "d"), "--vectors-dir", str(tmp_path / "v")],
                       capture_output=True, text=True, timeout=60, env=dict(os.environ, GEOBIAS_TOKEN=""))
    assert r.returncode == 1
    assert r.stderr.startswith("geobias: error: --host 0.0.0.0 is not a loopback address") and r.stderr.count("\n") == 1
    assert not (tmp_path / "d").exists()


def test_bearer_token(tmp_path):
    (tmp_path / "v").mkdir()
    with ServerProcess(tmp_path / "v", tmp_path / "d", "--token", "s3cret") as srv:
        assert_error(httpx.get(srv.url + "/stores"), 401, "Unauthorized")
        assert_error(httpx.get(srv.url + "/stores", headers={"Authorization": "Bearer wrong"}), 401)
        assert_error(httpx.get(srv.url + "/", headers={"Authorization": "Basic s3cret"}), 401)
        ok = httpx.get(srv.url + "/stores", headers={"Authorization": "Bearer s3cret"})
        assert ok.status_code == 200 and "stores" in ok.json()


def test_openapi_lists_every_route(server):
    paths = set(server.client.get("/openapi.json").json()["paths"])
    assert {"/stores", "/stores/{name}", "/neighbors", "/weat", "/mweat", "/directions", "/translate-eval", "/jobs",
            "/jobs/{job_id}", "/jobs/{job_id}/artifacts/{name}", "/jobs/{job_id}/report", "/"} <= paths


def test_job_results_are_json_envelopes(server):
    jobs = server.client.get("/jobs").json()["jobs"]
    assert jobs and all(j["state"] in ("queued", "starting", "running", "done", "failed", "cancelled") for j in jobs)
    done = [j for j in jobs if j["state"] == "done"]
    for j in done[:3]:
        full = server.client.get(f"/jobs/{j['id']}").json()
        assert set(full["result"]) == {"command", "geobias_version", "inputs", "result"}
        json.dumps(full)


def test_port_in_use_is_one_line(tmp_path):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        r = subprocess.run([sys.executable, "-c", "from geobias.cli import main; main()", "serve", "--port", str(port),
                            "--data-dir", str(tmp_path / "d"), "--vectors-dir", str(tmp_path / "v")],
                           capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and r.stderr == f"geobias: error: cannot listen on 127.0.0.1:{port}: Address already in use\n"
    assert not (tmp_path / "d").exists() and not (tmp_path / "v").exists()


def test_a_job_survives_five_kills_in_a_row(tmp_path):
    """SIGKILL the server 5 times while the same job runs: after each restart the job is queued
    again and runs; it ends `done` with the result of an uninterrupted run, its record lists the 5
    interruptions, the database passes `PRAGMA integrity_check`, and no job process or temporary
    file outlives a kill."""
    import sqlite3

    from geobias.store import save_store

    vectors, data = tmp_path / "vectors", tmp_path / "data"
    vectors.mkdir()
    save_store(small_french_store(), vectors / SMALL)
    params = {"lang": "fr", "store": SMALL, "permutations": 20_000_000, "seed": 7}  # a few seconds a run
    srv = ServerProcess(vectors, data, "--workers", "1", "--max-tries", "10", "--max-permutations", "100000000").start()
    try:
        c = srv.client(timeout=60)
        job_id = c.post("/jobs", json={"kind": "mweat", "params": params}).json()["id"]
        for _ in range(5):
            deadline = time.monotonic() + 60
            while c.get(f"/jobs/{job_id}").json()["state"] != "running" and time.monotonic() < deadline:
                time.sleep(0.05)
            assert c.get(f"/jobs/{job_id}").json()["state"] == "running"
            _kill_with_its_job(srv, data, job_id)
            c.close()
            srv.start()
            c = srv.client(timeout=60)
        done = wait_job(c, job_id, timeout=300)
        assert done["state"] == "done", done["error"]
        assert len(done["interruptions"]) == 5 and done["tries"] == 6
        fresh = wait_job(c, c.post("/jobs", json={"kind": "mweat", "params": params}).json()["id"], timeout=300)
        assert fresh["state"] == "done" and fresh["interruptions"] == []
        assert done["result"]["result"] == fresh["result"]["result"]  # deterministic: same p-value
        c.close()
    finally:
        srv.stop()
    with sqlite3.connect(data / "jobs.sqlite3") as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert not [p for p in data.rglob("*") if p.name.endswith(".tmp")]

