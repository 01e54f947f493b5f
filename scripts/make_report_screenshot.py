"""Draw the README's screenshot of the HTML report: docs/report-screenshot.png.

The page is built from the bundled demo corpus (src/ek/data/demo_ocr.jsonl) scored with
CER, and photographed in Debian's headless Chromium through Selenium and chromedriver
(``apt-get install chromium chromium-driver``; no browser is downloaded). The page data is
built by the code behind ``ek evaluate --html``, intervals included.

    python scripts/make_report_screenshot.py [OUT.png]

`open_chromium` and `demo_evaluate_data` are also used by tests/test_html.py and
benchmarks/bench_html.py.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from importlib import resources
from pathlib import Path

from ek.cli._commands._inputs import Options, bound, read_gold, read_joined, score
from ek.cli._commands._pages import evaluate_page
from ek.cli._html import render_evaluate, write_page

OUT = Path(__file__).resolve().parents[1] / "docs" / "report-screenshot.png"
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


def chromium_paths() -> tuple[str, str] | None:
    """``(chromium, chromedriver)`` from the system, or None when either is missing."""
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    return (browser, driver) if browser and driver else None


def open_chromium(profile_dir: str, *, size: str = "1280,1600", logs: bool = False):
    """A headless Chromium under Selenium, started from the system's binaries only."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    paths = chromium_paths()
    if paths is None:
        raise RuntimeError(
            "chromium and chromedriver are not installed; run: apt-get install -y chromium chromium-driver"
        )
    opts = webdriver.ChromeOptions()
    opts.binary_location = paths[0]
    for flag in CHROMIUM_FLAGS + (f"--user-data-dir={profile_dir}", f"--window-size={size}"):
        opts.add_argument(flag)
    if logs:
        opts.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    # An explicit driver path: Selenium Manager never looks for (or fetches) a browser.
    return webdriver.Chrome(service=Service(executable_path=paths[1]), options=opts)


def demo_evaluate_data() -> dict:
    """The evaluate page data for the demo corpus: what ``ek evaluate GOLD PRED --html`` renders."""
    corpus = str(resources.files("ek") / "data" / "demo_ocr.jsonl")
    options = Options(metric="cer")
    scored = score(read_joined(read_gold(corpus, options), corpus, options), options, name="demo_ocr.jsonl")
    overall, per_slice = bound(scored.report, options.level, label="screenshot")
    data = evaluate_page(scored, overall, per_slice, options)
    data["title"] = "ek evaluate: demo OCR corpus"
    return data


def main(out: Path = OUT) -> Path:
    with tempfile.TemporaryDirectory() as tmp:
        page = write_page(Path(tmp) / "report.html", render_evaluate(demo_evaluate_data(), max_items=40))
        driver = open_chromium(str(Path(tmp) / "profile"), size="1200,1500")
        try:
            driver.get(page.as_uri())
            out.parent.mkdir(parents=True, exist_ok=True)
            driver.save_screenshot(str(out))
        finally:
            driver.quit()
    return out


if __name__ == "__main__":
    print(main(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT))
