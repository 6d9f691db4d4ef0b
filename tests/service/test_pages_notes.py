"""The web app shows an interval's note (a table's caption), as the command line prints it."""

from __future__ import annotations

import numpy as np

from geobias.metrics.bootstrap import bootstrap_query
from geobias.metrics.coverage import note
from geobias.query import WordQuery
from geobias.service.pages import items_html, rich_items
from geobias.store import VectorStore


def test_an_intervals_note_reaches_the_page(monkeypatch):
    """WEAT's d given a measured range outside the target, and the note it makes (the committed run
    has it inside the target: no note)."""
    from geobias.metrics import coverage, get_metric

    monkeypatch.setitem(coverage.COVERAGE, ("weat", "effect_size"), (0.938, 0.972))
    monkeypatch.setitem(get_metric("weat").notes, "effect_size", note("weat", "effect_size"))
    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(48)]  # 12 per set: within the calibrated sizes, no small-set note
    store = VectorStore(words, rng.normal(size=(48, 8)).astype(np.float32))
    rows = WordQuery(words[:12], words[12:24], words[24:36], words[36:]).resolve(store)
    boot = bootstrap_query(rows, "weat", n_resamples=200)
    assert boot.note == note("weat", "effect_size") != ""
    items = rich_items(boot)
    assert isinstance(items[0], tuple) and items[1] == f"note: {boot.note}"
    assert "in simulation (sets sized like the French occupation query)" in items_html(items)


def test_item_tables_that_cannot_be_read_are_said_not_dropped(monkeypatch):
    """A stored result whose item tables cannot be read: the run page says so where the links go."""
    from geobias import results
    from geobias.errors import InputError
    from geobias.service.pages import item_links

    def broken(env):
        raise InputError("per_word is not a list of rows")

    monkeypatch.setattr(results, "item_tables", broken)
    (line,) = item_links({"id": "j1", "result": {"command": "mweat", "result": {"per_word": 3}}})
    assert "no item tables" in line and "per_word is not a list of rows" in line and "href" not in line
