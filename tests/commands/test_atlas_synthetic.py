"""The atlas on small synthetic stores (no encoder, no download): the family path of the downloaded
families (stores saved as muse-en/es/fr), the vocabulary centring that removes an off-centre
vocabulary's artefact (a synthetic Arabic store shifted along the gender direction), the LDA
baselines, the bootstrap intervals and set sizes, the control of the English correlation, the
typed cells' JSON round trip, and RAY_ADDRESS with the default private cluster."""

from __future__ import annotations

import json

import numpy as np
import pytest

from geobias import wordlists
from geobias.commands import run
from geobias.evaluation.atlas import METRICS, AtlasResult, vocabulary_offset
from geobias.store import VectorStore, save_store

pytestmark = pytest.mark.commands

DIM = 24


def _words(lang: str) -> dict[str, tuple[float, float]]:
    """Every word a cell reads, with its (semantic, grammatical) push: masculine +, feminine −."""
    out: dict[str, tuple[float, float]] = {}

    def add(word, sem=0.0, gram=0.0):
        if word and word not in out:
            out[word] = (sem, gram)

    for f, m in wordlists.definitional_pairs(lang):
        add(m, 1.0, 0.3)
        add(f, -1.0, -0.3)
    male, female = wordlists.attribute_words(lang)
    for w in male:
        add(w, 1.0, 0.3)
    for w in female:
        add(w, -1.0, -0.3)
    for test in wordlists.weat_tests(lang):
        s = wordlists.weat_test(lang, test)
        for w in s.X + s.Y + s.A + s.B:
            add(w)
    avail = wordlists.available_lists(lang)
    if "occupations" in avail:
        for o in wordlists.occupations(lang):
            add(o.masculine, 0.3, 0.5)
            add(o.feminine, -0.2, -0.5)
    if "gendered_nouns" in avail:
        m, f = wordlists.gendered_nouns(lang)
        for w in m[:60]:
            add(w, 0.0, 1.0)
        for w in f[:60]:
            add(w, 0.0, -1.0)
    if lang == "en":
        for other in ("es", "fr", "ar"):
            for o in wordlists.occupations(other):
                add(o.english, 0.1)
    for i in range(300):
        add(f"filler{i}")
    return out


def synthetic_store(lang: str, *, seed: int = 0, offset: float = 0.0, rotate=None) -> VectorStore:
    rng = np.random.default_rng(seed)
    words = _words(lang)
    vecs = rng.normal(scale=0.3, size=(len(words), DIM))
    push = np.array(list(words.values()))
    vecs[:, 0] += push[:, 0] + offset
    vecs[:, 1] += push[:, 1]
    return VectorStore(list(words), vecs.astype(np.float32), lang=lang)


@pytest.fixture
def vectors(tmp_path, monkeypatch):
    folder = tmp_path / "vectors"
    folder.mkdir()
    monkeypatch.setenv("GEOBIAS_VECTORS_DIR", str(folder))
    return folder


def test_family_path_runs_every_cell_with_baselines_intervals_and_sizes(vectors):
    for lang in ("en", "es", "fr"):
        save_store(synthetic_store(lang, seed=len(lang) + ord(lang[0])), vectors / f"muse-{lang}")
    res = run("atlas", family="muse", langs=["en", "es", "fr"], permutations=300, bootstrap=200, seed=1,
              max_per_class=60)
    assert res.n_ok == 3 and [c.lang for c in res.cells] == ["en", "es", "fr"]
    es = res.cells[1]
    lda = es.metrics["lda_cv_accuracy"]
    assert lda.status == "ok" and lda.baselines["majority"] == pytest.approx(0.5)
    assert 0.0 <= lda.baselines["orthographic"] <= 1.0 and lda.set_sizes == {"masculine": 60, "feminine": 60}
    for key in ("weat_career_family", "mweat", "mweat_effect_size", "occupation_bias", "corr_en_spearman",
                "corr_en_fig4_spearman"):
        m = es.metrics[key]
        assert m.status == "ok", (key, m.reason)
        assert m.interval is not None and m.interval.n_resamples == 200 and m.interval.low <= m.interval.high
        assert m.set_sizes and all(v >= 2 for v in m.set_sizes.values())
    assert es.metrics["mweat"].interval.paired == [["X", "Y"]]
    assert es.metrics["mweat"].set_sizes["pairs"] == es.metrics["mweat"].n
    # the control is computed on random directions shared by both stores: between -1 and 1, with its range
    ctl = es.metrics["corr_en_control"]
    assert ctl.status == "ok" and -1 <= ctl.details["low"] <= ctl.value <= ctl.details["high"] <= 1
    # JSON round trip of the typed cells
    again = AtlasResult.from_dict(json.loads(res.to_json()))
    assert again == res


def test_an_off_centre_vocabulary_is_centred_away(vectors):
    base = synthetic_store("ar", seed=5)
    shifted = synthetic_store("ar", seed=5, offset=0.8)  # every Arabic word pushed along the gender axis
    save_store(synthetic_store("en", seed=6), vectors / "use-m3-en")
    figures = {}
    for name, store in (("base", base), ("shifted", shifted)):
        save_store(store, vectors / "use-m3-ar", overwrite=True)
        res = run("atlas", langs=["ar"], permutations=200, bootstrap=100, seed=0)
        cell = res.cells[0]
        assert cell.status == "ok", cell.error
        figures[name] = cell
    off = figures["shifted"].vocabulary_offset
    assert abs(off) > 0.3 > abs(figures["base"].vocabulary_offset)
    b_base = figures["base"].metrics["occupation_bias"].details["mean_abs"]
    b_shift = figures["shifted"].metrics["occupation_bias"].details["mean_abs"]
    # uncentred, the shift would add about |offset| to every occupation; centred, the figure stays close
    assert abs(b_shift - b_base) < 0.5 * b_base < abs(off)
    signed = figures["shifted"].metrics["occupation_bias"].details["mean_signed"]
    assert abs(signed) < 0.5 * abs(off)
    # Arabic has grammatical gender but no noun lists: d_g not available (not "not applicable"), labelled
    lda = figures["shifted"].metrics["lda_cv_accuracy"]
    assert lda.status == "not available" and "no gendered nouns for ar" in lda.reason
    assert figures["shifted"].genders == ["feminine", "masculine"] or set(figures["shifted"].genders) == {
        "feminine", "masculine"}


def test_vocabulary_offset_is_the_mean_unit_projection():
    rng = np.random.default_rng(0)
    vecs = rng.normal(size=(500, 6)) + np.array([2.0, 0, 0, 0, 0, 0])
    store = VectorStore([f"w{i}" for i in range(500)], vecs.astype(np.float32))
    d = np.array([1.0, 0, 0, 0, 0, 0])
    unit = vecs / np.linalg.norm(vecs, axis=1, keepdims=True)
    assert vocabulary_offset(store, d, chunk=64) == pytest.approx(float((unit @ d).mean()), rel=1e-5)


def test_every_cell_has_every_metric_and_one_definition_each(vectors):
    for lang in ("en", "es"):
        save_store(synthetic_store(lang, seed=3), vectors / f"muse-{lang}")
    res = run("atlas", family="muse", langs=["en", "es"], permutations=100, bootstrap=0, seed=0, max_per_class=40)
    for c in res.cells:
        assert list(c.metrics) == [k for k, _, _ in METRICS]
        assert all(m.interval is None for m in c.metrics.values())  # bootstrap 0: no intervals
    assert set(res.definitions) == {k for k, _, _ in METRICS}
    en = res.cells[0]
    assert en.metrics["corr_en_control"].status == "not applicable"
    assert en.metrics["lda_cv_accuracy"].reason == "English has no grammatical gender"


def test_report_marks_statuses_and_centres_accuracy_on_its_baseline(vectors, tmp_path):
    from geobias.report.atlas import SYMBOLS, colour_positions, render_html

    for lang in ("en", "es"):
        save_store(synthetic_store(lang, seed=3), vectors / f"muse-{lang}")
    res = run("atlas", family="muse", langs=["en", "es"], permutations=100, bootstrap=100, seed=0, max_per_class=40)
    page = render_html(res)
    assert SYMBOLS["not applicable"] in page and "grammatical gender: feminine, masculine" in page
    assert "no grammatical gender" in page
    for key, _, _ in METRICS:
        assert res.definitions[key][:40] in page.replace("&#x27;", "'")
    pos = colour_positions(res)
    keys = [k for k, _, _ in METRICS]
    j = keys.index("lda_cv_accuracy")
    lda = res.cells[1].metrics["lda_cv_accuracy"]
    # accuracy read from its null, the suffix baseline: the baseline sits in the middle of the scale
    assert pos[1, j] == pytest.approx((lda.value - lda.baselines["orthographic"]) / 0.5)
    assert np.isnan(pos[0, j])


def test_ray_address_in_the_environment_does_not_stop_a_private_cluster(monkeypatch):
    pytest.importorskip("ray", reason="ray is not installed (pip install 'geobias[distributed]')")
    import shutil
    import tempfile
    from pathlib import Path

    import ray

    vectors = Path(tempfile.mkdtemp(prefix="gbray", dir="/tmp"))  # Ray's socket paths must stay short
    monkeypatch.setenv("GEOBIAS_VECTORS_DIR", str(vectors))
    for lang in ("en", "es"):
        save_store(synthetic_store(lang, seed=3), vectors / f"muse-{lang}")
    monkeypatch.setenv("RAY_ADDRESS", "127.0.0.1:1")  # nothing listens there
    monkeypatch.setenv("RAY_USAGE_STATS_ENABLED", "0")
    if ray.is_initialized():  # pragma: no cover - another module left one running
        ray.shutdown()
    try:
        res = run("atlas", family="muse", langs=["es"], engine="ray", permutations=100, bootstrap=50, seed=0,
                  max_per_class=40)
    finally:
        ray.shutdown()
        shutil.rmtree(vectors, ignore_errors=True)
    import os

    assert res.n_ok == 1 and res.engine["engine"] == "ray"
    assert os.environ["RAY_ADDRESS"] == "127.0.0.1:1"  # restored for the caller
