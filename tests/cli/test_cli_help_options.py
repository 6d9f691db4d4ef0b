"""Every command's ``--help`` options are unchanged or better than before the command line was
generated from the parameter models: each option name (long, short, alias) and argument of the
hand-written commands is still there, with the same default, or a default where there was none
(``None`` left the value to the model; the generated option shows the model's). New options are
allowed (a field the hand-written command left out, a short flag, ``--quiet``'s ``-q``).

The "before" is ``tests/cli/fixtures/help_options_before.json``, captured from main with
``tests/cli/_help_options.py`` before the change; a default changed on purpose since is changed there
too (``seat --permutations``: 10,000 → 100,000, sent-bias's ``n_samples``; ``vectors install``'s argument
``name`` became ``names`` and ``data install``'s ``part`` ``parts``: both take several)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from _help_options import snapshot  # noqa: E402

BEFORE = json.loads((Path(__file__).parent / "fixtures" / "help_options_before.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def now():
    return snapshot()


def _by_name(params: dict) -> dict[str, dict]:
    """``{option name or argument name: its entry}`` (the Python parameter's name may change)."""
    out = {}
    for pname, entry in params.items():
        for name in entry["names"] if entry["kind"] == "option" else [pname]:
            out[name] = entry
    return out


def test_every_command_is_still_there(now):
    assert set(BEFORE) <= set(now)
    assert len(BEFORE) == 38  # the fixture holds every command of main


@pytest.mark.parametrize("command", sorted(BEFORE))
def test_options_unchanged_or_better(now, command):
    before, after = _by_name(BEFORE[command]), _by_name(now[command])
    missing = sorted(set(before) - set(after))
    assert not missing, f"{command}: options gone: {missing}"
    for name, old in before.items():
        new = after[name]
        assert new["kind"] == old["kind"], (command, name)
        assert new["flag"] == old["flag"], (command, name)
        assert new["hidden"] == old["hidden"], (command, name)
        if old["default"] is not None:  # a default shown before is the same now
            assert new["default"] == old["default"], (command, name, old["default"], new["default"])
        assert not new["required"] or old["required"], f"{command}: {name} is required now"
