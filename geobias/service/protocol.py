"""The HTTP/1.1 parser the server runs: httptools (llhttp, in C) where it is installed, h11 otherwise.

h11, uvicorn's pure-Python parser, cost a quick request about as much CPU in the server's event loop
as everything else the server does for it (reading the head, writing the answer: 0.5 of 1.2 ms per
``/neighbors`` in ``benchmarks/bench_serve.py``). httptools does the same in C. uvicorn's own
httptools protocol bounds nothing in a request's head, where the server runs h11 with a bound
(:data:`MAX_HEAD_BYTES`): :func:`http_protocol` gives uvicorn a subclass that refuses a head
longer than that as h11 does, with ``400 Invalid HTTP request received.`` and the connection
closed. The body is bounded by :class:`~geobias.service.guard.Guard` under either parser.
"""

from __future__ import annotations

#: The most bytes a request's line and headers may take (the bound given to h11 as
#: ``h11_max_incomplete_event_size``, and to httptools here).
MAX_HEAD_BYTES = 64 * 1024


def http_protocol():
    """The ``http`` argument for :func:`uvicorn.run`: :class:`BoundedHttpTools` where httptools is
    installed, else ``"h11"`` (run with ``h11_max_incomplete_event_size=MAX_HEAD_BYTES``)."""
    try:
        import httptools  # noqa: F401
    except ImportError:
        return "h11"
    return bounded_httptools()


_BOUNDED = None


def bounded_httptools():
    """uvicorn's httptools protocol, refusing a head over :data:`MAX_HEAD_BYTES` (the class is
    made once, on first use: importing uvicorn's module needs httptools).

    The bytes received while a head is incomplete are counted (from the end of the last head: a
    chunk that ends one message and starts the next counts whole); past the bound the request is
    answered 400 and the connection closed, as h11 answers a head over its
    ``max_incomplete_event_size``. The parser holds at most the bound and one read of the socket.
    """
    global _BOUNDED
    if _BOUNDED is not None:
        return _BOUNDED
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    class BoundedHttpTools(HttpToolsProtocol):
        __doc__ = bounded_httptools.__doc__

        _in_head = True
        _head_bytes = 0

        def data_received(self, data: bytes) -> None:
            if self._in_head:
                self._head_bytes += len(data)
            super().data_received(data)
            if self._in_head and self._head_bytes > MAX_HEAD_BYTES and not self.transport.is_closing():
                msg = "Invalid HTTP request received."
                self.logger.warning(msg)
                self.send_400_response(msg)

        def on_headers_complete(self) -> None:
            self._in_head, self._head_bytes = False, 0
            super().on_headers_complete()

        def on_message_complete(self) -> None:
            super().on_message_complete()
            self._in_head = True

    _BOUNDED = BoundedHttpTools
    return _BOUNDED


__all__ = ["MAX_HEAD_BYTES", "bounded_httptools", "http_protocol"]
