"""ek.ocr package surface: the spec's names, lazily re-exported by ek, and a light import."""

import subprocess
import sys

import ek
import ek.ocr

_SPEC_NAMES = {
    "ocracy_backend",
    "read_text",
    "evaluate_ocr",
    "add_gold_item",
    "profile",
    "table_from_ocr",
    "has_table_structure",
    "resolve_table_parser",
    "engine_yields_tables",
}
_EXTENSIONS = {"evaluate_files"}  # issue 14: OCR files scored without an engine run
_EXTENSIONS |= {"EngineSpec", "engine_specs", "engine_state", "fleet_engine"}  # issue 21: a fleet's engines
_EXTENSIONS |= {"benchmark_fleet", "FleetReport", "EngineResult"}  # issue 21: a fleet of engines over one gold corpus
_EXTENSIONS |= {"evaluate_workspace"}  # issue 29: the OCR groups of an OCR-D workspace ranked
_EXTENSIONS |= {"ReadOptions"}  # issue 32: the reading options of evaluate_files / evaluate_workspace as one value


def test_public_names_match_the_spec():
    assert set(ek.ocr.__all__) == _SPEC_NAMES | _EXTENSIONS
    for name in _SPEC_NAMES | _EXTENSIONS:
        assert callable(getattr(ek.ocr, name))


def test_top_level_lazy_exports_resolve_to_ek_ocr():
    for name in ("table_from_ocr", "has_table_structure", "resolve_table_parser", "engine_yields_tables"):
        assert getattr(ek, name) is getattr(ek.ocr, name)


def test_importing_ek_ocr_loads_no_engine_or_heavy_library():
    code = (
        "import sys, ek.ocr; heavy = ['ocracy', 'PIL', 'pytesseract', 'numpy', 'scipy', 'apted', "
        "'rapidocr_onnxruntime', 'onnxruntime', 'cv2']; "
        "print([m for m in heavy if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
