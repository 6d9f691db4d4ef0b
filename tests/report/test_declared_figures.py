"""The report layer draws the figure a metric declares (geobias.metrics.declaration): the bars as the
metric's data says, the title it gives; a renderer registered in the report layer comes first."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("matplotlib")

import geobias.metrics as metrics  # noqa: E402
from geobias.metrics.checks import toy_store  # noqa: E402
from geobias.query import WordQuery  # noqa: E402
from geobias.report import registry  # noqa: E402
from geobias.report.draw import figure_title, make_figure  # noqa: E402


@pytest.fixture
def weat_result():
    store = toy_store()
    w = store.words
    return metrics.weat(store, WordQuery(w[:4], w[4:8], w[8:12], w[12:16]), permutations=100)


def test_weats_declared_bars_are_every_words_association(weat_result):
    r = weat_result
    drawn = metrics.get_metric("weat").figure.draw(r.to_dict())
    assert drawn.title == "WEAT association s(w, A, B) (blue: X, orange: Y)"
    # the report layer's WEAT figure: the effect size with its interval, the declared bars under it
    assert figure_title(r) == "effect size and per-word associations"
    effect, ax = make_figure(r).axes
    (point,) = [line for line in effect.lines if line.get_marker() == "o"]
    assert point.get_xdata()[0] == pytest.approx(r.effect_size)
    assert ax.get_title() == drawn.title
    assert len(ax.patches) == len(r.per_word) == 8
    widths = sorted((p.get_width() for p in ax.patches), reverse=True)
    assert np.allclose(widths, sorted((a.s for a in r.per_word), reverse=True))


def test_mweats_declared_bars_are_the_most_biased_pairs_coloured_by_the_more_gendered_form():
    store = toy_store(n_words=80)
    w = store.words
    r = metrics.mweat(store, WordQuery(w[:30], w[30:60], w[60:70], w[70:80], paired=True), permutations=100)
    drawn = metrics.get_metric("mweat").figure.draw(r.to_dict())
    top = sorted(r.per_word, key=lambda p: -p.bias)[:25]  # 30 pairs: the 25 most biased
    assert drawn.labels == [f"{p.masculine}/{p.feminine}" for p in top]
    assert drawn.values == [p.bias for p in top]
    assert drawn.colours == ["#1f77b4" if abs(p.s_masculine) > abs(p.s_feminine) else "#ff7f0e" for p in top]
    assert len(make_figure(r).axes[0].patches) == 25 and figure_title(r) == "per-pair bias bars"


def test_a_result_with_nothing_to_draw_gives_no_figure():
    import dataclasses

    store = toy_store(n_words=40)
    w = store.words
    r = metrics.mweat(store, WordQuery(w[:10], w[10:20], w[20:30], w[30:40], paired=True), permutations=50)
    assert make_figure(dataclasses.replace(r, per_word=[])) is None


def test_weats_figure_without_words_still_shows_its_effect(weat_result):
    import dataclasses

    fig = make_figure(dataclasses.replace(weat_result, per_word=[]))
    (point,) = [line for line in fig.axes[0].lines if line.get_marker() == "o"]
    assert len(fig.axes) == 1 and point.get_xdata()[0] == pytest.approx(weat_result.effect_size)


def test_a_registered_renderer_comes_before_the_declaration(weat_result, monkeypatch):
    name = "geobias.metrics.weat.WeatResult"
    monkeypatch.setitem(registry._FIGURES, name, lambda result: "drawn by the report layer")
    monkeypatch.setitem(registry._FIGURE_TITLES, name, "registered title")
    assert make_figure(weat_result) == "drawn by the report layer"
    assert figure_title(weat_result) == "registered title"
