"""A quick body is validated, capped and costed once (:func:`geobias.service.commands.quick_params`):
the same body gets the same parameters again, another body or another configuration is checked on
its own, and a refused body is refused every time."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi", reason="the serve extra is not installed (pip install 'geobias[serve]')")


def _config(tmp_path, **kw):
    from geobias.service import ServiceConfig

    return ServiceConfig(vectors_dir=tmp_path / "vectors", data_dir=tmp_path / "data", verify_every=0, **kw)


def test_a_body_is_checked_once_and_its_parameters_reused(tmp_path, monkeypatch):
    from geobias.service import commands

    config = _config(tmp_path)
    checks = []
    real = commands._check
    monkeypatch.setattr(commands, "_check", lambda *a: checks.append(a[1:]) or real(*a))
    commands._CHECKED.clear()
    body = {"lang": "fr", "vectors": "fr-spacy-md", "word": "femme", "k": 5}
    cmd, params, budget = commands.quick_params(config, "neighbors", body)
    assert (cmd.name, params.word, params.k, budget) == ("neighbors", "femme", 5, 1.0)
    # the same body, its keys in another order: the same frozen parameters, not checked again
    again = commands.quick_params(config, "neighbors", dict(reversed(list(body.items()))))
    assert again[1] is params and len(checks) == 1
    # another value, another command or another configuration: checked on its own
    assert commands.quick_params(config, "neighbors", {**body, "k": 6})[1].k == 6
    assert commands.quick_params(_config(tmp_path, max_permutations=50), "neighbors", body)[1] == params
    assert len(checks) == 3
    # a value of another JSON type is another body (5.0 and 5 stay apart): checked on its own
    assert commands.quick_params(config, "neighbors", {**body, "k": 5.0})[1].k == 5
    assert len(checks) == 4


def test_a_refused_body_is_refused_every_time_and_caps_still_apply(tmp_path, monkeypatch):
    from geobias.service import commands

    commands._CHECKED.clear()
    config = _config(tmp_path, max_permutations=1_000)
    body = {"lang": "fr", "vectors": "fr-spacy-md", "permutations": 5_000}
    for _ in range(2):
        with pytest.raises(commands.ParameterError, match="capped at 1,000"):
            commands.quick_params(config, "mweat", body)
    assert not commands._CHECKED._held
    # the same body under a service with a higher cap passes
    assert commands.quick_params(_config(tmp_path), "mweat", body)[1].permutations == 5_000


def test_the_held_bodies_are_bounded(tmp_path, monkeypatch):
    from geobias.service import commands

    commands._CHECKED.clear()
    config = _config(tmp_path)
    monkeypatch.setattr(commands._Checked, "SIZE", 4)
    for k in range(1, 10):
        commands.quick_params(config, "neighbors", {"lang": "fr", "word": "femme", "k": k})
    assert len(commands._CHECKED._held) == 4
    # a long body (a long word list) is checked, never held
    words = ",".join(f"mot{i}" for i in range(2_000))
    commands._CHECKED.clear()
    commands.quick_params(config, "mweat", {"lang": "fr", "targets_x": words, "targets_y": words, "permutations": 10})
    assert not commands._CHECKED._held
