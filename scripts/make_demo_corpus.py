"""Generate ek's bundled demo corpus: src/ek/data/demo_ocr.jsonl and demo_ocr_b.jsonl.

Each row of demo_ocr.jsonl is ``{"id", "prediction", "gold", "slice"}``: the
gold and the output of an OCR system A. demo_ocr_b.jsonl holds the output of
a second system B on the same gold, ``{"id", "prediction"}``, so that
``ek compare`` has two runs to tell apart. Gold lines are
invoice, receipt and letter text built from templates with seeded values.
Predictions pass the gold through a model of OCR noise:

* glyph confusions OCR engines are known for (rn->m, l->1, O->0, e->c, ...),
* random substitutions, deletions and insertions of single characters,
* merged words (a lost space) and split words (a spurious space).

Two slices: ``clean_print`` (about 1.5% character noise, like a 300 dpi
laser print) and ``degraded_scan`` (about 7%, like a faxed or photographed
page). System B draws from the same noise model, at the same level on clean
prints and a lower one (4%) on degraded scans: better where it matters,
indistinguishable elsewhere. The seeds are fixed, so running the script
again rebuilds the same files.

    python scripts/make_demo_corpus.py
"""

from __future__ import annotations

import json
import random
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "src" / "ek" / "data" / "demo_ocr.jsonl"
OUT_B = OUT.with_name("demo_ocr_b.jsonl")

CONFUSIONS = [
    ("rn", "m"),
    ("m", "rn"),
    ("l", "1"),
    ("1", "l"),
    ("O", "0"),
    ("0", "O"),
    ("e", "c"),
    ("c", "e"),
    ("S", "5"),
    ("5", "S"),
    ("B", "8"),
    ("I", "l"),
    ("cl", "d"),
    ("vv", "w"),
    ("h", "b"),
    (",", "."),
    (".", ","),
]
SLICES = {"clean_print": 0.015, "degraded_scan": 0.07}
SLICES_B = {"clean_print": 0.015, "degraded_scan": 0.04}

VENDORS = [
    "Acme Supplies Ltd",
    "Northwind Traders",
    "Blue Harbor Foods",
    "Kestrel Office Co",
    "Greenfield Hardware",
    "Marlowe & Sons",
    "Orchid Pharmacy",
    "Summit Logistics",
]
ITEMS = [
    "printer paper A4",
    "blue ballpoint pens",
    "stapler refill",
    "coffee beans 1kg",
    "cleaning spray",
    "USB-C cable",
    "desk lamp",
    "shipping boxes",
    "label roll",
    "toner cartridge",
]
CITIES = ["Boston", "Leeds", "Rotterdam", "Lyon", "Denver", "Glasgow", "Porto", "Oslo"]
TEMPLATES = [
    "INVOICE {n} issued by {vendor} on {date}",
    "{qty} x {item} at {price} each, total {total}",
    "Ship to: {num} Harbour Street, {city} {zip}",
    "Payment due within 30 days of {date}. Reference {n}.",
    "Subtotal {total}  VAT 20% {vat}  Amount due {due}",
    "Dear customer, thank you for your order of {qty} {item}.",
    "Receipt {n} - {vendor} - {city} - cashier 0{qty}",
    "Please quote account number {acct} on all correspondence.",
]


def gold_line(rng: random.Random) -> str:
    qty = rng.randint(1, 12)
    price = rng.randint(150, 9999) / 100
    total = qty * price
    return rng.choice(TEMPLATES).format(
        n=f"INV-{rng.randint(1000, 9999)}",
        vendor=rng.choice(VENDORS),
        date=f"{rng.randint(1, 28):02d}/{rng.randint(1, 12):02d}/2026",
        qty=qty,
        item=rng.choice(ITEMS),
        price=f"{price:.2f}",
        total=f"{total:.2f}",
        vat=f"{total * 0.2:.2f}",
        due=f"{total * 1.2:.2f}",
        num=rng.randint(1, 240),
        city=rng.choice(CITIES),
        zip=f"{rng.randint(10000, 99999)}",
        acct=f"{rng.randint(10**7, 10**8 - 1)}",
    )


def ocr_noise(text: str, rate: float, rng: random.Random) -> str:
    out, i = [], 0
    letters = "abcdefghijklmnopqrstuvwxyz0123456789"
    while i < len(text):
        r = rng.random()
        if r < rate * 0.35:
            for src, dst in CONFUSIONS:
                if text.startswith(src, i):
                    out.append(dst)
                    i += len(src)
                    break
            else:
                out.append(rng.choice(letters))
                i += 1
        elif r < rate * 0.55:
            i += 1  # dropped glyph
        elif r < rate * 0.7:
            out.append(text[i])
            out.append(rng.choice(letters))  # speck read as a glyph
            i += 1
        elif r < rate * 0.85 and text[i] == " ":
            i += 1  # merged words
        elif r < rate and text[i] != " ":
            out.append(text[i] + " ")  # split word
            i += 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def main() -> None:
    rng = random.Random(20261129)
    rows = []
    for slice_name, rate in SLICES.items():
        for k in range(40):
            gold = gold_line(rng)
            rows.append(
                {
                    "id": f"{slice_name}-{k:03d}",
                    "prediction": ocr_noise(gold, rate, rng),
                    "gold": gold,
                    "slice": slice_name,
                }
            )
    rng_b = random.Random(20261130)  # a stream of its own, so system A's file never changes
    rows_b = [{"id": r["id"], "prediction": ocr_noise(r["gold"], SLICES_B[r["slice"]], rng_b)} for r in rows]
    OUT.parent.mkdir(parents=True, exist_ok=True)
    for path, table in ((OUT, rows), (OUT_B, rows_b)):
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in table), encoding="utf-8")
        print(f"wrote {len(table)} rows to {path}")


if __name__ == "__main__":
    main()
