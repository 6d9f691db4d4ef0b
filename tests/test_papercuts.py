"""The first afternoon's papercuts: --plot never overwrites silently, tables that fit a pipe and
CSV for files, one spelling of method names, gensim's most_similar signature."""

from __future__ import annotations

import csv
import io
import sys

import numpy as np
import pytest

from geobias.cli import main
from geobias.store import VectorStore, save_store


def cli(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    out, err = capsys.readouterr()
    return exc.value.code, out, err


@pytest.fixture
def store_dir(tmp_path):
    rng = np.random.default_rng(0)
    words = [f"x{i}" for i in range(8)] + [f"y{i}" for i in range(8)] + [f"a{i}" for i in range(4)] + [
        f"b{i}" for i in range(4)]
    path = tmp_path / "store"
    save_store(VectorStore(words, rng.normal(size=(len(words), 12)), lang="en", provenance={"source": "toy"}), path)
    return str(path)


def _weat(store_dir):
    return ["weat", "--vectors", store_dir, "--targets-x", ",".join(f"x{i}" for i in range(8)),
            "--targets-y", ",".join(f"y{i}" for i in range(8)), "--attributes-a", "a0,a1,a2,a3",
            "--attributes-b", "b0,b1,b2,b3", "--permutations", "200"]


# ------------------------------------------------------------------------------- --plot


def test_plot_refuses_to_overwrite_without_force(tmp_path):
    from geobias.commands._fields import check_plot
    from geobias.errors import InputError
    from geobias.report.plots import save_figure

    target = tmp_path / "fig.png"
    target.write_bytes(b"mine")
    with pytest.raises(InputError, match="already exists; pass `force`"):
        check_plot(target, force=False)
    check_plot(target, force=True)
    check_plot(tmp_path / "new.png", force=False)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = plt.figure()
    with pytest.raises(InputError):  # the writer itself never replaces a file it was not allowed to
        save_figure(fig, target, overwrite=False)
    assert target.read_bytes() == b"mine"
    save_figure(fig, target, overwrite=True)
    assert target.read_bytes()[:4] == b"\x89PNG"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fig.png"]  # atomic: no temporary left
    plt.close(fig)


def test_every_plot_command_has_force():
    from geobias.commands import commands

    plotting = [c for c in commands() if "plot" in c.params.model_fields]
    assert {c.name for c in plotting} >= {"directions", "evaluate", "erasure", "correlate", "probe becpro",
                                          "probe sentiment"}
    for c in plotting:
        assert "force" in c.params.model_fields, c.name


def test_cli_plot_keeps_an_existing_file(tmp_path, capsys, monkeypatch):
    # directions on a store without the language's word lists fails later; the plot check comes first
    target = tmp_path / "plane.png"
    target.write_bytes(b"keep me")
    rc, out, err = cli(["directions", "--lang", "fr", "--vectors", str(tmp_path / "nowhere"), "--plot", str(target)],
                       capsys)
    assert rc == 1 and "already exists; pass --force to replace it" in err and err.count("\n") == 1
    assert target.read_bytes() == b"keep me"


# ------------------------------------------------------------------------------- tables


def test_tables_do_not_wrap_when_piped(store_dir, capsys, monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    rc, out, err = cli(_weat(store_dir), capsys)
    assert rc == 0, err
    # the longest cell (p-value with its interval and settings) stays on one line
    line = next(x for x in out.splitlines() if "p-value" in x)
    assert "permutations" in line and max(len(x) for x in out.splitlines()) > 80
    from geobias.cli._options import PIPE_WIDTH, table_console

    assert not sys.stdout.isatty() and table_console().width == PIPE_WIDTH
    monkeypatch.setenv("COLUMNS", "100")
    assert table_console().width == 100


def test_csv_for_files(store_dir, capsys):
    rc, out, err = cli([*_weat(store_dir), "--csv"], capsys)
    assert rc == 0, err
    rows = list(csv.reader(io.StringIO("\n".join(x for x in out.splitlines() if not x.startswith("#")))))
    keys = {r[0] for r in rows if r}
    assert {"statistic", "effect size", "p-value"} <= keys, keys
    rc, out, err = cli([*_weat(store_dir), "--csv", "--json"], capsys)
    assert rc == 2 and "--json or --csv" in err
    rc, out, err = cli(["vectors", "list", "--csv"], capsys)
    assert rc == 0 and "name,lang,shape,licence,installed" in out.splitlines()[1]


def test_render_csv_of_a_table_result():
    from geobias.report.registry import render_csv
    from geobias.store.neighbors import Neighbor, NeighborsResult

    res = NeighborsResult("nurse", 2, "en", "toy", [Neighbor("doctor", 0.5), Neighbor("a, b", 0.25)])
    buf = io.StringIO()
    assert render_csv(buf, res) == 1
    lines = buf.getvalue().splitlines()
    assert lines[0] == "# nearest neighbours of 'nurse' (toy)" and lines[1] == "#,word,cosine"
    assert lines[2:] == ["1,doctor,0.5000", '2,"a, b",0.2500']  # a comma inside a cell is quoted
