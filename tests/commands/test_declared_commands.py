"""A metric that reads WEAT's query gets its command from its declaration (geobias.commands.declared):
ect and mac in the tree, and a metric a plug-in declares without writing a command."""

from __future__ import annotations

import dataclasses

import pytest

import geobias.metrics as metrics
from geobias.commands import REGISTRY, declared, get, run
from geobias.metrics import declaration
from geobias.metrics.checks import toy_store


@pytest.fixture
def toy(tmp_path):
    from geobias.store import save_store

    save_store(toy_store(), tmp_path / "toy")
    return str(tmp_path / "toy")


def _sets():
    return dict(targets_x="w0,w1,w2,w3,w4,w5", targets_y="w6,w7,w8,w9,w10,w11",
                attributes_a="w12,w13,w14,w15,w16,w17", attributes_b="w18,w19,w20,w21,w22,w23")


@pytest.mark.parametrize("name", ["ect", "mac"])
def test_ect_and_mac_commands_are_made_from_their_declarations(name):
    cmd, metric = get(name), metrics.get_metric(name)
    assert cmd.run.__module__ == "geobias.commands.declared"
    assert cmd.summary == metric.summary and cmd.result == metric.result_name and cmd.quick and cmd.job


def test_a_metric_declared_by_a_plug_in_gets_its_command(toy, monkeypatch):
    copy = dataclasses.replace(metrics.get_metric("ect"), name="ect-plugin", summary="A plug-in's ECT.")
    monkeypatch.setattr(declaration, "_METRICS", {**declaration._METRICS})
    metrics.declare(copy)
    try:
        assert declared.register_declared() == ["ect-plugin"]
        assert declared.register_declared() == []  # once
        mine = run("ect-plugin", vectors=toy, variant="english", bootstrap=100, **_sets())
        theirs = run("ect", vectors=toy, variant="english", bootstrap=100, **_sets())
        assert mine.to_dict() == theirs.to_dict()
        assert get("ect-plugin").summary == "A plug-in's ECT."
    finally:
        REGISTRY.pop("ect-plugin", None)


def test_a_declared_metric_without_a_resampling_refuses_a_bootstrap(toy, monkeypatch):
    from geobias.errors import ParameterError

    copy = dataclasses.replace(metrics.get_metric("mac"), name="mac-plain", resampling=None, quantities=(),
                               notes={})
    monkeypatch.setattr(declaration, "_METRICS", {**declaration._METRICS})
    metrics.declare(copy)
    try:
        declared.register_declared()
        plain = run("mac-plain", vectors=toy, variant="english", **_sets())
        assert plain.bootstrap is None and plain.mac == run("mac", vectors=toy, variant="english", **_sets()).mac
        with pytest.raises(ParameterError, match="declares no resampling"):
            run("mac-plain", vectors=toy, variant="english", bootstrap=100, **_sets())
    finally:
        REGISTRY.pop("mac-plain", None)
