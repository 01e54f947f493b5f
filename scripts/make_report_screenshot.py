"""Draw the README's screenshot of the HTML report: docs/report-screenshot.png.

The page is built from the bundled demo corpus (src/ek/data/demo_ocr.jsonl) scored with
CER, and photographed in Debian's headless Chromium through Selenium and chromedriver
(``apt-get install chromium chromium-driver``; no browser is downloaded). The intervals
are the report's own (`ek.Report.interval`).

    python scripts/make_report_screenshot.py [OUT.png]

`open_chromium` and `demo_evaluate_data` are also used by tests/test_html.py and
benchmarks/bench_html.py.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from importlib import resources
from pathlib import Path

import ek
from ek._align import align
from ek._html import render_evaluate, write_page

OUT = Path(__file__).resolve().parents[1] / "docs" / "report-screenshot.png"
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync")


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
        raise RuntimeError("chromium and chromedriver are not installed; "
                           "run: apt-get install -y chromium chromium-driver")
    opts = webdriver.ChromeOptions()
    opts.binary_location = paths[0]
    for flag in CHROMIUM_FLAGS + (f"--user-data-dir={profile_dir}", f"--window-size={size}"):
        opts.add_argument(flag)
    if logs:
        opts.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    # An explicit driver path: Selenium Manager never looks for (or fetches) a browser.
    return webdriver.Chrome(service=Service(executable_path=paths[1]), options=opts)


def demo_evaluate_data() -> dict:
    """The evaluate page data for the demo corpus, as ``ek evaluate --html`` builds it."""
    text = (resources.files("ek") / "data" / "demo_ocr.jsonl").read_text(encoding="utf-8")
    rows = [json.loads(line) for line in text.splitlines() if line.strip()]
    report = ek.evaluate([(r["prediction"], r["gold"], r["slice"]) for r in rows], metric="cer",
                         ids=[r["id"] for r in rows])
    items = []
    for row, score in zip(rows, report.scores):
        items.append({"id": row["id"], "slice": row["slice"], "value": score.value, "gold": row["gold"],
                      "pred": row["prediction"], "ops": align(row["prediction"], row["gold"], unit="char"),
                      "unit": "char", "statistics": {k: score.detail[k] for k in ("edits", "ref_len")}})
    per_slice = {label: {"aggregate": value, "interval": list(report.interval(slice=label)),
                         "n": report.detail["slice_n"][label]} for label, value in sorted(report.per_slice.items())}
    return {"title": "ek evaluate: demo OCR corpus", "metric": "cer", "higher_is_better": False,
            "aggregate": report.aggregate, "interval": list(report.interval()), "level": 0.95, "n": report.n,
            "missing": [], "extra": [], "per_slice": per_slice, "items": items}


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
