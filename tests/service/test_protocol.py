"""The server's HTTP parser (:mod:`geobias.service.protocol`): httptools where it is installed, and a
request head past :data:`~geobias.service.protocol.MAX_HEAD_BYTES` refused with 400 and the
connection closed, as h11 refuses it; a head within the bound is served."""

from __future__ import annotations

import socket
import sys
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the serve extra is not installed (pip install 'geobias[serve]')")

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _server import ServerProcess  # noqa: E402


def test_httptools_is_chosen_where_installed():
    from geobias.service.protocol import bounded_httptools, http_protocol

    try:
        import httptools  # noqa: F401
    except ImportError:
        assert http_protocol() == "h11"
        return
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    assert http_protocol() is bounded_httptools() and issubclass(http_protocol(), HttpToolsProtocol)


def _exchange(port: int, head: bytes, pieces: int) -> bytes:
    """Send ``head`` in ``pieces`` writes and read until the server answers and closes (or 5 s)."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        step = -(-len(head) // pieces)
        try:
            for i in range(0, len(head), step):
                s.sendall(head[i : i + step])
        except OSError:  # the server closed the connection while the head was still arriving
            pass
        answer = b""
        try:
            while chunk := s.recv(65536):
                answer += chunk
                if b"\r\n\r\n" in answer and not answer.startswith(b"HTTP/1.1 400"):
                    break
        except OSError:
            pass
        return answer


@pytest.mark.parametrize("pieces", [1, 64])
def test_a_head_past_the_bound_is_refused_and_one_within_it_served(tmp_path, pieces):
    from geobias.service.protocol import MAX_HEAD_BYTES

    (tmp_path / "vectors").mkdir()
    with ServerProcess(tmp_path / "vectors", tmp_path / "data", "--workers", "1", "--quiet") as srv:
        ok = _exchange(srv.port, b"GET /stores HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: " + b"a" * 1_000 + b"\r\n\r\n",
                       pieces)
        assert ok.startswith(b"HTTP/1.1 200")
        huge = b"GET /stores HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: " + b"a" * (4 * MAX_HEAD_BYTES)
        refused = _exchange(srv.port, huge, pieces * 8)  # never ends: the server must stop reading it
        assert refused.startswith(b"HTTP/1.1 400") and refused.endswith(b"Invalid HTTP request received.")
