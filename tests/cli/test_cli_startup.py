"""`geobias --help` stays fast: importing the CLI loads no heavy library (they load inside commands)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
HEAVY = ("torch", "transformers", "sklearn", "matplotlib", "gensim", "faiss", "spacy", "scipy", "pydantic", "numpy")


def test_cli_import_loads_no_heavy_library():
    code = (
        "import sys, json, geobias.cli; "
        f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO,
                         env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}, check=True)
    assert json.loads(out.stdout) == []


def test_help_lists_every_command():
    out = subprocess.run([sys.executable, str(REPO / "cli.py"), "--help"], capture_output=True, text=True,
                         cwd=REPO, env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0
    for command in ("vectors", "neighbors", "directions", "weat", "mweat", "probe", "becpro"):
        assert command in out.stdout


def _loaded(code: str, modules: tuple[str, ...]) -> list[str]:
    probe = f"import sys, json; {code}; print(json.dumps([m for m in {modules!r} if m in sys.modules]))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO,
                         env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}, check=True)
    return json.loads(out.stdout)


def test_help_path_does_not_load_numpy():
    """`geobias --help` needs neither numpy nor the store code (start-up target: ≤ 0.25 s)."""
    assert _loaded("import geobias, geobias.cli", ("numpy", "geobias.store.vector_store")) == []


def test_mweat_path_does_not_load_scipy_stats():
    """The MWEAT path imports numpy but no scipy (scipy.stats ~0.5 s, scipy.special ~0.2 s): the
    Clopper–Pearson interval uses geobias.stats._betainc."""
    code = ("import numpy as np, geobias.metrics, geobias.sources; "
            "geobias.stats.permutation_test(np.arange(20.0), 10, n_permutations=500)")
    loaded = _loaded(code, ("numpy", "scipy", "polars", "faiss"))
    assert loaded == ["numpy"]


#: What the brief forbids on the start-up path of the command line (issue 46, item 3).
FORBIDDEN = ("torch", "transformers", "sklearn", "faiss", "matplotlib")


def test_running_one_command_imports_only_its_module(tmp_path):
    """`geobias mweat` imports the one command module that registers MWEAT (the index says which),
    none of the other commands' modules and none of the heavy libraries; its result is the full one."""
    from _server import small_french_store

    from geobias.store import save_store

    save_store(small_french_store(), tmp_path / "small-fr")
    code = ("import sys, json, geobias.cli\n"
            "sys.argv = ['geobias', 'mweat', '--lang', 'fr', '--vectors', 'small-fr', '--permutations', '1000', '--json']\n"
            "try:\n    geobias.cli.main()\nexcept SystemExit as exc:\n    assert exc.code in (0, None), exc.code\n"
            f"heavy = [m for m in {FORBIDDEN + ('scipy',)!r} if m in sys.modules]\n"
            "mods = sorted(m for m in sys.modules if m.startswith('geobias.commands.') and '._' not in m)\n"
            "metrics = sorted(m for m in sys.modules if m.startswith('geobias.metrics.'))\n"
            "print(json.dumps([heavy, mods, metrics]), file=sys.stderr)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=300,
                         env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "GEOBIAS_VECTORS_DIR": str(tmp_path)})
    assert out.returncode == 0, out.stderr
    heavy, modules, metrics = json.loads(out.stderr.strip().splitlines()[-1])
    assert heavy == []
    assert modules == ["geobias.commands.static"]
    # geobias.metrics loads the metric that runs (MWEAT, and WEAT below it), not the others
    assert {"geobias.metrics.mweat", "geobias.metrics.weat"} <= set(metrics)
    assert not {"geobias.metrics.ripa", "geobias.metrics.rnd", "geobias.metrics.rnsb", "geobias.metrics.ect",
                "geobias.metrics.mac", "geobias.metrics.seat", "geobias.metrics.checks"} & set(metrics)
    env = json.loads(out.stdout)
    assert env["command"] == "mweat" and env["inputs"]["options"]["permutations"] == 1000
    assert 0 <= env["result"]["p_value"] <= 1


def test_the_command_index_names_each_commands_module():
    """`geobias/commands/_index.py` (which module registers each built-in command, so that running
    one imports only that module) is what the registry would write, and every module it names
    registers exactly the commands it lists."""
    from geobias.commands import COMMAND_MODULES, commands, index_source
    from geobias.commands._index import MODULES

    assert (REPO / "geobias" / "commands" / "_index.py").read_text(encoding="utf-8") == index_source(), (
        "geobias/commands/_index.py is stale: run `python -m geobias.cli._generated`")
    built_in = {c.name: c.run.__module__ for c in commands() if c.run.__module__.startswith("geobias.commands.")}
    assert {name: "geobias.commands." + m for name, m in MODULES.items()} == built_in
    assert set(MODULES.values()) == set(COMMAND_MODULES)  # every module registers a command, and is listed


def test_a_name_outside_the_index_loads_every_command():
    """`get` of a job kind (`probe-becpro`) finds the module by the name; an unknown name imports
    every module first, so that the error lists every command."""
    code = ("import sys, json\n"
            "from geobias.commands import get\n"
            "print(get('probe-becpro').name)\n"
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith('geobias.commands.') and '._' not in m)))\n"
            "try:\n    get('no-such-command')\nexcept Exception as exc:\n    print(exc)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=300,
                         env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}, check=True)
    name, modules, error = out.stdout.strip().splitlines()
    assert name == "probe becpro"
    assert "geobias.commands.contextual" in json.loads(modules)  # (it imports geobias.commands.vectors too)
    assert not {"geobias.commands.static", "geobias.commands.bilingual"} & set(json.loads(modules))
    assert error.startswith("unknown command 'no-such-command'; choose from align, atlas,")
    assert "mweat" in error and "vectors verify" in error


def test_declared_commands_wait_for_the_hand_written_ones():
    """Importing the declared metrics' module first makes no command: `weat` and `rnd` stay the
    hand-written ones (a declared WEAT command would take the name), `ect` comes from its declaration."""
    code = ("import geobias.commands.declared\n"
            "from geobias.commands import _base, get\n"
            "print([n for n, c in _base.REGISTRY.items() if c.run.__module__.endswith('declared')])\n"
            "print(get('weat').run.__module__, get('rnd').run.__module__, get('ect').run.__module__)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=300,
                         env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}, check=True)
    made, modules = out.stdout.strip().splitlines()
    assert made == "[]"
    assert modules.split() == ["geobias.commands.static", "geobias.commands.catalogue", "geobias.commands.declared"]


#: Modules `geobias mweat` (its table) does not need, imported where they are used: the atlas
#: evaluation and its renderers, the model loaders, NumPy's masked arrays (the bootstrap reads its
#: bounds and the two-way median with geobias._numeric.quantiles, which avoids np.unique's import of
#: numpy.ma) and SciPy (the expanded level at 95 % is tabulated).
DEFERRED = ("geobias.evaluation", "geobias.evaluation.atlas", "geobias.report.atlas", "geobias.models",
            "numpy.ma", "scipy", "scipy.special")


@pytest.mark.parametrize("output", [[], ["--csv"]])
def test_mweat_table_path_imports_nothing_it_does_not_use(tmp_path, output):
    """The table (and CSV) path of `geobias mweat` draws its result without the modules it does not
    use (DEFERRED), and prints the full tables."""
    from _server import small_french_store

    from geobias.store import save_store

    save_store(small_french_store(), tmp_path / "small-fr")
    code = ("import sys, json, geobias.cli\n"
            f"sys.argv = ['geobias', 'mweat', '--lang', 'fr', '--vectors', 'small-fr', '--permutations', '1000', *{output!r}]\n"
            "try:\n    geobias.cli.main()\nexcept SystemExit as exc:\n    assert exc.code in (0, None), exc.code\n"
            f"print(json.dumps([m for m in {DEFERRED + FORBIDDEN!r} if m in sys.modules]), file=sys.stderr)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=300,
                         env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "GEOBIAS_VECTORS_DIR": str(tmp_path)})
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stderr.strip().splitlines()[-1]) == []
    assert ("MWEAT (Zhou et al. 2019, eq. 1)" in out.stdout) != bool(output)
    assert "p_value" in out.stdout or "p-value" in out.stdout


def test_atlas_renderers_register_when_an_atlas_type_is_asked_for():
    """The atlas' table and map are registered lazily, and found by every question about the type."""
    code = ("import sys\n"
            "from geobias.report import draw\n"
            "assert 'geobias.report.atlas' not in sys.modules\n"
            "assert draw.table_renderer('geobias.evaluation.atlas.AtlasResult').__name__ == 'atlas_table'\n"
            "assert draw.has_figure('geobias.evaluation.atlas.AtlasResult')\n"
            "from geobias.evaluation.atlas import AtlasResult\n"
            "assert draw.has_table(AtlasResult)\n")
    subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=300,
                   env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}, check=True)


def test_main_leaves_the_garbage_collector_as_it_found_it(monkeypatch, tmp_path, capsys):
    """`main` pauses the cyclic collector for start-up only: the command's own work runs with it on,
    and afterwards (success, failure, --help) it is on again with nothing left frozen."""
    import gc

    from _server import small_french_store

    import geobias.commands
    from geobias.cli import main
    from geobias.store import save_store

    save_store(small_french_store(), tmp_path / "small-fr")
    monkeypatch.setenv("GEOBIAS_VECTORS_DIR", str(tmp_path))
    seen = []
    execute = geobias.commands.execute

    def watched(*args, **kwargs):
        seen.append((gc.isenabled(), gc.get_freeze_count() > 0))
        return execute(*args, **kwargs)

    monkeypatch.setattr(geobias.commands, "execute", watched)
    assert gc.isenabled() and gc.get_freeze_count() == 0
    for argv, code in ((["mweat", "--lang", "fr", "--vectors", "small-fr", "--permutations", "500", "--json"], 0),
                       (["mweat", "--lang", "xx"], 1), (["mweat", "--permutations", "abc"], 2), (["--help"], 0)):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert (exc.value.code or 0) == code, argv
        assert gc.isenabled() and gc.get_freeze_count() == 0, argv
    assert seen == [(True, True)]  # the run: collector on, start-up's objects frozen
    capsys.readouterr()
