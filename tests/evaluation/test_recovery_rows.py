"""Gonen & Goldberg's recovery tests as rows of ``evaluate`` and of the erasure table, on the real
French and English stores: the original space's rows equal the ``recoverability`` computation on
the same store and seed, each method gets its own, and the rows appear only when asked for."""

from __future__ import annotations

import pytest

from geobias.evaluation.recovery import RECOVERY_METRICS, recoverability_for

pytestmark = pytest.mark.slow  # evaluate and the erasure table on the real stores: about 2 minutes

SMALL = {"n_biased": 100, "n_classify": 300, "n_train": 200, "k": 20}


@pytest.fixture(scope="module")
def stores(installed, shared_data):
    from geobias.alignment import read_dictionary

    d = shared_data / "muse" / "dictionaries"
    return (installed("fr-spacy-md"), installed("en-w2v-gnews"), read_dictionary(d / "fr-en.0-5000.txt"),
            read_dictionary(d / "fr-en.5000-6500.txt"))


def _original(store, lang):
    r = recoverability_for(store.normalized(), {}, lang, seed=0, **SMALL).rows[0]
    return {"recover_cluster_accuracy": r.cluster_accuracy, "recover_classifier_accuracy": r.classifier_accuracy,
            "recover_neighbour_r": r.neighbour_correlation, "recover_profession_r": r.profession_correlation}


def test_evaluate_adds_recovery_rows(stores):
    from geobias.evaluation import evaluate

    fr, en, train, test = stores
    r = evaluate(fr, en, train, test, methods=["original", "shift-ori"], n_permutations=200, seed=0,
                 recoverability=True, recovery_options=SMALL)
    want = _original(fr, "fr")
    for key, value in want.items():
        assert r.table["original"][key] == pytest.approx(value, abs=1e-12), key
    shift = r.table["shift-ori"]
    assert set(RECOVERY_METRICS) <= set(shift)
    assert 0.5 <= shift["recover_cluster_accuracy"] <= 1 and 0 <= shift["recover_classifier_accuracy"] <= 1
    assert shift["recover_neighbour_r"] != r.table["original"]["recover_neighbour_r"]  # its own space
    plain = evaluate(fr, en, train, test, methods=["original"], n_permutations=200, seed=0)
    assert not set(RECOVERY_METRICS) & set(plain.table["original"])  # only when asked for


def test_erasure_table_adds_recovery_rows_per_seed(stores):
    from geobias.evaluation.erasure import erasure_table

    fr, en, train, test = stores
    r = erasure_table(fr, en, train, test, methods=["original", "leace"], seeds=[0], n_permutations=200,
                      recoverability=True, recovery_options=SMALL)
    want = _original(fr, "fr")
    for key, value in want.items():
        assert r.table["original"][key]["values"] == [pytest.approx(value, abs=1e-12)], key
    leace = {k: r.table["leace"][k]["values"][0] for k in RECOVERY_METRICS}
    # LEACE removes the linear gender signal along which the bias was measured: less is recoverable
    assert leace["recover_neighbour_r"] < want["recover_neighbour_r"]
