"""scripts/history site, looked at in a real browser (Chromium headless,
through Selenium): a history of 24 commits, two configurations, one of them
1% slower from commit 16 on. The index lists every configuration of the
history, the trend page shows the change point `history changes` reports for
the same data, every link and image resolves, and no page logs a JavaScript
error."""
import json
import shutil
import tempfile
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from test_analysis import script, write_set
from test_clock import ICOUNT

COMMITS = 24
STEP = 16


def grown_history(folder):
    """A store of COMMITS sets (commits c00, c01, ...), htab-lookup 1% lower
    from STEP on, lpm-trie-lookup flat; the store's URL."""
    db = f"sqlite:///{folder / 'h.sqlite'}"
    for i in range(COMMITS):
        env = dict(ICOUNT, kernel_release=f"7.2.13-c{i:02d}")
        value = 5.0 if i < STEP else 4.95
        sets = folder / "sets" / f"c{i:02d}"
        write_set(sets, "htab-lookup", [value, value * (1 + 1e-6)], env=env)
        write_set(sets, "lpm-trie-lookup", [2.0, 2.0 * (1 + 1e-6)], env=env)
        proc = script("history", "add", sets, "--commit", f"c{i:02d}", "--branch", "main",
                      "--time", f"2026-12-{1 + i // 12:02d}T{10 + i % 12:02d}:00:00+00:00",
                      "--db", db)
        assert proc.returncode == 0, proc.stderr
    return db


@pytest.fixture(scope="module")
def site():
    """The site of the grown history, and what history changes said of it."""
    folder = Path(tempfile.mkdtemp(prefix="mapbench-site-"))
    try:
        db = grown_history(folder)
        proc = script("history", "site", folder / "site", "--db", db)
        assert proc.returncode == 0, proc.stderr
        changes = json.loads(script("history", "changes", "--json", "--db", db).stdout)
        yield folder / "site", changes
    finally:
        shutil.rmtree(folder)


@pytest.fixture(scope="module")
def browser():
    webdriver = pytest.importorskip("selenium.webdriver")
    if not shutil.which("chromium") or not shutil.which("chromedriver"):
        pytest.skip("needs chromium and chromium-driver (make deps)")
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium")
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-component-update",
                 "--no-first-run", "--disable-sync"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    from selenium.webdriver.chrome.service import Service
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
    yield driver
    driver.quit()


def visit(browser, page):
    """The page loaded; the console's errors (none is wanted)."""
    browser.get(page.as_uri())
    return [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]


def by_css(browser, selector):
    from selenium.webdriver.common.by import By
    return browser.find_elements(By.CSS_SELECTOR, selector)


def test_the_index_lists_every_configuration_and_set(site, browser):
    folder, changes = site
    assert visit(browser, folder / "index.html") == []
    rows = [r.text for r in by_css(browser, "#benchmarks tr.series")]
    assert len(rows) == len(changes) == 2, rows
    assert any(r.startswith("htab-lookup") and "c16" in r and "REGRESSION" in r for r in rows), rows
    assert any(r.startswith("lpm-trie-lookup") and "stable: no change point" in r for r in rows)
    assert len(by_css(browser, "#sets tr")) == COMMITS + 1
    assert all(img.get_property("naturalWidth") > 0 for img in by_css(browser, "img.spark"))


def test_the_trend_page_shows_the_change_point_history_changes_reports(site, browser):
    folder, changes = site
    (point,) = next(c for c in changes if c["benchmark"] == "htab-lookup")["changes"]
    assert point["commit"] == f"c{STEP}"
    visit(browser, folder / "index.html")
    by_css(browser, "#benchmarks tr.series a")[0].click()
    assert "htab-lookup" in browser.title
    (row,) = [r.text for r in by_css(browser, "#changes tr.change")]
    assert point["commit"] in row and f"{point['delta_pct']:+.2f}%" in row and "REGRESSION" in row
    (chart,) = by_css(browser, "img.chart")
    assert chart.get_property("naturalWidth") > 0
    svg = folder / unquote(urlsplit(chart.get_attribute("src")).path).split(str(folder) + "/")[-1]
    assert f"{point['commit']} {point['delta_pct']:+.2f}% REGRESSION" in svg.read_text()
    assert "Higher is better: the chart draws" in browser.page_source


def test_every_link_resolves_and_no_page_logs_an_error(site, browser):
    folder, _ = site
    pages, seen = [folder / "index.html"], set()
    while pages:
        page = pages.pop()
        if page in seen:
            continue
        seen.add(page)
        assert visit(browser, page) == [], page
        for attr, selector in (("href", "a"), ("src", "img")):
            for element in by_css(browser, selector):
                target = Path(unquote(urlsplit(element.get_attribute(attr)).path))
                assert target.is_file(), (page, target)
                if target.suffix == ".html":
                    pages.append(target)
    # every set's page, the trend pages and the index
    assert len(seen) == COMMITS + 2 + 1
    gate = (folder / "set-17.html").read_text()
    assert "gate: FAIL, 1 regression(s)" in gate and "files/17/" in gate
