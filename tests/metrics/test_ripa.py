"""RIPA (Ethayarajh et al. 2019): the definition on a hand-computed store, and the command that
reaches the CLI, the service and Python through the command layer alone."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from geobias.commands import execute, validate
from geobias.errors import InputError
from geobias.metrics.ripa import relation_vector, ripa
from geobias.query import LostVocabularyError, WordQuery
from geobias.store import VectorStore, save_store

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def store():
    # he/she differ along axis 0 only; king/queen along axis 0 and a little along axis 2
    words = ["he", "she", "king", "queen", "nurse", "engineer", "table"]
    vectors = np.array([[1.0, 0.2, 0.0], [-1.0, 0.2, 0.0], [2.0, 1.0, 0.5], [-2.0, 1.0, -0.5],
                        [-0.5, 1.0, 0.0], [0.7, 0.5, 0.1], [0.0, 0.0, 3.0]])
    return VectorStore(words, vectors, lang="en")


def test_one_pair_is_the_normalised_difference(store):
    b, share, missing = relation_vector(store, [("he", "she")])
    np.testing.assert_allclose(b, [1.0, 0.0, 0.0], atol=1e-12)  # (x − y)/‖x − y‖
    assert share == pytest.approx(1.0) and missing == []
    r = ripa(store, WordQuery.with_pairs(["nurse", "engineer", "table"], [("he", "she")]))
    assert r.ripa == pytest.approx([-0.5, 0.7, 0.0])  # ⟨w, b⟩ on the raw vectors
    assert r.mean == pytest.approx(0.2 / 3) and r.mean_abs == pytest.approx(1.2 / 3)


def test_several_pairs_use_the_first_principal_component(store):
    pairs = [("he", "she"), ("king", "queen")]
    b, share, _ = relation_vector(store, pairs)
    diff = np.array([[2.0, 0.0, 0.0], [4.0, 0.0, 1.0]])
    _, s, vt = np.linalg.svd(diff)  # the uncentred first component, oriented like the mean difference
    expected = vt[0] if diff.mean(0) @ vt[0] > 0 else -vt[0]
    np.testing.assert_allclose(b, expected, atol=1e-12)
    assert share == pytest.approx(s[0] ** 2 / np.sum(s ** 2))
    assert np.linalg.norm(b) == pytest.approx(1.0) and b[0] > 0


def test_swapping_the_pairs_flips_the_sign(store):
    a = ripa(store, WordQuery.with_pairs(["nurse", "engineer"], [("he", "she")]))
    b = ripa(store, WordQuery.with_pairs(["nurse", "engineer"], [("she", "he")]))
    assert b.ripa == pytest.approx([-v for v in a.ripa])


def test_missing_words_are_listed_never_dropped_silently(store):
    with pytest.raises(LostVocabularyError, match="50% of the targets .* and 50% of the pairs"):
        ripa(store, WordQuery.with_pairs(["nurse", "zzz"], [("he", "she"), ("boy", "girl")]))  # WEFE's 20% rule
    anything = {"lost_vocabulary_threshold": 1}
    r = ripa(store, WordQuery.with_pairs(["nurse", "zzz"], [("he", "she"), ("boy", "girl")], **anything))
    assert r.words == ["nurse"] and r.missing == ["zzz", "boy", "girl"] and r.n_pairs == 1
    with pytest.raises(InputError, match="100% of the pairs"):
        ripa(store, WordQuery.with_pairs(["nurse"], [("boy", "girl")], **anything))
    with pytest.raises(InputError, match="100% of the targets"):
        ripa(store, WordQuery.with_pairs(["zzz"], [("he", "she")], **anything))


def test_unit_option_normalises_the_targets(store):
    r = ripa(store, WordQuery.with_pairs(["table", "king"], [("he", "she")]), unit=True)
    assert r.ripa == pytest.approx([0.0, 2.0 / np.sqrt(4 + 1 + 0.25)]) and r.unit


def test_the_command_on_every_front_door(store, tmp_path):
    (tmp_path / "vectors").mkdir()
    save_store(store, tmp_path / "vectors" / "tiny-en")
    from geobias.sources import use_opener

    with use_opener(lambda lang, name, option: store):
        result, env = execute("ripa", {"lang": "en", "targets": ["nurse", "engineer"], "pairs": [["he", "she"]]})
    assert result.ripa == pytest.approx([-0.5, 0.7]) and env["command"] == "ripa"
    with pytest.raises(InputError, match="each pair"):
        validate("ripa", {"pairs": [["he"]]})
    # the CLI's `geobias ripa` exists without a hand-written command, with options from the model
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("he\tshe\n", encoding="utf-8")
    env_vars = dict(os.environ, GEOBIAS_VECTORS_DIR=str(tmp_path / "vectors"))
    out = subprocess.run([sys.executable, str(REPO / "cli.py"), "ripa", "--vectors", "tiny-en", "--targets",
                          "nurse,engineer", "--pairs", str(pairs), "--json"], capture_output=True, text=True,
                         env=env_vars)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["result"]["ripa"] == pytest.approx([-0.5, 0.7])
    help_text = subprocess.run([sys.executable, str(REPO / "cli.py"), "ripa", "--help"], capture_output=True,
                               text=True, env=env_vars).stdout
    assert "--targets" in help_text and "--pairs" in help_text and "--unit" in help_text
    bad = subprocess.run([sys.executable, str(REPO / "cli.py"), "ripa", "--vectors", "tiny-en", "--targets", "zzz",
                          "--pairs", str(pairs)], capture_output=True, text=True, env=env_vars)
    assert bad.returncode == 1 and bad.stderr.count("\n") == 1 and "100% of the targets (1 of 1 words)" in bad.stderr


# -- the gender-aware variant ----------------------------------------------------------------------


def test_grammatical_ripa_cancels_agreement_and_keeps_the_semantic_lean():
    """Two forms that differ only along the grammatical axis (0) score the same as their mean on
    b: the agreement cancels; what is left is each word's lean along b (axis 1)."""
    from geobias.metrics.ripa import ripa_grammatical

    words = ["infirmier", "infirmière", "ingénieur", "ingénieure", "journaliste"]
    vectors = np.array([[2.0, -0.4, 1.0], [-2.0, -0.4, 1.0], [1.5, 0.6, 0.0], [-1.5, 0.6, 0.0], [0.3, 0.1, 2.0]])
    store = VectorStore(words, vectors, lang="fr")
    b = np.array([0.0, 2.0, 0.0])  # normalised inside
    r = ripa_grammatical(store, ["infirmier", "ingénieur", "journaliste", "absent"],
                         ["infirmière", "ingénieure", "journaliste", "absente"], b)
    assert r.words == ["infirmier/infirmière", "ingénieur/ingénieure", "journaliste"]
    assert r.ripa == pytest.approx([-0.4, 0.6, 0.1])
    assert r.variant == "grammatical" and r.relation == "d_s" and r.n_pairs == 2
    assert r.missing == ["absent", "absente"]
    # the English-style score of each form on a pair difference that carries grammar: by gender of the form
    eng = ripa(store, WordQuery.with_pairs(["infirmier", "infirmière"], [("infirmier", "infirmière")],
                                           lost_vocabulary_threshold=1))
    assert eng.ripa[0] > 0 > eng.ripa[1]
    with pytest.raises(InputError, match="pair by position"):
        ripa_grammatical(store, ["infirmier"], [], b)
    with pytest.raises(InputError, match="both its forms"):
        ripa_grammatical(store, ["absent"], ["absente"], b)


def test_french_ripa_defaults_to_the_gender_aware_variant_and_warns_for_the_english_one():
    sys.path.insert(0, str(REPO / "tests"))
    from _server import small_french_store

    from geobias.sources import use_opener

    fr = small_french_store()
    with use_opener(lambda lang, name, option: fr):
        r, _ = execute("ripa", {"lang": "fr"})
        e, _ = execute("ripa", {"lang": "fr", "variant": "english"})
    assert r.variant == "grammatical" and r.warning is None and all("/" in w for w in r.words)
    # the English-style variant scores every form by its grammatical gender: the warning says so
    assert e.variant == "english" and "grammatical gender" in e.warning
    with use_opener(lambda lang, name, option: fr), pytest.raises(InputError, match="variant english"):
        execute("ripa", {"lang": "fr", "variant": "grammatical", "pairs": [["il", "elle"]]})
    with pytest.raises(InputError, match="no.*grammatical gender|has none"):
        execute("ripa", {"lang": "en", "variant": "grammatical", "vectors": "nope"})
