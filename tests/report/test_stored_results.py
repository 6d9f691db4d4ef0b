"""A stored result is rebuilt as it was made: every dataclass a command's result holds is a
``Result``, so ``from_dict`` revives it (a plain dataclass came back as a dict, and the web app's view
of a stored sentiment probe failed on it with an AttributeError, a 500)."""

from __future__ import annotations

import dataclasses
import tempfile
import typing
from pathlib import Path

import pytest

from geobias.results import Result, _hints


def _dataclasses_in(hint, seen: set) -> list[type]:
    """The dataclass types a field annotation can hold (through unions, lists, tuples and dicts)."""
    out = []
    for arg in typing.get_args(hint):
        out += _dataclasses_in(arg, seen)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint) and hint not in seen:
        seen.add(hint)
        out.append(hint)
        for inner in _hints(hint).values():
            out += _dataclasses_in(inner, seen)
    return out


def test_every_dataclass_a_command_result_holds_is_a_result():
    from geobias.commands._base import commands

    offenders = set()
    for command in commands():
        if not command.result:
            continue
        for klass in _dataclasses_in(command.result_type(), set()):
            if not issubclass(klass, Result):
                offenders.add(f"{klass.__module__}.{klass.__qualname__} (in {command.name})")
    assert not offenders, sorted(offenders)


def test_the_web_app_views_a_stored_sentiment_probe():
    pytest.importorskip("vaderSentiment")
    from geobias.contextual.sentiment import SentimentProbeResult, sentiment_probe
    from geobias.contextual.sentiment_scorers import VaderScorer
    from geobias.service.pages import result_view

    res = sentiment_probe([VaderScorer()], [("t", ["He is a true hero.", "She is sad.", "My brother is angry."])],
                          ("pro", "all"))
    again = SentimentProbeResult.from_dict(res.to_dict())
    assert again.rows[0].all_samples == res.rows[0].all_samples  # a BiasStats again, not a dict
    job = {"id": "j1", "state": "done", "kind": "probe sentiment", "params": {}, "artifacts": [],
           "result": {"command": "probe sentiment", "geobias_version": "x", "inputs": {}, "result": res.to_dict()}}
    with tempfile.TemporaryDirectory() as d:
        html = result_view(job, Path(d))
    assert "Sentiment-difference bias" in html and "Wilcoxon" in html
