"""Tests for ek._util: the shared P/R/F1, statistic sums, tables and optional imports."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ek._util import MissingExtraError, format_table, import_optional, prf, sum_detail
from ek.base import Score
from ek.metrics._columns import ScoreColumns


def test_prf_hand_worked():
    assert prf(2, 4, 5) == pytest.approx((0.5, 0.4, 2 * 0.5 * 0.4 / 0.9))
    assert prf(0, 0, 0) == (1.0, 1.0, 1.0)
    assert prf(0, 3, 3) == (0.0, 0.0, 0.0)


@given(st.integers(0, 50), st.integers(0, 50), st.integers(0, 50))
def test_prf_f1_is_dice(tp, fp, fn):
    p, r, f1 = prf(tp, tp + fp, tp + fn)
    if tp + fp + fn:
        assert f1 == pytest.approx(2 * tp / (2 * tp + fp + fn))
    assert 0.0 <= p <= 1.0 and 0.0 <= r <= 1.0


def test_sum_detail_columns_and_scores_agree():
    scores = [Score(0.5, detail={"a": 1, "b": 2}), Score(0.1, detail={"a": 3, "b": 4})]
    cols = ScoreColumns({"a": [1, 3], "b": [2, 4]}, lambda a, b: Score(0.0, detail={"a": a, "b": b}))
    assert sum_detail(scores, ("a", "b")) == sum_detail(cols, ("a", "b")) == {"a": 4, "b": 6}


def test_sum_detail_errors():
    with pytest.raises(ValueError, match="X.aggregate\\(\\) got no scores"):
        sum_detail([], ("a",), metric="X")
    with pytest.raises(ValueError, match="score 1 .* has no 'a'"):
        sum_detail([Score(0, detail={"a": 1}), Score(0, metric="wer")], ("a",))


def test_format_table():
    text = format_table(["slice", "CER"], [["a", 0.5], ["bb", None]])
    assert text.splitlines() == ["slice     CER", "-----  ------", "a      50.00%", "bb          -"]


def test_import_optional_hint():
    with pytest.raises(MissingExtraError, match=r'pip install "ek\[metrics\]"'):
        import_optional("no_such_module_for_ek", extra="metrics", feature="TEDS")
    assert import_optional("json", extra="x").dumps(1) == "1"


class _Stream:
    def __init__(self, tty):
        self.tty, self.text = tty, ""

    def isatty(self):
        return self.tty

    def write(self, s):
        self.text += s

    def flush(self):
        pass


def test_progress_draws_only_on_a_terminal(monkeypatch):
    from ek._util import Progress

    pipe = _Stream(False)
    monkeypatch.setattr("sys.stderr", pipe)
    bar = Progress(3, label="job")
    bar.tick()
    bar.close()
    assert pipe.text == ""

    tty = _Stream(True)
    monkeypatch.setattr("sys.stderr", tty)
    bar = Progress(4, label="job", unit="trials", reused=1)
    bar.tick()
    bar.tick(ok=False)
    bar.tick()
    bar.close()
    last = tty.text.rstrip("\n").split("\r")[-1]
    assert last.startswith("job |") and "4/4 trials 100%" in last
    assert "1 reused" in last and "1 failed" in last and tty.text.endswith("\n")


def test_progress_forced_on_and_off(monkeypatch):
    from ek._util import Progress, want_progress

    monkeypatch.setattr("sys.stderr", _Stream(True))
    assert want_progress(None) is True and want_progress(False) is False
    assert Progress(5, label="x", enabled=False).enabled is False
    assert Progress(0, label="x", enabled=True).enabled is False  # nothing to show
