"""ek.ocr._fleet.engines and _engine_options: fleet specs, their options and errors, line mode, engine_state."""

from __future__ import annotations

import dataclasses
import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

import ek.ocr
from ek.ocr import EngineSpec, engine_specs, engine_state, fleet_engine
from ek.ocr._engine_options import check_options, engine_options, parse_engine
from ek.ocr._engines import check_engine


def _image(width, height, shade=255):
    from PIL import Image

    return Image.new("L", (width, height), shade)


class _Recorder:
    """Stands in for ocracy_backend: records the image size and the options of every read."""

    def __init__(self):
        self.bound, self.calls = [], []

    def __call__(self, engine_id, **options):
        self.bound.append((engine_id, options))

        def read(image, **kwargs):
            size = ek.ocr.bridge.open_image(image).size  # (width, height) of a PIL image, array, file or bytes
            self.calls.append((engine_id, tuple(size), {**options, **kwargs}))
            return type("Result", (), {"text": "x", "blocks": [], "mean_confidence": None})()

        read.backend = engine_id
        return read


@pytest.fixture
def recorder(monkeypatch):
    rec = _Recorder()
    monkeypatch.setattr("ek.ocr.bridge.ocracy_backend", rec)
    return rec


# --------------------------------------------------------------------------
# engine_specs: the forms a fleet is written in
# --------------------------------------------------------------------------


def test_ids_with_options_are_named_as_written_and_parsed():
    specs = engine_specs(["tesseract", " Tesseract : lang=deu, psm=6", "rapidocr:det=off,cls=yes"])
    assert [s.name for s in specs] == ["tesseract", "tesseract:lang=deu,psm=6", "rapidocr:det=off,cls=yes"]
    assert [s.engine for s in specs] == ["tesseract", "tesseract", "rapidocr"]
    assert [dict(s.options) for s in specs] == [{}, {"lang": "deu", "psm": 6}, {"det": False, "cls": True}]


def test_one_id_or_one_callable_is_a_fleet_of_one():
    def my_engine(image):
        return "text"

    assert engine_specs("rapidocr") == (EngineSpec("rapidocr", "rapidocr"),)
    assert engine_specs(my_engine) == (EngineSpec("my_engine", my_engine),)


def test_a_mapping_names_ids_callables_and_ids_with_options():
    def mine(image):
        return "text"

    specs = engine_specs(
        {
            "tess-deu": ("tesseract", {"lang": "deu", "psm": "7"}),
            "rapid": "rapidocr:det=false",
            "mine": mine,
            "tess": "TESSERACT",
        }
    )
    assert specs == (
        EngineSpec("tess-deu", "tesseract", {"lang": "deu", "psm": 7}),
        EngineSpec("rapid", "rapidocr", {"det": False}),
        EngineSpec("mine", mine),
        EngineSpec("tess", "tesseract"),
    )


def test_options_in_the_id_and_in_the_mapping_are_merged():
    (spec,) = engine_specs({"t": ("tesseract:psm=6", {"lang": "eng"})})
    assert dict(spec.options) == {"psm": 6, "lang": "eng"}


def test_a_callable_bound_by_ocracy_backend_is_named_by_its_backend():
    read = ek.ocr.ocracy_backend("tesseract") if check_engine("tesseract")["ok"] else None
    if read is None:
        pytest.skip(check_engine("tesseract")["hint"])
    assert engine_specs([read])[0].name == "tesseract"


def test_unknown_id_says_did_you_mean():
    with pytest.raises(KeyError, match=r"ocracy has no OCR engine 'rapidorc'\. Did you mean 'rapidocr'\?"):
        engine_specs(["tesseract", "rapidorc"])
    with pytest.raises(KeyError, match=r"no OCR engine 'tesserakt'\. Did you mean 'tesseract'\?"):
        engine_specs({"t": ("tesserakt", {"psm": 6})})


def test_an_option_the_engine_does_not_take_lists_the_ones_it_takes():
    with pytest.raises(
        ValueError,
        match=r"'tesseract' takes no option 'lnag'\. Did you mean 'lang'\? "
        r"The options it takes: lang \(.*\); psm \(.*\); oem \(.*\)\.",
    ):
        engine_specs("tesseract:lnag=deu")
    with pytest.raises(
        ValueError,
        match=r"'rapidocr' takes no option 'psm'\. The options it takes: det \(.*\); "
        r"cls \(.*\)\.$",
    ):
        engine_specs({"r": ("rapidocr", {"psm": 7})})


def test_other_ocracy_engines_take_their_ocracy_options():
    assert [o.name for o in engine_options("easyocr")] == ["gpu", "languages"]
    assert check_options("easyocr", {"languages": "en"}) == {"languages": "en"}  # passed on as given
    with pytest.raises(ValueError, match=r"'easyocr' takes no option 'psm'\. The options it takes: gpu .*; languages"):
        engine_specs("easyocr:psm=7")
    with pytest.raises(ValueError, match=r"'pix2tex-latex-ocr' takes no option 'x'\. The options it takes: none\."):
        engine_specs("pix2tex-latex-ocr:x=1")


@pytest.mark.parametrize(
    "written, message",
    [
        ("tesseract:psm=14", r"option psm='14' of 'tesseract': it must be a whole number from 0 to 13"),
        ("tesseract:psm=six", r"option psm='six' of 'tesseract': it must be a whole number from 0 to 13"),
        ("tesseract:oem=-1", r"option oem='-1' of 'tesseract': it must be a whole number from 0 to 3"),
        (
            "tesseract:lang=eng deu",
            (
                r"option lang='eng deu' of 'tesseract': Tesseract's lang is one language model or "
                r"several joined by '\+'"
            ),
        ),
        (
            "rapidocr:det=maybe",
            r"option det='maybe' of 'rapidocr': it must be true or false \(also yes/no, on/off, 1/0\)",
        ),
    ],
)
def test_bad_option_values(written, message):
    with pytest.raises(ValueError, match=message):
        engine_specs(written)


@pytest.mark.parametrize(
    "value, parsed",
    [(True, True), ("ON", True), ("1", True), (1, True), (False, False), ("No", False), ("0", False), (0, False)],
)
def test_boolean_spellings(value, parsed):
    assert check_options("rapidocr", {"det": value}) == {"det": parsed}


def test_python_values_are_checked_like_written_ones():
    assert check_options("tesseract", {"psm": 7, "oem": "1"}) == {"psm": 7, "oem": 1}
    for bad in (True, 7.0, None):
        with pytest.raises(ValueError, match="whole number from 0 to 13"):
            check_options("tesseract", {"psm": bad})
    with pytest.raises(TypeError, match=r"the options of 'tesseract' must be a mapping name -> value, got list"):
        check_options("tesseract", ["psm", 7])


@pytest.mark.parametrize(
    "written, message",
    [
        (
            "tesseract:psm",
            (
                r"engine 'tesseract:psm': 'psm' is not name=value; write the options as "
                r"'tesseract:name=value,name=value'"
            ),
        ),
        ("tesseract:", r"engine 'tesseract:': '' is not name=value"),
        ("tesseract:psm=6,", r"engine 'tesseract:psm=6,': '' is not name=value"),
        ("tesseract:=6", r"'=6' is not name=value"),
        (":psm=6", r"engine ':psm=6' names no engine before ':'"),
        ("tesseract:psm=6,psm=7", r"engine 'tesseract:psm=6,psm=7' gives the option 'psm' twice; keep one"),
    ],
)
def test_malformed_command_line_engines(written, message):
    with pytest.raises(ValueError, match=message):
        engine_specs(written)


def test_the_same_option_in_the_id_and_the_mapping_is_refused():
    with pytest.raises(
        ValueError,
        match=r"engine 't' gives the option 'psm' twice \(in 'tesseract:psm=6' and in its "
        r"options\); keep one",
    ):
        engine_specs({"t": ("tesseract:psm=6", {"psm": 7})})


def test_duplicate_names_are_refused_with_the_fix():
    with pytest.raises(
        ValueError,
        match=r"two engines named 'tesseract' \(entries 0 and 2\); reports need one name per "
        r"engine: pass a mapping name -> engine",
    ):
        engine_specs(["tesseract", "rapidocr", "TESSERACT"])
    with pytest.raises(ValueError, match=r"two engines named '<lambda>' \(entries 0 and 1\)"):
        engine_specs([lambda image: "a", lambda image: "b"])


def test_no_engines():
    for empty in ([], (), {}):
        with pytest.raises(ValueError, match=r"engine_specs\(\) got no engines; name at least one, e\.g\. 'tesseract'"):
            engine_specs(empty)


def test_values_that_are_no_engine():
    with pytest.raises(
        TypeError,
        match=r"engine_specs\(\) takes an engine id, a callable, a sequence of those or a "
        r"mapping name -> engine, got int",
    ):
        engine_specs(42)
    with pytest.raises(TypeError, match=r"engine entry 1 is int; each engine is an ocracy id such as 'tesseract'"):
        engine_specs(["tesseract", 3])
    with pytest.raises(TypeError, match=r"engine names must be strings, got int 1"):
        engine_specs({1: "tesseract"})
    with pytest.raises(
        ValueError,
        match=r"engine 'mine': options are for ocracy engines; bind them into your "
        r"callable instead \(functools\.partial",
    ):
        engine_specs({"mine": (lambda image: "a", {"psm": 7})})


# --------------------------------------------------------------------------
# EngineSpec: a value
# --------------------------------------------------------------------------


def test_engine_spec_is_a_frozen_value_with_read_only_options():
    options = {"psm": 6}
    spec = EngineSpec("t", "tesseract", options)
    options["psm"] = 7  # the caller's dict is copied
    assert spec.options["psm"] == 6
    with pytest.raises(TypeError):
        spec.options["psm"] = 7
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.name = "u"
    assert spec == EngineSpec("t", "tesseract", {"psm": 6}) != EngineSpec("t", "tesseract", {"psm": 7})
    assert hash(spec) == hash(EngineSpec("t", "tesseract", {"psm": 7}))  # options are not hashed
    assert EngineSpec.__module__ == "ek.ocr"
    assert pickle.loads(pickle.dumps(spec)) == spec


def test_engine_spec_refuses_bad_fields():
    with pytest.raises(ValueError, match=r"EngineSpec name must be a non-empty string, got ' '; it names the engine"):
        EngineSpec(" ", "tesseract")
    with pytest.raises(
        TypeError,
        match=r"EngineSpec 'x': engine must be an ocracy id such as 'tesseract' or an "
        r"image -> OcrResult callable, got int",
    ):
        EngineSpec("x", 3)
    with pytest.raises(TypeError, match=r"EngineSpec 'x': options must be a mapping name -> value, got list"):
        EngineSpec("x", "tesseract", ["psm"])
    with pytest.raises(ValueError, match=r"EngineSpec 'x': options are for ocracy engines"):
        EngineSpec("x", print, {"psm": 7})


def test_specs_given_in_a_sequence_are_checked():
    assert engine_specs([EngineSpec("a", "Tesseract", {"psm": "6"})]) == (EngineSpec("a", "tesseract", {"psm": 6}),)
    with pytest.raises(ValueError, match="'tesseract' takes no option 'dpi'"):
        engine_specs([EngineSpec("a", "tesseract", {"dpi": 300})])


@given(
    st.lists(
        st.sampled_from(
            [
                "tesseract",
                "rapidocr",
                "tesseract:psm=6",
                "tesseract:lang=eng",
                "rapidocr:det=false",
                "tesseract:psm=7,oem=1",
            ]
        ),
        min_size=1,
        max_size=6,
    )
)
def test_names_are_unique_or_refused(entries):
    if len(set(entries)) < len(entries):
        with pytest.raises(ValueError, match="two engines named"):
            engine_specs(entries)
    else:
        specs = engine_specs(entries)
        assert [s.name for s in specs] == entries  # already canonical: named as written
        assert engine_specs({s.name: s.name for s in specs}) == specs


def test_parse_engine():
    assert parse_engine("tesseract") == ("tesseract", {})
    assert parse_engine("tesseract:lang=eng+deu , psm = 6") == ("tesseract", {"lang": "eng+deu", "psm": "6"})


# --------------------------------------------------------------------------
# fleet_engine: line mode chosen as documented
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "engine, size, kind, expected",
    [
        ("tesseract", (600, 40), None, {"psm": 7}),  # a line by its shape
        ("tesseract", (480, 160), None, {"psm": 7}),  # 160 high and 3 times as wide: still a line
        ("tesseract", (479, 160), None, {}),  # not 3 times as wide: a page
        ("tesseract", (800, 161), None, {}),  # over 160 high: a page
        ("tesseract", (600, 40), "page", {}),  # the record's kind wins over the shape
        ("tesseract", (800, 1000), "line", {"psm": 7}),
        ("rapidocr", (600, 40), None, {"det": False}),
        ("rapidocr", (800, 1000), None, {}),
    ],
)
def test_lines_go_to_the_engines_line_mode(recorder, engine, size, kind, expected):
    read = fleet_engine(engine_specs(engine)[0])
    read(_image(*size), kind=kind)
    assert recorder.calls == [(engine, size, expected)]


@pytest.mark.parametrize(
    "written, line_options",
    [
        ("tesseract:psm=6", {"psm": 6}),  # the spec chose the segmentation: the line is padded instead
        ("rapidocr:det=true", {"det": True}),
        ("easyocr", {}),  # no line mode: padded
    ],
)
def test_lines_are_padded_when_the_engine_has_no_line_mode_or_the_spec_sets_it(recorder, written, line_options):
    read = fleet_engine(engine_specs(written)[0])
    read(_image(600, 40))
    read(_image(600, 400))
    engine = written.split(":")[0]
    # 600 x 40: a margin of (600 // 3 - 40) // 2 = 80 on each side; the page is read as it is
    assert recorder.calls == [(engine, (760, 200), line_options), (engine, (600, 400), line_options)]


def test_the_line_rule_reads_files_and_bytes_by_their_header(recorder, tmp_path):
    path = tmp_path / "line.png"
    _image(700, 45).save(path)
    read = fleet_engine(engine_specs("tesseract")[0])
    read(path)
    read(str(path))
    read(path.read_bytes())
    assert [c[2] for c in recorder.calls] == [{"psm": 7}] * 3


def test_the_line_rule_reads_arrays_by_their_shape(recorder):
    import numpy as np

    read = fleet_engine(engine_specs("rapidocr")[0])
    read(np.full((40, 600, 3), 255, dtype=np.uint8))
    read(np.full((400, 600), 255, dtype=np.uint8))
    assert [c[2] for c in recorder.calls] == [{"det": False}, {}]


def test_a_bad_kind_is_refused(recorder):
    read = fleet_engine(engine_specs("tesseract")[0])
    with pytest.raises(
        ValueError,
        match=r"kind must be 'line', 'page' or None \(decided by the image's shape\), got "
        r"'paragraph'; check the gold record's 'kind' field",
    ):
        read(_image(600, 40), kind="paragraph")


def test_the_reader_says_what_it_runs(recorder):
    spec = engine_specs("tesseract:psm=6,oem=1")[0]
    read = fleet_engine(spec)
    assert (read.backend, read.options, read.spec, read.__name__) == (
        "tesseract",
        {"psm": 6, "oem": 1},
        spec,
        "fleet_tesseract",
    )
    assert recorder.bound == [("tesseract", {"psm": 6, "oem": 1})]


def test_a_callable_gets_every_image_as_it_is():
    seen = []

    def mine(image):
        seen.append(image.size)
        return "text"

    read = fleet_engine(EngineSpec("mine", mine))
    assert read(_image(600, 40)) == "text" and read(_image(600, 40), kind="line") == "text"
    assert seen == [(600, 40), (600, 40)]
    assert read.backend == "mine" and read.spec.engine is mine
    with pytest.raises(ValueError, match="kind must be 'line', 'page' or None"):
        read(_image(600, 40), kind="word")


def test_a_spec_built_by_hand_is_checked_when_bound(recorder):
    with pytest.raises(ValueError, match="'rapidocr' takes no option 'psm'"):
        fleet_engine(EngineSpec("r", "rapidocr", {"psm": 7}))
    with pytest.raises(KeyError, match="Did you mean 'tesseract'"):
        fleet_engine(EngineSpec("t", "tesseract5"))
    with pytest.raises(TypeError, match=r"fleet_engine\(\) takes an EngineSpec \(see engine_specs\(\)\), got str"):
        fleet_engine("tesseract")
    read = fleet_engine(EngineSpec("t", "Tesseract", {"psm": "11"}))
    assert recorder.bound == [("tesseract", {"psm": 11})]
    assert read.options == {"psm": 11}


def test_a_missing_image_is_named_before_the_engine_runs(recorder, tmp_path):
    read = fleet_engine(engine_specs("tesseract")[0])
    with pytest.raises(FileNotFoundError, match=r"image file '.*nope\.png' does not exist"):
        read(tmp_path / "nope.png")
    (tmp_path / "junk.png").write_text("not a picture")
    with pytest.raises(ValueError, match=r"image file '.*junk\.png' could not be decoded as an image"):
        read(tmp_path / "junk.png")
    with pytest.raises(ValueError, match=r"the 3 image bytes could not be decoded as an image"):
        read(b"abc")
    assert recorder.calls == []


def test_an_engine_that_cannot_run_here_fails_when_bound_with_the_fix(monkeypatch):
    monkeypatch.setattr("ek.ocr._engines.is_installed", lambda name: name != "rapidocr_onnxruntime")
    with pytest.raises(ImportError, match=r"'rapidocr' is not ready: .*Run: pip install \"ek\[rapidocr\]\""):
        fleet_engine(engine_specs("rapidocr")[0])


def test_a_tesseract_language_that_is_not_installed_is_named_with_its_package(monkeypatch, recorder):
    pytesseract = pytest.importorskip("pytesseract")
    monkeypatch.setattr(pytesseract, "get_languages", lambda config="": ["eng", "osd"])
    with pytest.raises(
        ValueError,
        match=r"Tesseract has no 'deu' or 'chi_sim' language model here \(installed: eng, "
        r"osd\); install it \(apt-get install -y tesseract-ocr-deu "
        r"tesseract-ocr-chi-sim\) or pick an installed one",
    ):
        fleet_engine(engine_specs("tesseract:lang=eng+deu+chi_sim")[0])
    fleet_engine(engine_specs("tesseract:lang=eng")[0])
    assert recorder.bound == [("tesseract", {"lang": "eng"})]


# --------------------------------------------------------------------------
# engine_state: ek check's verdict
# --------------------------------------------------------------------------


@pytest.mark.parametrize("engine", ["tesseract", "rapidocr", "tesserakt", "gpt-4o-vision", "easyocr", "mathpix"])
def test_engine_state_is_ek_checks_state(engine):
    assert engine_state(engine) == check_engine(engine)["state"]


@pytest.mark.needs("ocracy")
def test_engine_state_of_known_cases(monkeypatch):
    assert engine_state("tesserakt") == "unknown"
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    if check_engine("gpt-4o-vision")["package"]:
        assert engine_state("gpt-4o-vision") == "installed, not configured"
    monkeypatch.setattr(
        "ek.ocr._engines.is_installed", lambda name: name not in ("rapidocr_onnxruntime", "onnxruntime")
    )
    assert engine_state("rapidocr") == "not installed"


def test_engine_state_needs_an_id():
    with pytest.raises(ValueError, match="empty engine id"):
        engine_state("")
    with pytest.raises(TypeError, match="takes an engine id such as 'tesseract', got int"):
        engine_state(1)
