"""Gold and prediction files of real OCR pairs in the `real_data` fixture (tests/fixtures/real/README.md).

Paths are relative to the unpacked folder. ``REAL_PAIRS`` names every pair one file per side that ek
reads both sides of; tests take the ones they need by name.
"""

from __future__ import annotations

_ACTEVEDEF = "dinglehopper/actevedef_718448162/"
_KANT = "ocrd-assets/kant_aufklaerung_1784"
_TESS_FRK = "OCR-D-OCR-TESS-frk-SEG-LINE-tesseract-ocropy-DEWARP"
_KANT_TESS = f"{_KANT}-complex/{_TESS_FRK}/{_TESS_FRK}_"

REAL_PAIRS = {
    "actevedef-tesseract": (
        _ACTEVEDEF + "OCR-D-GT-PAGE/00000024.page.xml",
        _ACTEVEDEF + "OCR-D-OCR-TESS/OCR-D-OCR-TESS_0001.xml",
    ),
    "actevedef-calamari": (
        _ACTEVEDEF + "OCR-D-GT-PAGE/00000024.page.xml",
        _ACTEVEDEF + "OCR-D-OCR-CALAMARI/OCR-D-OCR-CALAMARI_0001.xml",
    ),
    "brochrnx": (
        "dinglehopper/brochrnx_73075507X/00000139.gt.page.xml",
        "dinglehopper/brochrnx_73075507X/00000139.ocrd-tess.ocr.page.xml",
    ),
    "lorem-ipsum": (
        "dinglehopper/lorem-ipsum/lorem-ipsum-scan.gt.page.xml",
        "dinglehopper/lorem-ipsum/lorem-ipsum-scan.ocr.tesseract.alto.xml",
    ),
    "lorem-ipsum-bad": (
        "dinglehopper/lorem-ipsum/lorem-ipsum-scan-bad.gt.page.xml",
        "dinglehopper/lorem-ipsum/lorem-ipsum-scan-bad.ocr.tesseract.alto.xml",
    ),
    "bigger-texts": (
        "dinglehopper/bigger-texts/00008228/00008228.gt.xml",
        "dinglehopper/bigger-texts/00008228/00008228-00236534.gt4hist.xml",
    ),
    "page2018-alto3": ("dinglehopper/test.page2018.xml", "dinglehopper/test.alto3.xml"),
    "alto1-alto2": ("dinglehopper/test.alto1.xml", "dinglehopper/test.alto2.xml"),
    "kant-word-gt-tesseract": (f"{_KANT}-binarized/OCR-D-GT-WORD/INPUT_0017.xml", _KANT_TESS + "0001.xml"),
    "kant-page-alto-0017": (f"{_KANT}/OCR-D-GT-PAGE/PAGE_0017_PAGE.xml", f"{_KANT}/OCR-D-GT-ALTO/PAGE_0017_ALTO.xml"),
    "kant-page-alto-0020": (f"{_KANT}/OCR-D-GT-PAGE/PAGE_0020_PAGE.xml", f"{_KANT}/OCR-D-GT-ALTO/PAGE_0020_ALTO.xml"),
    "kant-0017": (f"{_KANT}-complex/OCR-D-GT-PAGE/PAGE_0017_PAGE.xml", _KANT_TESS + "0001.xml"),
    "kant-0020": (f"{_KANT}-complex/OCR-D-GT-PAGE/PAGE_0020_PAGE.xml", _KANT_TESS + "0002.xml"),
}
