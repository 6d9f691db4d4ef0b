"""Defaults that run (issue 45): every command, given only what it requires (a language, a word, an
input file it cannot guess), runs with every other parameter at its default on its language's
default store, and exits 0. Where that needs a store, dataset or model that cannot be installed
here (a download, a masked language model), the case is skipped with the reason.

:data:`CASES` covers every registered command: a new command must say here how its defaults run."""

from __future__ import annotations

import pytest

from geobias.cli import main
from geobias.commands import REGISTRY

#: command → (argv after the command, the stores it reads, datasets it reads, why it cannot run here).
#: ``{tmp}`` is the test's folder; ``{corpus}``, ``{audit}``: small inputs written there.
CASES: dict[str, list[tuple[list[str], tuple[str, ...], tuple[str, ...], str | None]]] = {
    "atlas": [(["--langs", "en", "--out", "{tmp}/atlas"], ("use-m3-en",), (), None)],
    "align": [(["--src", "fr", "--tgt", "en", "--dictionary", "{muse}/fr-en.0-5000.txt", "--out", "{tmp}/fr-aligned"],
               ("fr-spacy-md", "en-w2v-gnews"), ("muse-dictionary fr-en",), None)],
    "translate-eval": [(["--src", "fr", "--tgt", "en", "--dictionary", "{muse}/fr-en.5000-6500.txt",
                         "--train-dictionary", "{muse}/fr-en.0-5000.txt"],
                        ("fr-spacy-md", "en-w2v-gnews"), ("muse-dictionary fr-en",), None)],
    "evaluate": [(["--lang", "fr", "--dictionary", "{muse}/fr-en.0-5000.txt", "--test-dictionary",
                   "{muse}/fr-en.5000-6500.txt"], ("fr-spacy-md", "en-w2v-gnews"), ("muse-dictionary fr-en",), None)],
    "erasure": [(["--lang", "en"], ("en-w2v-gnews",), (), None)],
    "mitigate": [(["--lang", "fr", "--method", "leace-keep-grammar", "--out", "{tmp}/fr-erased"], ("fr-spacy-md",),
                  (), None)],
    "hard-debias": [([], ("en-w2v-gnews",), (), None)],
    "correlate": [(["--lang", "fr"], ("fr-spacy-md", "en-w2v-gnews"), (), None)],
    "mweat": [(["--lang", "fr"], ("fr-spacy-md",), (), None)],
    "weat": [(["--lang", "en"], ("en-w2v-gnews",), (), None), (["--lang", "fr"], ("fr-spacy-md",), (), None)],
    "directions": [(["--lang", "fr"], ("fr-spacy-md",), (), None)],
    "neighbors": [(["roi", "--lang", "fr"], ("fr-spacy-md",), (), None)],
    "ripa": [(["--lang", "en"], ("en-w2v-gnews",), (), None), (["--lang", "fr"], ("fr-spacy-md",), (), None)],
    "rnd": [(["--lang", "en"], ("en-w2v-gnews",), (), None), (["--lang", "fr"], ("fr-spacy-md",), (), None)],
    "rnsb": [(["--lang", "en"], ("en-w2v-gnews",), (), None)],
    "ect": [(["--lang", "en"], ("en-w2v-gnews",), (), None)],
    "mac": [(["--lang", "en"], ("en-w2v-gnews",), (), None)],
    "recoverability": [(["--lang", "fr"], ("fr-spacy-md",), (), None)],
    "vectors list": [([], (), (), None)],
    "vectors install": [(["fr-spacy-md"], (), (), None)],
    "data install": [([], (), (), "downloads (MUSE, GAP): no network in tests; tests/cli/test_hints_runnable.py "
                                  "installs from a local copy")],
    "data path": [(["muse-dictionary", "fr-en"], (), ("muse-dictionary fr-en",), None)],
    "vectors info": [(["fr-spacy-md"], ("fr-spacy-md",), (), None)],
    "vectors verify": [(["fr-spacy-md"], ("fr-spacy-md",), (), None)],
    "vectors pool": [(["--model", "minilm-l6", "--words", "roi,reine", "--out", "{tmp}/pooled"], (), (), None)],
    "audit": [(["--config", "{audit}"], ("fr-spacy-md",), (), None)],
    "probe association": [([], (), (), "needs a masked language model: none is installable offline here")],
    "probe becpro": [([], (), (), "needs a masked language model: none is installable offline here")],
    "probe malor": [([], (), (), "needs a masked language model: none is installable offline here")],
    "probe sentiment": [(["--vader", "--corpus", "{corpus}"], (), (), None)],
    "becpro generate": [(["--out", "{tmp}/becpro.tsv"], (), (), None)],
    "cda": [(["-i", "{corpus}", "-o", "{tmp}/cda.txt"], (), (), None)],
    "finetune": [([], (), (), "needs a masked language model: none is installable offline here")],
    "finetune-classifier": [([], (), (), "trains a classifier for minutes; tests/contextual runs it on a tiny model")],
    "seat": [(["--lang", "en"], (), (), None)],
    "crows-pairs": [([], (), (), "needs a masked language model and the CrowS-Pairs file (not shipped)")],
    "stereoset": [([], (), (), "needs a masked language model and the StereoSet file (not shipped)")],
}


def test_every_command_says_how_its_defaults_run():
    assert set(CASES) == set(REGISTRY)


def _params():
    for name, cases in CASES.items():
        for i, case in enumerate(cases):
            yield pytest.param(name, *case, id=f"{name}-{i}")


@pytest.mark.slow
@pytest.mark.parametrize("name,argv,stores,datasets,skip", list(_params()))
def test_the_defaults_run(name, argv, stores, datasets, skip, installed, tmp_path, capsys, monkeypatch):
    if skip:
        pytest.skip(skip)
    for store in stores:
        installed(store)
    folders = {}
    for ds in datasets:
        from geobias.errors import GeobiasError
        from geobias.sources.datasets import dataset_path

        try:
            folders["muse"] = dataset_path(*ds.split()).folder
        except GeobiasError as exc:
            pytest.skip(f"{ds} is not installed here: {exc}")
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("He is a doctor and she is a nurse.\nThe king spoke to the queen.\n", encoding="utf-8")
    audit = tmp_path / "audit.toml"
    audit.write_text('stores = ["fr-spacy-md"]\nlanguages = ["fr"]\ntests = ["mweat"]\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)  # a command that writes beside itself writes here
    subs = {"{tmp}": str(tmp_path), "{corpus}": str(corpus), "{audit}": str(audit),
            **{f"{{{k}}}": v for k, v in folders.items()}}
    args = []
    for a in argv:
        for key, value in subs.items():
            a = a.replace(key, value)
        args.append(a)
    with pytest.raises(SystemExit) as info:
        main([*name.split(), *args, "-q"])
    _, err = capsys.readouterr()
    assert info.value.code == 0, err
    if any("{tmp}" in a for a in argv) or not REGISTRY[name].result:
        return  # it writes files (a second run would refuse to overwrite them), or has no result object
    # the same run as the service stores it: the web app's view rebuilds the result from its JSON and
    # draws its tables and plots (a stored result that does not rebuild is a 500 there)
    from _envelope import viewed

    with pytest.raises(SystemExit) as info:
        main([*name.split(), *args, "--json", "-q"])
    out, err = capsys.readouterr()
    assert info.value.code == 0, err
    viewed(out, tmp_path)
