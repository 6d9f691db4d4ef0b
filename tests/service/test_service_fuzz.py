"""Property-based fuzzing of the service's request models (Hypothesis): whatever JSON a client
sends to a route, the answer is 2xx or a 4xx with the one error shape, never a 500.

Bounded: a fixed number of examples per route (derandomised, so a run is reproducible), on a
small synthetic store; the strategies mix plausible values with degenerate ones (one word per
class, sets empty after filtering, the smallest and the largest allowed sizes; see also
``test_degenerate.py``, which walks them field by field).
"""

from __future__ import annotations

import os

import pytest

httpx = pytest.importorskip("httpx", reason="the serve extra is not installed (pip install 'geobias[serve]')")
pytest.importorskip("fastapi", reason="the serve extra is not installed (pip install 'geobias[serve]')")
hypothesis = pytest.importorskip("hypothesis", reason="hypothesis is not installed (pip install 'geobias[serve]')")

from _server import ServerProcess, small_french_store  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from geobias.commands import commands  # noqa: E402

SMALL = "small-fr"
N_EXAMPLES = int(os.environ.get("GEOBIAS_FUZZ_EXAMPLES", "40"))

words = st.sampled_from(["homme", "femme", "infirmier", "infirmière", "avocat", "zzz", "", "../x", "é", "a b"])
word_lists = st.lists(words, max_size=6)
scalar = st.one_of(st.none(), st.booleans(), st.integers(-10, 3000), st.integers(-(2**63), 2**63),
                   st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=12), words)
value = st.one_of(scalar, word_lists, st.lists(word_lists, max_size=4), st.dictionaries(st.text(max_size=5), scalar, max_size=3))
#: Degenerate values (smallest sizes, one word per class, sets empty once out-of-vocabulary words
#: are dropped, the largest sizes the service allows): where libraries raise errors of their own.
degenerate_counts = st.sampled_from([1, 2, 1_000_000])
degenerate_sets = st.sampled_from([["homme"], ["zzz"], ["zzz", "qqq"], ["homme", "zzz"], ["homme", "femme"]])
stores = st.sampled_from([SMALL, "fr-spacy-md", "../../etc/passwd", "nope", "", None])
langs = st.sampled_from(["fr", "en", "de", "xx", "", None])


def bodies(model) -> st.SearchStrategy[dict]:
    """Dicts over the model's field names (each present or not, each of any JSON type, with
    plausible values for store/lang), sometimes with an unknown key."""
    fields = list(model.model_fields)
    special = {"store": stores, "src_store": stores, "tgt_store": stores, "en_store": stores, "vectors": stores,
               "src_vectors": stores, "tgt_vectors": stores, "en_vectors": stores, "lang": langs,
               "src": langs, "tgt": langs, "permutations": st.one_of(st.integers(-5, 5000), degenerate_counts),
               "k": st.one_of(st.integers(-3, 50), st.sampled_from([1, 1000])), "cv": st.sampled_from([1, 2, 3]),
               "max_per_class": st.sampled_from([1, 2, 3]), "seed": st.sampled_from([0, 2**32, 2**63 - 1]),
               **{f: degenerate_sets for f in ("targets_x", "targets_y", "attributes_a", "attributes_b", "targets")}}
    per_field = {f: st.one_of(special.get(f, value), value) for f in fields}
    return st.fixed_dictionaries({}, optional={**per_field, "unknown": value})


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    from geobias.store import save_store

    root = tmp_path_factory.mktemp("fuzz")
    (root / "vectors").mkdir()
    save_store(small_french_store(), root / "vectors" / SMALL)
    with ServerProcess(root / "vectors", root / "data", "--workers", "1", "--max-queue", "4") as srv, \
            srv.client(timeout=120) as c:
        yield c


def check(resp) -> None:
    assert resp.status_code < 500, (resp.request.method, resp.request.url, resp.request.content[:300], resp.text[:500])
    if resp.status_code >= 400:
        body = resp.json()
        assert set(body) == {"error"} and set(body["error"]) == {"type", "message"}, body
    elif 300 <= resp.status_code < 400:  # a segment ending in %2F: "/stores/x/" is sent on to "/stores/x", on this server
        origin = f"{resp.request.url.scheme}://{resp.request.url.netloc.decode()}/"
        assert resp.headers["location"].startswith(origin), (resp.request.url, resp.headers["location"])
    else:
        assert resp.headers["content-type"].startswith(("application/json", "text/html"))


# Every quick route and job kind, with the command's own parameter model (the service has no other).
ROUTES = {f"/{c.kind}": c.params for c in commands() if c.quick}
JOBS = {c.kind: c.params for c in commands() if c.job}
FUZZ = settings(max_examples=N_EXAMPLES, deadline=None, derandomize=True, database=None,
                suppress_health_check=list(HealthCheck))


@pytest.mark.parametrize("route", sorted(ROUTES))
def test_quick_routes_never_500(client, route):
    @FUZZ
    @given(body=bodies(ROUTES[route]))
    def run(body):
        if route == "/directions" and (isinstance(body.get("max_per_class"), int) or "max_per_class" not in body):
            body["max_per_class"] = min(abs(body.get("max_per_class") or 30), 30) or 30  # keep LDA fits small
        check(client.post(route, json=body))

    run()


def test_job_submission_never_500(client):
    kinds = sorted(JOBS)

    @FUZZ
    @given(kind=st.one_of(st.sampled_from(kinds), st.text(max_size=8)), data=st.data())
    def run(kind, data):
        params = data.draw(bodies(JOBS[kind])) if kind in JOBS else data.draw(value)
        resp = client.post("/jobs", json={"kind": kind, "params": params})
        check(resp)
        if resp.status_code == 202:  # accepted: cancel it, the fuzzing is about validation
            check(client.delete(f"/jobs/{resp.json()['id']}"))

    run()


@FUZZ
@given(segment=st.text(min_size=1, max_size=30))
def test_path_segments_never_500(client, segment):
    from urllib.parse import quote

    s = quote(segment, safe="")
    for path in (f"/stores/{s}", f"/jobs/{s}", f"/jobs/{s}/report", f"/jobs/0123456789abcdef/artifacts/{s}"):
        check(client.get(path))
    check(client.post("/stores", params={"name": segment}, content=segment.encode("utf-8", "replace")))
