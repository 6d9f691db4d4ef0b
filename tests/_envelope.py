"""Reading the CLI's ``--json`` output: the one envelope every command prints."""

from __future__ import annotations

import json
from typing import Any


def envelope_of(text: str) -> dict[str, Any]:
    """Parse ``--json`` stdout and check the envelope's keys."""
    data = json.loads(text)
    assert set(data) == {"command", "geobias_version", "inputs", "result"}, sorted(data)
    assert isinstance(data["inputs"].get("options"), dict)
    return data


def result_of(text: str) -> Any:
    """The ``result`` part of a ``--json`` envelope."""
    return envelope_of(text)["result"]


def viewed(text: str, tmp_path) -> str:
    """The web app's view of a job whose stored envelope is the ``--json`` output ``text``: the result
    rebuilt from its JSON and drawn (tables and plots) by :func:`geobias.service.pages.result_view`,
    as the service shows a finished job. A result that does not rebuild, or a renderer that fails on
    the rebuilt one, raises here (a 500 in the service)."""
    from geobias.service.pages import result_view

    envelope = envelope_of(text)
    job = {"id": "j1", "state": "done", "kind": envelope["command"], "params": {}, "artifacts": [], "result": envelope}
    html = result_view(job, tmp_path)
    assert "<h2>Tables</h2>" in html, envelope["command"]
    return html
