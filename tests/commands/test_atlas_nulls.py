"""The atlas against its nulls (issue 43), on small synthetic stores: every column's null beside it,
hierarchical intervals over the seed words, Benjamini–Hochberg over the atlas, the same hatching
with two bootstrap seeds, the direction-comparability flag and the shared direction, the map's
scales centred on the nulls, and one line (never a traceback) for a language without lists or with
a degenerate direction."""

from __future__ import annotations

import json

import numpy as np
import pytest
from test_atlas_synthetic import DIM, synthetic_store

from geobias import wordlists
from geobias.commands import run
from geobias.evaluation.atlas import (
    COMPARABLE_COSINE,
    METRICS,
    SCALES,
    AtlasResult,
    correct_atlas,
    frequency_matched,
    pair_deltas,
    pc1_batch,
    semantic_batch,
)
from geobias.store import VectorStore, save_store

pytestmark = pytest.mark.commands

#: Columns without a null of their own: the control and the direction diagnostic.
NO_NULL = {"corr_en_control", "cos_ds_en"}


@pytest.fixture
def vectors(tmp_path, monkeypatch):
    folder = tmp_path / "vectors"
    folder.mkdir()
    monkeypatch.setenv("GEOBIAS_VECTORS_DIR", str(folder))
    return folder


def _with_persons(store: VectorStore, lang: str, push: float) -> VectorStore:
    """``store`` plus the language's person nouns and person pairs, pushed by ``push`` along the
    semantic axis (masculine positive)."""
    d = wordlists.wordlist_dir() / lang
    words = list(store.words)
    rows = [np.asarray(store.vectors, dtype=np.float64)]
    rng = np.random.default_rng(7)
    extra = []
    if (d / "person_nouns.txt").is_file():
        extra += wordlists.read_word_file(d / "person_nouns.txt")
    if (d / "person_pairs.tsv").is_file():
        extra += [w for p in wordlists.read_pair_file(d / "person_pairs.tsv") for w in p]
    extra = [w for w in dict.fromkeys(extra) if w not in store]
    v = rng.normal(scale=0.3, size=(len(extra), DIM))
    v[:, 0] += push
    rows.append(v)
    return VectorStore(words + extra, np.concatenate(rows).astype(np.float32), lang=lang)


def _atlas(vectors, langs=("en", "fr"), *, seed=0, bootstrap=2000, person_push=-0.05, **stores):
    for lang in langs:
        store = stores.get(lang) or synthetic_store(lang, seed=3 + len(lang))
        if lang == "fr" and lang not in stores:
            store = _with_persons(store, "fr", person_push)
        save_store(store, vectors / f"muse-{lang}", overwrite=True)
    return run("atlas", family="muse", langs=list(langs), permutations=500, bootstrap=bootstrap, seed=seed,
               max_per_class=60)


def test_batched_pca_at_the_identity_is_the_fitted_direction():
    from geobias.directions import SemanticDirection

    store = synthetic_store("es", seed=4)
    pairs = wordlists.definitional_pairs("es")
    sem = SemanticDirection(oov="ignore").fit(store, pairs)
    kept, deltas = pair_deltas(store, pairs)
    d, ev = pc1_batch(deltas, np.arange(len(kept))[None, :])
    # float32 store rows: the two computations agree to float32 precision
    assert float(d[0] @ sem.direction_.astype(np.float64)) == pytest.approx(1.0, abs=1e-5)
    assert ev[0] == pytest.approx(sem.explained_variance_ratio_[0], abs=1e-5)
    g = np.zeros(DIM)
    g[1] = 1.0
    ds = semantic_batch(deltas, np.arange(len(kept))[None, :], g)
    assert abs(ds[0] @ g) < 1e-12 and np.linalg.norm(ds[0]) == pytest.approx(1.0)
    # a resample that repeats one pair gives that pair's direction
    one = semantic_batch(deltas, np.zeros((1, len(kept)), dtype=np.int64), None)[0]
    assert abs(one @ deltas[0] / np.linalg.norm(deltas[0])) == pytest.approx(1.0)


def test_frequency_matched_nouns_are_the_nearest_ranks_outside_the_excluded():
    s = VectorStore([f"w{i}" for i in range(30)], np.eye(30, dtype=np.float32))
    got = frequency_matched(s, [["w10", "w20"], ["w29"]], [f"w{i}" for i in range(30)],
                             {"w10", "w9", "w20", "w29"}, k=3)
    assert got.tolist() == [[8, 11, 12], [26, 27, 28]]


def test_every_column_has_its_null_beside_it_in_json_csv_and_html(vectors, tmp_path):
    from geobias.report.atlas import render_html, write_report

    res = _atlas(vectors)
    fr = next(c for c in res.cells if c.lang == "fr")
    for key, _, _ in METRICS:
        m = fr.metrics[key]
        if m.status != "ok":
            continue
        if key in NO_NULL:
            assert m.versus is None, key
        else:
            assert m.versus is not None and m.versus.p_value is not None and m.versus.q_value is not None, key
    lda = fr.metrics["lda_cv_accuracy"]
    assert lda.versus.null_value == lda.baselines["orthographic"]
    assert lda.versus.difference == pytest.approx(lda.value - lda.baselines["orthographic"])
    assert lda.versus.low <= lda.versus.difference <= lda.versus.high
    rho, ctl = fr.metrics["corr_en_spearman"], fr.metrics["corr_en_control"]
    assert rho.versus.null_value == pytest.approx(ctl.value)  # ρ is read against the control, not 0
    assert rho.versus.difference == pytest.approx(rho.value - ctl.value)
    occ = fr.metrics["occupation_bias"]
    assert occ.versus.null.startswith("person nouns that are not occupations")
    assert set(occ.details["nulls"]) == {"person nouns", "frequency band"}
    rows = [r for r in res.rows if r["lang"] == "fr" and r["status"] == "ok"]
    assert all((r["null"] is None) == (r["metric"] in NO_NULL) for r in rows)
    again = AtlasResult.from_dict(json.loads(res.to_json()))
    assert again == res
    page = render_html(res)
    assert "Benjamini–Hochberg" in page and "alignment control" in page and "person nouns that are not" in page
    import pyarrow.parquet as pq

    table = pq.read_table(write_report(res, tmp_path / "r") / "atlas.parquet").to_pylist()
    assert [r["q_value"] for r in table] == [r["q_value"] for r in res.rows]


def test_occupation_lean_is_read_against_person_nouns(vectors):
    """Person nouns that lean as far as the occupations give no difference; person nouns at 0 give one."""
    base = _atlas(vectors, bootstrap=2000)
    occ = next(c for c in base.cells if c.lang == "fr").metrics["occupation_bias"]
    lean = occ.value  # the synthetic occupations' midpoints sit at (0.3 − 0.2)/2 = +0.05 on the semantic axis
    assert lean > 0
    same = _atlas(vectors, person_push=0.05 * 3)  # the persons lean like the occupations (unit rows shrink it)
    far = _atlas(vectors, person_push=-1.0)
    d_same = next(c for c in same.cells if c.lang == "fr").metrics["occupation_bias"].versus
    d_far = next(c for c in far.cells if c.lang == "fr").metrics["occupation_bias"].versus
    assert abs(d_same.difference) < abs(d_far.difference)
    assert d_far.difference > 0 and d_far.low > 0 and d_far.significant


def test_two_seeds_never_give_contradicting_hatching(vectors):
    """At the default number of resamples two seeds (every draw of the run: permutations, resamples,
    random directions, random pairs, folds) never hatch a cell that the other leaves plain: a cell is
    hatched or plain only where every p within its Monte Carlo range agrees, else marked undecided.
    Each bound states its Monte Carlo error, each Monte Carlo p its range."""
    from geobias.commands.atlas import AtlasParams

    n = AtlasParams().bootstrap
    runs = []
    for seed in (0, 1):
        res = _atlas(vectors, seed=seed, bootstrap=n)
        runs.append({(c.lang, k): m.versus for c in res.cells for k, m in c.metrics.items()
                     if m.status == "ok" and m.versus is not None and m.versus.p_value is not None})
        mc = [v.mc_error for v in runs[-1].values() if v.low is not None and v.n_resamples]
        assert mc and all(e is not None and e >= 0 for e in mc)
        for v in runs[-1].values():
            if v.p_interval is not None:  # the range holds the run's own p
                assert v.p_interval[0] <= v.p_value <= v.p_interval[1]
            assert v.verdict in ("differs", "does not differ", "undecided")
            assert v.significant is {"differs": True, "does not differ": False, "undecided": None}[v.verdict]
        assert res.correction["undecided"] == [f"{lang}:{k}" for (lang, k), v in runs[-1].items() if v.undecided]
    assert runs[0].keys() == runs[1].keys()
    decided = [(runs[0][k].verdict, runs[1][k].verdict) for k in runs[0]
               if not (runs[0][k].undecided or runs[1][k].undecided)]
    assert all(a == b for a, b in decided)
    kinds = {a for a, _ in decided}
    assert kinds == {"differs", "does not differ"}  # both kinds of verdict are reached, not only "undecided"


def test_benjamini_hochberg_runs_over_every_cell_of_the_atlas(vectors):
    from scipy.stats import false_discovery_control

    res = _atlas(vectors, bootstrap=500)
    cells = [(c.lang, k, m.versus) for c in res.cells for k, m in c.metrics.items()
             if m.status == "ok" and m.versus is not None and m.versus.p_value is not None]
    q = false_discovery_control([v.p_value for _, _, v in cells], method="bh")
    assert [v.q_value for _, _, v in cells] == pytest.approx(list(q))
    assert res.correction["tests"] == len(cells)
    assert res.correction["q_below_alpha"] == sum(v.q_value < 0.05 for _, _, v in cells)
    assert res.correction["significant"] == sum(v.verdict == "differs" for _, _, v in cells)
    # a verdict never contradicts the q of its own p: "differs" has q < 0.05, "does not differ" q >= 0.05
    assert all(v.q_value < 0.05 for _, _, v in cells if v.verdict == "differs")
    assert all(v.q_value >= 0.05 for _, _, v in cells if v.verdict == "does not differ")
    # the intervals a resampling seed could turn are named: their bound nearest 0 within 3 MC errors
    near = {f"{lang}:{key}" for lang, key, v in cells
            if v.low is not None and v.mc_error is not None and min(abs(v.low), abs(v.high)) <= 3 * v.mc_error}
    assert set(res.correction["bounds_within_3_mc_errors_of_0"]) == near
    # idempotent: correcting again gives the same q
    assert correct_atlas(res) == res


def test_a_direction_not_comparable_with_english_is_flagged_and_the_shared_direction_is_used(vectors):
    """A store whose definitional pairs differ along another axis than English's: cos(d_s, English
    d_PCA) falls below the threshold, the cell says so, and the shared-direction column still runs."""
    es = synthetic_store("es", seed=9)
    vecs = np.asarray(es.vectors, dtype=np.float64).copy()
    defs = {w for p in wordlists.definitional_pairs("es") for w in p}
    male = {m for _, m in wordlists.definitional_pairs("es")}
    for w in defs:  # move the pairs' gender from axis 0 to axis 5
        i = es.index[w]
        vecs[i, 0] -= 1.0 if w in male else -1.0
        vecs[i, 5] += 1.0 if w in male else -1.0
    turned = VectorStore(list(es.words), vecs.astype(np.float32), lang="es")
    res = _atlas(vectors, langs=("en", "es"), bootstrap=300, es=turned)
    cell = next(c for c in res.cells if c.lang == "es")
    cos = cell.metrics["cos_ds_en"]
    assert cos.value < COMPARABLE_COSINE and cell.comparable is False
    assert "not comparable" in cell.metrics["corr_en_spearman"].details["note"]
    shared = cell.metrics["corr_en_shared_spearman"]
    assert shared.status == "ok" and shared.details["direction"] == "English d_PCA for both languages"
    normal = _atlas(vectors, langs=("en", "es"), bootstrap=300)
    assert next(c for c in normal.cells if c.lang == "es").comparable is True


def test_the_map_is_centred_on_each_null_with_shared_scales_and_colour_bars(vectors):
    from geobias.report.atlas import (
        colour_positions,
        heatmap_differences,
        plot_heatmap,
        scale_ranges,
    )

    res = _atlas(vectors, bootstrap=300)
    keys = [k for k, _, _ in METRICS]
    pos, diff, ranges = colour_positions(res), heatmap_differences(res), scale_ranges(res)
    fr = [c.lang for c in res.cells].index("fr")
    lda = res.cells[fr].metrics["lda_cv_accuracy"]
    j = keys.index("lda_cv_accuracy")
    # accuracy is read from its suffix baseline: at the baseline the colour is the centre (white)
    assert pos[fr, j] == pytest.approx((lda.value - lda.baselines["orthographic"]) / ranges["accuracy"])
    # columns that measure one quantity share one range; controls and diagnostics are not coloured
    assert SCALES["weat_career_family"] == SCALES["mweat_effect_size"] == "effect size"
    for key in ("corr_en_control", "cos_ds_en"):
        assert np.isnan(pos[:, keys.index(key)]).all()
    # MWEAT's signed |Σ_X s| − |Σ_Y s| has a null of 0 and its own diverging scale
    j = keys.index("mweat")
    assert pos[fr, j] == pytest.approx(res.cells[fr].metrics["mweat"].value / ranges["MWEAT statistic"])
    proj = [keys.index("occupation_bias"), keys.index("neuter_on_dg")]
    assert ranges["projection"] == pytest.approx(np.nanmax(np.abs(diff[:, proj])))
    fig = plot_heatmap(res)
    assert len(fig.axes) == 1 + len(ranges)  # the map and one colour bar per scale


def test_neuter_nouns_are_read_from_the_masculine_feminine_midpoint(vectors):
    res = _atlas(vectors, langs=("en", "de"), bootstrap=300)
    de = next(c for c in res.cells if c.lang == "de")
    m = de.metrics["neuter_on_dg"]
    assert m.status == "ok", m.reason
    mid = (m.details["masculine_mean"] + m.details["feminine_mean"]) / 2
    assert m.versus.null_value == pytest.approx(mid) and m.versus.difference == pytest.approx(m.value - mid)


def test_a_language_without_lists_or_with_a_degenerate_direction_is_one_line(vectors, tmp_path, monkeypatch,
                                                                           capsys):
    import shutil

    from geobias.cli import main

    en_store, es_store = synthetic_store("en", seed=1), synthetic_store("es", seed=2)
    pairs = wordlists.definitional_pairs("es")
    # no lists: a word-list folder where Spanish has only its definitional pairs
    lists = tmp_path / "lists"
    shutil.copytree(wordlists.wordlist_dir(), lists)
    for f in (lists / "es").iterdir():
        if f.name != "definitional_pairs.tsv":
            f.unlink()
    monkeypatch.setattr(wordlists, "wordlist_dir", lambda: lists)
    save_store(en_store, vectors / "muse-en")
    save_store(es_store, vectors / "muse-es")
    with pytest.raises(SystemExit) as exit_:
        main(["atlas", "--family", "muse", "--langs", "es", "--permutations", "100", "--bootstrap", "100"])
    out = capsys.readouterr()
    assert exit_.value.code == 0 and "Traceback" not in out.out + out.err
    assert "no list" in out.out
    res = run("atlas", family="muse", langs=["es"], permutations=100, bootstrap=100)
    cell = res.cells[0]
    assert cell.status == "ok"
    for key in ("lda_cv_accuracy", "weat_career_family", "mweat", "occupation_bias"):
        m = cell.metrics[key]
        assert m.status == "not available" and m.reason and "\n" not in m.reason, key
    # a degenerate direction: every definitional pair has two identical vectors
    es = es_store
    vecs = np.asarray(es.vectors).copy()
    for f, m in pairs:
        if f in es and m in es:
            vecs[es.index[f]] = vecs[es.index[m]]
    save_store(VectorStore(list(es.words), vecs, lang="es"), vectors / "muse-es", overwrite=True)
    with pytest.raises(SystemExit):
        main(["atlas", "--family", "muse", "--langs", "es", "--permutations", "100", "--bootstrap", "100"])
    out = capsys.readouterr()
    assert "Traceback" not in out.out + out.err and "degenerate" in out.out + out.err
    res = run("atlas", family="muse", langs=["es"], permutations=100, bootstrap=100)
    cell = res.cells[0]
    assert cell.status == "error" and "\n" not in cell.error
    assert "degenerate" in cell.error or "LDA" in cell.error or "direction" in cell.error
