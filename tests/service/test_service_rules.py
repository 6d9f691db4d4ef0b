"""The schema's rules across fields (:mod:`geobias.commands._rules`) are exactly the parameter
models' own checks: for every command the service runs, bodies are generated from every
combination of the fields that take part in a rule (present with a valid value, absent or null;
``variant`` and ``bootstrap`` at each of their telling values), and the model accepts a body if
and only if the body keeps every rule the schema states. The service then refuses a body breaking
a rule with one 422 line, never 202."""

from __future__ import annotations

import itertools
import json

import pytest
from pydantic import ValidationError

from geobias.commands import commands
from geobias.commands._rules import schema_rules
from geobias.errors import GeobiasError
from geobias.service.limits import _rules_of, check_rules, holds, inline_params_schema

SEAT_TEXT = json.dumps({k: {"category": c, "examples": [f"This is {w}."]} for k, c, w in (
    ("targ1", "X", "alpha"), ("targ2", "Y", "beta"), ("attr1", "A", "gamma"), ("attr2", "B", "delta"))})

#: Valid values of the fields that take part in rules, tried in order until the model reads one
#: (a field's type differs between commands: RIPA's targets are words, MWEAT's rows of forms).
CANDIDATES = {
    "test": ["career-family"],
    "targets_x": [["roi", "acteur"]],
    "targets_y": [["reine", "actrice"]],
    "attributes_a": [["il", "lui"]],
    "attributes_b": [["elle", "sa"]],
    "targets": [["roi", "reine"], [["reine", "roi"]]],
    "attributes": [[["il"], ["elle"]]],
    "pairs": [[["roi", "reine"]]],
    "tests": [SEAT_TEXT],
    "lang": ["fr"],
    "vectors": ["small-fr"],
}
#: Fields whose value (not only their presence) a rule reads: the values tried besides absent.
VALUES = {"variant": ["grammatical", "english"], "bootstrap": [0, 5]}
#: What a required field outside the rules may be given, tried in order (its enum's first value before these).
FILLERS = ["fr", "en", "roi reine", "x", ["roi"]]


def _valid(model, name, base, candidates):
    for value in candidates:
        try:
            model.model_validate({**base, name: value}, context={"front": "service"})
            return value
        except ValidationError as exc:
            if not any(e["loc"][:1] == (name,) for e in exc.errors()):
                return value  # refused for another field's sake (a rule): the value itself was read
        except GeobiasError:
            return value
    raise AssertionError(f"{model.__name__}: no candidate value of {name} is valid")


def _filled(model, props, required) -> dict:
    """A value the model reads for each required field (its enum's first value, or a filler)."""
    base: dict = {}
    for f in required:
        base[f] = _valid(model, f, base, [*_enum(props[f]), *FILLERS])
    return base


def _enum(node: dict) -> list:
    """The first value of each enum among a property's alternatives."""
    return [a["enum"][0] for a in node.get("anyOf", [node]) if a.get("enum")]


def _verdict(model, body) -> bool:
    try:
        model.model_validate(body, context={"front": "service"})
    except (ValidationError, GeobiasError):
        return False
    return True


SERVED = [c for c in commands() if c.job or c.quick]


@pytest.mark.parametrize("cmd", SERVED, ids=lambda c: c.kind)
def test_the_rules_are_exactly_the_models_checks(cmd):
    model = cmd.params
    schema = inline_params_schema(cmd)
    props = schema.get("properties", {})
    base = _filled(model, props, schema.get("required", []))
    presence = [f for f in CANDIDATES if f in props and f not in base]
    valued = [f for f in VALUES if f in props]
    values = {f: _valid(model, f, base, [*_enum(props[f]), *CANDIDATES[f]]) for f in presence}
    rules = [*schema.get("allOf", []), *schema_rules(model, props)]
    kept = broken = 0
    nullable = {f for f in presence if any(a.get("type") == "null" for a in props[f].get("anyOf", []))}
    choices = [[("absent",), ("value", values[f]), *([("null",)] if f in nullable else [])] for f in presence]
    choices += [[("absent",), *(("value", v) for v in VALUES[f])] for f in valued]
    for combo in itertools.product(*choices):
        body = dict(base)
        for field, choice in zip([*presence, *valued], combo, strict=True):
            if choice[0] == "value":
                body[field] = choice[1]
            elif choice[0] == "null":
                body[field] = None
        keeps = all(holds(r, body) for r in rules)
        assert _verdict(model, body) == keeps, (cmd.kind, body, [r for r in rules if not holds(r, body)])
        kept += keeps
        broken += not keeps
    assert kept >= 1  # every command has a body that keeps its rules
    if rules:
        assert broken >= 1  # and each rule can be broken by a body of the fields tried


def test_the_edge_check_refuses_what_the_schema_forbids_with_one_line():
    from geobias.commands import get
    from geobias.errors import ParameterError

    model = get("ect").params
    check_rules({"lang": "fr", "variant": "grammatical", "X": ["roi"], "Y": ["reine"]}, model)  # aliases are read
    with pytest.raises(ParameterError) as err:
        check_rules({"lang": "fr", "variant": "grammatical", "X": ["roi"]}, model)
    assert "\n" not in str(err.value) and "targets_x" in str(err.value) and "variant" in str(err.value)
    assert _rules_of(model)  # the rules the check reads are the schema's


def test_an_ect_job_breaking_the_schemas_anyof_is_a_422_line_not_a_202(tmp_path):
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from geobias.service import ServiceConfig, create_app

    app = create_app(ServiceConfig(vectors_dir=tmp_path / "v", data_dir=tmp_path / "d", workers=1))
    with TestClient(app, base_url="http://127.0.0.1:8765", raise_server_exceptions=False) as client:
        for params in ({"lang": "fr", "variant": "grammatical", "targets_x": ["roi"]},
                       {"lang": "fr", "variant": "grammatical", "test": "career-family"},
                       {"lang": "fr", "attributes_a": ["il"]}):
            r = client.post("/jobs", json={"kind": "ect", "params": params})
            assert r.status_code == 422, (params, r.status_code, r.text)
            message = r.json()["error"]["message"]
            assert "\n" not in message and message


def test_a_job_the_run_would_refuse_at_once_is_refused_at_submission(tmp_path):
    """What only the run finds out (not a schema rule) is found out before the job is queued: an
    ect job with no lang and no sets of its own is one 400 line, not a 202 and a failed job."""
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from geobias.service import ServiceConfig, create_app

    app = create_app(ServiceConfig(vectors_dir=tmp_path / "v", data_dir=tmp_path / "d", workers=1))
    with TestClient(app, base_url="http://127.0.0.1:8765", raise_server_exceptions=False) as client:
        r = client.post("/jobs", json={"kind": "ect", "params": {}})
        assert r.status_code == 400, r.text
        assert "pass `lang`" in r.json()["error"]["message"]
        assert client.get("/jobs").json() == {"jobs": []}
    assert not any((tmp_path / "d" / "jobs").iterdir())  # no job folder left behind
