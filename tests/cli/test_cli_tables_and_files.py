"""The first afternoon's papercuts: --plot never overwrites silently, tables that fit a pipe and
CSV for files, one spelling of method names, gensim's most_similar signature."""

from __future__ import annotations

import csv
import io
import json
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


def test_csv_is_data_one_row_per_estimate(store_dir, capsys, tmp_path):
    rc, out, err = cli([*_weat(store_dir), "--csv"], capsys)
    assert rc == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == 1  # WEAT: one estimate
    row = rows[0]
    assert row["command"] == "weat" and row["geobias_version"]
    rc, js, err = cli([*_weat(store_dir), "--json"], capsys)
    result = json.loads(js)["result"]
    # numbers in full, as the JSON envelope has them (no rounding, no annotations in a cell)
    assert float(row["statistic"]) == result["statistic"] and float(row["p_value"]) == result["p_value"]
    assert float(row["p_value_ci_low"]) == result["p_value_ci"][0] and int(row["n_permutations"]) == result["n_permutations"]
    rc, out, err = cli([*_weat(store_dir), "--csv", "--json"], capsys)
    assert rc == 2 and "--json or --csv" in err
    rc, out, err = cli(["vectors", "list", "--csv"], capsys)
    header = out.splitlines()[0].split(",")
    assert rc == 0 and {"name", "lang", "installed"} <= set(header) and len(out.splitlines()) > 5  # a row per source
    rc, out, err = cli([*_weat(store_dir), "--parquet", str(tmp_path / "w.parquet")], capsys)
    assert rc == 0, err
    import polars as pl

    frame = pl.read_parquet(tmp_path / "w.parquet")
    assert frame.height == 1 and frame["statistic"][0] == result["statistic"]


def test_render_csv_of_a_table_result():
    from geobias.report.draw import render_csv
    from geobias.store.neighbors import Neighbor, NeighborsResult

    res = NeighborsResult("nurse", 2, "en", "toy", [Neighbor("doctor", 0.5), Neighbor("a, b", 0.25)])
    buf = io.StringIO()
    assert render_csv(buf, res) == 1
    lines = buf.getvalue().splitlines()
    assert lines[0] == "# nearest neighbours of 'nurse' (toy)" and lines[1] == "#,word,cosine"
    assert lines[2:] == ["1,doctor,0.5000", '2,"a, b",0.2500']  # a comma inside a cell is quoted


def test_words_are_printed_as_they_are_never_as_markup_or_emoji(tmp_path, capsys):
    """A word that looks like rich markup (``[bold]x``) or an emoji code (``:smile:``) is printed as it
    is: in the command line's table, in its table-as-shown CSV and in the web app's cells."""
    from geobias.report.draw import render_csv
    from geobias.report.registry import plain_text

    words = ["femme", ":smile:", "[bold]x", "[red]y[/red]", "homme"]
    path = tmp_path / "odd"
    vecs = np.random.default_rng(0).normal(size=(len(words), 6))
    save_store(VectorStore(words, vecs, lang="fr", provenance={"source": "toy"}), path)
    code, out, err = cli(["neighbors", "femme", "--vectors", str(path), "-k", "4"], capsys)
    assert code == 0, err
    rows = [line for line in out.splitlines() if line.startswith("│")]
    shown = {line.split("│")[2].strip() for line in rows}
    assert shown == {":smile:", "[bold]x", "[red]y[/red]", "homme"}, out
    assert "😄" not in out
    code, out, err = cli(["neighbors", "femme", "--vectors", str(path), "-k", "4", "--json"], capsys)
    result = json.loads(out)["result"]
    from geobias.store.neighbors import NeighborsResult

    buf = io.StringIO()
    render_csv(buf, NeighborsResult.from_dict(result))
    assert {r[1] for r in csv.reader(buf.getvalue().splitlines()[2:])} == shown
    assert [plain_text(w) for w in words] == words


# ------------------------------------------------------------------------------- method names


def test_one_spelling_of_method_names(capsys):
    from geobias.commands import validate
    from geobias.commands.bilingual import TABLE_METHODS
    from geobias.evaluation import METHOD_KEYS
    from geobias.evaluation.erasure import ERASURE_METHODS

    # the lists shown are the registry's, in the tables' spelling
    assert set(ERASURE_METHODS) == {*TABLE_METHODS, "inlp-35"} and set(METHOD_KEYS) <= set(TABLE_METHODS)
    assert all("_" not in m for m in TABLE_METHODS)
    for command in ("evaluate", "erasure"):
        rc, out, _ = cli([command, "--help"], capsys)
        text = " ".join(out.split()).replace("- ", "-")  # help wraps long words at hyphens
        assert rc == 0 and all(m in text for m in TABLE_METHODS), command
        assert "underscore" not in text  # the underscore spelling is a hidden alias
    # the underscore spelling is accepted and rewritten on every front door
    p = validate("mitigate", {"method": "shift_ori", "lang": "fr", "out": "x"}, front="service", outputs_given=True)
    assert p.method == "shift-ori"
    assert validate("erasure", {"lang": "fr", "methods": "shift_ori,leace_keep_grammar"}).methods == [
        "shift-ori", "leace-keep-grammar"]
    assert validate("evaluate", {"lang": "fr", "dictionary": "a", "test_dictionary": "b",
                                 "methods": "hybrid_en"}).method_names() == ["hybrid-en"]
    rc, _, err = cli(["mitigate", "--method", "hybrid_ori", "--lang", "fr", "--out", "/nonexistent-dir/x"], capsys)
    assert rc == 1 and "--method" not in err  # accepted; the next problem is the output directory
    rc, _, err = cli(["mitigate", "--method", "hybrid_orx", "--lang", "fr", "--out", "x"], capsys)
    assert rc == 2 and "'hybrid-ori'" in err and "hybrid_ori" not in err


def test_evaluate_methods_error_lists_what_its_help_lists(capsys):
    """`evaluate --methods` names one list in its help and in its error: the erasers, hard-debias and
    inlp-35 (which route to the erasure table) included; a bad name is a usage error (exit 2)."""
    from geobias.commands import validate
    from geobias.commands.bilingual import EVALUATE_METHODS

    rc, out, _ = cli(["evaluate", "--help"], capsys)
    help_text = " ".join(out.split()).replace("- ", "-")
    rc, _, err = cli(["evaluate", "--lang", "fr", "--dictionary", "a", "--test-dictionary", "b", "--methods",
                      "original,bogus"], capsys)
    assert rc == 2 and err.count("\n") == 1 and "unknown method(s) bogus;" in err, err
    listed = err.split("choose 'all' or from ", 1)[1].strip().split(", ")
    assert listed == list(EVALUATE_METHODS)
    assert {"leace", "inlp", "hard-debias", "inlp-35"} <= set(listed)
    assert f"'all' or a comma list of {', '.join(listed)};" in help_text
    # every listed name validates, and the eraser names route to the erasure table
    for m in listed:
        p = validate("evaluate", {"lang": "fr", "dictionary": "a", "test_dictionary": "b", "methods": m})
        assert p.erasure_table() == (m not in ("original", "shift-ori", "shift-en", "de-align", "hybrid-ori",
                                               "hybrid-en")), m


def test_erasure_help_says_dictionaries_are_required_for_a_gendered_language(capsys):
    rc, out, _ = cli(["erasure", "--help"], capsys)
    text = " ".join(out.split())
    assert rc == 0
    for option in ("--dictionary <str> Training dictionary", "--test-dictionary <str> Test dictionary"):
        start = text.index(option)
        assert "required for a gendered language (fr, es, de)" in text[start:start + 150], option


# ------------------------------------------------------------------------------- most_similar


def test_most_similar_takes_gensims_signature_and_agrees_with_gensim():
    pytest.importorskip("gensim")
    rng = np.random.default_rng(1)
    s = VectorStore([f"w{i}" for i in range(200)], rng.normal(size=(200, 16)).astype(np.float32))
    kv = s.to_keyedvectors()
    for pos, neg in ((["w1"], []), (["w1", "w2"], ["w3"]), ([], ["w4"]), ("w5", "w6")):
        ours = s.most_similar(positive=pos, negative=neg, topn=7)
        theirs = kv.most_similar(positive=pos, negative=neg, topn=7)
        assert [w for w, _ in ours] == [w for w, _ in theirs], (pos, neg)
        # float32 unit rows in both; gensim and faiss sum in different orders
        assert np.allclose([v for _, v in ours], [v for _, v in theirs], atol=1e-5)
    # the older forms keep working: a word and k, positionally or by keyword
    assert s.most_similar("w1", 3) == s.most_similar("w1", k=3) == s.most_similar(positive="w1", topn=3)
    assert len(s.most_similar("w1")) == 10 and all(w != "w1" for w, _ in s.most_similar("w1"))
    from geobias.errors import InputError, OutOfVocabularyError

    with pytest.raises(OutOfVocabularyError, match="nope"):
        s.most_similar(positive=["w1"], negative=["nope"])
    with pytest.raises(InputError, match="topn or k"):
        s.most_similar("w1", topn=3, k=3)
    with pytest.raises(InputError, match="at least one word"):
        s.most_similar()
