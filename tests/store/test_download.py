"""The downloader, against a local HTTP server on 127.0.0.1 started here (no network)."""

from __future__ import annotations

import hashlib
import http.server
import socket
import threading

import numpy as np
import pytest

from geobias.errors import DownloadError
from geobias.io.download import download
from geobias.sources import registry
from geobias.store import VectorStore

PAYLOAD = b"3 2\na 1 2\nb 3 4\nc 5 6\n" * 1  # a tiny valid .vec
BIG = bytes(range(256)) * 8192  # 2 MiB: several read chunks


class _Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):  # keep test output clean
        pass

    def do_GET(self):  # noqa: N802 - http.server API
        if self.path in ("/ok.vec", "/big"):
            body = PAYLOAD if self.path == "/ok.vec" else BIG
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        elif self.path == "/truncated":
            self.send_response(200)
            self.send_header("Content-Length", str(len(BIG)))
            self.end_headers()
            self.wfile.write(BIG[: len(BIG) // 3])
            self.wfile.flush()
            self.close_connection = True
        else:
            self.send_error(404, "Not Found")


@pytest.fixture(scope="module")
def server():
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def _leftovers(d):
    return sorted(p.name for p in d.iterdir()) if d.exists() else []


def test_success_with_checksum(tmp_path, server):
    dest = tmp_path / "dl" / "big.bin"
    out = download(f"{server}/big", dest, sha256=hashlib.sha256(BIG).hexdigest(), progress=False)
    assert out == dest and dest.read_bytes() == BIG
    assert _leftovers(dest.parent) == ["big.bin"]  # no temporary file left behind


def test_404_writes_nothing(tmp_path, server):
    dest = tmp_path / "x.vec"
    with pytest.raises(DownloadError, match=r"could not download .*/missing: HTTP 404") as info:
        download(f"{server}/missing", dest, name="muse-es", progress=False)
    assert "--vectors PATH" in str(info.value)
    assert "geobias vectors install muse-es --from PATH" in str(info.value)
    assert _leftovers(tmp_path) == []


def test_checksum_mismatch_writes_nothing(tmp_path, server):
    dest = tmp_path / "big.bin"
    with pytest.raises(DownloadError, match="checksum mismatch"):
        download(f"{server}/big", dest, sha256="0" * 64, progress=False)
    assert _leftovers(tmp_path) == []


def test_truncated_transfer_writes_nothing(tmp_path, server):
    dest = tmp_path / "t.bin"
    with pytest.raises(DownloadError, match=r"truncated|could not reach"):
        download(f"{server}/truncated", dest, progress=False)
    assert _leftovers(tmp_path) == []


def test_unreachable_host(tmp_path):
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(DownloadError, match=r"could not reach http://127.0.0.1:\d+/x.vec .*--from PATH"):
        download(f"http://127.0.0.1:{port}/x.vec", tmp_path / "x.vec", progress=False, timeout=5)
    assert _leftovers(tmp_path) == []


def test_install_downloads_from_the_registry_url(tmp_path, server, monkeypatch, rng):
    """`vectors install muse-es` streams the URL, builds the store and drops the raw file."""
    from geobias.store import formats

    words = [f"w{i}" for i in range(4)]
    vecs = rng.standard_normal((4, 300)).astype(np.float32)
    src_file = formats.write_vectors(VectorStore(words, vecs), tmp_path / "served.vec")
    payload = src_file.read_bytes()

    class Served(_Handler):
        def do_GET(self):  # noqa: N802
            self.send_response(200)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Served)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        monkeypatch.setenv("GEOBIAS_VECTORS_DIR", str(tmp_path / "vecs"))
        fake = registry.Source(**{**registry.get_source("muse-es").__dict__,
                                  "shape": (4, 300),
                                  "url": f"http://127.0.0.1:{httpd.server_address[1]}/wiki.multi.es.vec"})
        monkeypatch.setitem(registry.SOURCES, "muse-es", fake)
        res = registry.install("muse-es", progress=False)
        assert (res.n_words, res.dim) == (4, 300)
        store = registry.load_installed("muse-es")
        np.testing.assert_array_equal(store.vectors, vecs)
        assert store.provenance["url"] == fake.url
        assert _leftovers(tmp_path / "vecs" / ".downloads") == []  # raw file removed after conversion
    finally:
        httpd.shutdown()
        httpd.server_close()
