"""Property-based fuzzing of the command layer (Hypothesis): whatever parameters a caller gives
a command — wrong types, negative and huge numbers, empty and one-word sets, unicode and control
characters, paths that escape — validation and the run either succeed or raise a
:class:`~geobias.errors.GeobiasError` with a one-line message; never another exception. Through
the command line the same inputs exit 0, 1 or 2 with at most one error line, and write nothing.

Bounded: a fixed, derandomised number of examples per command (``GEOBIAS_FUZZ_EXAMPLES``
raises it: ``make fuzz``), on a small synthetic French store.
"""

from __future__ import annotations

import os

import pytest

hypothesis = pytest.importorskip("hypothesis", reason="hypothesis is not installed (pip install 'geobias[serve]')")

from _server import small_french_store  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from geobias.commands import commands, execute, validate  # noqa: E402
from geobias.errors import GeobiasError  # noqa: E402

N_EXAMPLES = int(os.environ.get("GEOBIAS_FUZZ_EXAMPLES", "25"))
FUZZ = settings(max_examples=N_EXAMPLES, deadline=None, derandomize=True, database=None,
                suppress_health_check=list(HealthCheck))

words = st.sampled_from(["homme", "femme", "infirmier", "infirmière", "avocat", "zzz", "", " ", "../x", "é",
                         "a b", "a\tb", "x\n", "\x00", "𝔘", "homme,femme", "/etc/passwd", "a" * 300])
word_lists = st.lists(words, max_size=6)
numbers = st.one_of(st.integers(-10, 3000), st.integers(-(2**63), 2**63), st.sampled_from([0, 1, 2, 10**12]),
                    st.floats(allow_nan=True, allow_infinity=True))
scalar = st.one_of(st.none(), st.booleans(), numbers, st.text(max_size=12), words)
value = st.one_of(scalar, word_lists, st.lists(word_lists, max_size=4),
                  st.dictionaries(st.text(max_size=5), scalar, max_size=3))
langs = st.sampled_from(["fr", "en", "de", "es", "xx", "", "FR", None])


def _plausible(annotation):
    """Values of a field's own type (so that most examples get past validation and run), with
    edge cases: empty and odd words, zero and negative counts, every choice."""
    import typing
    from pathlib import Path

    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Annotated:
        return _plausible(args[0])
    if origin in (typing.Union, __import__("types").UnionType):
        return st.one_of(*[_plausible(a) for a in args if a is not type(None)], st.none())
    if origin is typing.Literal:
        return st.sampled_from(list(args))
    if annotation is bool:
        return st.booleans()
    if annotation is int:
        return st.one_of(st.integers(-3, 60), st.sampled_from([0, 1, 2, 3000]))
    if annotation is float:
        return st.one_of(st.floats(-1, 2), st.sampled_from([0.0, 0.5, 1.0]))
    if origin is list and args and args[0] is str:
        return st.lists(words, max_size=8)
    if origin is list and args and typing.get_origin(args[0]) is list:
        return st.lists(st.lists(words, min_size=1, max_size=3), max_size=6)
    if annotation in (str, Path):
        return words
    return value


def bodies(model) -> st.SearchStrategy[dict]:
    """Dicts over the model's field names, each present or not: mostly values of the field's own
    type (languages and counts plausible), sometimes any JSON-like value, rarely an unknown key."""
    plausible = {"lang": st.sampled_from(["fr", "fr", "en", "de"]), "src": st.sampled_from(["fr", "en"]),
                 "tgt": st.sampled_from(["en", "fr"]), "permutations": st.integers(1, 3000), "k": st.integers(1, 30),
                 "seed": st.integers(0, 10), "cv": st.integers(2, 6), "max_per_class": st.integers(6, 40),
                 "vectors": st.none(), "limit": st.none(), "subwords": st.just(False), "trust_pickle": st.just(False),
                 "force": st.just(False), "plot": st.none()}
    hostile_values = {"lang": langs, "src": langs, "tgt": langs, "permutations": st.integers(-5, 3000),
                      "k": st.integers(-3, 50), "seed": st.integers(-3, 2**64), "cv": st.integers(-1, 30),
                      "max_per_class": st.integers(-1, 60), "subwords": st.booleans(), "trust_pickle": st.booleans()}
    typed = {f: plausible[f] if f in plausible else _plausible(info.annotation)
             for f, info in model.model_fields.items()}
    hostile = {f: st.one_of(hostile_values.get(f, typed[f]), value) for f in typed}
    return st.one_of(st.fixed_dictionaries({}, optional=typed),  # well-typed: most reach the run
                     st.fixed_dictionaries({}, optional={**hostile, "unknown": value}))


QUICK = [c for c in commands() if c.quick]
ALL = commands()


@pytest.fixture(scope="module")
def store():
    return small_french_store()


def _one_line(exc: BaseException) -> None:
    text = str(exc)
    assert text and "\n" not in text, repr(text)


@pytest.mark.parametrize("cmd", ALL, ids=[c.name for c in ALL])
def test_every_model_validates_or_refuses_in_one_line(cmd):
    """Validation alone, every command, both front doors: a model or a GeobiasError."""

    @FUZZ
    @given(body=bodies(cmd.params), front=st.sampled_from(["service", "python"]))
    def run(body, front):
        if front == "python":  # the trusted door reads files: keep it away from real ones
            body = {k: v for k, v in body.items() if not (isinstance(v, str) and "/" in v)}
        try:
            validate(cmd, body, front=front)
        except GeobiasError as exc:
            _one_line(exc)

    run()


@pytest.mark.parametrize("cmd", QUICK, ids=[c.name for c in QUICK])
def test_quick_commands_run_or_refuse_in_one_line(cmd, store):
    """The quick commands run on the store (as the service runs them): a result or a GeobiasError."""
    from geobias.sources import use_opener

    @FUZZ
    @given(body=bodies(cmd.params))
    def run(body):
        if cmd.name == "directions" and isinstance(body.get("max_per_class"), int):
            body["max_per_class"] = min(abs(body["max_per_class"]), 40) or 40  # keep the LDA fits small
        elif cmd.name == "directions":
            body["max_per_class"] = 40
        if isinstance(body.get("permutations"), int):
            body["permutations"] = min(body["permutations"], 3000)
        try:
            params = validate(cmd, body, front="service")
            with use_opener(lambda lang, name, option: store):
                result, envelope = execute(cmd, params)
            assert envelope["result"] == result.to_dict()
        except GeobiasError as exc:
            _one_line(exc)

    run()


CLI_COMMANDS = ["mweat", "weat", "neighbors", "ripa", "directions"]


@pytest.mark.parametrize("name", CLI_COMMANDS)
def test_cli_exits_0_1_or_2_with_one_line_and_writes_nothing(name, store, tmp_path_factory, capsys, monkeypatch):
    """The same inputs as options: exit 0, 1 (bad input) or 2 (usage), at most one error line, and
    nothing written in the working directory."""
    from geobias.cli import main
    from geobias.cli._run import flag
    from geobias.commands import get
    from geobias.store import save_store

    root = tmp_path_factory.mktemp(f"fuzz-cli-{name}")
    save_store(store, root / "small-fr")
    work = root / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setenv("GEOBIAS_PROGRESS", "0")
    cmd = get(name)
    options = {f for f in cmd.params.model_fields if f not in ("vectors", "plot", "trust_pickle", "subwords")}

    @FUZZ
    @given(values=st.fixed_dictionaries({}, optional={f: st.one_of(words, numbers.map(str), st.booleans())
                                                      for f in options}))
    def run(values):
        argv = [*name.split(), "--vectors", str(root / "small-fr")]
        if name == "neighbors":
            argv.insert(1, str(values.pop("word", "homme")) or "homme")
        values.pop("word", None)
        for field, v in values.items():
            if isinstance(v, bool):
                if v and cmd.params.model_fields[field].annotation is bool:
                    argv.append(flag(field))
                continue
            argv += [flag(field), str(v)]
        if name in ("mweat", "weat") and "permutations" not in values:
            argv += ["--permutations", "500"]
        if name == "directions":
            argv += ["--max-per-class", "40"]
        with pytest.raises(SystemExit) as exc:
            main(argv)
        out = capsys.readouterr()
        assert exc.value.code in (0, 1, 2), (argv, out.err)
        if exc.value.code:
            lines = [ln for ln in out.err.splitlines() if ln.strip()]
            assert len(lines) == 1 and lines[0].startswith("geobias: error: "), (argv, out.err)
            assert "internal error" not in lines[0], (argv, lines[0])
        assert list(work.iterdir()) == [], argv

    run()
