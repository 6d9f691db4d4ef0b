"""The erasure table: its helpers, its CLI front door, and a real-data reproduction."""

from __future__ import annotations

import numpy as np
import pytest
from _envelope import result_of

from geobias.cli import main
from geobias.evaluation.erasure import ERASURE_METHODS


def run(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    out, err = capsys.readouterr()
    return exc.value.code, out, err


def test_cli_errors_are_one_line(capsys):
    for argv, msg in (
        (["erasure", "--lang", "fr", "--seeds", "a,b"], "--seeds"),
        (["erasure", "--lang", "fr"], "--dictionary and --test-dictionary"),
        (["erasure", "--lang", "en", "--methods", "leace-keep-grammar"], "not available for English"),
        (["erasure", "--lang", "fr", "--dictionary", "x", "--test-dictionary", "y", "--methods", "nope"], "unknown method"),
    ):
        rc, out, err = run(argv, capsys)
        assert rc == (2 if msg == "--seeds" else 1) and out == ""  # a malformed option value: usage error
        assert err.startswith("geobias: error:") and msg in err and err.count("\n") == 1, err


def test_registry_names_are_table_methods():
    from geobias.mitigation import METHODS

    assert set(METHODS) | {"original"} <= set(ERASURE_METHODS)


def test_mitigate_leace_keep_grammar_writes_store_and_projection(installed, tmp_path, capsys):
    """The CLI hook on the real French vectors (first 4000 rows): the written projection is the
    frozen artefact and re-applies to the store it came from; d_g projections are kept."""
    from geobias.mitigation import ErasureProjection
    from geobias.store.formats import read_vectors

    fr = installed("fr-spacy-md")
    out = tmp_path / "out"
    rc, stdout, err = run(["mitigate", "--method", "leace-keep-grammar", "--lang", "fr", "--limit", "4000",
                           "--out", str(out), "--format", "npz", "--json"], capsys)
    assert rc == 0, err
    d = result_of(stdout)
    assert d["report"]["rank_removed"] == 1 and d["report"]["n_kept"] == 1
    p = ErasureProjection.load(d["files"]["projection"])
    unit = fr.head(4000).normalized()
    written = read_vectors(d["files"]["fr"])
    erased = p.apply(unit.vectors)
    np.testing.assert_allclose(erased @ p.kept.T, unit.vectors @ p.kept.T, atol=1e-6)
    assert written.words == unit.words
    np.testing.assert_allclose(written.vectors, erased, atol=1e-5)


@pytest.mark.slow
def test_real_erasure_table(installed, shared_data):
    """One seed on fr-spacy-md / en-w2v-gnews: keep-grammar keeps the frozen grammatical probe
    within 0.005 of the original; plain LEACE lowers held-out MWEAT; a retrained probe still
    reads the gender of held-out occupation forms after every eraser (their endings carry it)."""
    from geobias.alignment import read_dictionary
    from geobias.evaluation.erasure import erasure_table

    fr, en = installed("fr-spacy-md"), installed("en-w2v-gnews")
    d = shared_data / "muse" / "dictionaries"
    r = erasure_table(fr, en, read_dictionary(d / "fr-en.0-5000.txt"), read_dictionary(d / "fr-en.5000-6500.txt"),
                      methods=["original", "leace", "leace-keep-grammar"], seeds=[0], n_permutations=2000)
    t = {m: {k: v["mean"] for k, v in row.items()} for m, row in r.table.items()}
    assert abs(t["leace-keep-grammar"]["grammar_probe_frozen"] - t["original"]["grammar_probe_frozen"]) <= 0.005
    assert t["leace"]["mweat_statistic"] < 0.5 * t["original"]["mweat_statistic"]
    for m in ("leace", "leace-keep-grammar"):
        assert t[m]["semantic_probe_retrained_occupations"] >= 0.8
    # fr-spacy-md keeps 2 of 24 flowers and 4 of 24 insects: the control WEAT is not available, not p 0.267
    assert r.coverage["control_weat"]["not_available"].startswith("not available")
    assert {t[m]["control_weat_p_value"] for m in t} == {None}


def test_control_weat_is_not_available_where_its_sets_lost_too_much(rng):
    """The control WEAT obeys the lost-vocabulary rule of every metric (20% per set): on all its
    words it reports d and p; with 2 of 24 flowers and 4 of 24 insects (fr-spacy-md's coverage) it
    reports neither, and says why, since an exact p over 2 + 4 words cannot fall below 1/15."""
    from geobias import wordlists
    from geobias.evaluation.erasure import _control_weat_rows
    from geobias.store import VectorStore

    t = wordlists.weat_test("fr", "flowers-insects")
    words = list(dict.fromkeys([*t.X, *t.Y, *t.A, *t.B]))
    full = VectorStore(words, rng.standard_normal((len(words), 16)).astype(np.float32), lang="fr")
    rows, cov = _control_weat_rows(full, t, n_permutations=200, seed=0)
    assert -2 <= rows["control_weat_effect_size"] <= 2 and 0 < rows["control_weat_p_value"] <= 1
    assert (cov["n_x"], cov["n_y"]) == (len(set(t.X)), len(set(t.Y))) and "not_available" not in cov
    kept = [w for w in words if w not in t.X[2:] and w not in t.Y[4:]]
    sparse = VectorStore(kept, full[kept], lang="fr")
    rows, cov = _control_weat_rows(sparse, t, n_permutations=200, seed=0)
    assert rows == {"control_weat_effect_size": None, "control_weat_p_value": None}
    assert (cov["n_x"], cov["n_y"]) == (2, 4)
    assert cov["not_available"].startswith("not available: too few flowers/insects words in vocabulary (X keeps 2 "
                                           f"of {len(t.X)}, Y keeps 4 of {len(t.Y)}; the lost-vocabulary threshold is 20%")


def _english_store(rng, drop=()):
    """Every word the English table reads (WEAT sets, definitional pairs, attribute words, fit
    pool, occupations), random unit-free vectors, less ``drop``."""
    from geobias import wordlists
    from geobias.evaluation.erasure import ENGLISH_WEATS
    from geobias.mitigation._erasure import semantic_gender_words
    from geobias.store import VectorStore

    words = [w for p in wordlists.definitional_pairs("en") for w in p]
    words += [w for ws in wordlists.attribute_words("en") for w in ws]
    words += [w for ws in semantic_gender_words("en") for w in ws]
    words += [o.masculine for o in wordlists.occupations("en")] + [o.feminine for o in wordlists.occupations("en")]
    for t in ENGLISH_WEATS:
        s = wordlists.weat_test("en", t)
        words += [*s.X, *s.Y, *s.A, *s.B]
    words = list(dict.fromkeys(words))
    full = VectorStore(words, rng.standard_normal((len(words), 16)).astype(np.float32), lang="en")
    kept = [w for w in words if w not in set(drop)]
    return VectorStore(kept, full[kept], lang="en")


def test_english_weats_are_not_available_where_their_sets_lost_too_much(rng):
    """Every WEAT row of the English table obeys the lost-vocabulary rule of every metric (20% per
    set), as the French control does: with en-w2v-gnews's coverage (6 of 8 science words, 2 of 25
    flowers, 8 of 25 insects) science-arts and flowers-insects have no d and no p, and the
    coverage says which set kept how many; math-arts (7 of 8 math words, 12.5% lost) and
    career-family-terms still run. geobias printed d and p for all four before it applied the rule."""
    from io import StringIO

    from rich.console import Console

    from geobias import wordlists
    from geobias.evaluation.erasure import english_erasure_table
    from geobias.report.erasure import render_english

    kw = {"methods": ["original", "leace"], "seeds": [0], "n_permutations": 200, "n_pairs": 200}
    full = english_erasure_table(_english_store(rng), **kw)
    for t in ("career-family-terms", "math-arts", "science-arts", "flowers-insects"):
        assert full.table["original"][f"weat_{t}_p_value"]["mean"] is not None
        assert "not_available" not in full.coverage[f"weat_{t}"]
    sa, fi = wordlists.weat_test("en", "science-arts"), wordlists.weat_test("en", "flowers-insects")
    drop = ["equations", "Einstein", "NASA", "Shakespeare", *fi.X[2:], *fi.Y[8:]]
    r = english_erasure_table(_english_store(np.random.default_rng(0), drop), **kw)
    for m in ("original", "leace"):
        for t in ("science-arts", "flowers-insects"):
            assert r.table[m][f"weat_{t}_effect_size"]["values"] == [None]
            assert r.table[m][f"weat_{t}_p_value"]["values"] == [None]
        for t in ("career-family-terms", "math-arts"):
            assert r.table[m][f"weat_{t}_p_value"]["mean"] is not None
    assert r.coverage["weat_science-arts"]["not_available"] == (
        f"not available: too few science-arts words in vocabulary (X keeps 6 of {len(sa.X)}; the lost-vocabulary "
        "threshold is 20% per set)")
    assert r.coverage["weat_flowers-insects"]["not_available"].startswith(
        f"not available: too few flowers-insects words in vocabulary (X keeps 2 of {len(fi.X)}, Y keeps 8 of {len(fi.Y)}")
    assert "not_available" not in r.coverage["weat_math-arts"]
    out = StringIO()
    render_english(Console(file=out, width=400), r)
    lines = [ln for ln in out.getvalue().splitlines() if "not available" in ln]
    assert lines == [f"WEAT {t}: {r.coverage[f'weat_{t}']['not_available']}" for t in ("science-arts", "flowers-insects")]
