"""The quick path's lean parts answer what the general ones did: a body whose checks passed is
parsed again but not re-checked (and one refused is refused every time, under the caps of the
configuration that reads it), the quick answer's own response class sends what Starlette's
``Response`` sent, and a worker's list of its threads is read again once their number changes."""

from __future__ import annotations

import asyncio
import json
import os

import pytest

pytest.importorskip("fastapi", reason="the serve extra is not installed (pip install 'geobias[serve]')")


def _config(tmp_path, **kw):
    from geobias.service import ServiceConfig

    return ServiceConfig(vectors_dir=tmp_path / "vectors", data_dir=tmp_path / "data", verify_every=0, **kw)


def _request(config, raw: bytes, ctype: str = "application/json"):
    """A Starlette request for ``POST /neighbors`` with body ``raw``, on an app whose state holds ``config``."""
    from starlette.requests import Request

    class App:
        class state:  # noqa: N801 - the shape of ``app.state``
            pass

    App.state.config = config
    sent = False

    async def receive():
        nonlocal sent
        if sent:
            return {"type": "http.disconnect"}
        sent = True
        return {"type": "http.request", "body": raw, "more_body": False}

    scope = {"type": "http", "method": "POST", "path": "/neighbors", "headers": [(b"content-type", ctype.encode())],
             "app": App}
    return Request(scope, receive)


def _read(config, raw: bytes, model=None, **kw):
    from geobias.service import http

    return asyncio.run(http.json_body(_request(config, raw), model, **kw))


def test_a_body_that_passed_is_parsed_anew_and_not_checked_again(tmp_path, monkeypatch):
    from geobias.commands import get
    from geobias.service import http, limits

    http._PASSED.clear()
    config, model = _config(tmp_path), get("neighbors").params
    calls = []
    real = limits.check_body
    monkeypatch.setattr(limits, "check_body", lambda *a: calls.append(a) or real(*a))
    raw = json.dumps({"lang": "fr", "word": "femme", "k": 5}).encode()
    first, second = _read(config, raw, model), _read(config, raw, model)
    assert first == second == {"lang": "fr", "word": "femme", "k": 5}
    assert first is not second  # each request gets a body of its own
    assert len(calls) == 1
    # other bytes (the same value written otherwise), another model or another configuration: checked
    _read(config, b'{"k": 5, "lang": "fr", "word": "femme"}', model)
    _read(config, raw, get("mweat").params)
    _read(_config(tmp_path), raw, model)
    assert len(calls) == 4
    # the checks the caller leaves to itself (POST /jobs) are not held either
    _read(config, raw, check=False)
    _read(config, raw, check=False)
    assert len(calls) == 4


@pytest.mark.parametrize(("raw", "message"), [
    (b'{"word": "\\ud800"}', "not valid Unicode"),
    (b'{"word": "\xed\xa0\x80"}', "not valid Unicode"),
    (b"[1, 2]", "must be a JSON object"),
    (b"{not json", "not valid JSON"),
    (json.dumps({"word": ["a"] * 50}).encode(), "50 entries, more than this service's cap of 10"),
])
def test_a_refused_body_is_refused_every_time(tmp_path, raw, message):
    from geobias.commands import get
    from geobias.errors import ParameterError
    from geobias.service import http

    http._PASSED.clear()
    config = _config(tmp_path, max_words=10)
    for _ in range(3):
        with pytest.raises(ParameterError, match=message):
            _read(config, raw, get("neighbors").params)
    assert not http._PASSED._held


def test_a_body_passed_under_one_configuration_is_refused_under_a_tighter_one(tmp_path):
    from geobias.commands import get
    from geobias.errors import ParameterError
    from geobias.service import http

    http._PASSED.clear()
    model = get("neighbors").params
    raw = json.dumps({"lang": "fr", "word": ["a"] * 20}).encode()
    assert _read(_config(tmp_path), raw, model)["word"] == ["a"] * 20
    with pytest.raises(ParameterError, match="20 entries"):
        _read(_config(tmp_path, max_words=10), raw, model)


def test_the_media_type_is_checked_before_the_held_bodies(tmp_path):
    from geobias.commands import get
    from geobias.service import http

    http._PASSED.clear()
    config, model = _config(tmp_path), get("neighbors").params
    raw = b'{"lang": "fr", "word": "femme"}'
    _read(config, raw, model)
    with pytest.raises(http.UnsupportedMediaType):
        asyncio.run(http.json_body(_request(config, raw, "text/plain"), model))


def test_the_held_bodies_are_bounded(tmp_path, monkeypatch):
    from geobias.commands import get
    from geobias.service import http

    http._PASSED.clear()
    monkeypatch.setattr(http._Passed, "SIZE", 3)
    config, model = _config(tmp_path), get("neighbors").params
    for k in range(1, 8):
        _read(config, json.dumps({"word": "femme", "k": k}).encode(), model)
    assert len(http._PASSED._held) == 3
    # a long body passes and is not held (the model refuses such a word later, not this reader)
    http._PASSED.clear()
    long = json.dumps({"word": "a" * http._Passed.LONGEST}).encode()
    assert _read(config, long, model)["word"] == "a" * http._Passed.LONGEST
    assert not http._PASSED._held


@pytest.mark.parametrize("body", [b"", b'{"command":"neighbors","result":{"word":"f\xc3\xa9e"}}', b"x" * 70_000])
def test_the_quick_answer_sends_what_starlettes_response_sent(body):
    from starlette.responses import Response

    from geobias.service.routers.analyses import JsonBytes

    timing = "queue;dur=0.1, run;dur=2.0, compute;dur=1.2, cpu;dur=1.1"
    ours, theirs = JsonBytes(body, timing), Response(body, media_type="application/json",
                                                     headers={"Server-Timing": timing})

    def sent(response) -> list[dict]:
        messages = []

        async def send(message):
            messages.append(message)

        asyncio.run(response({"type": "http"}, None, send))
        return messages

    assert sent(ours) == sent(theirs)
    assert ours.raw_headers == theirs.raw_headers and ours.status_code == theirs.status_code == 200
    assert ours.headers["content-length"] == str(len(body))


_THREADS = """
import os, threading
from geobias.service import quick
from geobias.service.lanes import threads_of

first = quick._threads_now()
assert first == frozenset(threads_of(os.getpid())) and threading.get_native_id() in first
assert quick._threads_now() is first  # the same number of threads: not listed again
stop, started = threading.Event(), threading.Event()

def idle():
    started.set()
    stop.wait()

thread = threading.Thread(target=idle)
thread.start()
started.wait()
now = quick._threads_now()
assert thread.native_id in now and now == frozenset(threads_of(os.getpid())), (first, now)
stop.set()
thread.join()
import time
for _ in range(500):  # join returns before the kernel has reaped the thread's task
    after = quick._threads_now()
    if thread.native_id not in after:
        break
    time.sleep(0.01)
assert thread.native_id not in after and after == frozenset(threads_of(os.getpid())), (now, after)
print("ok")
"""


def test_a_workers_threads_are_listed_again_once_their_number_changes():
    """In a process of its own, as a worker is (no other test's threads come and go meanwhile)."""
    import subprocess
    import sys

    if not os.path.isdir("/proc/self/task"):
        pytest.skip("no /proc here")
    done = subprocess.run([sys.executable, "-c", _THREADS], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", (done.stdout, done.stderr)
