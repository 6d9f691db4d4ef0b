"""Degenerate values, field by field, on every quick command through both front doors.

A library called with the smallest sizes (one word per class, one permutation, one fold's worth
of nouns), sets that are empty once out-of-vocabulary words are dropped, and the largest sizes a
service allows, raises errors of its own (scikit-learn's "the number of samples must be more
than the number of classes", an empty mean, a zip reader's ``BadZipFile``). Each degenerate body
here must give, in the service, a 2xx or a 4xx with the one-line error shape, and through the
command layer as the command line runs it (``front="cli"``), a result or a
:class:`~geobias.errors.GeobiasError` with a one-line message; never anything else.

The list of cases is generated from each command's parameter model (so a new command or field
is covered) plus the cases that found bugs; it runs in ``make test`` and ``make fuzz``.
"""

from __future__ import annotations

import os
import typing
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("fastapi", reason="the serve extra is not installed (pip install 'geobias[serve]')")
pytest.importorskip("httpx", reason="the serve extra is not installed (pip install 'geobias[serve]')")

from _server import small_french_store  # noqa: E402

from geobias.commands import commands  # noqa: E402

MAX_PERMUTATIONS, MAX_K = 2_000, 1_000
QUICK = {c.name: c for c in commands() if c.quick}


def _fr_words():
    fr = small_french_store()
    return list(fr.words)


WORDS = _fr_words()
IN = WORDS[:40]  # words of the store
OOV = ["zzqqxa", "zzqqxb", "zzqqxc"]  # no store has them: a set empty after filtering

#: Known bugs of this class, kept as cases whatever the generator does.
REGRESSIONS = [
    ("directions", {"lang": "fr", "cv": 2, "max_per_class": 2}),
    ("directions", {"lang": "fr", "cv": 2, "max_per_class": 1}),
    ("directions", {"lang": "fr", "cv": 5, "max_per_class": 5}),
    ("neighbors", {"word": IN[0], "k": MAX_K}),  # k above the vocabulary
    ("weat", {"targets_x": IN[:1], "targets_y": IN[1:2], "attributes_a": IN[2:3], "attributes_b": IN[3:4]}),
    ("mweat", {"targets": [IN[:1], IN[1:2]], "attributes": [IN[2:3], IN[3:4]]}),
]


def _base(cmd) -> dict:
    fields = cmd.params.model_fields
    body: dict = {}
    if "vectors" in fields:
        body["vectors"] = "small-fr"
    if "lang" in fields:
        body["lang"] = "fr"
    if cmd.name == "translate-eval":
        body.update(src="fr", tgt="en", src_vectors="small-fr", tgt_vectors="small-en",
                    dictionary="\n".join(f"{w} {w}" for w in IN[:20]))
    if "targets_x" in fields and "test" in fields or cmd.name in ("weat", "mweat"):
        body.update(targets_x=IN[0:4], targets_y=IN[4:8], attributes_a=IN[8:12], attributes_b=IN[12:16])
    if cmd.name == "neighbors":
        body["word"] = IN[0]
    if cmd.name == "ripa":
        body["targets"] = IN[0:6]
    return body


def _is_word_set(annotation) -> bool:
    from geobias.commands._fields import _word_set
    from geobias.service.limits import _carries

    return _carries(annotation, _word_set)


def _degenerate(name: str, annotation) -> list:
    """Degenerate values of one field, by its name and type."""
    if _is_word_set(annotation):
        return [IN[:1], OOV, [IN[0], OOV[0]], IN[:2]]
    origin, args = typing.get_origin(annotation), [a for a in typing.get_args(annotation) if a is not type(None)]
    if name in ("targets", "attributes", "pairs"):
        return [[IN[:1]], [OOV], [IN[:1], IN[1:2]], [[IN[0], IN[1]]], [OOV[:2]]]
    if name == "permutations":
        return [1, 2, MAX_PERMUTATIONS]
    if name == "k":
        return [1, MAX_K]
    if name in ("cv",):
        return [2, 3]
    if name == "max_per_class":
        return [1, 2, 3]
    if name in ("csls_k", "limit"):
        return [1, 2]
    if name == "seed":
        return [0, 2**63 - 1]
    if name in ("dictionary", "train_dictionary"):
        return ["", f"{IN[0]} {IN[0]}", f"{OOV[0]} {OOV[1]}", "identical"]
    if name == "word":
        return [OOV[0], IN[1]]
    if annotation is float or float in args:
        return [0.0, 1.0, 1e-12, 1e12]
    if origin is typing.Literal or any(typing.get_origin(a) is typing.Literal for a in args):
        lits = args if origin is typing.Literal else [v for a in args for v in typing.get_args(a)]
        return list(lits)
    return []


def cases() -> list[tuple[str, dict]]:
    out = []
    for name, cmd in sorted(QUICK.items()):
        base = _base(cmd)
        out.append((name, base))
        for field, info in cmd.params.model_fields.items():
            if field in ("plot", "force", "trust_pickle", "subwords", "vectors", "src_vectors", "tgt_vectors"):
                continue
            for value in _degenerate(field, info.annotation):
                out.append((name, {**base, field: value}))
        if "targets_x" in cmd.params.model_fields:  # one word per class, every class
            out.append((name, {**base, "targets_x": IN[:1], "targets_y": IN[1:2], "attributes_a": IN[2:3],
                               "attributes_b": IN[3:4]}))
            out.append((name, {**base, "targets_x": OOV[:1], "targets_y": OOV[1:2], "attributes_a": OOV[2:3],
                               "attributes_b": IN[3:4], "oov": "ignore"}))
    for name, body in REGRESSIONS:
        out.append((name, {**_base(QUICK[name]), **body}))
    return out


CASES = cases()


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    from starlette.testclient import TestClient

    from geobias.service import ServiceConfig, create_app
    from geobias.store import VectorStore, save_store

    root = tmp_path_factory.mktemp("degenerate")
    vectors = root / "vectors"
    vectors.mkdir()
    fr = small_french_store()
    save_store(fr, vectors / "small-fr")
    rot, _ = np.linalg.qr(np.random.default_rng(3).standard_normal((fr.dim, fr.dim)))
    save_store(VectorStore(list(fr.words), (np.asarray(fr.vectors) @ rot).astype(np.float32), lang="en"),
               vectors / "small-en")
    old = os.environ.get("GEOBIAS_VECTORS_DIR")
    config = ServiceConfig(vectors_dir=vectors, data_dir=root / "data", quick_threads=True, quick_workers=1,
                           max_permutations=MAX_PERMUTATIONS, max_k=MAX_K, verify_every=0)
    app = create_app(config)  # sets GEOBIAS_VECTORS_DIR: the command layer finds the same stores by name
    with TestClient(app, base_url="http://127.0.0.1:8765", raise_server_exceptions=False) as c:
        yield c, root
    if old is None:
        os.environ.pop("GEOBIAS_VECTORS_DIR", None)
    else:
        os.environ["GEOBIAS_VECTORS_DIR"] = old


def _label(case) -> str:
    name, body = case
    return name + ":" + ",".join(f"{k}={str(v)[:12]}" for k, v in body.items() if k not in ("vectors", "lang"))


def test_the_cases_cover_every_quick_command_and_the_regressions():
    assert {name for name, _ in CASES} == set(QUICK)
    assert len(CASES) > 10 * len(QUICK)


@pytest.mark.parametrize("case", CASES, ids=[_label(c) for c in CASES])
def test_degenerate_values_are_answered_on_both_front_doors(env, case):
    from geobias.commands import execute, get, validate
    from geobias.errors import GeobiasError

    client, root = env
    name, body = case
    cmd = get(name)
    resp = client.post(f"/{cmd.kind}", json=body)
    assert resp.status_code < 500, (resp.status_code, resp.text[:500])
    if resp.status_code >= 400:
        err = resp.json()["error"]
        assert set(err) == {"type", "message"} and "\n" not in err["message"], err

    # the command line's path: the same parameters, files where the CLI takes files
    cli_body = dict(body)
    for field in ("dictionary", "train_dictionary"):
        if isinstance(cli_body.get(field), str) and cli_body[field] != "identical":
            path = Path(root) / f"{name}-{field}.txt"
            path.write_text(cli_body[field], encoding="utf-8")
            cli_body[field] = str(path)
    if "permutations" in cli_body:
        cli_body["force"] = True
    try:
        execute(cmd, validate(cmd, cli_body, front="cli"))
    except GeobiasError as exc:
        assert "\n" not in str(exc).strip() and str(exc).strip(), repr(exc)
