"""The bootstrap over the words through the service and the web app: ``POST /mweat`` with
``bootstrap`` answers the interval the command gives for the same seed, a bad count is a 422, and
a web-app job shows the interval table in its view."""

from __future__ import annotations

import pytest

httpx = pytest.importorskip("httpx", reason="the serve extra is not installed (pip install 'geobias[serve]')")
pytest.importorskip("fastapi", reason="the serve extra is not installed (pip install 'geobias[serve]')")

from _server import ServerProcess, small_french_store, wait_job  # noqa: E402

pytestmark = pytest.mark.service


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    from geobias.store import save_store

    root = tmp_path_factory.mktemp("boot-service")
    (root / "vectors").mkdir()
    save_store(small_french_store(), root / "vectors" / "small-fr")
    with ServerProcess(root / "vectors", root / "data", "--workers", "1") as srv, srv.client(timeout=120) as client:
        yield srv, client, root


def test_post_mweat_carries_the_interval_of_the_command(server, monkeypatch):
    _, client, root = server
    r = client.post("/mweat", json={"lang": "fr", "store": "small-fr", "permutations": 200, "bootstrap": 300,
                                    "bootstrap_seed": 4})
    assert r.status_code == 200
    boot = r.json()["result"]["bootstrap"]
    monkeypatch.setenv("GEOBIAS_VECTORS_DIR", str(root / "vectors"))
    from geobias.commands import run

    direct = run("mweat", lang="fr", vectors="small-fr", permutations=200, bootstrap=300, bootstrap_seed=4)
    assert boot == direct.to_dict()["bootstrap"]
    bad = client.post("/mweat", json={"lang": "fr", "store": "small-fr", "bootstrap": 0})
    assert bad.status_code == 422 and "bootstrap" in bad.json()["error"]["message"]


def test_a_web_app_job_shows_the_interval(server):
    _, client, _ = server
    job = client.post("/jobs", json={"kind": "ect", "params": {"lang": "fr", "vectors": "small-fr",
                                                               "bootstrap": 200}}).json()
    job = wait_job(client, job["id"])
    assert job["state"] == "done", job.get("error")
    view = client.get(f"/app/jobs/{job['id']}/view").text
    assert "Bootstrap over the words" in view and "percentile interval" in view
