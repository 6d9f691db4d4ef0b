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
