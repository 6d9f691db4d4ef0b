"""The one word query (geobias.query.WordQuery): what it resolves on a store, what it drops and names,
and when it refuses, as properties on small stores."""

from __future__ import annotations

import numpy as np
import pytest

from geobias.errors import InputError, OutOfVocabularyError
from geobias.query import LostVocabularyError, WordQuery
from geobias.store import VectorStore


@pytest.fixture
def store():
    rng = np.random.default_rng(7)
    words = [f"w{i}" for i in range(20)]
    return VectorStore(words, rng.standard_normal((20, 5)).astype(np.float32))


def test_rows_are_the_stores_rows_unit_or_raw_and_the_store_is_unchanged(store):
    before = np.array(store.vectors, copy=True)
    q = WordQuery(["w0", "w1"], ["w2", "w3"], ["w4", "w5"], ["w6", "w7"])
    unit = q.resolve(store)
    raw = q.resolve(store, similarity="dot")
    want = store.lookup(["w0", "w1"]).vectors.astype(np.float64)
    assert unit.x.dtype == np.float64 and np.allclose(raw.x, want)
    assert np.allclose(np.linalg.norm(unit.x, axis=1), 1.0, atol=1e-12)  # float64 rows: unit to rounding
    assert np.allclose(unit.x, want / np.linalg.norm(want, axis=1, keepdims=True))
    assert np.array_equal(store.vectors, before)


def test_raise_names_every_missing_word(store):
    q = WordQuery(["w0", "nope1"], ["w2", "w3"], ["w4", "nope2"], ["w6", "w7"])
    with pytest.raises(OutOfVocabularyError) as err:
        q.resolve(store)
    assert "nope1" in str(err.value) and "nope2" in str(err.value)


def test_ignore_lists_the_missing_words_and_keeps_the_rest_in_order(store):
    q = WordQuery(["w0", "w1", "w2", "w3", "w8", "nope"], ["w9", "w10", "w11", "w12", "w13", "w14"],
                  ["w4", "w5"], ["w6", "w7"])
    rows = q.resolve(store, oov="ignore")  # X lost 1 of 6 (17% < 20%)
    assert rows.missing == ["nope"] and rows.x_words == ["w0", "w1", "w2", "w3", "w8"] and len(rows.x) == 5


def test_a_set_that_lost_more_than_the_threshold_is_refused_and_1_turns_the_share_off(store):
    sets = (["w0", "w1", "w2", "nope"], ["w9", "w10", "w11", "w12"], ["w4", "w5"], ["w6", "w7"])
    with pytest.raises(LostVocabularyError):  # 1 of 4 = 25% > 20%
        WordQuery(*sets).resolve(store, oov="ignore")
    rows = WordQuery(*sets, lost_vocabulary_threshold=1.0).resolve(store, oov="ignore")
    assert rows.missing == ["nope"]


def test_a_paired_query_drops_a_pair_whole_and_names_it(store):
    q = WordQuery(["w0", "w1", "w2", "w3", "w8", "w9"], ["w10", "nope", "w12", "w13", "w14", "w15"],
                  ["w4", "w5"], ["w6", "w7"], paired=True)
    rows = q.resolve(store, oov="ignore")  # one pair of six lost (17%)
    assert rows.dropped_pairs == [("w1", "nope")] and rows.missing == ["nope"]
    assert rows.x_words == ["w0", "w2", "w3", "w8", "w9"] and rows.y_words == ["w10", "w12", "w13", "w14", "w15"]
    read_as_sets = q.resolve(store, oov="ignore", paired=False)
    assert read_as_sets.dropped_pairs == [] and "w1" in read_as_sets.x_words  # the english reading keeps w1


def test_bad_queries_are_one_clear_error():
    with pytest.raises(InputError, match="paired by position"):
        WordQuery(["a", "b"], ["c"], ["d"], ["e"], paired=True)
    with pytest.raises(InputError, match=r"share in \[0, 1\]"):
        WordQuery(["a"], ["c"], ["d"], ["e"], lost_vocabulary_threshold=1.5)
