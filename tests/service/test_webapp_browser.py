"""The web app in a real browser (headless Debian Chromium through Selenium and the system
chromedriver): a user opens /app, picks MWEAT, fills the form for the real French fastText store
(fr-spacy-md), runs it, reads the paper's statistic 2.0959 from the page and downloads the CSV;
a long run's progress bar advances and its Cancel button stops it; two runs are compared.
Screenshots of each page go to out/ (not committed). Skips where no browser is installed
(`.ci/run` installs `chromium` and `chromium-driver`) or fr-spacy-md cannot be installed."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

pytest.importorskip("httpx", reason="the serve extra is not installed (pip install 'geobias[serve]')")
pytest.importorskip("fastapi", reason="the serve extra is not installed (pip install 'geobias[serve]')")
pytest.importorskip("selenium", reason="selenium is not installed (pip install 'geobias[serve]')")

from _browser import chromium  # noqa: E402
from _server import ServerProcess  # noqa: E402

SHOTS = Path(__file__).resolve().parents[2] / "out" / "webapp"
STORE = "fr-spacy-md"


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    SHOTS.mkdir(parents=True, exist_ok=True)
    yield from chromium(tmp_path_factory, height=1800)


@pytest.fixture(scope="module")
def server(installed, tmp_path_factory):
    from geobias.sources import vectors_dir

    installed(STORE)  # the real French vectors (skips when the PyPI package holding them is absent)
    data = tmp_path_factory.mktemp("webapp-browser")
    # a cap above the default so that a long run (tens of millions of permutations) shows a bar, and a
    # quick budget it exceeds, so that the app runs it as a job (a short MWEAT stays on the quick path)
    with ServerProcess(vectors_dir(), data / "data", "--workers", "1", "--max-permutations", "50000000",
                       "--quick-budget", "1e7") as srv:
        yield srv


def _fill(driver, name: str, value: str) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    el = driver.find_element(By.NAME, name)
    if el.tag_name == "select":
        Select(el).select_by_value(value)
    else:
        el.clear()
        el.send_keys(value)


def _run_mweat(driver, url: str, permutations: str, method: str = "auto") -> None:
    from selenium.webdriver.common.by import By

    driver.get(url + "/app")
    driver.find_element(By.CSS_SELECTOR, "a[href='/app/mweat']").click()
    assert driver.title == "geobias: mweat"
    _fill(driver, "vectors", STORE)
    _fill(driver, "lang", "fr")
    _fill(driver, "permutations", permutations)
    _fill(driver, "permutation_method", method)
    driver.find_element(By.ID, "submit").click()


def _statistic(text: str) -> float:
    """The MWEAT statistic a page or CSV shows (its ``statistic`` row), to 4 decimals."""
    import re

    found = re.search(r"^statistic\s+([-+0-9.]+)", text, re.M)
    assert found, text[:2000]
    return round(float(found.group(1)), 4)


def _wait_for(driver, predicate, timeout: float = 240, what: str = "the page"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate(driver)
        if value:
            return value
        time.sleep(0.2)
    driver.save_screenshot(str(SHOTS / "timeout.png"))
    raise AssertionError(f"{what} did not appear within {timeout} s")


def test_user_runs_mweat_on_french_fasttext_and_downloads_the_csv(browser, server):
    from selenium.webdriver.common.by import By

    browser.get(server.url + "/app")
    browser.save_screenshot(str(SHOTS / "catalogue.png"))
    _run_mweat(browser, server.url, "2000")
    browser.save_screenshot(str(SHOTS / "mweat-form-submitted.png"))
    result = _wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#result table"), what="the MWEAT table")
    text = browser.find_element(By.ID, "result").text
    # Zhou et al.'s MWEAT on French fastText: the statistic as the page shows it (the CLI's table)
    assert _statistic(text) == 2.0959, text[:2000]
    assert result and browser.find_element(By.ID, "state").text == "done"
    plots = browser.find_elements(By.CSS_SELECTOR, "#result img.plot")  # the per-pair bias bars
    assert plots
    # loaded by URL after the tables (the app's policy allows the service's own images): decoded
    _wait_for(browser, lambda d: d.execute_script("return arguments[0].complete && arguments[0].naturalWidth",
                                                  plots[0]) > 300, what="the plot's image")
    browser.save_screenshot(str(SHOTS / "mweat-result.png"))

    # the CSV download, fetched by the page as the link would save it
    href = browser.find_element(By.CSS_SELECTOR, "#result .downloads a[href$='/tables/0.csv']").get_attribute("href")
    csv_text = browser.execute_async_script(
        "const done = arguments[arguments.length - 1]; fetch(arguments[0]).then(r => r.text()).then(done);", href)
    assert _statistic(csv_text.replace(",", " ")) == 2.0959 and csv_text.count("\n") >= 2
    job_id = browser.find_element(By.ID, "job").get_attribute("data-job-id")

    # the same run's report page, and a comparison with a second run
    browser.get(f"{server.url}/jobs/{job_id}/report")
    assert _statistic(browser.find_element(By.TAG_NAME, "body").text) == 2.0959
    browser.save_screenshot(str(SHOTS / "report.png"))
    _run_mweat(browser, server.url, "500")
    _wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#result table"), what="the second run")
    other = browser.find_element(By.ID, "job").get_attribute("data-job-id")
    browser.get(f"{server.url}/compare?a={job_id}&b={other}")
    side = browser.find_elements(By.CSS_SELECTOR, ".side > div")
    assert len(side) == 2 and all(_statistic(d.text) == 2.0959 for d in side)
    browser.save_screenshot(str(SHOTS / "compare.png"))


def test_a_long_run_shows_progress_and_cancels(browser, server):
    from selenium.webdriver.common.by import By

    _run_mweat(browser, server.url, "50000000", method="monte-carlo")
    seen: set[float] = set()

    def advanced(d):
        f = d.find_element(By.ID, "bar").get_attribute("data-fraction")
        if f:
            seen.add(float(f))
        return len([x for x in seen if 0 < x < 1]) >= 2

    _wait_for(browser, advanced, timeout=180, what="a progress bar that advances")
    browser.save_screenshot(str(SHOTS / "progress.png"))
    assert sorted(seen) == sorted(set(seen)) and max(seen) < 1
    browser.find_element(By.ID, "cancel").click()
    _wait_for(browser, lambda d: d.find_element(By.ID, "state").text == "cancelled", timeout=60, what="the cancelled state")
    assert "cancelled" in browser.find_element(By.ID, "error").text.lower()
    # the bar stops where the run stopped: a value (no value is the animated, indeterminate bar)
    assert browser.execute_script("return document.getElementById('bar').hasAttribute('value')")
    assert 0 < float(browser.find_element(By.ID, "bar").get_attribute("value")) < 1


def test_a_bad_field_is_marked_and_labels_read_as_words(browser, server):
    from selenium.webdriver.common.by import By

    browser.get(server.url + "/app/mweat")
    labels = [el.text for el in browser.find_elements(By.CSS_SELECTOR, ".field label")]
    assert labels[0].startswith("Language") and labels[1].startswith("Store")  # what to run on comes first
    assert "Oov" not in labels and any(x.startswith("Words not in the store") for x in labels)
    # neither a language nor a store: refused on the page, before anything is queued
    driver = browser
    driver.find_element(By.ID, "submit").click()
    assert "choose a language or a store" in driver.find_element(By.ID, "error").text
    assert driver.find_element(By.NAME, "vectors").get_attribute("aria-invalid") == "true"
    # a value the server refuses: its one-line error names the field, and the field is marked
    _fill(driver, "lang", "fr")
    _fill(driver, "vectors", STORE)
    _fill(driver, "seed", "-3")
    driver.find_element(By.ID, "submit").click()
    _wait_for(driver, lambda d: d.find_element(By.ID, "error").text, timeout=30, what="the error line")
    assert driver.find_element(By.ID, "error").text.startswith("\u201cRandom seed\u201d")  # the form's label
    assert "seed must" not in driver.find_element(By.ID, "error").text
    assert driver.find_element(By.NAME, "seed").get_attribute("aria-invalid") == "true"
    assert driver.find_element(By.NAME, "vectors").get_attribute("aria-invalid") is None  # only the named one
    driver.save_screenshot(str(SHOTS / "field-marked.png"))


def test_errors_use_the_form_s_words_and_fixed_choices_are_selects(browser, server):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    browser.get(server.url + "/app/mweat")
    _fill(browser, "lang", "fr")
    _fill(browser, "vectors", STORE)
    _fill(browser, "permutations", "500")
    browser.find_element(By.CSS_SELECTOR, "details summary").click()
    _fill(browser, "targets_x", "zzqa, zzqb, médecin")  # two pairs of three not in the store: refused
    _fill(browser, "targets_y", "zzqc, zzqd, médecine")
    browser.find_element(By.ID, "submit").click()
    error = _wait_for(browser, lambda d: d.find_element(By.ID, "error").text, timeout=60, what="the error line")
    # the server's message names the API's fields; the page says the form's labels
    assert "lost_vocabulary_threshold" not in error and "`vectors`" not in error, error
    assert "\u201cLargest share of a word set that may be missing\u201d" in error and "\u201cStore\u201d" in error
    browser.save_screenshot(str(SHOTS / "error-in-words.png"))
    # the bootstrap box shows its default count; the store list has no empty brackets
    assert browser.find_element(By.NAME, "bootstrap").get_attribute("placeholder") == "1,000"
    assert not any(o.text.endswith("()") for o in Select(browser.find_element(By.NAME, "vectors")).options)

    browser.get(server.url + "/app/weat")
    test = Select(browser.find_element(By.NAME, "test"))
    offered = [o.get_attribute("value") for o in test.options]
    assert offered[0] == "" and {"career-family", "career-family-terms", "flowers-insects"} <= set(offered)
    _fill(browser, "lang", "it")  # Italian has no career-family-terms: not offered while it is chosen
    hidden = {o.get_attribute("value") for o in test.options if not o.is_enabled()}
    assert "career-family-terms" in hidden and "career-family" not in hidden
    _fill(browser, "lang", "fr")
    test.select_by_value("career-family-terms")
    assert test.first_selected_option.get_attribute("value") == "career-family-terms"
    browser.save_screenshot(str(SHOTS / "weat-form.png"))
