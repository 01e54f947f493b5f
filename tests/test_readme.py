"""Every ```python block in the README runs, in order, in one namespace, and its figures hold.

How a README comment states a figure, so that this test can compare it:

* On an expression line, the comment gives the expression's value as a
  Python literal (numbers, strings, tuples, dicts, True/False/None, or an
  enum member such as ``Decision.FLAG``), read from after the last `` = ``
  when there is one (the part before is a worked division such as
  ``5 edits / 13 chars``, checked too), else from the start of the comment,
  else from after a label and ``": "``; prose may follow the literal.
  ``# WER: 0.5``, ``# 1 edit / 11 chars = 0.0909``, ``# 0.333, {'easy': 0.0}``.
* A float is compared to the precision it is written with: ``0.3846`` means
  within 0.00005 of the value.
* A figure stated in prose (``costs 10x``, ``80% of the time``) has an entry
  in `PROSE` with its own check, run right after the statement it sits on.

A comment holding a digit that none of these rules covers fails the test,
so no new figure can enter the README unchecked.
"""

from __future__ import annotations

import ast
import io
import pathlib
import re
import shutil
import tokenize
from collections.abc import Mapping

import pytest

import ek

README = pathlib.Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.DOTALL)


def _my_agent_is_right_80_percent(ns):
    outputs = [ns["my_agent"](f"{i}*7", seed).output for i in range(20) for seed in range(500)]
    assert sum(out != "?" for out in outputs) / len(outputs) == pytest.approx(0.8, abs=0.012)  # 3 sd of 10,000 draws


def _conformal_gate_flags_at_most_10_percent(ns):
    decisions = [ns["gate"](ns["cal"](r)) for r, ok in zip(ns["raw"], ns["correct"]) if ok]
    assert sum(d == ek.Decision.FLAG for d in decisions) / len(decisions) <= 0.10


def _bipartite_scores_a_500_item_invoice(ns):
    items = [ek.TypedNode(f"l{k}", "line", {"sku": f"s{k}", "qty": str(k % 7)}) for k in range(500)]
    gold = ek.TypedGraph(
        [ek.TypedNode("inv", "invoice", {"total": "1"}), *items],
        [ek.TypedEdge("inv", f"l{k}", "has") for k in range(500)],
    )
    pred = ek.TypedGraph(gold.nodes[:-1], gold.edges[:-1])  # the last line item missed
    s = ek.TypedGraphMetric(method="bipartite")(pred, gold)
    assert s.detail["method"] == "bipartite" and s.detail["raw_distance"] == 4.0  # node, 2 fields, edge


PROSE = {
    "costs 10x a misspelled city": lambda ns: ns["bad"].value == pytest.approx(10 * ns["minor"].value),
    "scales to 500-item invoices": _bipartite_scores_a_500_item_invoice,
    "flags at most ~10% of correct values": _conformal_gate_flags_at_most_10_percent,
    "right 80% of the time": _my_agent_is_right_80_percent,
}
"""Figures stated in prose, each with the check that it holds."""


def test_readme_has_examples():
    assert len(BLOCKS) >= 5


def test_every_prose_figure_is_still_in_the_readme():
    text = README.read_text(encoding="utf-8")
    assert [key for key in PROSE if key not in text] == []


def test_readme_examples_run_and_their_figures_hold():
    namespace: dict = {}
    checked = 0
    for i, block in enumerate(BLOCKS):
        if "evaluate_ocr(" in block and shutil.which("tesseract") is None:
            continue  # the OCR example needs the Tesseract program
        for stmt, comments in _statements(block):
            where = f"README block {i}, line {stmt.lineno}: {ast.get_source_segment(block, stmt)}"
            try:
                if isinstance(stmt, ast.Expr):
                    value = eval(compile(ast.Expression(stmt.value), f"README block {i}", "eval"), namespace)
                else:
                    exec(compile(ast.Module([stmt], type_ignores=[]), f"README block {i}", "exec"), namespace)
            except Exception as exc:  # pragma: no cover - the failure message is the point
                pytest.fail(f"{where}\nraised {type(exc).__name__}: {exc}")
            for comment in comments:
                checked += _check_comment(
                    comment, stmt, value if isinstance(stmt, ast.Expr) else None, namespace, where
                )
    assert checked >= 20  # the figures of the scoring, QE, harness and agent examples


# ---------------------------------------------------------------------------
# reading the comments


def _statements(block: str) -> list[tuple[ast.stmt, list[str]]]:
    """Each top-level statement with the comments written on its lines (or just above it)."""
    body = ast.parse(block).body
    comments: list[tuple[int, str]] = [
        (tok.start[0], tok.string.lstrip("#").strip())
        for tok in tokenize.generate_tokens(io.StringIO(block).readline)
        if tok.type == tokenize.COMMENT
    ]
    out = [(stmt, []) for stmt in body]
    for line, text in comments:
        owner = next((k for k, stmt in enumerate(body) if line <= stmt.end_lineno), None)
        if owner is None:
            raise AssertionError(f"comment after the last statement of a README block: {text!r}")
        out[owner][1].append(text)
    return out


def _check_comment(comment: str, stmt: ast.stmt, value, namespace: dict, where: str) -> int:
    """Check every figure of one comment; returns how many checks ran."""
    n = 0
    covered = comment
    for key, check in PROSE.items():
        if key in comment:
            check(namespace)
            covered = covered.replace(key, "")
            n += 1
    if isinstance(stmt, ast.Expr):
        claim = _claim(comment)
        if claim is not None:
            literal, before = claim
            expected = ast.parse(literal, mode="eval").body
            assert _matches(value, expected, literal, namespace), f"{where}\nis {value!r}, the comment says {literal}"
            if " = " in comment and comment.endswith(comment.rpartition(" = ")[2]) and before.count("/"):
                _check_division(before, expected, literal, where)
            covered = covered.replace(literal, "").replace(before, "")
            n += 1
    assert not re.search(r"\b\d", covered), (  # a figure, not the digit of a name such as F1
        f"{where}\nstates a figure this test cannot check in {comment!r}: write it as the value of an "
        "expression (see the module docstring) or add the sentence to PROSE with a check."
    )
    return n


def _claim(comment: str) -> tuple[str, str] | None:
    """``(literal, what comes before it)`` stated by a comment on an expression, or None.

    What comes before is a worked derivation (``5 edits / 13 chars``) or a
    label (``field F1``); either way it holds no figure of its own to compare.
    """
    candidates = []
    if " = " in comment:
        derivation, _, tail = comment.rpartition(" = ")
        candidates.append((tail, derivation))
    candidates.append((comment, ""))
    if ": " in comment:
        label, _, tail = comment.partition(": ")
        candidates.append((tail, label))  # a label names the figure ("field F1"), it states none
    for text, before in candidates:
        literal = _literal_prefix(text)
        if literal:
            return literal, before
    return None


def _literal_prefix(text: str) -> str:
    """The longest start of ``text`` that is a Python literal (or enum member), else ''."""
    for end in range(len(text), 0, -1):
        head = text[:end].strip()
        if head.endswith(","):
            continue  # "0.875, topology ..." states 0.875, not the tuple (0.875,)
        try:
            node = ast.parse(head, mode="eval").body
        except SyntaxError:
            continue
        if head and _is_literal(node):
            return head
    return ""


def _is_literal(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return isinstance(node.operand, ast.Constant) and isinstance(node.operand.value, (int, float))
    if isinstance(node, (ast.Tuple, ast.List)):
        return all(_is_literal(e) for e in node.elts)
    if isinstance(node, ast.Dict):
        return all(k is not None and _is_literal(k) and _is_literal(v) for k, v in zip(node.keys, node.values))
    # an enum member such as Decision.FLAG: a capitalised name, then one attribute
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id[:1].isupper()


def _matches(value, node: ast.AST, source: str, namespace: dict) -> bool:
    """Does ``value`` equal the literal ``node`` to the precision its numbers are written with?"""
    if isinstance(node, (ast.Tuple, ast.List)):
        return (
            isinstance(value, (tuple, list))
            and len(value) == len(node.elts)
            and all(_matches(v, e, source, namespace) for v, e in zip(value, node.elts))
        )
    if isinstance(node, ast.Dict):
        if not isinstance(value, Mapping):
            return False
        keys = [ast.literal_eval(k) for k in node.keys]
        return sorted(map(repr, keys)) == sorted(map(repr, value)) and all(
            _matches(value[k], v, source, namespace) for k, v in zip(keys, node.values)
        )
    if isinstance(node, ast.Attribute):
        return value == eval(ast.unparse(node), {**vars(ek), **namespace})
    expected = ast.literal_eval(node)
    if isinstance(expected, float):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return False
        return abs(value - expected) <= _half_unit(ast.get_source_segment(source, node)) * (1 + 1e-9)
    return type(value) is type(expected) and value == expected


def _half_unit(number: str) -> float:
    """Half a unit in the last written place: ``0.3846`` -> 0.00005."""
    decimals = len(number.partition(".")[2]) if "." in number else 0
    return 0.5 * 10.0**-decimals


def _check_division(derivation: str, expected: ast.AST, literal: str, where: str) -> None:
    """``5 edits / 13 chars = 0.3846``: the division must give the stated figure."""
    match = re.search(r"(\d+(?:\.\d+)?)(?:\s+[A-Za-z]+)*\s*/\s*(\d+(?:\.\d+)?)", derivation)
    assert match and isinstance(expected, ast.Constant), f"{where}\ncannot read the worked figure {derivation!r}"
    quotient = float(match[1]) / float(match[2])
    assert abs(quotient - expected.value) <= _half_unit(literal), f"{where}\n{match[0]} is {quotient}, not {literal}"


SHELL = re.findall(
    r"```bash\n(ek (?:evaluate|compare) [^\n]*)\n```\n\n```text\n(.*?)```",
    README.read_text(encoding="utf-8"),
    flags=re.DOTALL,
)
"""The README's ``ek evaluate`` / ``ek compare`` examples, each with the output it shows."""


def test_readme_has_evaluate_and_compare_examples():
    assert {cmd.split()[1] for cmd, _ in SHELL} == {"evaluate", "compare"} and len(SHELL) >= 4


@pytest.mark.parametrize("command, shown", SHELL, ids=[f"{k}-{cmd.split()[1]}" for k, (cmd, _) in enumerate(SHELL)])
def test_readme_shell_examples_print_what_the_readme_shows(command, shown, tmp_path):
    import shlex
    import subprocess
    import sys

    root = README.parent
    argv = shlex.split(command)[1:]  # paths relative to the checkout, as the README prints them
    if "--html" in argv:  # the page goes to a temporary folder, not the checkout
        argv[argv.index("--html") + 1] = str(tmp_path / "report.html")
    out = subprocess.run([sys.executable, "-m", "ek", *argv], capture_output=True, text=True, timeout=120, cwd=root)
    assert out.returncode == 0, out.stderr
    assert out.stdout == shown
    if "--html" in argv:
        assert (tmp_path / "report.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_ci_runs_the_readme_test_command_verbatim():
    text = README.read_text(encoding="utf-8")
    commands = re.findall(r"```bash\n(apt-get [^\n]*python -m pytest)\n```", text)
    assert len(commands) == 1, "the README shows one test command"
    ci = (README.parent / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert commands[0] in ci, ".ci/run must run the README's test command as one line, verbatim"
    full = [line for line in ci if "EK_TEST_ALL_EXTRAS=1 python -m pytest" in line]
    assert len(full) == 1 and ci.index(full[0]) > ci.index(commands[0]), "then the full run, after it"
