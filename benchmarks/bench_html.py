"""The HTML report's size and speed (issue 12).

Goals: the evaluate page for 10,000 items is under 5 MB and renders in under 2 s in
headless Chromium (Debian's chromium + chromium-driver; skipped when absent); building the page for 100,000 items takes under 5 s. The baseline is
``json.dumps`` of the same data (the bare cost of writing the data out), timed in the
same process; the ratio says what the page costs on top of that.

    python benchmarks/bench_html.py
"""

from __future__ import annotations

import json
import random
import string
import sys
import tempfile
import time
from pathlib import Path

from ek._align import align
from ek.cli._html import render_compare, render_evaluate, write_page

SLICES = ["invoice", "receipt", "letter", "form", "table", "handwriting", "fax", "photo"]


def noisy(text: str, rng: random.Random, rate: float) -> str:
    out = []
    for ch in text:
        r = rng.random()
        if r < rate / 3:
            continue
        out.append(rng.choice(string.ascii_lowercase) if r < 2 * rate / 3 else ch)
        if r < rate:
            out.append(rng.choice(string.ascii_lowercase))
    return "".join(out)


def make_items(n: int, seed: int = 0) -> list[dict]:
    rng = random.Random(seed)
    words = ["".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(2, 9))) for _ in range(2000)]
    items = []
    for i in range(n):
        gold = " ".join(rng.choice(words) for _ in range(10))[:60]
        pred = noisy(gold, rng, rng.choice([0.0, 0.01, 0.03, 0.1]))
        ops = align(pred, gold, unit="char")
        edits = sum(max(len(g), len(p)) for tag, g, p in ops if tag != "equal")
        items.append(
            {
                "id": f"doc-{i:06d}",
                "slice": SLICES[i % len(SLICES)],
                "value": edits / len(gold),
                "gold": gold,
                "pred": pred,
                "ops": ops,
                "unit": "char",
                "statistics": {"edits": edits, "ref_len": len(gold)},
            }
        )
    return items


def evaluate_data(items: list[dict]) -> dict:
    edits = sum(it["statistics"]["edits"] for it in items)
    length = sum(it["statistics"]["ref_len"] for it in items)
    agg = edits / length
    per_slice = {}
    for s in SLICES:
        part = [it for it in items if it["slice"] == s]
        v = sum(it["statistics"]["edits"] for it in part) / sum(it["statistics"]["ref_len"] for it in part)
        per_slice[s] = {"aggregate": v, "interval": [v * 0.95, v * 1.05], "n": len(part)}
    return {
        "metric": "cer",
        "higher_is_better": False,
        "aggregate": agg,
        "interval": [agg * 0.97, agg * 1.03],
        "level": 0.95,
        "n": len(items),
        "missing": ["doc-x1", "doc-x2"],
        "extra": ["stray-1"],
        "per_slice": per_slice,
        "items": items,
    }


def compare_data(items: list[dict]) -> dict:
    rng = random.Random(1)
    moved = [
        {
            "id": it["id"],
            "slice": it["slice"],
            "a": it["value"],
            "b": it["value"] + rng.choice([-0.05, 0, 0.05]),
            "gold": it["gold"],
            "pred_a": it["pred"],
            "pred_b": it["gold"],
            "unit": "char",
        }
        for it in items
    ]
    for m in moved:
        m["delta"] = m["b"] - m["a"]
    per = {
        s: {
            "a": 0.03,
            "b": 0.031,
            "delta": 0.001,
            "interval": [-0.002, 0.004],
            "p_value": 0.4,
            "verdict": "no detectable difference",
            "n": 10,
        }
        for s in SLICES
    }
    return {
        "metric": "cer",
        "higher_is_better": False,
        "level": 0.95,
        "n": len(items),
        "a": {"name": "base", "aggregate": 0.03, "interval": [0.029, 0.031]},
        "b": {"name": "new", "aggregate": 0.031, "interval": [0.03, 0.032]},
        "delta": 0.001,
        "interval": [-0.001, 0.003],
        "p_value": 0.31,
        "verdict": "no detectable difference",
        "per_slice": per,
        "items": moved,
    }


def best_of(fn, repeats: int = 3) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeats):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def browser_render_seconds(path: Path) -> float | None:
    """Navigation start to the end of the load event in headless Chromium (best of 3), or None."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
    from make_report_screenshot import chromium_paths, open_chromium

    try:
        import selenium  # noqa: F401
    except ImportError:
        return None
    if chromium_paths() is None:
        return None
    with tempfile.TemporaryDirectory() as profile:
        driver = open_chromium(profile)
        try:
            seconds = []
            for _ in range(3):
                driver.get(path.as_uri())
                seconds.append(
                    driver.execute_script(
                        "var t = performance.getEntriesByType('navigation')[0]; return t.loadEventEnd - t.startTime;"
                    )
                    / 1000
                )
            return min(seconds)
        finally:
            driver.quit()


def main() -> None:
    items = make_items(100_000)
    data100k = evaluate_data(items)
    t_json, _ = best_of(lambda: json.dumps(data100k))
    t_page, page = best_of(lambda: render_evaluate(data100k))
    print(
        f"evaluate page, 100,000 items: build {t_page:.2f} s (goal < 5 s); json.dumps of the data "
        f"{t_json:.2f} s; ratio {t_page / t_json:.1f}x; page {len(page.encode()) / 1e6:.2f} MB"
    )
    t_cmp, cmp_page = best_of(lambda: render_compare(compare_data(items)), repeats=1)
    print(f"compare page, 100,000 items: build {t_cmp:.2f} s (goal < 5 s); page {len(cmp_page.encode()) / 1e6:.2f} MB")
    data10k = evaluate_data(items[:10_000])
    with tempfile.TemporaryDirectory() as tmp:
        path = write_page(Path(tmp) / "report.html", render_evaluate(data10k))
        size = path.stat().st_size / 1e6
        seconds = browser_render_seconds(path)
    shown = "no headless Chromium here" if seconds is None else f"{seconds:.2f} s (goal < 2 s)"
    print(f"evaluate page, 10,000 items: {size:.2f} MB (goal < 5 MB); browser load {shown}")


if __name__ == "__main__":
    main()
