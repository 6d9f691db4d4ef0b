"""The service on the real French store: MWEAT over HTTP equals `geobias mweat --lang fr --json`
field for field in ``result`` (same library call, same seed)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

httpx = pytest.importorskip("httpx", reason="the serve extra is not installed (pip install 'geobias[serve]')")
pytest.importorskip("fastapi", reason="the serve extra is not installed (pip install 'geobias[serve]')")

from _envelope import envelope_of  # noqa: E402
from _server import ServerProcess  # noqa: E402

pytestmark = pytest.mark.slow  # real 20,000 × 300 store, a CLI process per comparison


@pytest.fixture(scope="module")
def real_server(installed, tmp_path_factory):
    from geobias.sources import vectors_dir

    installed("fr-spacy-md")
    data = tmp_path_factory.mktemp("real-service") / "data"
    with ServerProcess(vectors_dir(), data, "--workers", "1") as srv:
        yield srv


def test_mweat_http_equals_cli(real_server):
    cli = subprocess.run([sys.executable, "-c", "from geobias.cli import main; main()", "mweat", "--lang", "fr", "--json"],
                         capture_output=True, text=True, timeout=600, env=dict(os.environ, OMP_NUM_THREADS="1"))
    assert cli.returncode == 0, cli.stderr
    cli_env = envelope_of(cli.stdout)
    r = httpx.post(real_server.url + "/mweat", json={"lang": "fr"}, timeout=300)
    assert r.status_code == 200, r.text
    http_env = r.json()
    assert set(http_env) == set(cli_env)
    assert http_env["command"] == cli_env["command"] == "mweat"
    assert http_env["geobias_version"] == cli_env["geobias_version"]
    assert http_env["result"] == cli_env["result"]  # field for field, float for float
    assert http_env["result"]["n_permutations"] == 100_000 and http_env["result"]["n_pairs"] >= 20
    # the same store resolved on both doors
    assert http_env["inputs"]["vectors"]["shape"] == cli_env["inputs"]["vectors"]["shape"] == [20000, 300]
    assert http_env["inputs"]["vectors"]["provenance"]["source"] == "fr-spacy-md"


def test_neighbors_http_equals_cli(real_server):
    cli = subprocess.run([sys.executable, "-c", "from geobias.cli import main; main()", "neighbors", "infirmière",
                          "--lang", "fr", "-k", "5", "--json"], capture_output=True, text=True, timeout=600)
    assert cli.returncode == 0, cli.stderr
    r = httpx.post(real_server.url + "/neighbors", json={"lang": "fr", "word": "infirmière", "k": 5}, timeout=120)
    got, want = r.json()["result"], envelope_of(cli.stdout)["result"]
    assert [n["word"] for n in got["neighbors"]] == [n["word"] for n in want["neighbors"]]
    # faiss sums float32 products in an order that depends on its thread count (the test server
    # runs with OMP_NUM_THREADS=1): equal up to float32 rounding, 1e-6 on cosines in [-1, 1]
    assert got["neighbors"] == [dict(n, similarity=pytest.approx(n["similarity"], abs=1e-6)) for n in want["neighbors"]]
    assert {k: v for k, v in got.items() if k != "neighbors"} == {k: v for k, v in want.items() if k != "neighbors"}
