"""One contract, every estimator (scikit-learn's ``parametrize_with_checks`` idea):
directions, the Procrustes aligner and each registered mitigation method.

A new estimator joins by one entry in :data:`ESTIMATORS` (mitigation methods join through
``geobias.mitigation.METHODS`` and ``_fit`` in tests/mitigation/test_mitigation.py).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from _synthetic_bilingual import make_pair
from sklearn.base import clone

from geobias.alignment import ProcrustesAligner
from geobias.directions import GrammaticalDirection, SemanticDirection
from geobias.errors import GeobiasError, NotFittedError
from geobias.estimator import Estimator
from geobias.mitigation import METHODS


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
        # the class attributes say what a method takes: no branching on its family
        store, lex = (en, en_lex) if cls.grammatical_gender == "never" else (fr, fr_lex)
        kw = {"en_lexicon": en_lex} if cls.needs_english != "never" else {}
        fit_kw = {"en": en, "dictionary": dico} if cls.needs_english != "never" else {}
        return cls(lexicon=lex, **kw), (store,), lambda est: est.transform(store).vectors, store, fit_kw
    return make


ESTIMATORS = {
    "semantic-direction": _semantic,
    "grammatical-direction": _grammatical,
    "procrustes": _procrustes,
    **{f"mitigation:{name}": _mitigation(name) for name in sorted(METHODS)},
}


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_estimator_contract(name, pair):
    est, fit_args, output, transform_input, *rest = ESTIMATORS[name](pair)
    fit_kw = rest[0] if rest else {}
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
    inputs = [a for a in (*fit_args, *fit_kw.values()) if hasattr(a, "vectors")]
    before = [a.vectors.copy() for a in inputs]
    # fit returns self and learns trailing-underscore attributes
    unfitted = clone(est)
    assert est.fit(*fit_args, **fit_kw) is est
    assert any(k.endswith("_") for k in vars(est))
    for arr, a in zip(before, inputs, strict=True):
        np.testing.assert_array_equal(a.vectors, arr)
    first = np.asarray(output(est))
    # clone: same parameters, nothing learned; refitting it gives the same output (same seed)
    assert unfitted.get_params() == est.get_params()
    assert not any(k.endswith("_") for k in vars(unfitted))
    np.testing.assert_array_equal(np.asarray(output(clone(est).fit(*fit_args, **fit_kw))), first)
    # and repr names the class (scikit-learn's repr of non-default parameters)
    assert repr(est).startswith(type(est).__name__ + "(")


@pytest.mark.parametrize("name", sorted(METHODS))
def test_mitigation_class_attributes_are_consistent(name, pair):
    """What a method declares it needs is what its fit does: the dispatcher and every table
    read these attributes instead of the method's family."""
    from typing import get_args

    from geobias.mitigation.base import Need

    cls = METHODS[name]
    assert cls.name == name
    for need in (cls.needs_english, cls.needs_dictionary, cls.grammatical_gender):
        assert need in get_args(Need)
    if cls.changes_english or cls.needs_dictionary == "required":
        assert cls.needs_english == "required"
    if cls.keeps_grammar and cls.needs_english == "never":
        assert cls.grammatical_gender == "required"
    fr, en, dico, fr_lex, en_lex, _ = pair
    store, lex = (en, en_lex) if cls.grammatical_gender == "never" else (fr, fr_lex)
    kw = {"en_lexicon": en_lex} if cls.needs_english != "never" else {}
    if cls.needs_english == "required":  # fit refuses to run without English
        with pytest.raises(GeobiasError):
            cls(lexicon=lex, **kw).fit(store)
    if cls.needs_english == "never":  # English and a dictionary are ignored, not required
        a = cls(lexicon=lex).fit(store).transform(store).vectors
        b = cls(lexicon=lex).fit(store, en=en, dictionary=dico).transform(store).vectors
        np.testing.assert_array_equal(a, b)
    est = cls(lexicon=lex, **kw)
    out, en_out = est.fit_transform_pair(store, **({"en": en, "dictionary": dico} if cls.needs_english != "never" else {}))
    assert out.vectors.shape == store.vectors.shape
    assert isinstance(est.dimensions_removed_, int) and 0 <= est.dimensions_removed_ <= store.dim
    assert est.report_.to_dict()  # what mitigation.json records
    if cls.changes_english:  # a debiased English side, not the input
        assert en_out is not None and en_out is not en and not np.array_equal(en_out.vectors, en.vectors)


@pytest.mark.parametrize("name", sorted(METHODS))
def test_mitigation_dispatch_attributes(name, pair, tmp_path):
    """What the dispatcher reads besides the needs: a method that aligns takes ``refine``, and
    ``save_artefacts`` writes files only under the directory it is given."""
    cls = METHODS[name]
    assert ("refine" in cls().get_params()) == (cls.needs_dictionary != "never")
    fr, en, dico, fr_lex, en_lex, _ = pair
    store, lex = (en, en_lex) if cls.grammatical_gender == "never" else (fr, fr_lex)
    kw = {"en_lexicon": en_lex} if cls.needs_english != "never" else {}
    est = cls(lexicon=lex, **kw).fit(store, **({"en": en, "dictionary": dico} if cls.needs_english != "never" else {}))
    files = est.save_artefacts(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(Path(f).name for f in files.values())
    assert all(Path(f).parent == tmp_path for f in files.values())


def test_the_tables_method_lists_are_registered():
    """The evaluation tables list registry names only; the erasure table lists all of them."""
    from geobias.evaluation import METHOD_KEYS
    from geobias.evaluation.erasure import (
        DEFAULT_METHODS,
        ENGLISH_METHODS,
        ERASURE_METHODS,
        ERASURE_ONLY,
        TABLE_VARIANTS,
    )

    assert list(METHOD_KEYS)[0] == "original"
    assert all(METHODS[k].needs_english != "never" for k in list(METHOD_KEYS)[1:])
    assert all(registered in METHODS for registered, _ in TABLE_VARIANTS.values())
    assert sorted(ERASURE_METHODS) == sorted(["original", *METHODS, *TABLE_VARIANTS])
    assert set(DEFAULT_METHODS) <= set(ERASURE_METHODS)
    assert set(ERASURE_ONLY) == set(METHODS) - set(METHOD_KEYS)
    assert set(ENGLISH_METHODS) - {"original"} <= {n for n, c in METHODS.items() if c.grammatical_gender != "required"}
