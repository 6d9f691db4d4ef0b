"""The expanded bootstrap level's table (geobias/stats/_expanded_levels.py) is the formula, bit for bit."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from geobias.stats._expanded_levels import LEVELS_95
from geobias.stats.bootstrap import _expanded_level, expanded_confidence

REPO = Path(__file__).resolve().parents[2]


def test_the_table_is_the_formula_for_every_n():
    assert sorted(LEVELS_95) == list(range(3, 257))
    for n, level in LEVELS_95.items():
        assert level == _expanded_level(0.95, n)
        assert expanded_confidence(0.95, n) == level


@pytest.mark.parametrize("confidence, n", [(0.95, 257), (0.95, 10_000), (0.9, 22), (0.99, 10)])
def test_outside_the_table_the_level_is_computed(confidence, n):
    level = expanded_confidence(confidence, n)
    assert level == _expanded_level(confidence, n) and confidence < level < 1


def test_the_generator_finds_the_committed_table_up_to_date():
    out = subprocess.run([sys.executable, "scripts/expanded_levels.py", "--check"], cwd=REPO, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
