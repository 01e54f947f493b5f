"""Draw the README's screenshot of the HTML report: docs/report-screenshot.png.

The page is built from the bundled demo corpus (src/ek/data/demo_ocr.jsonl) scored with
CER, and photographed in Debian's headless Chromium through Selenium and chromedriver
(``apt-get install chromium chromium-driver``; no browser is downloaded). The intervals
come from a seeded percentile bootstrap over documents, computed here.

    python scripts/make_report_screenshot.py [OUT.png]

`open_chromium` and `demo_evaluate_data` are also used by tests/test_html.py and
benchmarks/bench_html.py.
"""

from __future__ import annotations

import json
import random
import shutil
import sys
import tempfile
from importlib import resources
from pathlib import Path

import ek
from ek._html import align, render_evaluate, write_page

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


def _bootstrap(stats: list[tuple[int, int]], rng: random.Random, *, replicates: int = 1000) -> list[float]:
    """A 95% percentile interval of summed edits over summed length, resampling documents."""
    n, ratios = len(stats), []
    for _ in range(replicates):
        picks = [stats[rng.randrange(n)] for _ in range(n)]
        ratios.append(sum(e for e, _ in picks) / max(1, sum(r for _, r in picks)))
    ratios.sort()
    return [ratios[int(0.025 * replicates)], ratios[int(0.975 * replicates) - 1]]


def demo_evaluate_data() -> dict:
    """The evaluate page data for the demo corpus, as ``ek evaluate --html`` would build it."""
    text = (resources.files("ek") / "data" / "demo_ocr.jsonl").read_text(encoding="utf-8")
    rows = [json.loads(line) for line in text.splitlines() if line.strip()]
    rng = random.Random(0)
    items, by_slice = [], {}
    for row in rows:
        score = ek.score(row["prediction"], row["gold"], metric="cer")
        edits, ref_len = score.detail["edits"], score.detail["ref_len"]
        items.append({"id": row["id"], "slice": row["slice"], "value": score.value, "gold": row["gold"],
                      "pred": row["prediction"], "ops": align(row["gold"], row["prediction"], unit="char"),
                      "unit": "char", "statistics": {"edits": edits, "ref_len": ref_len}})
        by_slice.setdefault(row["slice"], []).append((edits, ref_len))
    every = [pair for pairs in by_slice.values() for pair in pairs]
    per_slice = {label: {"aggregate": sum(e for e, _ in s) / sum(r for _, r in s),
                         "interval": _bootstrap(s, rng), "n": len(s)} for label, s in sorted(by_slice.items())}
    return {"title": "ek evaluate: demo OCR corpus", "metric": "cer", "higher_is_better": False,
            "aggregate": sum(e for e, _ in every) / sum(r for _, r in every),
            "interval": _bootstrap(every, rng), "level": 0.95, "n": len(items), "missing": [], "extra": [],
            "per_slice": per_slice, "items": items}


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
