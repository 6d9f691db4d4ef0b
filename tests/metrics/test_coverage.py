"""The notes of the default intervals say what the calibration suite measured, and nothing else.

``reproductions/calibration.json`` is the committed 1,000-data-set run of
``benchmarks/bench_calibration.py``; ``geobias/metrics/_coverage_measured.py`` is generated from it
(``scripts/coverage_notes.py``), and every declared interval whose measured coverage leaves 93–97 %
in some scenario carries a note with that range.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from geobias.metrics.bootstrap import UNDERCOVERED, bootstrap_query
from geobias.metrics.coverage import COVERAGE, TARGET, coverage, note, notes
from geobias.metrics.declaration import declared_metrics

ROOT = Path(__file__).resolve().parents[2]


def _script():
    spec = importlib.util.spec_from_file_location("coverage_notes", ROOT / "scripts" / "coverage_notes.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["coverage_notes"] = module
    spec.loader.exec_module(module)
    return module


def test_the_measured_table_is_generated_from_the_committed_run():
    script = _script()
    record = json.loads(script.RECORD.read_text(encoding="utf-8"))
    small = json.loads(script.SMALL_RECORD.read_text(encoding="utf-8"))
    assert script.render(record, small) == script.MODULE.read_text(encoding="utf-8")
    assert record["settings"]["datasets"] >= 1000 and len(record["provenance"]["commit"]) == 40
    assert set(record["settings"]["scenarios"]) == {"neither", "agreement", "agreement-asymmetric", "bias", "both"}


def test_every_calibrated_interval_maps_to_a_declared_quantity():
    from geobias.evaluation.calibration import QUANTITY

    declared = {m.name: m.quantities for m in declared_metrics()}
    for metric, quantity in QUANTITY.values():
        assert quantity in declared[metric], (metric, quantity)
    assert set(COVERAGE) == set(QUANTITY.values())


def test_a_note_exactly_where_the_coverage_leaves_the_target():
    for (metric, quantity), (low, high) in COVERAGE.items():
        text = note(metric, quantity)
        outside = low < TARGET[0] or high > TARGET[1]
        assert bool(text) == outside, (metric, quantity, low, high)
        if outside:
            assert f"{100 * low:.1f}-{100 * high:.1f}%" in text
            assert ("approximate" in text) == (low < TARGET[0]) and ("conservative" in text) == (high > TARGET[1])
            declared = next(m for m in declared_metrics() if m.name == metric)
            assert declared.notes[quantity] == text  # the metric declares it
    assert set(UNDERCOVERED) == {k for k in COVERAGE if note(*k)}
    assert note("mweat", "statistic") == "" and coverage("nope", "x") is None and notes("nope") == {}


def test_the_note_reaches_the_interval_a_user_reads(monkeypatch):
    """WEAT's effect size (calibrated), given a measured range outside the target (the committed run
    has it inside: no note), carries the note it makes on the bootstrap result itself."""
    from geobias.metrics import coverage as cov
    from geobias.metrics import get_metric
    from geobias.query import WordQuery
    from geobias.store import VectorStore

    monkeypatch.setitem(cov.COVERAGE, ("weat", "effect_size"), (0.938, 0.972))
    monkeypatch.setitem(get_metric("weat").notes, "effect_size", note("weat", "effect_size"))

    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(48)]  # 12 words per set: as large as the calibrated query, no small-set note
    store = VectorStore(words, rng.normal(size=(48, 8)).astype(np.float32))
    rows = WordQuery(words[:12], words[12:24], words[24:36], words[36:]).resolve(store)
    r = bootstrap_query(rows, "weat", n_resamples=200)
    assert r.note == note("weat", "effect_size") and "93.8-97.2%" in r.note


def test_the_smaller_sets_table_is_generated_from_its_committed_run():
    script = _script()
    small = json.loads(script.SMALL_RECORD.read_text(encoding="utf-8"))
    record = json.loads(script.RECORD.read_text(encoding="utf-8"))
    assert script.render(record, small) == script.MODULE.read_text(encoding="utf-8")
    settings = small["settings"]
    assert (settings["pairs"], settings["attributes"]) == (8, 8) and settings["datasets"] >= 1000
    assert set(settings["scenarios"]) == set(record["settings"]["scenarios"])
    assert "--pairs 8 --attributes 8" in small["provenance"]["command"] and len(small["provenance"]["commit"]) == 40
    from geobias.metrics.coverage import SMALL_COVERAGE

    assert set(SMALL_COVERAGE) == set(COVERAGE)


def test_a_small_set_note_says_what_the_smaller_run_measured_and_where_nothing_did():
    from geobias.metrics.coverage import CALIBRATED_SMALLEST, SMALL_COVERAGE, small_set_note

    assert CALIBRATED_SMALLEST == 11
    for (metric, quantity), (low, high) in SMALL_COVERAGE.items():
        outside = low < TARGET[0] or high > TARGET[1]
        assert small_set_note(metric, quantity, 11) == "" and small_set_note(metric, quantity, 27) == ""
        for n in (8, 10):
            text = small_set_note(metric, quantity, n)
            assert bool(text) == outside, (metric, quantity, n)
            if outside:
                assert f"{100 * low:.1f}-{100 * high:.1f}%" in text and f"has {n} words" in text
                assert ("approximate" in text) == (low < TARGET[0])
        below = small_set_note(metric, quantity, 4)
        assert "fewer than any calibrated (8)" in below and f"{100 * low:.1f}-{100 * high:.1f}%" in below
    assert small_set_note("mweat", "statistic", 4) == ""  # not calibrated (never negative): nothing to say


def test_a_small_query_carries_the_small_set_note_on_its_interval():
    from geobias.metrics.coverage import small_set_note
    from geobias.query import WordQuery
    from geobias.store import VectorStore

    rng = np.random.default_rng(1)
    words = [f"w{i}" for i in range(64)]
    store = VectorStore(words, rng.normal(size=(64, 8)).astype(np.float32))
    small = bootstrap_query(WordQuery(words[:4], words[4:8], words[8:12], words[12:16]).resolve(store), "weat",
                            n_resamples=100)
    assert small.note.endswith(small_set_note("weat", "effect_size", 4)) and "has 4 words" in small.note
    large = bootstrap_query(WordQuery(words[:16], words[16:32], words[32:44], words[44:56]).resolve(store), "weat",
                            n_resamples=100)
    assert "smallest resampled set" not in large.note  # 12 attribute words: within the calibrated sizes


def test_the_generator_drops_no_row_silently():
    """A calibrated figure the mapping does not know is an error, not a dropped row."""
    script = _script()
    rec = {"settings": {"datasets": 20, "permutations": 99, "resamples": 99, "scenarios": ["neither"]},
           "provenance": {"commit": "0" * 40},
           "rows": [{"kind": "interval", "metric": "NEW", "figure": "x", "rate": 0.9}]}
    with pytest.raises(KeyError):
        script.render(rec)
