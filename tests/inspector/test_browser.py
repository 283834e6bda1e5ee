"""The page in a real browser (Debian's chromium, headless, through the system chromedriver):
open a key of a real savepoint, expand a nested object, run a search, see the memory.

``INSPECTOR_SCREENSHOT=docs/img/inspector.png`` also writes the screenshot the docs show."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from flink_agents_memory.inspector import InspectorServer

webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is in the test extra")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support import expected_conditions as ec  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()),
                       reason="needs Debian's chromium and chromium-driver: make install-browser"),
]


@pytest.fixture(scope="module")
def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1400,1700"):
        options.add_argument(arg)
    # the system driver, explicitly: selenium never downloads a browser or a driver
    driver = webdriver.Chrome(service=webdriver.ChromeService(executable_path=CHROMEDRIVER),
                              options=options)
    yield driver
    driver.quit()


def wait_for(driver, css: str, timeout: float = 30):
    return WebDriverWait(driver, timeout).until(
        ec.visibility_of_element_located((By.CSS_SELECTOR, css)))


@pytest.mark.flink
def test_open_key_expand_search_and_audit(view, browser, tmp_path):
    server = InspectorServer(view).start()
    try:
        browser.get(server.url)
        wait_for(browser, "#keys li[data-key='bob']")
        assert "checkpoint" in browser.find_element(By.ID, "savepoint-meta").text

        browser.find_element(By.CSS_SELECTOR, "#keys li[data-key='alice']").click()
        profile = wait_for(browser, "#short-term details[data-path='profile'] > summary")
        profile.click()
        wait_for(browser, "details[data-path='profile.address'] > summary").click()
        city = wait_for(browser, "[data-path='profile.address.city']")
        assert "Lisbon" in city.text
        prefs = browser.find_element(By.CSS_SELECTOR, "details[data-path='profile.preferences']")
        assert "model inspector_agent:Preferences" in prefs.text

        browser.find_element(By.ID, "search-text").send_keys("allergic to peanuts")
        Select(browser.find_element(By.ID, "search-mode")).select_by_visible_text("vector")
        browser.find_element(By.ID, "search-button").click()
        first = wait_for(browser, "#search-results tr.memory")
        assert "I am allergic to peanuts" in first.text
        score = float(first.find_element(By.CSS_SELECTOR, ".score").text)
        assert 0 < score <= 1

        history = browser.find_element(By.CSS_SELECTOR, "[data-history='chat']")
        assert "max_items=3" in history.text and "I love green tea" in history.text

        row = next(r for r in browser.find_elements(By.CSS_SELECTOR, "#memories tr.memory")
                   if "brother" in r.text)
        row.find_element(By.CSS_SELECTOR, "a.memory-id").click()
        WebDriverWait(browser, 30).until(
            lambda d: "UPDATE" in d.find_element(By.ID, "audit").text)
        assert browser.find_element(By.ID, "error").text == ""
        wait_for(browser, "#subtasks table")

        browser.save_screenshot(str(tmp_path / "inspector.png"))
        target = os.environ.get("INSPECTOR_SCREENSHOT")
        if target:
            shutil.copyfile(tmp_path / "inspector.png", target)
    finally:
        server.stop()


def test_error_page_in_the_browser(browser):
    server = InspectorServer(None, "no savepoint at /tmp/x: it has no _metadata file").start()
    try:
        browser.get(server.url)
        assert "it has no _metadata file" in wait_for(browser, "#error").text
    finally:
        server.stop()
