"""`geobias.metrics` loads its other metric modules on first use, and every public name still resolves."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

PROBE = """
import json, sys, types
import geobias.metrics as m
before = sorted(x for x in sys.modules if x.startswith('geobias.metrics.'))
kinds = {name: type(getattr(m, name)).__name__ for name in m.__all__}
from geobias.metrics import check_metric, weat, mweat
rnd = m.rnd  # a metric module, imported on first use
names = [d.name for d in m.declared_metrics()]
print(json.dumps([before, kinds, isinstance(rnd, types.ModuleType), rnd.__name__, callable(weat) and callable(mweat),
                  check_metric.__module__, names]))
"""


def test_public_names_resolve_and_the_other_metrics_load_on_first_use():
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, cwd=REPO, timeout=300,
                         env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}, check=True)
    before, kinds, rnd_is_module, rnd_name, functions, check_module, names = json.loads(out.stdout)
    assert not {"geobias.metrics.ripa", "geobias.metrics.rnd", "geobias.metrics.seat",
                "geobias.metrics.checks"} & set(before)
    assert kinds["weat"] == kinds["mweat"] == kinds["check_metric"] == "function"  # not the modules of those names
    assert kinds["WeatResult"] == kinds["MweatResult"] == "type"
    assert rnd_is_module and rnd_name == "geobias.metrics.rnd" and functions
    assert check_module == "geobias.metrics.checks"
    assert names[:8] == ["weat", "mweat", "ripa", "rnd", "rnsb", "ect", "mac", "seat"]  # in-tree first, in order


def test_a_name_the_package_does_not_have_raises_attribute_error():
    import pytest

    import geobias.metrics

    with pytest.raises(AttributeError, match="no attribute 'no_such_metric'"):
        geobias.metrics.no_such_metric  # noqa: B018
