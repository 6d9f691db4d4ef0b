"""A small audit grid on synthetic stores (shared by tests/engine/test_engine.py and test_engine_ray.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from geobias import wordlists
from geobias.store import VectorStore, save_store

TESTS = ["mweat", "weat:career-family", "weat:no-such-test"]


def grid_words(lang: str = "en") -> list[str]:
    sets = wordlists.weat_test(lang, "career-family")
    male, female = wordlists.attribute_words(lang)
    occ = [w for o in wordlists.occupations(lang) for w in (o.masculine, o.feminine)]
    return list(dict.fromkeys([*sets.X, *sets.Y, *sets.A, *sets.B, *male, *female, *occ]))


def write_grid(tmp: Path, permutations: int = 500) -> Path:
    """Two random stores (seeds 0 and 1), one missing store, three tests, English; the config."""
    words = grid_words("en")
    for seed in (0, 1):
        vecs = np.random.default_rng(seed).standard_normal((len(words), 12)).astype(np.float32)
        save_store(VectorStore(words, vecs, lang="en", provenance={"source": f"synthetic seed {seed}"}),
                   tmp / f"store{seed}")
    config = tmp / "audit.toml"
    config.write_text(
        'stores = ["./store0", "./store1", "./missing"]\n'
        'languages = ["en"]\n'
        f"tests = {TESTS!r}\n".replace("'", '"')
        + f"[options]\npermutations = {permutations}\nseed = 3\n",
        encoding="utf-8",
    )
    return config
