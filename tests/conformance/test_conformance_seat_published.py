"""SEAT on May et al.'s six gender test files (sent-weat6 ... 8b) with the multilingual Universal
Sentence Encoder (use-m3) equals sent-bias's ``weat.py`` on the same sentence vectors.

The published files are CC BY-NC 4.0 and are not in this repository: the stored inputs are the
use-m3 vectors of their distinct sentences (int8 with a float32 scale per vector; each set a list
of row numbers; no sentence), written with ``weat.py``'s effect sizes and p-values on exactly those
vectors by ``scripts/conformance/seat_published.py --encoder use-m3 --store-vectors``. Their p-value
is ``p_val_permutation_test`` on the 100,000 partitions geobias draws for seed 0 (their counting
on our draws), so the two agree to rounding, not only to the Monte-Carlo error.
"""

from __future__ import annotations

import numpy as np
import pytest
from _expected import HERE, load

EXPECTED = load("sentbias_may_use_m3")
OUTPUTS = EXPECTED["outputs"]


@pytest.fixture(scope="module")
def vectors():
    data = np.load(HERE / "data" / "seat_may_use_m3.npz")
    rows = data["q"].astype(np.float32) * data["scale"][:, None]
    return {name: [rows[data[f"{name}/{s}"]] for s in "XYAB"] for name in OUTPUTS}


def test_the_stored_inputs_are_the_published_files_shapes(vectors):
    """Sizes of May et al.'s sets (targ1, targ2, attr1, attr2), 512-dimensional use-m3 vectors."""
    sizes = {name: tuple(len(v) for v in sets) for name, sets in vectors.items()}
    assert sizes == {"sent-weat6": (64, 64, 101, 112), "sent-weat6b": (80, 80, 101, 112),
                     "sent-weat7": (72, 72, 80, 80), "sent-weat7b": (72, 72, 64, 64),
                     "sent-weat8": (56, 56, 80, 80), "sent-weat8b": (56, 56, 64, 64)}
    assert {v.shape[1] for sets in vectors.values() for v in sets} == {512}
    assert EXPECTED["provenance"]["repository"] == "github:W4ngatang/sent-bias"


@pytest.mark.parametrize("name", sorted(OUTPUTS))
def test_seat_on_the_published_files_equals_sent_bias_on_use_m3(name, vectors):
    from geobias.metrics.seat import SeatTestFile, seat_sentences

    sets = vectors[name]
    ids = tuple([f"{s}{i}" for i in range(len(v))] for s, v in zip("XYAB", sets, strict=True))
    lookup = {k: row for group, v in zip(ids, sets, strict=True) for k, row in zip(group, v, strict=True)}
    want = OUTPUTS[name]
    test = SeatTestFile(name=name, source=f"{name}.jsonl", categories=want["categories"], sets=ids)

    def encode(sentences):
        return np.stack([lookup[s] for s in sentences])

    r = seat_sentences(encode, test, encoder_name="use-m3", n_permutations=want["n_permutations"],
                       seed=want["seed"])
    assert not r.exact and r.n_permutations == 100_000
    # 1e-5: the tolerance; float32 cosines (ours) against float64 (theirs) differ by ~1e-7
    assert r.effect_size == pytest.approx(want["effect_size"], abs=1e-5)
    # the same 100,000 partitions, counted as weat.py counts them: equal up to float rounding
    assert r.p_value == pytest.approx(want["p_value"], abs=1e-12)
    assert r.categories == want["categories"]


def test_the_p_values_are_not_all_at_the_floor():
    """The p-value check has teeth: some tests sit above 1 / 100,001, where a wrong draw would show."""
    assert sum(o["p_value"] > 1e-4 for o in OUTPUTS.values()) >= 2
