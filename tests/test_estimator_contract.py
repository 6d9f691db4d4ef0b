"""One contract, every estimator (scikit-learn's ``parametrize_with_checks`` idea, STYLE.md §1):
directions, the Procrustes aligner and each registered mitigation method.

A new estimator joins by one entry in :data:`ESTIMATORS` (mitigation methods join through
``geobias.mitigation.METHODS`` and ``_fit`` in tests/test_mitigation.py).
"""

from __future__ import annotations

import numpy as np
import pytest
from _synthetic_bilingual import make_pair
from sklearn.base import clone

from geobias.alignment import ProcrustesAligner
from geobias.directions import GrammaticalDirection, SemanticDirection
from geobias.errors import NotFittedError
from geobias.estimator import Estimator
from geobias.mitigation import METHODS, ErasureMitigation, HardDebias


@pytest.fixture(scope="module")
def pair():
    return make_pair()


def _semantic(pair):
    fr, _, _, lex, _, _ = pair
    return SemanticDirection(), (fr, lex.definitional_pairs), lambda est: est.direction_, None


def _grammatical(pair):
    fr, _, _, lex, _, _ = pair
    return (GrammaticalDirection(cv=3, random_state=3), (fr, lex.masculine_nouns, lex.feminine_nouns),
            lambda est: est.direction_, None)


def _procrustes(pair):
    fr, en, dico, *_ = pair
    return ProcrustesAligner(), (fr, en, dico), lambda est: est.transform(fr).vectors, fr


def _mitigation(name):
    def make(pair):
        fr, en, dico, fr_lex, en_lex, _ = pair
        cls = METHODS[name]
        if cls is HardDebias:
            return cls(lexicon=en_lex), (en,), lambda est: est.transform(en).vectors, en
        if issubclass(cls, ErasureMitigation):  # monolingual erasers
            return cls(lexicon=fr_lex), (fr,), lambda est: est.transform(fr).vectors, fr
        return (cls(lexicon=fr_lex, en_lexicon=en_lex), (fr, en, dico),
                lambda est: est.transform(fr).vectors, fr)
    return make


ESTIMATORS = {
    "semantic-direction": _semantic,
    "grammatical-direction": _grammatical,
    "procrustes": _procrustes,
    **{f"mitigation:{name}": _mitigation(name) for name in sorted(METHODS)},
}


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_estimator_contract(name, pair):
    est, fit_args, output, transform_input = ESTIMATORS[name](pair)
    assert isinstance(est, Estimator)
    # __init__ stores parameters only, under their own names
    assert not any(k.endswith("_") for k in vars(est)), "__init__ must only store parameters"
    assert set(vars(est)) == set(est.get_params())
    # using it before fit raises our NotFittedError (a GeobiasError: one CLI line)
    with pytest.raises(NotFittedError):
        output(est)
    if transform_input is not None:
        with pytest.raises(NotFittedError):
            est.transform(transform_input)
    # the inputs are never modified
    before = [a.vectors.copy() for a in fit_args if hasattr(a, "vectors")]
    # fit returns self and learns trailing-underscore attributes
    unfitted = clone(est)
    assert est.fit(*fit_args) is est
    assert any(k.endswith("_") for k in vars(est))
    for arr, a in zip(before, [a for a in fit_args if hasattr(a, "vectors")], strict=True):
        np.testing.assert_array_equal(a.vectors, arr)
    first = np.asarray(output(est))
    # clone: same parameters, nothing learned; refitting it gives the same output (same seed)
    assert unfitted.get_params() == est.get_params()
    assert not any(k.endswith("_") for k in vars(unfitted))
    np.testing.assert_array_equal(np.asarray(output(clone(est).fit(*fit_args))), first)
    # and repr names the class (scikit-learn's repr of non-default parameters)
    assert repr(est).startswith(type(est).__name__ + "(")
