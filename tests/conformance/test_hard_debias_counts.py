"""The counts the hard-debias page states about Bolukbasi et al.'s equalise pairs on en-w2v-gnews
(``scripts/readme_figures.py`` quotes them): 50 equalisations over 45 distinct pairs."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_equalised_pairs_on_gnews(installed):
    from geobias.mitigation import HardDebias
    from geobias.mitigation.lexicon import GenderLexicon

    store = installed("en-w2v-gnews")
    hd = HardDebias(lexicon=GenderLexicon.bolukbasi(), protect="paper").fit(store)
    spec = importlib.util.spec_from_file_location("readme_figures", ROOT / "scripts" / "readme_figures.py")
    figures = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("readme_figures", figures)
    spec.loader.exec_module(figures)
    assert len(hd.equalize_pairs_) == 50
    assert len({(a.lower(), b.lower()) for a, b in hd.equalize_pairs_}) == figures.EQUALISED_DISTINCT == 45
