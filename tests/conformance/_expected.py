"""Helpers of the conformance tests: the stored inputs and the authors' outputs."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def load(name: str) -> dict:
    """``expected/<name>.json`` or ``data/<name>.json``."""
    for folder in ("expected", "data"):
        path = HERE / folder / f"{name}.json"
        if path.exists():
            return json.loads(path.read_text(encoding="utf-8"))
    raise FileNotFoundError(name)


def static_store():
    """The made-up word vectors of ``data/static_inputs.json`` as a store (float32 rows, as WEFE read them)."""
    from geobias.store import VectorStore

    data = load("static_inputs")
    return VectorStore(data["words"], np.asarray(data["rows"], dtype=np.float32), lang="en"), data["queries"]
