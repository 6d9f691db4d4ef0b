"""The command layer: one parameter model and one ``run`` per command, equal on every front door.

For every job kind, the service's job (submitted over HTTP to a real ``geobias serve``) returns
the same ``result`` as ``geobias <command> --json`` with the same parameters; every CLI command
is a registered command; the registry's models reject what they should with one-line errors.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

httpx = pytest.importorskip("httpx", reason="the serve extra is not installed (pip install 'geobias[serve]')")
pytest.importorskip("fastapi", reason="the serve extra is not installed (pip install 'geobias[serve]')")

from _server import ServerProcess, small_french_store  # noqa: E402
from _word_list_pair import write_word_list_pair  # noqa: E402

from geobias.commands import commands, execute, get, validate  # noqa: E402
from geobias.errors import InputError, ParameterError  # noqa: E402

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    """Named stores (a small French store; a synthetic French/English pair), a tiny masked LM in
    the service's models directory, inline texts and their files, and a running server."""
    from geobias.store import save_store

    root = tmp_path_factory.mktemp("front-doors")
    vectors = root / "vectors"
    vectors.mkdir()
    save_store(small_french_store(), vectors / "small-fr")
    from geobias.sources import read_vectors

    pair = write_word_list_pair(root, person_pairs=True)
    save_store(read_vectors(pair / "fr.txt", lang="fr"), vectors / "syn-fr")
    save_store(read_vectors(pair / "en.txt", lang="en"), vectors / "syn-en")
    # the atlas reads a family's registry names: small stores under use-m3-fr and use-m3-en
    save_store(small_french_store(), vectors / "use-m3-fr")
    save_store(read_vectors(pair / "en.txt", lang="en"), vectors / "use-m3-en")
    texts = {"dictionary": (pair / "dico.txt").read_text(encoding="utf-8"),
             "test_dictionary": (pair / "test.txt").read_text(encoding="utf-8"),
             "sentences": "sentence\ttarget\tattribute\nhe is a nurse .\the\tnurse\nshe is a nurse .\tshe\tnurse\n",
             "crows": "sent_more,sent_less,stereo_antistereo,bias_type\nhe is a nurse .,she is a nurse .,antistereo,"
                      "gender\nshe is a nurse .,he is a nurse .,stereo,gender\n",
             "stereoset": json.dumps({"data": {"intrasentence": [{
                 "id": "x1", "target": "nurse", "bias_type": "profession", "context": "the nurse is BLANK .",
                 "sentences": [{"sentence": f"the nurse is {w} .", "gold_label": lab} for w, lab in
                               (("she", "stereotype"), ("he", "anti-stereotype"), ("a", "unrelated"))]}]}})}
    files = {}
    for name, text in texts.items():
        files[name] = root / f"{name}.txt"
        files[name].write_text(text, encoding="utf-8")
    data = root / "data"
    (data / "models").mkdir(parents=True)
    from _tiny_models import make_random_bert, vocabulary_for

    from geobias.wordlists import own_table

    texts_for_vocab = ["he she his her is a an nurse ."]
    texts_for_vocab += [r["template"].replace("{g}", " ").replace("{occ}", " ").replace("{a}", "a an")
                        for r in own_table("en", "malor_templates")]
    texts_for_vocab += [r["occupation"] for r in own_table("en", "malor_occupations")]
    from geobias.contextual.becpro import generate_becpro

    texts_for_vocab += [r.sentence for r in generate_becpro("en")]
    make_random_bert(data / "models" / "tiny-mlm", vocabulary_for(texts_for_vocab), hidden_size=16, seed=3)
    # between job requests the CLI runs for seconds: the client must not reuse a connection the server is closing
    with ServerProcess(vectors, data, "--workers", "1") as srv, srv.client(timeout=300) as client:
        yield {"root": root, "vectors": vectors, "texts": texts, "files": files, "client": client,
               "model": data / "models" / "tiny-mlm"}


def _cli(setup, name: str, params: dict) -> dict:
    argv = [*name.split()]
    for key, value in params.items():
        option = {"k": "-k"}.get(key, "--" + key.replace("_", "-"))
        if name == "neighbors" and key == "word":  # the query word is an argument
            argv.append(value)
        elif isinstance(value, bool):
            argv += [option] if value else []
        elif isinstance(value, list):
            argv += [option, ",".join(map(str, value))]
        else:
            argv += [option, str(value)]
    env = dict(os.environ, GEOBIAS_VECTORS_DIR=str(setup["vectors"]), HF_HUB_OFFLINE="1", OMP_NUM_THREADS="1")
    out = subprocess.run([sys.executable, str(REPO / "cli.py"), *argv, "--json"], capture_output=True, text=True,
                         env=env, cwd=setup["root"], timeout=600)
    assert out.returncode == 0, (argv, out.stderr)
    return json.loads(out.stdout)


def _job(setup, kind: str, params: dict) -> dict:
    client = setup["client"]
    r = client.post("/jobs", json={"kind": kind, "params": params})
    assert r.status_code == 202, r.text
    job_id = r.json()["id"]
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        job = client.get(f"/jobs/{job_id}").json()
        if job["state"] in ("done", "failed", "cancelled"):
            break
        time.sleep(0.3)
    assert job["state"] == "done", job["error"]
    return job["result"]


# Each job kind with the same parameters on both front doors; texts are files on the CLI and
# inline in the service; keys listed last are left out of the comparison (paths of the outputs).
def cases(setup):
    model = str(setup["model"])
    return {
        "mweat": ({"lang": "fr", "vectors": "small-fr", "permutations": 3000, "seed": 4}, None, ()),
        "weat": ({"lang": "fr", "vectors": "small-fr", "targets_x": ["infirmier", "avocat"],
                  "targets_y": ["infirmière", "avocate"], "attributes_a": ["homme", "père"],
                  "attributes_b": ["femme", "mère"], "permutations": 500}, None, ()),
        "directions": ({"lang": "fr", "vectors": "small-fr", "max_per_class": 40}, None, ()),
        "evaluate": ({"lang": "fr", "vectors": "syn-fr", "en_vectors": "syn-en", "methods": "original,shift_ori",
                      "permutations": 500}, {"dictionary": "dictionary", "test_dictionary": "test_dictionary"},
                     ("settings.dictionary", "settings.test_dictionary", "settings.test_dictionary_en")),
        "erasure": ({"lang": "fr", "vectors": "syn-fr", "en_vectors": "syn-en", "methods": ["original", "leace"],
                     "seeds": [0], "permutations": 300}, {"dictionary": "dictionary", "test_dictionary":
                                                          "test_dictionary"},
                    ("timings", "settings.dictionary", "settings.test_dictionary")),
        "correlate": ({"lang": "fr", "vectors": "syn-fr", "en_vectors": "syn-en"}, None, ()),
        "mitigate": ({"method": "shift-ori", "lang": "fr", "vectors": "syn-fr"}, None, ("files", "out")),
        "align": ({"src": "fr", "tgt": "en", "src_vectors": "syn-fr", "tgt_vectors": "syn-en"},
                  {"dictionary": "dictionary"}, ("dictionary",)),
        "hard-debias": ({"lang": "en", "vectors": "syn-en"}, None, ()),
        "probe-malor": ({"model": model, "pair": "he-she"}, None, ()),
        "probe-becpro": ({"model": model, "batch_size": 128}, None, ()),
        "probe-association": ({"model": model}, {"sentences": "sentences"}, ()),
        "vectors-pool": ({"model": model, "words": ["he", "she", "nurse"]}, None, ("path",)),
        "seat": ({"lang": "en", "test": "math-arts", "permutations": 500}, None, ()),
        "neighbors": ({"lang": "fr", "vectors": "small-fr", "word": "avocat", "k": 5}, None, ()),
        "ripa": ({"lang": "fr", "vectors": "small-fr"}, None, ()),
        **{kind: ({"lang": "fr", "vectors": "small-fr", "test": "career-family"}, None, ())
           for kind in ("rnsb", "ect", "mac")},
        "rnd": ({"lang": "fr", "vectors": "small-fr", "test": "career-family", "permutations": 200}, None, ()),
        "translate-eval": ({"src": "fr", "tgt": "en", "src_vectors": "syn-fr", "tgt_vectors": "syn-en"},
                           {"dictionary": "test_dictionary"}, ("dictionary",)),
        "atlas": ({"langs": "fr,en", "permutations": 300, "max_per_class": 20}, None, ("engine",)),
        "crows-pairs": ({"model": model}, {"data": "crows"}, ()),
        "stereoset": ({"model": model}, {"data": "stereoset"}, ()),
        "recoverability": ({"lang": "fr", "vectors": "small-fr", "methods": "leace", "n_biased": 20, "n_classify": 40,
                            "n_train": 30, "n_neighbors": 5}, None, ()),
    }


def _strip(result: dict, keys) -> dict:
    """``result`` without ``keys`` (``"settings.dictionary"`` names a key one level down)."""
    out = {k: v for k, v in result.items() if k not in keys}
    for key in keys:
        if "." in key:
            outer, inner = key.split(".", 1)
            out[outer] = {k: v for k, v in out.get(outer, {}).items() if k != inner}
    return out


JOB_KINDS = sorted(c.kind for c in commands() if c.job)


def case_for(setup, kind: str):
    """The listed case of ``kind``, or for a command nobody listed (a new metric) the small French
    store with the model's defaults: a new analysis on one store needs no line here."""
    listed = cases(setup)
    if kind in listed:
        return listed[kind]
    fields = get(kind).params.model_fields
    return {k: v for k, v in {"lang": "fr", "vectors": "small-fr"}.items() if k in fields}, None, ()


@pytest.mark.parametrize("kind", JOB_KINDS)
def test_job_result_equals_cli_json(setup, kind):
    params, texts, ignore = case_for(setup, kind)
    cmd = get(kind)
    cli_params, job_params = dict(params), dict(params)
    for field, name in (texts or {}).items():
        cli_params[field], job_params[field] = setup["files"][name], setup["texts"][name]
    if kind in ("mitigate",):
        cli_params["out"] = setup["root"] / f"out-{kind}"
    if kind in ("align", "vectors-pool"):
        cli_params["out"], job_params["out"] = f"{kind}-cli", f"{kind}-job"
    if kind in ("probe-association", "probe-becpro", "probe-malor", "vectors-pool", "crows-pairs", "stereoset"):
        job_params["model"] = "tiny-mlm"  # the service's models directory
        cli_params["device"] = "cpu"
    cli = _cli(setup, cmd.name, cli_params)
    job = _job(setup, kind, job_params)
    assert job["command"] == cli["command"] == cmd.name
    want = _strip(cli["result"], ignore)
    if isinstance(want.get("model"), str):  # the service names a model folder, never its server path
        want["model"] = Path(want["model"]).name
    assert _strip(job["result"], ignore) == want
    assert job["inputs"]["options"].keys() == cli["inputs"]["options"].keys()  # one parameter model


def test_every_cli_command_is_a_registered_command():
    from geobias.cli import app

    def names(typer_app, prefix=""):
        for info in typer_app.registered_commands:
            yield prefix + (info.name or info.callback.__name__)
        for group in typer_app.registered_groups:
            yield from names(group.typer_instance, f"{prefix}{group.name} ")

    from geobias.cli._generated import catalogue

    written = set(names(app)) - {"serve"}  # serve starts the service; it analyses nothing
    registry = {c.name for c in commands()}
    assert written <= registry  # every hand-written command is an adapter over a registered one
    assert set(catalogue()) == registry  # the rest get theirs from the model (geobias.cli._generated)


def test_parameter_errors_name_the_field_and_are_one_line():
    with pytest.raises(ParameterError) as exc:
        validate("mweat", {"lang": "fr", "seed": -1})
    assert exc.value.field == "seed" and "\n" not in str(exc.value) and str(exc.value).startswith("seed ")
    with pytest.raises(ParameterError, match="give both targets_x and targets_y"):
        validate("mweat", {"lang": "fr", "targets_x": ["a"]})
    with pytest.raises(ParameterError, match="unknown|Extra inputs"):
        validate("weat", {"lang": "en", "nope": 1})
    with pytest.raises(ParameterError, match="must be positive"):
        validate("neighbors", {"word": "x", "k": 0})


def test_the_service_front_reads_no_server_file(tmp_path):
    secret = tmp_path / "words.txt"
    secret.write_text("alpha\nbeta\n", encoding="utf-8")
    cli = validate("weat", {"targets_x": str(secret), "targets_y": "c,d", "attributes_a": "e", "attributes_b": "f"},
                   front="cli")
    assert cli.targets_x == ["alpha", "beta"]  # the CLI reads the file
    service = validate("weat", {"targets_x": str(secret), "targets_y": "c,d", "attributes_a": "e", "attributes_b": "f"},
                       front="service")
    assert service.targets_x == [str(secret)]  # the service reads it as a one-word comma list
    with pytest.raises(InputError):
        validate("mweat", {"lang": "fr", "targets": str(secret)}, front="service")
    with pytest.raises(ParameterError, match="chooses where"):
        validate("directions", {"lang": "fr", "plot": str(tmp_path / "x.png")}, front="service")
    with pytest.raises(InputError, match="not a store name"):
        validate("mweat", {"lang": "fr", "vectors": "../../etc"}, front="service")


def test_execute_from_python_gives_the_envelope():
    from geobias.store import VectorStore

    store = small_french_store()
    from geobias.sources import use_opener

    with use_opener(lambda lang, name, option: store):
        result, env = execute("mweat", {"lang": "fr", "permutations": 1000})
    assert env["command"] == "mweat" and env["result"] == result.to_dict()
    assert env["inputs"]["options"]["permutations"] == 1000 and isinstance(store, VectorStore)


def test_the_cli_index_equals_the_registry():
    """`geobias --help` lists commands from the generated index (no command module imported); it
    must be exactly what the registry would write (`python -m geobias.cli._generated` rewrites it)."""
    from geobias.cli._generated import catalogue, index_source

    assert (REPO / "geobias" / "cli" / "_index.py").read_text(encoding="utf-8") == index_source(), (
        "geobias/cli/_index.py is stale: run `python -m geobias.cli._generated`")
    assert catalogue() == {c.name: c.summary for c in commands()}


def test_every_declared_result_type_and_renderer_key_resolves():
    """`result=` of every command and every table/figure registration name a real Result type, and
    each command's result module (imported by name) never imports the command layer back."""
    import grimp

    from geobias.report import draw  # noqa: F401  (loads every registration)
    from geobias.report.registry import registered_names
    from geobias.results import Result, result_type

    for c in commands():
        assert issubclass(c.result_type(), Result), c.name
    for name in registered_names():
        assert issubclass(result_type(name), Result), name
    graph = grimp.build_graph("geobias")
    for c in commands():  # the edge the string adds: command module → result module; no path back
        result_module = c.result.rpartition(".")[0]
        command_module = c.run.__module__
        assert not graph.chain_exists(importer=result_module, imported=command_module, as_packages=False), (
            c.name, result_module)
    assert not graph.chain_exists(importer="geobias.report.registry", imported="geobias.report.renderers")


def test_generated_options_come_from_the_model():
    import typer

    from geobias.cli._generated import build

    click_cmd = typer.main.get_command(build("ripa"))
    options = {p.name: p for p in click_cmd.params}
    assert {"lang", "vectors", "targets", "pairs", "unit", "quiet", "as_json"} <= set(options)
    assert options["unit"].is_flag and not options["targets"].required
