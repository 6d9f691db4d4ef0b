"""The one result convention: frozen dataclasses that convert to JSON (STYLE.md §6)."""

from __future__ import annotations

import dataclasses
import json
import math
from typing import Any

import numpy as np


def jsonable(obj: Any) -> Any:
    """Convert dataclasses, numpy scalars/arrays, tuples and paths to JSON-able values.

    Non-finite floats become ``None`` (JSON has no NaN).
    """
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: jsonable(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return jsonable(obj.tolist())
    if isinstance(obj, (np.bool_, bool)):
        return bool(obj)
    if isinstance(obj, (np.integer, int)):
        return int(obj)
    if isinstance(obj, (np.floating, float)):
        f = float(obj)
        return f if math.isfinite(f) else None
    if obj is None or isinstance(obj, str):
        return obj
    return str(obj)


class Result:
    """Mixin for frozen result dataclasses: ``to_dict()`` and ``to_json()``."""

    def to_dict(self) -> dict[str, Any]:
        return jsonable(self)

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)
