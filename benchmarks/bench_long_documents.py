"""Long documents are scored in time near-linear in their length (issue 31, items 1 and 2).

Every case is scored by ``ek.ocr.evaluate_files`` on two text files (CER, WER and the bag of
words, the default measures; FCA stays off above 20,000 characters), timed in CPU seconds in
this one process after a warm-up:

* pages of 60-character lines with 2% noise (drops, substitutions and insertions) at 100 kB,
  300 kB and 1 MB: the cost per character of each, as a ratio to the 100 kB case (goal: at
  most 1.5 at the larger sizes);
* one 5 MB line against itself with 3 characters changed (goal: at most 5 s);
* a 10 MB page with 2% noise (goal: at most 60 s; ``--quick`` leaves it out);
* the ``--html`` page of a 270,000-character page with 2% noise: ``ek evaluate`` with the page
  minus without it (goal: at most 3 s);
* the exact distance of a 3 MB page (1 MB with ``--quick``) block by block (`ek._stretch`)
  against the one band as wide as the anchored edits it replaced, side by side, figures compared;
* FCA on its own (``fca_max_chars=None``) at 30 kB, 100 kB and 300 kB, as a ratio per
  character to 30 kB (no goal: FCA is off on pages over 20,000 characters by default).

Each goal is printed with the ratio of the figure to it.

    python benchmarks/bench_long_documents.py [--quick]
"""

from __future__ import annotations

import contextlib
import io
import random
import string
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from ek.__main__ import main as ek_main
from ek.ocr.files import evaluate_files


def page(n_chars: int, seed: int = 0, width: int = 60) -> str:
    """Lines of words from a vocabulary of 3,000, ``n_chars`` long."""
    rng = random.Random(seed)
    words = ["".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(2, 9))) for _ in range(3000)]
    lines, total = [], 0
    while total < n_chars:
        line: list[str] = []
        while sum(map(len, line)) + len(line) < width:
            line.append(rng.choice(words))
        lines.append(" ".join(line))
        total += len(lines[-1]) + 1
    return "\n".join(lines)[:n_chars]


def noisy(text: str, rate: float = 0.02, seed: int = 5) -> str:
    """``text`` with about ``rate`` of its characters dropped, replaced or followed by an insertion."""
    rng = random.Random(seed)
    out = []
    for ch in text:
        r = rng.random()
        if r < rate / 3 and ch != "\n":
            continue
        out.append(rng.choice(string.ascii_lowercase) if r < 2 * rate / 3 and ch != "\n" else ch)
        if r < rate:
            out.append(rng.choice(string.ascii_lowercase))
    return "".join(out)


def three_edits(text: str) -> str:
    n = len(text)
    return text[: n // 4] + "#" + text[n // 4 + 1 : n // 2] + text[n // 2 + 1 : 3 * n // 4] + "%" + text[3 * n // 4 :]


def cpu(run: Callable[[], object]) -> float:
    start = time.process_time()
    run()
    return time.process_time() - start


def scored(folder: Path, gold: str, pred: str, **options: object) -> float:
    """CPU seconds of `evaluate_files` on ``gold`` and ``pred`` written to ``folder``."""
    folder.mkdir()
    (folder / "g.txt").write_text(gold, encoding="utf-8")
    (folder / "p.txt").write_text(pred, encoding="utf-8")
    return cpu(lambda: evaluate_files(folder / "g.txt", folder / "p.txt", **options))


def cli(args: list[str]) -> float:
    with contextlib.redirect_stdout(io.StringIO()):
        return cpu(lambda: ek_main(args))


def verdict(seconds: float, goal: float) -> str:
    """The time as a ratio to its goal, and whether it is met."""
    return f"x{seconds / goal:4.2f} of the goal  {'ok' if seconds <= goal else 'MISSED'}"


def pages(root: Path) -> None:
    print("pages with 2% noise: CPU s, and per character as a ratio to 100 kB (goal <= 1.5)")
    base = None
    for n in (100_000, 300_000, 1_000_000):
        gold = page(n)
        t = scored(root / f"page{n}", gold, noisy(gold))
        base = base or t / n
        ratio = t / n / base
        print(f"  {n // 1000:>5} kB  {t:6.2f} s  x{ratio:4.2f} per char  {verdict(ratio, 1.5)}")


def distance_against_one_band(n: int) -> None:
    """The exact distance of a noisy page block by block against one band as wide as the anchored edits."""
    from rapidfuzz.distance import Levenshtein

    from ek._align import distance, upper_bound

    gold = page(n)
    pred = noisy(gold)
    fast = cpu(lambda: distance(pred, gold))
    bound = upper_bound(pred, gold)
    band = cpu(lambda: Levenshtein.distance(pred, gold, score_hint=bound, score_cutoff=bound))
    same = distance(pred, gold) == Levenshtein.distance(pred, gold, score_hint=bound, score_cutoff=bound)
    print(
        f"exact distance of a {n // 1000} kB page: blocks {fast:.2f} s, one band (before) {band:.2f} s, "
        f"x{band / max(fast, 1e-9):.1f} faster, same figure: {same}"
    )


def html_page(root: Path) -> None:
    gold = page(270_000)
    folder = root / "html"
    folder.mkdir()
    (folder / "g.txt").write_text(gold, encoding="utf-8")
    (folder / "p.txt").write_text(noisy(gold), encoding="utf-8")
    plain = cli(["evaluate", str(folder / "g.txt"), str(folder / "p.txt")])
    with_page = cli(["evaluate", str(folder / "g.txt"), str(folder / "p.txt"), "--html", str(folder / "o.html")])
    print(f"--html of a 270k-character page: {with_page:.2f} s, {with_page - plain:.2f} s for the page (goal <= 3)")
    print(f"  {verdict(with_page, 3)}")


def fca(root: Path) -> None:
    print("FCA alone (fca_max_chars=None, measures=['fca']): CPU s, per character as a ratio to 30 kB")
    base = None
    for n in (30_000, 100_000, 300_000):
        gold = page(n)
        t = scored(root / f"fca{n}", gold, noisy(gold), measures=["fca"], fca_max_chars=None)
        base = base or t / n
        print(f"  {n // 1000:>5} kB  {t:6.2f} s  x{t / n / base:4.2f} per char")


def figures(quick: bool = False) -> list[dict[str, object]]:
    """The goals of `main` as rows for ``run_all.py`` (``quick``: the 1 MB page and 10 MB page left out)."""
    root = Path(tempfile.mkdtemp())
    scored(root / "warm", page(20_000), noisy(page(20_000)))  # imports and first calls
    rows: list[dict[str, object]] = []
    base = None
    for n in (100_000, 300_000) if quick else (100_000, 300_000, 1_000_000):
        gold = page(n)
        t = scored(root / f"page{n}", gold, noisy(gold))
        if base is None:
            base = t
            continue
        ratio = (t / n) / (base / 100_000)
        rows.append(
            {
                "work": f"long page {n // 1000} kB, CPU per char",
                "ek": t,
                "baseline": base * n / 100_000,
                "baseline_name": "100 kB page, per char",
                "ratio": ratio,
                "goal": "<= 1.5x",
                "pass": ratio <= 1.5,
            }
        )
    line = page(5_000_000).replace("\n", " ")
    t = scored(root / "line", line, three_edits(line))
    rows.append({"work": "one 5 MB line, 3 edits", "ek": t, "goal": "<= 5 s", "pass": t <= 5})
    if not quick:
        gold = page(10_000_000)
        t = scored(root / "page10m", gold, noisy(gold))
        rows.append({"work": "a 10 MB page, 2% noise", "ek": t, "goal": "<= 60 s", "pass": t <= 60})
    return rows


def main() -> None:
    quick = "--quick" in sys.argv
    root = Path(tempfile.mkdtemp())
    scored(root / "warm", page(20_000), noisy(page(20_000)))  # imports and first calls
    pages(root)
    line = page(5_000_000).replace("\n", " ")
    t = scored(root / "line", line, three_edits(line))
    print(f"one 5 MB line, 3 edits: {t:.2f} s (goal <= 5)  {verdict(t, 5)}")
    if not quick:
        gold = page(10_000_000)
        t = scored(root / "page10m", gold, noisy(gold))
        print(f"a 10 MB page with 2% noise: {t:.1f} s (goal <= 60)  {verdict(t, 60)}")
    distance_against_one_band(1_000_000 if quick else 3_000_000)
    html_page(root)
    fca(root)


if __name__ == "__main__":
    main()
