"""ek.ocr.bridge: binding ocracy backends, and the messages for bad images and engines."""

from __future__ import annotations

import sys

import ocracy  # the `ocr` extra: CI installs it, so a missing one fails loudly
import pytest

from ek.ocr.bridge import ocracy_backend, read_text
from ek.registry import MissingExtraError

requires_tesseract = pytest.mark.needs("tesseract")  # the program (tests/conftest.py: PROGRAMS)


class _EchoAdapter:
    """A fake ocracy adapter: decodes the image like real ones do, records the options."""

    calls: list = []

    def read(self, image, **kwargs):
        from ocracy.base import OcrResult, TextBlock
        from ocracy.util import to_pil

        size = to_pil(image).size
        _EchoAdapter.calls.append(kwargs)
        return OcrResult.from_blocks(
            [TextBlock("echo", confidence=0.5, level="word")], backend="ek-echo", text=f"{size[0]}x{size[1]}"
        )


class _NoTextAdapter:
    def read(self, image, **kwargs):
        return type("Odd", (), {"text": None})()


@pytest.fixture(scope="module", autouse=True)
def _fake_backends():
    ocracy.register_backend("ek-echo", {"id": "ek-echo", "name": "ek-echo"}, _EchoAdapter())
    ocracy.register_backend("ek-no-text", {"id": "ek-no-text", "name": "ek-no-text"}, _NoTextAdapter())
    ocracy.register_backend(
        "ek-not-installed",
        {
            "id": "ek-not-installed",
            "name": "ek-not-installed",
            "import_name": "ek_no_such_module_xyz",
            "pip_install": "ek-no-such-package",
        },
    )
    yield
    from ocracy import registry

    for name in ("ek-echo", "ek-no-text", "ek-not-installed"):
        registry._registry.pop(name, None)


@pytest.fixture
def png(tmp_path):
    from PIL import Image

    path = tmp_path / "page.png"
    Image.new("L", (40, 10), 255).save(path)
    return path


def test_bound_callable_reads_through_ocracy(png):
    read = ocracy_backend("ek-echo")
    assert read.backend == "ek-echo"
    assert read.__name__ == "ocracy_ek_echo"
    result = read(png)
    assert result.text == "40x10" and result.mean_confidence == 0.5


def test_default_kwargs_are_forwarded_and_call_kwargs_win(png):
    _EchoAdapter.calls.clear()
    read = ocracy_backend("ek-echo", languages=["en"], psm=6)
    read(str(png))
    read(str(png), psm=11)
    assert _EchoAdapter.calls == [{"languages": ["en"], "psm": 6}, {"languages": ["en"], "psm": 11}]


def test_underscore_spelling_is_accepted(png):
    assert ocracy_backend("EK_echo").backend == "ek-echo"


def test_read_text_returns_the_string(png):
    assert read_text(png, backend="ek-echo") == "40x10"


def test_read_text_refuses_a_result_without_text(png):
    with pytest.raises(TypeError, match=r"whose \.text is None, not a string"):
        read_text(png, backend="ek-no-text")


def test_unknown_engine_lists_the_known_ones():
    with pytest.raises(
        KeyError,
        match=r"ocracy has no OCR engine 'tesseract-5'.*Did you mean 'tesseract'\?"
        r".*Known engines: .*easyocr.*tesseract",
    ):
        ocracy_backend("tesseract-5")


def test_non_string_backend_is_a_type_error():
    with pytest.raises(TypeError, match="pass the callable straight to evaluate_ocr"):
        ocracy_backend(lambda image: "x")


def test_known_but_uninstalled_engine_says_what_to_install():
    with pytest.raises(
        ImportError, match=r"'ek-not-installed' is not ready: its Python package is not installed\. Run: pip install"
    ):
        ocracy_backend("ek-not-installed")


def test_missing_tesseract_binary_gives_the_system_install_line(monkeypatch):
    pytest.importorskip("pytesseract")
    monkeypatch.setattr("ek.ocr._engines.shutil.which", lambda name: None)
    with pytest.raises(
        ImportError,
        match=r"'tesseract' is not ready: the 'tesseract' program .* not on PATH\. Run: .*(apt-get|brew|choco) install",
    ):
        ocracy_backend("tesseract")


def test_without_ocracy_the_extra_is_named(monkeypatch):
    monkeypatch.setitem(sys.modules, "ocracy", None)
    with pytest.raises(MissingExtraError, match=r'pip install "ek\[ocr\]"'):
        ocracy_backend("tesseract")


def test_missing_image_file(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"image file '.*missing\.png' does not exist"):
        ocracy_backend("ek-echo")(tmp_path / "missing.png")


def test_directory_is_not_an_image(tmp_path):
    with pytest.raises(ValueError, match="is a directory; pass the path of one image file"):
        ocracy_backend("ek-echo")(tmp_path)


def test_unreadable_image_file(tmp_path):
    junk = tmp_path / "junk.png"
    junk.write_text("definitely not a PNG")
    with pytest.raises(ValueError, match=r"image file '.*junk\.png' could not be decoded as an image"):
        ocracy_backend("ek-echo")(junk)


def test_truncated_image_file(tmp_path, png):
    data = png.read_bytes()
    cut = tmp_path / "cut.png"
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match=r"image file '.*cut\.png' could not be decoded as an image"):
        ocracy_backend("ek-echo")(cut)


def test_unreadable_image_bytes():
    with pytest.raises(ValueError, match="the 5 image bytes could not be decoded as an image"):
        ocracy_backend("ek-echo")(b"hello")


@requires_tesseract
def test_real_tesseract_reads_a_rendered_line(tmp_path, render, fonts):
    path = tmp_path / "hello.png"
    render("Hello world 42", fonts[0], 32).save(path)
    assert read_text(path, backend="tesseract").strip() == "Hello world 42"
    result = ocracy_backend("tesseract")(path)
    assert [b.text for b in result.words] == ["Hello", "world", "42"]
    assert 0.5 < result.mean_confidence <= 1.0


@requires_tesseract
def test_no_backend_means_ocracys_default():
    assert ocracy_backend().backend == ocracy.get_default_backend()


def test_rapidocr_without_its_bundled_models_names_the_ek_extra(monkeypatch):
    monkeypatch.setattr("ek.ocr._engines.is_installed", lambda name: name != "rapidocr_onnxruntime")
    with pytest.raises(
        ImportError,
        match=r"^'rapidocr' is not ready: ek runs it with the PP-OCR models bundled in "
        r"rapidocr_onnxruntime .* Run: pip install \"ek\[rapidocr\]\"",
    ):
        ocracy_backend("rapidocr")


def test_rapidocr_is_read_by_eks_adapter_not_ocracys(monkeypatch):
    pytest.importorskip("rapidocr_onnxruntime", reason='pip install "ek[rapidocr]"')
    from ek.ocr import _rapidocr

    seen = []
    monkeypatch.setattr(_rapidocr.BundledRapidOcr, "_read", lambda self, image, **kw: seen.append(kw) or "read")
    monkeypatch.setattr(ocracy, "ocr", lambda *a, **kw: pytest.fail("ocracy's rapidocr adapter was used"))
    assert ocracy_backend("rapidocr", det=False)(b"\x89PNG") == "read"  # bytes: read by the adapter
    assert seen == [{"use_det": False}]  # det translated by ocracy's machinery to rapidocr's use_det


def test_open_image_reads_lazily_and_names_bad_images(tmp_path, png):
    from ek.ocr.bridge import open_image

    assert open_image(png).size == (40, 10) and open_image(png.read_bytes()).size == (40, 10)
    with pytest.raises(FileNotFoundError, match=r"image file '.*gone\.png' does not exist"):
        open_image(tmp_path / "gone.png")
    with pytest.raises(ValueError, match="is a directory; pass the path of one image file"):
        open_image(tmp_path)
    with pytest.raises(ValueError, match=r"the 5 image bytes could not be decoded as an image"):
        open_image(b"hello")
