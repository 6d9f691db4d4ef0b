"""Results are data: every result converts to tidy rows (one per estimate, numbers in full), a pandas
DataFrame and an HTML table, the same rows on the command line (--csv, --parquet) and in Python."""

from __future__ import annotations

import io

import pytest
from _server import small_french_store

from geobias.commands import execute, run
from geobias.report.tidy import write_csv
from geobias.results import tidy_rows
from geobias.sources import use_opener


@pytest.fixture
def on_small_store():
    store = small_french_store()
    with use_opener(lambda lang, name, option: store):
        yield store


def test_one_estimate_one_row(on_small_store):
    result, env = execute("mweat", {"lang": "fr", "permutations": 500})
    rows = tidy_rows(env)
    assert len(rows) == 1
    row = rows[0]
    assert row["statistic"] == result.statistic and row["p_value"] == result.p_value  # not rounded
    assert (row["p_value_ci_low"], row["p_value_ci_high"]) == tuple(result.p_value_ci)
    assert row["command"] == "mweat" and row["lang"] == "fr" and row["seed"] == 0
    assert all(not isinstance(v, (list, dict)) for v in row.values())  # flat, plain values


def test_to_frame_and_html(on_small_store):
    pd = pytest.importorskip("pandas")
    result = run("weat", lang="fr", targets_x=["infirmier", "avocat"], targets_y=["infirmière", "avocate"],
                 attributes_a=["homme", "père"], attributes_b=["femme", "mère"], permutations=100)
    frame = result.to_frame()
    assert isinstance(frame, pd.DataFrame) and len(frame) == 1 and frame.statistic[0] == result.statistic
    html = result._repr_html_()
    # compact: the key figures at 4 significant digits, the per-word table behind a toggle
    assert "statistic" in html and f"{result.statistic:.4g}" in html and "<details>" in html


def test_a_result_of_several_estimates_gives_a_row_each(on_small_store):
    result = run("neighbors", lang="fr", word="avocat", k=4)
    rows = tidy_rows(result)
    assert len(rows) == 4 and rows[0]["word"] == "avocat"  # the query, beside each neighbour
    assert [r["neighbors_word"] for r in rows] == [n.word for n in result.neighbors]
    buf = io.StringIO()
    assert write_csv(buf, result) == 4 and len(buf.getvalue().splitlines()) == 5  # header + 4 rows
