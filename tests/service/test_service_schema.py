"""The live service against its own OpenAPI document (Schemathesis): every operation, a bounded
number of generated requests on loopback — no answer is a server error, every status code and
body is the one the document declares, and an undeclared method answers 405 with ``Allow``.

The Python-level test runs the response checks per operation; the command-line run adds every
other check of Schemathesis (``--checks all``: schema-valid requests refused, schema-violating
ones accepted, stateful use after delete), with ``schemathesis.toml`` declaring 400 — a refusal
that depends on the data, such as a word the store's vocabulary lacks — an expected answer to a
schema-valid request. ``GEOBIAS_FUZZ_EXAMPLES`` raises the budget (``make fuzz``).
"""

from __future__ import annotations

import os

import pytest

pytest.importorskip("fastapi", reason="the serve extra is not installed (pip install 'geobias[serve]')")
schemathesis = pytest.importorskip("schemathesis", reason="schemathesis is not installed (pip install 'geobias[serve]')")

from _server import ServerProcess, small_french_store  # noqa: E402
from hypothesis import HealthCheck, settings  # noqa: E402

N_EXAMPLES = int(os.environ.get("GEOBIAS_FUZZ_EXAMPLES", "15"))


@pytest.fixture(scope="module")
def live_schema(tmp_path_factory):
    from geobias.store import save_store

    root = tmp_path_factory.mktemp("schema")
    (root / "vectors").mkdir()
    save_store(small_french_store(), root / "vectors" / "small-fr")
    with ServerProcess(root / "vectors", root / "data", "--workers", "1", "--max-queue", "4") as srv:
        yield schemathesis.openapi.from_url(f"{srv.url}/openapi.json"), srv.url


def test_every_operation_conforms(live_schema):
    import httpx
    from hypothesis import given
    from schemathesis.checks import (
        content_type_conformance,
        not_a_server_error,
        response_schema_conformance,
        status_code_conformance,
    )

    checks = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]
    schema, url = live_schema
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 15  # stores, the quick analyses, /commands, jobs, pages

    statuses: dict[int, int] = {}
    for operation in operations:
        @settings(max_examples=N_EXAMPLES, deadline=None, derandomize=True, database=None,
                  suppress_health_check=list(HealthCheck))
        @given(case=operation.as_strategy())
        def run(case):
            response = case.call(timeout=120)
            statuses[response.status_code] = statuses.get(response.status_code, 0) + 1
            case.validate_response(response, checks=checks)
            if response.status_code == 202 and case.path == "/jobs":  # accepted: cancel it
                httpx.delete(f"{url}/jobs/{response.json()['id']}", timeout=60)

        run()
    assert sum(statuses.values()) >= len(operations) and not any(code >= 500 for code in statuses)
    assert any(200 <= code < 300 for code in statuses)  # some requests got through to the analyses


def test_schemathesis_with_every_check_reports_no_failure(live_schema):
    """``schemathesis run --checks all`` (every phase: examples, coverage, fuzzing, stateful) finds
    nothing: no 5xx, every answer as documented, no schema-valid request refused with 422 and no
    schema-violating one accepted, ``Allow`` on 405, no deleted resource still served.
    ``schemathesis.toml`` declares 400, the refusals that depend on the service's data (a word the
    store lacks), as an expected answer to a schema-valid request."""
    import subprocess
    import sys
    from pathlib import Path

    exe = Path(sys.executable).with_name("schemathesis")
    if not exe.exists():
        pytest.skip("the schemathesis command is not installed")
    _, url = live_schema
    root = Path(__file__).resolve().parents[2]
    run = subprocess.run([str(exe), "--config-file", str(root / "schemathesis.toml"), "run", f"{url}/openapi.json",
                          "--checks", "all", "-n", str(min(N_EXAMPLES, 100)), "--generation-deterministic",
                          "--no-color", "--request-timeout", "120"],
                         capture_output=True, text=True, timeout=1800, cwd=root)
    failures = run.stdout[run.stdout.find("FAILURES"):run.stdout.find("WARNINGS")] if "FAILURES" in run.stdout else ""
    shown = [line.strip()[:300] for line in failures.splitlines()
             if line.startswith("_") or "ST" in line[:12] or "Invalid component" in line or '{"error"' in line]
    assert run.returncode == 0, "\n".join(shown) or (run.stdout[-3000:] + run.stderr[-2000:])


def test_the_document_states_what_the_service_enforces(tmp_path):
    """Caps, patterns and rules across fields are in the OpenAPI document (before, Schemathesis
    found schema-valid requests refused: empty and non-ASCII store names, empty languages, empty
    word sets, ``{"kind": "weat", "params": {}}``)."""
    import re

    from starlette.testclient import TestClient

    from geobias.service import ServiceConfig, create_app

    config = ServiceConfig(vectors_dir=tmp_path / "v", data_dir=tmp_path / "d", max_words=500, max_permutations=7_000,
                           verify_every=0)
    doc = TestClient(create_app(config), base_url="http://127.0.0.1:8765").get("/openapi.json").json()
    weat = doc["paths"]["/weat"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    props = weat["properties"]
    array = next(a for a in props["targets_x"]["anyOf"] if a.get("type") == "array")
    assert array["minItems"] == 1 and array["maxItems"] == 500 and array["uniqueItems"] is True
    assert not re.match(array["items"]["pattern"], " ") and re.match(array["items"]["pattern"], "infirmière")
    store = next(a for a in props["vectors"]["anyOf"] if a.get("type") == "string")
    for bad in ("", "é", "../x", ".hidden", "a..b"):
        assert not re.match(store["pattern"], bad), bad
    assert re.match(store["pattern"], "fr-spacy-md") and store["maxLength"] == 64
    lang = next(a for a in props["lang"]["anyOf"] if a.get("type") == "string")
    assert re.match(lang["pattern"], "fr") and re.match(lang["pattern"], "ZH-cn") and not re.match(lang["pattern"], "")
    assert props["permutations"]["maximum"] == 7_000 and props["permutations"]["minimum"] == 1
    assert props["subwords"] == {"const": False}  # refused by the service when true
    assert weat["allOf"]  # a store or a language; the test or all four sets
    upload = {p["name"]: p["schema"] for p in doc["paths"]["/stores"]["post"]["parameters"]}
    assert not re.match(upload["name"]["pattern"], "") and upload["format"]["enum"][0] == "auto"
    jobs = doc["paths"]["/jobs"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    align = next(b for b in jobs["oneOf"] if b["properties"]["kind"]["const"] == "align")
    assert align["required"] == ["kind", "params"] and "src" in align["properties"]["params"]["required"]


def test_identical_is_a_dictionary_where_the_model_reads_it_as_one():
    """'identical' is admitted exactly by the dictionary fields that read it (their metadata says
    so): align's and mitigate's dictionary and translate-eval's train_dictionary, not the test
    dictionary translate-eval scores on."""
    import re

    from geobias.commands import commands, get
    from geobias.commands._kinds import Kind, fields_of
    from geobias.service.limits import text_pattern

    dictionaries = {(c.name, f) for c in commands() for f in fields_of(c.params, kind=Kind.DICTIONARY)}
    assert {("evaluate", "test_dictionary"), ("translate-eval", "dictionary")} <= dictionaries
    takes = {(c, f) for c, f in dictionaries if re.fullmatch(text_pattern(get(c).params, f), " identical\n")}
    assert takes == {("align", "dictionary"), ("mitigate", "dictionary"), ("translate-eval", "train_dictionary")}
    assert re.fullmatch(text_pattern(get("translate-eval").params, "dictionary"), "le the\nroi king\n")
