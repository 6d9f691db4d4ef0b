"""The bootstrap over the words through the service and the web app: ``POST /mweat`` with
``bootstrap`` answers the interval the command gives for the same seed, a bad count is a 422, a
request with the defaults is admitted and answers the default interval (0 turns it off), and a web-app
job shows the interval table in its view."""

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
    bad = client.post("/mweat", json={"lang": "fr", "store": "small-fr", "bootstrap": -1})
    assert bad.status_code == 422 and "bootstrap" in bad.json()["error"]["message"]


@pytest.mark.parametrize("route, body, resamples", [
    ("/mweat", {"lang": "fr"}, 1000),
    ("/weat", {"lang": "fr", "test": "career-family-terms"}, 1000),
    ("/rnsb", {"lang": "fr"}, 200),
])
def test_default_requests_are_admitted_and_carry_the_default_interval(server, route, body, resamples):
    """The default bootstrap is counted in the work budget; a request with the defaults stays within
    the service's caps and answers the interval, and ``"bootstrap": 0`` turns it off."""
    _, client, _ = server
    r = client.post(route, json={**body, "store": "small-fr"})
    assert r.status_code == 200, r.text
    result = r.json()["result"]
    assert result["bootstrap"]["n_resamples"] == resamples and result["bootstrap_note"] is None
    off = client.post(route, json={**body, "store": "small-fr", "bootstrap": 0})
    assert off.status_code == 200, off.text
    assert off.json()["result"]["bootstrap"] is None
    assert off.json()["result"]["bootstrap_note"] == "no bootstrap: 0 resamples asked for"


def test_a_web_app_job_shows_the_interval(server):
    _, client, _ = server
    job = client.post("/jobs", json={"kind": "ect", "params": {"lang": "fr", "vectors": "small-fr",
                                                               "bootstrap": 200}}).json()
    job = wait_job(client, job["id"])
    assert job["state"] == "done", job.get("error")
    view = client.get(f"/app/jobs/{job['id']}/view").text
    assert "Bootstrap over the words" in view and "percentile interval" in view
