"""OCR evaluation: benchmark OCR engines, read their capability profiles, recover tables.

OCR is the noisiest case of information extraction; this subpackage adds
what is specific to it on top of ek's source-agnostic core.

* `ocracy_backend` / `read_text`: bind an ocracy backend (Tesseract, cloud
  APIs, vision-language models) as an ``image -> OcrResult`` callable. ek
  depends on ocracy (the ``ocr`` extra), never the other way round, and reads
  only the result's shape: ``.text``, ``.blocks``, ``.mean_confidence``.
* `evaluate_ocr` / `add_gold_item`: run an engine over a gold corpus, score
  CER/WER as corpus rates, slice the report and persist gold, per-item
  results and the run's figures in the ek stores.
* `benchmark_fleet`: run a fleet of engines over one gold corpus and rank
  them, each paired with the best (`ek.compare`), with their speed, failures,
  confidence calibration and the ROVER consensus of the fleet (`FleetReport`).
* `evaluate_files`: score OCR output files (PAGE-XML, ALTO, hOCR, text;
  file against file or folder against folder) with CER/WER, flexible
  character accuracy and bag-of-words error, confusion tables and the
  calibration of word confidences; `ek.ocr.formats.read_document` reads
  one such file. `evaluate_workspace` ranks the OCR groups of an OCR-D
  workspace (its ``mets.xml``) against its ground-truth group, page by page.
* `engine_specs` / `fleet_engine` / `EngineSpec` / `engine_state`: name
  the engines of a fleet with their options (``"tesseract:lang=deu"``), bind
  each as a reader that sends line images to the engine's line mode, and say
  whether an engine can run here. RapidOCR runs with the models bundled in
  ``rapidocr_onnxruntime`` (the ``rapidocr`` extra), never downloading any.
* `profile`: what each engine claims to emit (confidence grain, real boxes,
  calibration, tables); priors for ek to check.
* `table_from_ocr` / `has_table_structure` / `resolve_table_parser` /
  `engine_yields_tables`: recover an `ek.metrics.tables.Table` from an OCR
  result so TEDS/GriTS can score it, with per-engine parsers registered in
  the ``"table_parsers"`` namespace.

Importing this package needs neither ocracy nor any engine; they are
checked when an engine is first bound.
"""

from ek._reading import ReadOptions
from ek._util import rehome
from ek.ocr._fleet.engines import EngineSpec, engine_specs, engine_state, fleet_engine
from ek.ocr.benchmark import (
    EngineResult,
    FleetReport,
    add_gold_item,
    benchmark_fleet,
    evaluate_ocr,
)
from ek.ocr.bridge import ocracy_backend, read_text
from ek.ocr.files import evaluate_files
from ek.ocr.profiles import profile
from ek.ocr.tables import (
    engine_yields_tables,
    has_table_structure,
    resolve_table_parser,
    table_from_ocr,
)
from ek.ocr.workspace import evaluate_workspace

__all__ = [
    "EngineResult",
    "EngineSpec",
    "FleetReport",
    "ReadOptions",
    "add_gold_item",
    "benchmark_fleet",
    "engine_specs",
    "engine_state",
    "engine_yields_tables",
    "evaluate_files",
    "evaluate_ocr",
    "evaluate_workspace",
    "fleet_engine",
    "has_table_structure",
    "ocracy_backend",
    "profile",
    "read_text",
    "resolve_table_parser",
    "table_from_ocr",
]

rehome(globals())  # the fleet's engine specs live in a private module
