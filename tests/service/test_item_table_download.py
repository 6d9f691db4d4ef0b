"""The service's data download gives a finished job's item tables too (``?table=NAME``): the rows
``geobias CMD --csv --table NAME`` prints, and a 400 naming the tables for an unknown one."""

from __future__ import annotations

import io

import pytest

pytest.importorskip("httpx", reason="the serve extra is not installed (pip install 'geobias[serve]')")
pytest.importorskip("fastapi", reason="the serve extra is not installed (pip install 'geobias[serve]')")

from _server import ServerProcess, small_french_store, wait_job  # noqa: E402

SMALL = "small-fr"


@pytest.fixture(scope="module")
def mweat_job(tmp_path_factory):
    from geobias.store import save_store

    root = tmp_path_factory.mktemp("items-route")
    (root / "vectors").mkdir()
    save_store(small_french_store(), root / "vectors" / SMALL)
    with ServerProcess(root / "vectors", root / "data", "--workers", "1") as srv, srv.client(timeout=120) as client:
        job = client.post("/jobs", json={"kind": "mweat", "params": {"lang": "fr", "vectors": SMALL,
                                                                     "permutations": 500}}).json()
        job = wait_job(client, job["id"])
        assert job["state"] == "done", job.get("error")
        yield client, job


def test_data_route_serves_an_item_table(mweat_job):
    pd = pytest.importorskip("pandas")
    client, job = mweat_job
    per_word = job["result"]["result"]["per_word"]
    answer = client.get(f"/jobs/{job['id']}/data.csv", params={"table": "per_word"})
    assert answer.status_code == 200 and "per_word.csv" in answer.headers["content-disposition"]
    frame = pd.read_csv(io.StringIO(answer.text))
    assert len(frame) == len(per_word) and list(frame.bias) == [p["bias"] for p in per_word]
    summary = pd.read_csv(io.StringIO(client.get(f"/jobs/{job['id']}/data.csv").text))  # unchanged: one row
    assert len(summary) == 1
    # the run's identifying columns, as the summary row has them
    assert set(frame.command) == {"mweat"} and set(frame.store) == {summary.store[0]} and set(frame.lang) == {"fr"}
    parquet = client.get(f"/jobs/{job['id']}/data.parquet", params={"table": "per_word"})
    assert parquet.status_code == 200 and len(pd.read_parquet(io.BytesIO(parquet.content))) == len(per_word)


def test_an_unknown_table_is_a_400_that_lists_the_tables(mweat_job):
    client, job = mweat_job
    answer = client.get(f"/jobs/{job['id']}/data.csv", params={"table": "nope"})
    assert answer.status_code == 400
    message = answer.json()["error"]["message"]
    assert "no item table 'nope'" in message and "per_word" in message
