"""A real browser on the service's pages: headless Debian Chromium (driven by Selenium through
the system chromedriver) loads the home page and a finished job's report, saves a screenshot,
and finds the table and the plot. Skips with the reason where no browser is installed
(`.ci/run` installs `chromium` and `chromium-driver` with apt)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

httpx = pytest.importorskip("httpx", reason="the serve extra is not installed (pip install 'geobias[serve]')")
pytest.importorskip("fastapi", reason="the serve extra is not installed (pip install 'geobias[serve]')")
pytest.importorskip("selenium", reason="selenium is not installed (pip install 'geobias[serve]')")

from _browser import chromium  # noqa: E402
from _server import ServerProcess, small_french_store  # noqa: E402

SMALL = "small-fr"
SCREENSHOT_DIR = Path(__file__).resolve().parents[2] / "out"


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    yield from chromium(tmp_path_factory, height=2000)


@pytest.fixture(scope="module")
def server_with_job(tmp_path_factory):
    from geobias.store import save_store

    root = tmp_path_factory.mktemp("browser")
    (root / "vectors").mkdir()
    save_store(small_french_store(), root / "vectors" / SMALL)
    with ServerProcess(root / "vectors", root / "data", "--workers", "1") as srv, \
            srv.client(timeout=60) as c:
        job = c.post("/jobs", json={"kind": "mweat", "params": {"lang": "fr", "store": SMALL, "permutations": 2000}}).json()
        deadline = time.monotonic() + 180
        while (state := c.get(f"/jobs/{job['id']}").json()["state"]) not in ("done", "failed") and time.monotonic() < deadline:
            time.sleep(0.2)
        assert state == "done"
        yield srv, job["id"]


def test_home_and_report_in_chromium(browser, server_with_job):
    from selenium.webdriver.common.by import By

    srv, job_id = server_with_job
    browser.get(srv.url + "/")
    assert browser.title == "geobias service"
    assert SMALL in browser.find_element(By.TAG_NAME, "body").text
    links = browser.find_elements(By.CSS_SELECTOR, f"a[href='/jobs/{job_id}/report']")
    assert links, "the home page lists the job"
    links[0].click()

    assert browser.current_url.endswith(f"/jobs/{job_id}/report")
    tables = browser.find_elements(By.TAG_NAME, "table")
    assert len(tables) >= 3  # job summary, MWEAT summary, most biased pairs
    captions = [c.text for c in browser.find_elements(By.TAG_NAME, "caption")]
    assert any(c.startswith("MWEAT (Zhou et al. 2019") for c in captions)
    assert any(c.startswith("Most biased pairs") for c in captions)
    pairs = next(t for t in tables if t.find_elements(By.TAG_NAME, "caption")
                 and t.find_element(By.TAG_NAME, "caption").text.startswith("Most biased pairs"))
    assert len(pairs.find_elements(By.CSS_SELECTOR, "tbody tr")) >= 5
    imgs = browser.find_elements(By.CSS_SELECTOR, "img.plot")
    assert imgs, "the report shows a plot"
    # the plot really decoded and laid out: the browser knows its pixel size
    width = browser.execute_script("return arguments[0].naturalWidth", imgs[0])
    assert width > 300
    SCREENSHOT_DIR.mkdir(exist_ok=True)
    shot = SCREENSHOT_DIR / "service-report.png"
    assert browser.save_screenshot(str(shot))
    assert shot.stat().st_size > 10_000 and shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_docs_and_redoc_render_offline_in_chromium(browser, server_with_job):
    """/docs (Swagger UI) and /redoc (ReDoc) render their API pages from the package's own files:
    the browser is sent to them with every non-loopback host unreachable (a proxy that does not
    exist), so a CDN asset could not load; the rendered page must still show the API."""
    pytest.importorskip("fastapi_offline", reason="fastapi-offline is not installed (serve extra)")
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    srv, _ = server_with_job
    browser.execute_cdp_cmd("Network.enable", {})
    browser.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*://cdn.jsdelivr.net/*", "*://unpkg.com/*",
                                                                 "*://fonts.googleapis.com/*", "https://*"]})
    try:
        browser.get(srv.url + "/docs")
        WebDriverWait(browser, 60).until(ec.presence_of_element_located((By.CSS_SELECTOR, ".swagger-ui .info .title")))
        assert "geobias" in browser.find_element(By.CSS_SELECTOR, ".swagger-ui .info .title").text
        assert browser.find_elements(By.CSS_SELECTOR, ".opblock"), "Swagger UI lists the operations"
        SCREENSHOT_DIR.mkdir(exist_ok=True)
        browser.save_screenshot(str(SCREENSHOT_DIR / "docs-offline.png"))
        browser.get(srv.url + "/redoc")
        WebDriverWait(browser, 60).until(lambda d: "POST" in d.find_element(By.TAG_NAME, "body").text.upper()
                                         and "geobias" in d.find_element(By.TAG_NAME, "body").text)
    finally:
        browser.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})
