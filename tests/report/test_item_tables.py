"""Item tables: every result's per-pair / per-word / per-occupation / per-method figures as long
tables with the run's identifying columns, on every door (Python ``to_frame(table=...)``, the
command line's ``--csv``/``--parquet`` with ``--items``/``--table``), the Parquet file saying what
each column is; ``--plot FILE`` draws the figure the web app shows and says where it wrote it."""

from __future__ import annotations

import csv
import io
import json
import math

import pytest
from _server import small_french_store

from geobias.cli import main
from geobias.commands import execute
from geobias.results import ID_COLUMNS, item_table, item_tables
from geobias.sources import use_opener


def cli(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    out, err = capsys.readouterr()
    return exc.value.code, out, err


@pytest.fixture(scope="module")
def store_dir(tmp_path_factory):
    from geobias.store import save_store

    path = tmp_path_factory.mktemp("items") / "small-fr"
    save_store(small_french_store(), path)
    return str(path)


@pytest.fixture
def on_small_store():
    store = small_french_store()
    with use_opener(lambda lang, name, option: store):
        yield store


def test_mweat_item_table_is_one_row_per_pair_with_the_runs_columns(on_small_store):
    result, env = execute("mweat", {"lang": "fr", "permutations": 300})
    rows = item_table(env)  # the main table: per_word
    assert list(item_tables(env))[0] == "per_word"
    assert len(rows) == result.n_pairs == len(result.per_word) > 5
    assert list(rows[0])[:5] == list(ID_COLUMNS)
    assert {r["command"] for r in rows} == {"mweat"} and {r["lang"] for r in rows} == {"fr"}
    assert {r["seed"] for r in rows} == {0}
    for row, pair in zip(rows, result.per_word, strict=True):  # numbers in full, in the result's order
        assert (row["masculine"], row["feminine"]) == (pair.masculine, pair.feminine)
        assert row["s_masculine"] == pair.s_masculine and row["bias"] == pair.bias
        # the pair's term b = ||s(w_m)| - |s(w_f)|| (1e-12: float64 rounding of two subtractions)
        assert math.isclose(row["bias"], abs(abs(row["s_masculine"]) - abs(row["s_feminine"])), abs_tol=1e-12)


def test_ripa_item_table_joins_the_parallel_lists(on_small_store):
    result, env = execute("ripa", {"lang": "fr"})
    rows = item_table(env, "words")
    assert [r["word"] for r in rows] == list(result.words)
    assert [r["ripa"] for r in rows] == [float(x) for x in result.ripa]
    if result.word_intervals is not None:  # each word's interval holds its estimate's neighbourhood
        assert all(r["word_interval_low"] <= r["word_interval_high"] for r in rows)


def test_to_frame_table_and_its_errors(on_small_store):
    pd = pytest.importorskip("pandas")
    from geobias.commands import run
    from geobias.errors import InputError

    result = run("neighbors", lang="fr", word="avocat", k=5)
    frame = result.to_frame(table="neighbors")
    assert isinstance(frame, pd.DataFrame) and len(frame) == 5
    assert frame.similarity.dtype.kind == "f" and list(frame.word) == [n.word for n in result.neighbors]
    assert frame.similarity.is_monotonic_decreasing
    assert result.table_names() == ["neighbors"]
    assert set(frame.query_word) == {"avocat"}  # what was asked, beside each neighbour
    with pytest.raises(InputError, match="no item table 'nope'; this result has neighbors"):
        result.to_frame(table="nope")


def test_mapping_of_records_is_one_row_per_key():
    from geobias.evaluation.bilingual import EvaluationResult

    r = EvaluationResult(lang="fr", table={"original": {"mweat_statistic": 2.1, "p_at_1": 0.5},
                                           "shift-ori": {"mweat_statistic": 0.3, "p_at_1": 0.49}})
    rows = item_table(r, "table")
    assert [(x["method"], x["mweat_statistic"], x["p_at_1"]) for x in rows] == [
        ("original", 2.1, 0.5), ("shift-ori", 0.3, 0.49)]
    assert rows[0]["lang"] == "fr" and rows[0]["command"] is None  # no envelope: no command


def test_html_summary_is_compact_with_the_rest_behind_toggles(on_small_store):
    result, _ = execute("mweat", {"lang": "fr", "permutations": 300})
    html = result._repr_html_()
    assert f"{result.statistic:.4g}" in html and repr(result.statistic) not in html  # 4 significant digits
    assert html.count("<details>") >= 2  # the other fields, the per-pair table
    assert f"per_word: {len(result.per_word)} rows" in html


def test_cli_csv_items_loads_as_one_row_per_pair(store_dir, capsys):
    pd = pytest.importorskip("pandas")
    code, out, err = cli(["mweat", "--lang", "fr", "--vectors", store_dir, "--permutations", "300", "--csv",
                          "--items", "-q"], capsys)
    assert code == 0, err
    frame = pd.read_csv(io.StringIO(out))
    n = json.loads(cli(["mweat", "--lang", "fr", "--vectors", store_dir, "--permutations", "300", "--json", "-q"],
                       capsys)[1])["result"]["n_pairs"]
    assert len(frame) == n and {"s_masculine", "s_feminine", "bias"} <= set(frame.columns)
    assert all(frame[c].dtype.kind == "f" for c in ("s_masculine", "s_feminine", "bias"))
    assert set(frame.command) == {"mweat"} and set(frame.lang) == {"fr"}


def test_cli_table_name_and_a_wrong_one(store_dir, capsys):
    code, out, err = cli(["mweat", "--lang", "fr", "--vectors", store_dir, "--permutations", "300", "--csv",
                          "--table", "bootstrap_sums", "-q"], capsys)
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["quantity"] for r in rows] == ["sum_masculine", "sum_feminine"]
    assert all(float(r["low"]) <= float(r["estimate"]) <= float(r["high"]) for r in rows)
    code, out, err = cli(["mweat", "--lang", "fr", "--vectors", store_dir, "--permutations", "300", "--csv",
                          "--table", "nope", "-q"], capsys)
    assert code == 1 and out == "" and "no item table 'nope'" in err and "per_word" in err
    assert len(err.strip().splitlines()) == 1
    code, out, err = cli(["mweat", "--lang", "fr", "--vectors", store_dir, "--items", "-q"], capsys)
    assert code == 2 and "--items and --table choose what --csv or --parquet write" in err


def test_parquet_items_carry_column_metadata(store_dir, tmp_path, capsys):
    pl = pytest.importorskip("polars")
    target = tmp_path / "pairs.parquet"
    code, out, err = cli(["mweat", "--lang", "fr", "--vectors", store_dir, "--permutations", "300", "--parquet",
                          str(target), "--items", "-q"], capsys)
    assert code == 0, err
    assert f"wrote {target}" in err
    frame = pl.read_parquet(target)
    assert frame["bias"].dtype == pl.Float64 and frame.height > 5
    meta = pl.read_parquet_metadata(target)
    assert meta["geobias.table"] == "per_word" and meta["geobias.command"] == "mweat"
    columns = json.loads(meta["geobias.columns"])
    assert set(columns) == set(frame.columns)
    assert columns["s_masculine"]["unit"] == "cosine similarity" and "masculine form" in columns["s_masculine"][
        "description"]


def test_plot_writes_the_web_apps_figure_and_says_where(store_dir, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    from geobias.commands import get
    from geobias.report.draw import figure_title

    target = tmp_path / "out" / "mweat.png"
    target.parent.mkdir()
    code, out, err = cli(["mweat", "--lang", "fr", "--vectors", store_dir, "--permutations", "300", "--plot",
                          str(target), "-q"], capsys)
    assert code == 0, err
    assert err.strip().splitlines() == [f"wrote {target}"]
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not list(target.parent.glob(".*"))  # no temporary left beside it
    assert "--plot" in cli(["mweat", "--help"], capsys)[1]
    assert get("mweat").result and figure_title(execute("mweat", {"lang": "fr", "vectors": store_dir,
                                                                   "permutations": 100})[0]) == "per-pair bias bars"


def test_a_commands_own_plot_is_announced_once(store_dir, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    target = tmp_path / "plane.png"
    code, out, err = cli(["directions", "--lang", "fr", "--vectors", store_dir, "--plot", str(target), "-q"], capsys)
    assert code == 0, err
    assert target.exists() and err.strip().splitlines() == [f"wrote {target}"]


def test_plot_to_an_unwritable_path_is_one_line_before_any_work(store_dir, tmp_path, capsys):
    code, out, err = cli(["mweat", "--lang", "fr", "--vectors", store_dir, "--plot",
                          str(tmp_path / "missing" / "x.png"), "-q"], capsys)
    assert code == 1 and len(err.strip().splitlines()) == 1 and "missing" in err
    code, out, err = cli(["mweat", "--lang", "fr", "--vectors", store_dir, "--plot", str(tmp_path), "-q"], capsys)
    assert code == 1 and len(err.strip().splitlines()) == 1


def test_plot_is_offered_where_a_figure_exists_and_not_twice():
    from geobias.cli._run import has_plot
    from geobias.commands import get

    assert has_plot(get("mweat")) and has_plot(get("ripa")) and has_plot(get("weat")) and has_plot(get("seat"))
    assert has_plot(get("atlas")) and has_plot(get("neighbors"))
    assert not has_plot(get("correlate"))  # its own --plot field draws the same Figure 4
    assert not has_plot(get("vectors list"))


def test_the_figures_draw_what_the_result_says(on_small_store):
    pytest.importorskip("matplotlib")
    import numpy as np

    from geobias.report.draw import make_figure

    result, _ = execute("weat", {"lang": "fr", "test": "career-family-terms", "permutations": 200,
                                 "bootstrap": 200})
    fig = make_figure(result)
    effect_ax, bars_ax = fig.axes
    (line, *_rest) = effect_ax.lines
    assert np.allclose(sorted(line.get_xdata()), [result.bootstrap.low, result.bootstrap.high])
    assert len(bars_ax.patches) == len(result.per_word)

    ripa, _ = execute("ripa", {"lang": "fr"})
    ax = make_figure(ripa).axes[0]
    widths = sorted((p.get_width() for p in ax.patches), key=abs, reverse=True)
    assert np.allclose(widths, sorted(ripa.ripa, key=abs, reverse=True)[:30])


@pytest.mark.slow
@pytest.mark.parametrize("argv, table, n, numeric", [
    (["mweat", "--lang", "fr"], "per_word", 27, ["s_masculine", "s_feminine", "bias"]),
    (["ripa", "--lang", "fr"], "words", 27, ["ripa"]),
    (["correlate", "--lang", "fr"], "per_occupation", 27, ["weat_en", "mweat_signed"]),
    (["neighbors", "roi", "--lang", "fr"], "neighbors", 10, ["similarity"]),
])
def test_real_stores_give_the_acceptance_tables(argv, table, n, numeric, capsys):
    """The issue's acceptance on the installed stores (skipped without them)."""
    pd = pytest.importorskip("pandas")
    from geobias.sources.registry import vectors_dir

    if not (vectors_dir() / "fr-spacy-md").exists() or not (vectors_dir() / "en-w2v-gnews").exists():
        pytest.skip("fr-spacy-md and en-w2v-gnews are not installed (geobias vectors install ...)")
    code, out, err = cli([*argv, "--csv", "--items", "-q"], capsys)
    assert code == 0, err
    frame = pd.read_csv(io.StringIO(out))
    assert len(frame) == n and all(frame[c].dtype.kind == "f" for c in numeric)
    assert set(frame.store) == {"fr-spacy-md"} and set(frame.command) == {argv[0]}


def test_atlas_item_tables_are_language_by_metric_and_by_occupation(on_small_store):
    from geobias.evaluation.atlas import METRICS

    result, env = execute("atlas", {"langs": ["fr"], "permutations": 200, "bootstrap": 50})
    tables = item_tables(env)
    assert list(tables)[:1] == ["rows"] and "occupations" in tables
    rows = tables["rows"]
    assert [r["metric"] for r in rows] == [key for key, _label, _aware in METRICS]
    assert {r["lang"] for r in rows} == {"fr"} and {r["command"] for r in rows} == {"atlas"}
    cell = result.cells[0]
    assert cell.store and {r["store"] for r in rows} == {cell.store}  # the cell's store, not the envelope's none
    assert [r["value"] for r in rows] == [cell.metric(key).value for key, _l, _a in METRICS]
    occupations = tables["occupations"]
    assert len(occupations) == len(cell.occupations) > 0
    assert [(o["english"], o["bias"]) for o in occupations] == [(o.english, o.bias) for o in cell.occupations]
    assert {o["lang"] for o in occupations} == {"fr"}  # the parent cell's language on each row
    assert {o["store"] for o in occupations} == {cell.store}


def test_seats_figure_is_each_tests_effect_with_its_interval():
    pytest.importorskip("matplotlib")
    import numpy as np

    from geobias.metrics.seat import SeatResult
    from geobias.report.draw import figure_title, make_figure

    def test(name, d, low, high, p):
        return {"test": name, "lang": "en", "encoder": "toy", "statistic": 1.0, "effect_size": d, "p_value": p,
                "n_sentences": {}, "n_templates": {}, "n_gendered_words": 0, "n_permutations": 100, "exact": False,
                "seed": 0, "bootstrap": {"estimate": d, "low": low, "high": high, "standard_error": 0.1,
                                         "confidence": 0.95, "n_resamples": 100, "n_finite": 100, "seed": 0,
                                         "set_sizes": {"X": 4, "Y": 4, "A": 4, "B": 4}, "paired": [],
                                         "quantity": "effect_size"}}

    data = {**test("sent-weat6", 0.8, 0.2, 1.3, 0.01), "more_tests": [test("sent-weat7", -0.1, -0.7, 0.5, 0.6)]}
    result = SeatResult.from_dict(data)
    assert figure_title(result) == "effect sizes with their intervals"
    ax = make_figure(result).axes[0]
    points = [line.get_xdata()[0] for line in ax.lines if line.get_marker() == "o"]
    spans = [sorted(line.get_xdata()) for line in ax.lines if len(line.get_xdata()) == 2 and line.get_marker() != "o"
             and line.get_linestyle() == "-"]
    assert points == [0.8, -0.1] and np.allclose(spans, [[0.2, 1.3], [-0.7, 0.5]])
    assert [t.get_text() for t in ax.get_yticklabels()] == ["sent-weat6  (p = 0.01)", "sent-weat7  (p = 0.6)"]
    table = item_tables(result)["more_tests"]
    assert [(r["test"], r["effect_size"], r["bootstrap_low"]) for r in table] == [("sent-weat7", -0.1, -0.7)]
