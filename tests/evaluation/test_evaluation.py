"""Evaluation: similarity, word-pair analogy, correlation, the six-method table (synthetic and real)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from _envelope import result_of
from _synthetic_bilingual import make_pair

from geobias.alignment import Dictionary, ProcrustesAligner
from geobias.errors import InputError
from geobias.evaluation import (
    METHOD_KEYS,
    correlate,
    evaluate,
    read_similarity_file,
    word_pair_translation,
    word_similarity,
)
from geobias.query import REPORT_LOST, WordQuery
from geobias.store import VectorStore

ISSUE_METRICS = {"mweat_statistic", "mweat_p_value", "similarity_pearson", "similarity_spearman",
                 "p_at_1_csls_src_tgt", "p_at_1_csls_tgt_src", "p_at_5_csls_src_tgt", "p_at_1_nn_src_tgt",
                 "mrr_feminine", "mrr_masculine", "mrr_difference", "asd"}


def test_word_similarity_matches_scipy(tmp_path, rng):
    words = [f"w{i}" for i in range(8)]
    store = VectorStore(words, rng.standard_normal((8, 5)))
    f = tmp_path / "sim.txt"
    lines = [f"w{i}\t\tw{j}\t{(i * 7 + j * 3) % 10}" for i in range(4) for j in range(4, 8)]
    f.write_text("\n".join(lines + ["w1 nope 3.0"]) + "\n", encoding="utf-8")
    res = word_similarity(store, f)
    assert res.n_pairs == 17 and res.n_covered == 16 and res.missing == ["nope"]
    from scipy import stats

    cos = [store.similarity(f"w{i}", f"w{j}") for i in range(4) for j in range(4, 8)]
    gold = [(i * 7 + j * 3) % 10 for i in range(4) for j in range(4, 8)]
    assert res.spearman == pytest.approx(stats.spearmanr(cos, gold)[0], abs=1e-6)
    assert res.pearson == pytest.approx(stats.pearsonr(cos, gold)[0], abs=1e-6)
    bad = tmp_path / "bad.txt"
    bad.write_text("a b c\n", encoding="utf-8")
    with pytest.raises(InputError, match="line 1"):
        read_similarity_file(bad)


def test_word_pair_translation_ranks_by_hand():
    """§4.3: q = E_o − E_i + S_i, S_i itself excluded from the candidates, the answer agrees in
    gender with S_i. E_o and E_i coincide here, so q = S_i: without the exclusion S_i would win."""
    e = np.eye(6)
    en = VectorStore(["pretty", "nurse"], [e[0], e[0]], lang="en")
    src = VectorStore(["jolie", "joli", "infirmière", "infirmier", "homme", "chose"],
                      [e[1], e[2], e[1] + 0.1 * e[3], e[2] + e[3], e[2] + 0.5 * e[3], e[4]], lang="fr")
    res = word_pair_translation(src, en, [("infirmière", "infirmier", "nurse")], [("jolie", "joli", "pretty")])
    assert res.mrr_feminine == 1.0  # infirmière first once jolie is excluded
    assert res.mrr_masculine == 0.5  # homme is closer to q = joli than infirmier
    assert res.mrr_difference == -0.5
    assert res.n_words == 1 and res.n_queries == 1
    cos_ff = 1 / np.sqrt(1.01)  # cos(q_f, infirmière); cos(q_f, infirmier) = 0
    cos_mm = 1 / np.sqrt(2)  # cos(q_m, infirmier); cos(q_m, infirmière) = 0
    assert res.asd == pytest.approx((cos_ff + cos_mm) / 2, abs=1e-7)
    with pytest.raises(InputError, match="occupation"):
        word_pair_translation(src, en, [("x", "y", "nurse")], [("jolie", "joli", "pretty")])
    with pytest.raises(InputError, match="adjective"):
        word_pair_translation(src, en, [("infirmière", "infirmier", "nurse")], [("x", "y", "pretty")])


def test_word_pair_translation_matches_a_brute_force_loop(rng):
    dim, n = 8, 40
    src = VectorStore([f"s{i}" for i in range(n)], rng.standard_normal((n, dim)), lang="fr")
    en = VectorStore([f"e{i}" for i in range(6)], rng.standard_normal((6, dim)), lang="en")
    occ = [("s0", "s1", "e0"), ("s2", "s3", "e1"), ("s4", "s5", "e2")]
    adj = [("s6", "s7", "e3"), ("s8", "s9", "e4"), ("s10", "s11", "e5")]
    res = word_pair_translation(src, en, occ, adj)
    su = src.vectors / np.linalg.norm(src.vectors, axis=1, keepdims=True)
    eu = en.vectors / np.linalg.norm(en.vectors, axis=1, keepdims=True)
    rr = {0: [], 1: []}
    asd = []
    for o in occ:
        for a in adj:
            for g in (0, 1):
                q = eu[int(o[2][1:])] - eu[int(a[2][1:])] + su[int(a[g][1:])]
                q = q / np.linalg.norm(q)
                cos = su @ q
                asd.append(abs(cos[int(o[0][1:])] - cos[int(o[1][1:])]))
                target = cos[int(o[g][1:])]
                better = [j for j in range(n) if j != int(a[g][1:]) and cos[j] > target]
                rr[g].append(1 / (1 + len(better)))
    assert res.mrr_feminine == pytest.approx(np.mean(rr[0]), abs=1e-9)
    assert res.mrr_masculine == pytest.approx(np.mean(rr[1]), abs=1e-9)
    assert res.asd == pytest.approx(np.mean(asd), abs=1e-6)
    assert res.n_queries == 9


def test_word_pair_translation_ranks_are_float64_ranks_on_near_ties():
    """Words within float32 rounding of the target's score (near-copies of the occupation forms)
    are ranked by their float64 scores, as the float64 brute force ranks them — where a float32
    ranking would differ."""
    rng = np.random.default_rng(11)
    dim = 16
    base = rng.standard_normal((12, dim))
    near = np.repeat(base[:4], 6, axis=0) * (1 + 3e-7 * rng.standard_normal((24, 1)))
    near += 3e-7 * rng.standard_normal(near.shape)
    vec = np.concatenate([base, near])
    src = VectorStore([f"s{i}" for i in range(len(vec))], vec, lang="fr")
    en = VectorStore([f"e{i}" for i in range(4)], rng.standard_normal((4, dim)), lang="en")
    occ = [("s0", "s1", "e0"), ("s2", "s3", "e1")]
    adj = [("s4", "s5", "e2"), ("s6", "s7", "e3")]
    res = word_pair_translation(src, en, occ, adj)
    su = src.unit_vectors.astype(np.float64)
    eu = en.unit_vectors.astype(np.float64)
    rr64, rr32 = {0: [], 1: []}, {0: [], 1: []}
    for o in occ:
        for a in adj:
            for g in (0, 1):
                q = eu[int(o[2][1:])] - eu[int(a[2][1:])] + su[int(a[g][1:])]
                q = q / np.linalg.norm(q)
                for rr, cos in ((rr64, su @ q), (rr32, src.unit_vectors @ q.astype(np.float32))):
                    cos[int(a[g][1:])] = -np.inf
                    rr[g].append(1 / (1 + np.sum(cos > cos[int(o[g][1:])])))
    assert rr32 != rr64  # the float32 ranking differs here: a real test of the re-scoring
    assert res.mrr_feminine == np.mean(rr64[0]) and res.mrr_masculine == np.mean(rr64[1])


def test_correlate_synthetic():
    fr, en, dico, fr_lex, en_lex, _ = make_pair()
    aligned = ProcrustesAligner().fit(fr, en, dico).transform(fr)
    male = [m for _, m in fr_lex.definitional_pairs]
    female = [f for f, _ in fr_lex.definitional_pairs]
    res = correlate(aligned, en, fr_lex.two_form, (male, female),
                    ([m for _, m in en_lex.definitional_pairs], [f for f, _ in en_lex.definitional_pairs]))
    assert res.n_occupations == len(fr_lex.two_form)
    assert -1 <= res.spearman <= 1 and 0 <= res.p_value <= 1
    assert len(res.per_occupation) == res.n_occupations


def test_evaluate_synthetic_table():
    fr, en, dico, fr_lex, en_lex, _ = make_pair()
    test = Dictionary(dico.pairs[::3], "test")
    res = evaluate(fr, en, dico, test, test_dictionary_en=Dictionary([(e, f) for f, e in test.pairs], "en-fr"),
                   lexicon=fr_lex, en_lexicon=en_lex, n_permutations=2000, adjectives=fr_lex.two_form[:3])
    data = json.loads(res.to_json())
    assert set(data) == {"lang", "table", "coverage", "settings", "details"}  # no timings: they vary
    table = data["table"]
    assert list(table) == list(METHOD_KEYS)
    for key in METHOD_KEYS:
        assert ISSUE_METRICS <= set(table[key])
    assert table["original"]["p_at_1_nn_src_tgt"] > 0.9  # near-exact rotation + small noise
    # Table 1 is monolingual: De-Align only rotates the French side, so MWEAT cannot change
    orig, dea = table["original"], table["de-align"]
    assert dea["mweat_statistic"] == pytest.approx(orig["mweat_statistic"], abs=1e-6)
    assert dea["mweat_p_value"] == orig["mweat_p_value"]
    assert dea["inanimate_bias_mean"] == pytest.approx(orig["inanimate_bias_mean"], abs=1e-6)
    # Shift lowers the statistic (monolingually the planted grammatical component of the
    # attribute words remains, so it does not vanish); the cross-lingual variant (ours) drops more
    for key in ("shift-ori", "hybrid-ori", "hybrid-en"):
        assert table[key]["mweat_statistic"] < 0.7 * orig["mweat_statistic"]
    assert table["shift-ori"]["mweat_crosslingual"] < 0.5 * orig["mweat_crosslingual"]
    assert table["shift-ori"]["inanimate_bias_mean"] < orig["inanimate_bias_mean"]  # eq. 2
    assert table["shift-ori"]["n_neutralized"] == 400 and orig["n_neutralized"] is None
    assert isinstance(table["shift-ori"]["n_neutralized"], int)
    assert table["shift-ori"]["n_pairs_shifted"] == len(fr_lex.two_form) and orig["n_pairs_shifted"] is None
    assert {table[k]["n_word_pair_queries"] for k in METHOD_KEYS} == {len(fr_lex.two_form) * 3}
    assert {table[k]["n_translation_queries_src_tgt"] for k in METHOD_KEYS} == {
        res.coverage["translation_src_tgt"]["queries"]}
    assert orig["similarity_pearson"] is None  # no similarity file given
    assert res.coverage["analogy"]["queries_per_gender"] == len(fr_lex.two_form) * 3
    proj = res.details["shift-ori"]["projections"]
    assert len(proj["before"]) == len(fr_lex.two_form)
    assert max(abs(f + m) for f, m in proj["after"]) < 1e-5  # eq. 4: symmetric about the origin


def test_evaluate_result_round_trips_and_renders_its_six_columns():
    """A stored evaluate result (the job's JSON) rebuilds the result and renders Tables 1-2
    with the six methods in the paper's order, not a key/value dump."""
    from rich.console import Console

    from geobias.evaluation.bilingual import EvaluationResult
    from geobias.report.draw import render_table

    fr, en, dico, fr_lex, en_lex, _ = make_pair()
    res = evaluate(fr, en, dico, Dictionary(dico.pairs[::3], "test"), lexicon=fr_lex, en_lexicon=en_lex,
                   n_permutations=200, adjectives=fr_lex.two_form[:3])
    data = json.loads(res.to_json())
    data["table"] = dict(sorted(data["table"].items()))  # a store that sorted its keys
    back = EvaluationResult.from_dict(data)
    assert back.table == json.loads(res.to_json())["table"] and back.details == data["details"]
    console = Console(width=160, record=True)
    render_table(console, back, lang="fr", permutations=200, seed=0, top=15)
    text = console.export_text()
    header = text[text.index("metric"):text.index("MWEAT statistic")]
    assert [w for w in header.split() if w in ("Original", "Ori", "EN", "Align")] == [
        "Original", "Ori", "EN", "Align", "Ori", "EN"]
    assert "Two-form pairs shifted" in text and "Word-pair queries per gender" in text


def test_en_to_src_rows_read_the_en_test_dictionary_or_say_they_reverse_the_other():
    """Zhou et al.'s EN→X rows need an en→X test dictionary; without one the rows are the X→en test
    pairs reversed, under their own keys (``*_tgt_src_reversed``) and settings, never the paper's."""
    fr, en, dico, fr_lex, en_lex, _ = make_pair()
    test = Dictionary(dico.pairs[::3], "fr-en.test")
    kw = dict(methods=["original"], lexicon=fr_lex, en_lexicon=en_lex, n_permutations=100,
              adjectives=fr_lex.two_form[:3])
    reversed_ = evaluate(fr, en, dico, test, **kw)
    row = reversed_.table["original"]
    assert not any(k.endswith("_tgt_src") for k in row)  # the paper's keys are absent
    assert row["p_at_1_csls_tgt_src_reversed"] > 0.9  # near-exact rotation + small noise
    assert reversed_.settings["test_dictionary_en"] == "fr-en.test reversed (ours)"
    assert "translation_tgt_src_reversed" in reversed_.coverage
    # the same pairs given as an en→fr dictionary: the same figures, now under the paper's keys
    en_fr = Dictionary([(e, f) for f, e in test.pairs], "en-fr.test")
    given = evaluate(fr, en, dico, test, test_dictionary_en=en_fr, **kw)
    grow = given.table["original"]
    assert not any(k.endswith("_reversed") for k in grow)
    for k in ("p_at_1_nn", "p_at_5_nn", "p_at_1_csls", "p_at_5_csls"):
        assert grow[f"{k}_tgt_src"] == row[f"{k}_tgt_src_reversed"]
    assert given.settings["test_dictionary_en"] == "en-fr.test"
    # and it is the en→fr dictionary that is read: one whose gold answers are all shifted by one
    # word scores near 0 (a right answer only where two test words happen to be neighbours)
    wrong = Dictionary([(e, en_fr.pairs[(i + 1) % len(en_fr)][1]) for i, (e, _) in enumerate(en_fr.pairs)], "bad")
    assert evaluate(fr, en, dico, test, test_dictionary_en=wrong, **kw).table["original"]["p_at_1_nn_tgt_src"] < 0.1


def test_reversed_rows_are_labelled_in_the_table():
    from rich.console import Console

    from geobias.report.draw import render_table

    fr, en, dico, fr_lex, en_lex, _ = make_pair()
    res = evaluate(fr, en, dico, Dictionary(dico.pairs[::3], "test"), methods=["original"], lexicon=fr_lex,
                   en_lexicon=en_lex, n_permutations=100, adjectives=fr_lex.two_form[:3])
    console = Console(width=200, record=True)
    render_table(console, res, lang="fr", permutations=100, seed=0)
    text = console.export_text()
    assert "P@1 CSLS en→fr, fr→en test pairs reversed (ours)" in text
    assert "en→fr rows from the fr→en test pairs reversed" in text
    assert "P@1 CSLS en→fr " not in text.replace("P@1 CSLS en→fr,", "")  # no row under the paper's name


def test_evaluate_rejects_unknown_method():
    fr, en, dico, fr_lex, en_lex, _ = make_pair()
    with pytest.raises(InputError, match="unknown method"):
        evaluate(fr, en, dico, dico, methods=["nope"], lexicon=fr_lex, en_lexicon=en_lex)


def test_read_rg65_with_double_tabs(shared_data):
    rows = read_similarity_file(shared_data / "wordsim" / "monolingual" / "FR_RG-65.txt")
    assert len(rows) == 65


# ------------------------------------------------------------------ real FR ↔ EN data
@pytest.fixture(scope="module")
def real_stores(installed):
    """The real stores, materialised from their PyPI packages when needed (skips when absent)."""
    return installed("fr-spacy-md"), installed("en-w2v-gnews")


@pytest.mark.slow
def test_evaluate_real_fr_en(shared_data, real_stores, tmp_path):
    """The whole `geobias evaluate` on fr-spacy-md ↔ en-w2v-gnews (timing: benchmarks/, not here)."""
    from typer.testing import CliRunner

    from geobias.cli import app

    d = shared_data / "muse" / "dictionaries"
    out = CliRunner().invoke(app, ["evaluate", "--lang", "fr", "--en-vectors", "en-w2v-gnews",
                                   "--dictionary", str(d / "fr-en.0-5000.txt"),
                                   "--test-dictionary", str(d / "fr-en.5000-6500.txt"),
                                   "--test-dictionary-en", str(d / "en-fr.5000-6500.txt"),
                                   "--wordsim", str(shared_data / "wordsim/monolingual/FR_RG-65.txt"),
                                   "--json"])
    assert out.exit_code == 0, out.output
    table = result_of(out.stdout)["table"]
    assert set(table) == set(METHOD_KEYS)
    orig, hyb = table["original"], table["hybrid-ori"]
    # the paper's pattern, with tolerances wide enough for this smaller vocabulary
    assert table["de-align"]["mweat_statistic"] == pytest.approx(orig["mweat_statistic"], abs=1e-5)
    assert orig["mweat_p_value"] < 0.05  # the original French vectors are biased (monolingual MWEAT)
    assert hyb["mweat_statistic"] < 0.5 * orig["mweat_statistic"]
    assert abs(hyb["p_at_1_csls_src_tgt"] - orig["p_at_1_csls_src_tgt"]) < 0.03  # P@1 barely moves
    assert abs(hyb["similarity_pearson"] - orig["similarity_pearson"]) < 0.05
    assert orig["p_at_1_csls_src_tgt"] > 0.6
    assert orig["p_at_1_csls_tgt_src"] > 0.75  # en→fr on MUSE's en-fr file (paper 78.2; reversed fr-en pairs: 47.5)


@pytest.mark.slow
def test_real_control_weat_barely_moves(shared_data, real_stores):
    """Gender mitigation leaves an unrelated WEAT (flowers/insects vs pleasant/unpleasant) in place."""
    from geobias import wordlists
    from geobias.alignment import read_dictionary
    from geobias.metrics import weat
    from geobias.mitigation import HybridOri

    fr, en = real_stores
    dico = read_dictionary(shared_data / "muse" / "dictionaries" / "fr-en.0-5000.txt")
    est = HybridOri().fit(fr, en=en, dictionary=dico)
    before_store = est.aligner_.transform(fr)
    after_store = est.transform(fr)
    t = wordlists.weat_test("fr", "flowers-insects")
    kw = dict(n_permutations=1000, seed=0, oov="ignore")
    # fr-spacy-md lacks most of the French flower and insect names: the control reports them, not refuses
    before = weat(before_store, WordQuery(t.X, t.Y, t.A, t.B, **REPORT_LOST), **kw)
    after = weat(after_store, WordQuery(t.X, t.Y, t.A, t.B, **REPORT_LOST), **kw)
    assert before.effect_size > 0.5  # the control association is there (Caliskan: d ≈ 1.5)
    assert abs(after.effect_size - before.effect_size) < 0.1  # and mitigation barely moves it
