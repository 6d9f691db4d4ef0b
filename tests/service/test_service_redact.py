"""The quick routes' answer is redacted on its encoded text (:meth:`Redactor.json`): the same bytes
as redacting the value and encoding it as ``JSONResponse`` does, for any JSON value."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the serve extra is not installed (pip install 'geobias[serve]')")

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from starlette.responses import JSONResponse  # noqa: E402

from geobias.service.config import ServiceConfig  # noqa: E402
from geobias.service.redact import Redactor  # noqa: E402

REDACT = Redactor(ServiceConfig(vectors_dir=Path("/srv/v"), data_dir=Path("/srv/d")))
JOB = "0123456789abcdef"
# pieces that make paths, near-paths, escapes and quotes meet inside one string
PIECES = st.sampled_from(["/srv/v/", f"/srv/d/jobs/{JOB}/artifacts/", "/srv/d/x", "/home/me/words.txt", "a/b", "/",
                          '"', "\\", "\n", "é", " ", "x", "http://host/p", "\u2028", "\x00", "'", "`"])
TEXT = st.lists(PIECES, max_size=6).map("".join) | st.text(max_size=12)
VALUES = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | TEXT,
                      lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
                      max_leaves=20)


def _keys_merge(value, job) -> bool:
    """Two keys of one object that redact to the same text (the object keeps one of them)."""
    if isinstance(value, dict):
        return len({REDACT.text(k, job) for k in value}) < len(value) or any(_keys_merge(v, job) for v in value.values())
    return isinstance(value, list) and any(_keys_merge(v, job) for v in value)


@settings(max_examples=400, deadline=None)
@given(VALUES, st.sampled_from([None, JOB]))
def test_json_is_the_redacted_value_encoded(value, job):
    want = JSONResponse(REDACT(value, job)).body
    got = REDACT.json(value, job)
    assert json.loads(got) == json.loads(want)
    if not _keys_merge(value, job):  # merged keys: the same object, the other key's position
        assert got == want


def test_json_redacts_a_result_and_refuses_nan():
    env = {"inputs": {"store": {"path": "/srv/v/fr-spacy-md", "origin": "/opt/x/vocab"}},
           "result": {"scores": [0.25, -1.5e-07, 3], "note": "read /srv/d/jobs/x/words.txt"}}
    assert json.loads(REDACT.json(env)) == {"inputs": {"store": {"path": "fr-spacy-md", "origin": "vocab"}},
                                             "result": {"scores": [0.25, -1.5e-07, 3], "note": "read jobs/x/words.txt"}}
    with pytest.raises(ValueError):
        REDACT.json({"x": float("nan")})


def test_a_token_seen_before_is_redacted_as_it_was_and_job_tokens_are_not_remembered(monkeypatch):
    r = Redactor(ServiceConfig(vectors_dir=Path("/srv/v"), data_dir=Path("/srv/d")))
    env = {"store": "/srv/v/fr-spacy-md", "note": f"see /srv/d/jobs/{JOB}/artifacts/plot.png"}
    first = r.json(env)
    assert json.loads(first) == {"store": "fr-spacy-md", "note": f"see jobs/{JOB}/artifacts/plot.png"}
    assert len(r._seen) == 2
    monkeypatch.setattr(json, "loads", lambda *a, **k: pytest.fail("a remembered token was decoded again"))
    assert r.json(env) == first
    monkeypatch.undo()
    fresh = Redactor(ServiceConfig(vectors_dir=Path("/srv/v"), data_dir=Path("/srv/d")))
    assert json.loads(fresh.json(env, JOB))["note"] == "see plot.png" and not fresh._seen
    monkeypatch.setattr(Redactor, "SEEN", 2)
    for i in range(5):  # bounded: never more than SEEN tokens held
        fresh.json({"p": f"/srv/v/store-{i}"})
        assert len(fresh._seen) <= 2
