"""What a client declares is not trusted: hostile vector-file headers and text that is not Unicode.

Every hostile upload of ``tests/_hostile.py`` answers 400 with one line and leaves no store and
no staging behind; a 1000:1 .npz is held to the stored-size cap. Refusal times and the server's
memory under attack are measured in ``benchmarks/bench_abuse.py``.
"""

from __future__ import annotations

import pytest

pytest.importorskip("httpx", reason="the serve extra is not installed (pip install 'geobias[serve]')")
pytest.importorskip("fastapi", reason="the serve extra is not installed (pip install 'geobias[serve]')")

from _hostile import BOMB_CAP, bomb, corpus  # noqa: E402
from _server import small_french_store  # noqa: E402

SMALL = "small-fr"
CASES = corpus()


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    from geobias.store import save_store

    root = tmp_path_factory.mktemp("hostile")
    (root / "v").mkdir()
    save_store(small_french_store(), root / "v" / SMALL)
    return root


@pytest.fixture(scope="module")
def app_client(root):
    from starlette.testclient import TestClient

    from geobias.service import ServiceConfig, create_app

    config = ServiceConfig(vectors_dir=root / "v", data_dir=root / "d", quick_threads=True, quick_workers=1,
                           verify_every=0, max_store_bytes=BOMB_CAP)
    with TestClient(create_app(config), base_url="http://127.0.0.1:8765", raise_server_exceptions=False) as c:
        yield c


def _one_line_error(resp, status) -> str:
    statuses = (status,) if isinstance(status, int) else status
    assert resp.status_code in statuses, (resp.status_code, resp.text[:500])
    message = resp.json()["error"]["message"]
    assert message and "\n" not in message, message
    return message


def _upload(client, name, filename, content):
    return client.post("/stores", params={"name": name, "filename": filename}, content=content,
                       headers={"Content-Type": "application/octet-stream"})


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_hostile_upload_is_one_400_line_and_leaves_nothing(app_client, root, case):
    filename, content = CASES[case]
    name = f"h-{case}"
    msg = _one_line_error(_upload(app_client, name, filename, content), 400)
    assert filename in msg and str(root) not in msg, msg
    assert not (root / "v" / name).exists()
    assert not [p for p in (root / "d" / "uploads").iterdir() if p.name.startswith(".upload-")]


def test_a_compressed_upload_is_held_to_the_stored_size_cap(app_client, root):
    filename, content = bomb()
    assert len(content) < BOMB_CAP // 100  # it is small on the wire ...
    msg = _one_line_error(_upload(app_client, "bomb", filename, content), 400)
    assert "cap on a stored matrix" in msg  # ... and refused for what it would become
    assert not (root / "v" / "bomb").exists()
