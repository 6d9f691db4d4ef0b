"""Regression pins for the numbers README quotes (issue 8): a change to any of them must be a
deliberate, reviewed change of this file and of README together.

Real-store tests (skip when the stores are absent); the 10^6-permutation and `evaluate` pins are
``slow``. Values are pinned to the digits README prints.
"""

from __future__ import annotations

import pytest
from _envelope import result_of
from typer.testing import CliRunner

from geobias.cli import app


def _run(*args):
    out = CliRunner().invoke(app, list(args))
    assert out.exit_code == 0, out.output
    return result_of(out.stdout)


@pytest.fixture(scope="module")
def fr(installed):
    return installed("fr-spacy-md")


def test_make_demo_mweat_headline(fr):
    """`make demo` = `geobias mweat --lang fr` (100,000 permutations, seed 0)."""
    r = _run("mweat", "--lang", "fr", "--json")
    assert (r["n_pairs"], r["n_a"], r["n_b"]) == (27, 11, 11)
    assert round(r["statistic"], 4) == 2.0959
    assert round(r["p_value"], 4) == 0.0259
    assert [round(v, 4) for v in r["p_value_ci"]] == [0.0249, 0.0269]
    assert r["n_permutations"] == 100_000 and r["seed"] == 0
    # the companion statistic (ours) and the two sums behind the ceiling
    assert round(r["sum_masculine"], 2) == 2.19 and round(r["sum_feminine"], 2) == -4.29
    assert round(r["difference"], 4) == 6.4807 and round(r["effect_size"], 3) == 1.892


@pytest.mark.slow
def test_directions_headline(fr):
    r = _run("directions", "--lang", "fr", "--json")
    assert round(r["lda_cv_accuracy"], 3) == 0.988
    assert round(r["cos_pca_grammatical"], 3) == 0.364


@pytest.mark.slow
def test_mweat_headline_from_a_million_permutations(fr):
    """The p-value README quotes as the headline: 10^6 permutations, seed 0."""
    from geobias import wordlists
    from geobias.metrics import mweat

    male, female = wordlists.attribute_words("fr")
    r = mweat(fr, wordlists.occupations("fr"), male, female, n_permutations=1_000_000, seed=0, oov="ignore")
    assert round(r.p_value, 4) == 0.0240
    assert [round(v, 4) for v in r.p_value_ci] == [0.0237, 0.0243]
    assert r.difference_p_value == pytest.approx(1 / (1 + 1_000_000))  # no re-partition reaches it
