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
