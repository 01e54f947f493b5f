"""The fleet behind `ek.ocr.benchmark_fleet`: several OCR engines over one gold corpus, ranked.

One module per job, in the order a fleet run goes:

* `settings`: `FleetSettings`, the run's options as one value;
* `engines`: what a user writes as an engine, as named `EngineSpec`\\ s, each bound as a reader;
* `pages`: the gold corpus as `Page` records, the images checked, the task that reads one page;
* `schedule`: every engine's run, side by side on worker processes so no core idles;
* `versions`: what read the pages (engine versions and model files);
* `figures`: each engine's time per page, failures, confidence and calibration;
* `consensus`: the ROVER consensus of the engines' readings;
* `report`: `FleetReport`, the ranking and every engine paired with the best;
* `run`: `run_fleet`, the whole run.
"""
