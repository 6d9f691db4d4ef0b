"""Headless Debian Chromium through Selenium and the system chromedriver, for the browser tests.

A test harness, not library code: tests import it as ``from _browser import chromium`` (pytest
puts ``tests/`` on ``sys.path``). Skips with the reason where no browser is installed (`.ci/run`
installs `chromium` and `chromium-driver` with apt)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")


def chromium(tmp_path_factory, *, height: int = 2000) -> Iterator:
    """Yield a headless Chromium WebDriver (window 1280 × ``height``), quit afterwards; skip the
    test when Chromium or chromedriver is missing."""
    if not CHROMIUM or not DRIVER:
        pytest.skip("no headless browser: install Debian's chromium and chromium-driver "
                    "(apt-get install -y chromium chromium-driver; .ci/run does this)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--no-first-run", f"--window-size=1280,{height}",
                 f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}"):
        opts.add_argument(flag)
    driver = webdriver.Chrome(options=opts, service=Service(executable_path=DRIVER))
    driver.set_page_load_timeout(120)
    driver.set_script_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()
