"""Every README block runs as pasted, section by section, and prints what the README shows.

Each ``## `` section of the README is one test (its id is the heading), so a
failure names the section and sections run in parallel under pytest-xdist.
A section runs in a folder of its own: the current directory is a fresh
temporary folder holding a copy of ``src/ek/data`` (so the README's relative
paths read the bundled files, as from the root of a checkout) and receiving
every file a block writes, with a fresh ek data folder (``EK_DATA_HOME``, set
by tests/conftest.py). Its blocks run in order:

* ```python blocks in one namespace per section, statement by statement, each
  figure stated in a comment checked (see below);
* ```bash blocks line by line: every ``ek ...`` command (also one after
  ``&&``) runs as ``sys.executable -m ek ...`` and must exit 0, or N when its
  comment begins ``exits N``, and write nothing on stderr; each number with a
  decimal point in its comment must be among what it prints (integers there
  are arguments, such as ``pass@8``); a file it is told to write (``--html``,
  ``--json``, ``--out``) must be there afterwards;
* a ```text block right after a bash block is the whole output of that
  block's commands, in order, compared exactly, but for one machine-specific
  part: the ``s/page`` and ``p95 s`` columns of ``ek benchmark`` are seconds
  measured on the machine, so tables with those headers are compared cell by
  cell (cells cut at the dashes under the header), a number in either column
  read as ``<seconds>``.

Lines not run: ``pip install`` and ``apt-get`` (installs, checked elsewhere;
the test command by `test_ci_runs_the_readme_test_command_verbatim`), and
with them the rest of their line: ``python -m pytest`` (this suite) and
``ek demo`` after ``pip install .`` (tests/test_cli.py runs it, and its
engine part is the fleet benchmark "Choose an engine" runs already).

A section that names an OCR engine (``--engine``, ``ek check``, a quoted
engine id) is skipped through tests/conftest.py's `skip_for` when
``ek.tools.check`` says the engine is not ready (an error in a section from a
missing extra skips the same way), so ``EK_TEST_ALL_EXTRAS=1`` makes either a
failure. The monitor's section stores state under a fixed name, so it runs
twice in the same folders: it must start over cleanly and show the same.

How a README comment on a Python line states a figure, so that this test can
compare it:

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

Cost (``--durations``, ``-n 2`` on two cores shared with other work, load
average about 10): 673 s wall, 5 min of CPU. "Choose an engine" takes 579 s
(its command runs two engines over the 54 bundled pages, its Python block
three), "Command line" 212 s (14 commands, one a Tesseract benchmark of three
pages), the monitor 85 s (run twice), Dask 41 s, every other section 15 s or
less. No block runs twice but the monitor's.
"""

from __future__ import annotations

import ast
import dataclasses
import io
import pathlib
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import tokenize
from collections.abc import Mapping

import pytest

import ek
import ek.tools
from tests.ocr import _engine_cache

REPO = pathlib.Path(__file__).resolve().parents[1]
README = REPO / "README.md"
RUN_TWICE = "Is the gate still keeping its promise?"
"""The section whose example stores state under a fixed name: it must run twice in a row, the same."""


@dataclasses.dataclass(frozen=True)
class Block:
    """One fenced block: its language, its text, the README line of its opening fence."""

    lang: str
    code: str
    line: int
    after: str  # the language of the block right before it, when only blank lines lie between; else ""


@dataclasses.dataclass(frozen=True)
class Section:
    title: str
    blocks: tuple[Block, ...]


@dataclasses.dataclass(frozen=True)
class Command:
    """One ``ek`` command of a bash line: its arguments, the line's comment, the line itself."""

    argv: tuple[str, ...]
    comment: str
    line: str


def _sections(text: str) -> list[Section]:
    """The README cut at its ``## `` headings (the part above the first one is titled by the page's heading)."""
    lines = text.splitlines()
    sections: list[Section] = []
    title, blocks, before, i = "", [], "", 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            end = lines.index("```", i + 1)
            lang = line[3:].strip()
            blocks.append(Block(lang, "\n".join(lines[i + 1 : end]) + "\n", i + 1, before))
            before, i = lang, end + 1
            continue
        if line.startswith(("# ", "## ")):
            if blocks or title:
                sections.append(Section(title, tuple(blocks)))
            title, blocks = line.lstrip("#").strip(), []
        if line.strip():
            before = ""
        i += 1
    sections.append(Section(title, tuple(blocks)))
    return sections


def _split_comment(line: str) -> tuple[str, str]:
    """``(command, comment)`` of a shell line: the comment starts at the first ``#`` outside quotes after a blank."""
    quote = None
    for k, char in enumerate(line):
        if quote:
            quote = None if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (k == 0 or line[k - 1].isspace()):
            return line[:k].rstrip(), line[k + 1 :].strip()
    return line.rstrip(), ""


_INSTALLERS = ("pip", "apt-get")  # an install line is not run, nor the rest of it (see the module docstring)


def _commands(block: Block) -> list[Command]:
    """The ``ek`` commands of a bash block, in order."""
    commands = []
    for line in block.code.splitlines():
        code, comment = _split_comment(line.strip())
        if not code:
            continue
        words = shlex.split(code)
        if words[0] in _INSTALLERS:
            continue
        parts: list[list[str]] = [[]]
        for word in words:
            parts.append([]) if word == "&&" else parts[-1].append(word)
        for part in parts:
            assert part[:1] == ["ek"], f"README line {block.line}: {line!r} runs {part[:1]}, which this test cannot run"
            commands.append(Command(tuple(part[1:]), comment, line.strip()))
    return commands


def _runnable(section: Section) -> bool:
    return any(b.lang == "python" or (b.lang == "bash" and _commands(b)) for b in section.blocks)


SECTIONS = [s for s in _sections(README.read_text(encoding="utf-8")) if _runnable(s)]


def _slug(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")


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


def test_every_prose_figure_is_still_in_the_readme():
    text = README.read_text(encoding="utf-8")
    assert [key for key in PROSE if key not in text] == []


def test_readme_has_runnable_sections():
    titles = [s.title for s in SECTIONS]
    assert len(titles) >= 10 and RUN_TWICE in titles
    assert len({_slug(t) for t in titles}) == len(titles), "two sections would share a test id"


def test_every_fenced_block_is_one_this_test_runs_or_compares():
    blocks = [b for s in _sections(README.read_text(encoding="utf-8")) for b in s.blocks]
    assert {b.lang for b in blocks} <= {"python", "bash", "text", ""}  # "": the architecture map, not code
    assert all(b.after == "bash" for b in blocks if b.lang == "text"), "a text block shows the bash block above it"


@pytest.mark.parametrize("section", SECTIONS, ids=[_slug(s.title) for s in SECTIONS])
def test_readme_section_runs_as_pasted(section, tmp_path, monkeypatch, request, tmp_path_factory):
    for engine in _engines(section):
        report = ek.tools.check(engine)
        if report["ok"] is not True:
            _conftest(request.config).skip_for(
                f"the README section {section.title!r} runs the OCR engine {engine!r}, not ready here: {report['hint']}"
            )
    folder = tmp_path / "checkout"  # the README's paths are relative to a checkout's root
    shutil.copytree(REPO / "src" / "ek" / "data", folder / "src" / "ek" / "data")
    monkeypatch.chdir(folder)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # what a block puts in a temporary folder goes here too
    shared = _engine_cache.shared_folder(tmp_path_factory)
    if _engines(section):  # a real engine reads each bundled image once per test run (tests/ocr/_engine_cache.py)
        _engine_cache.read_once(monkeypatch, shared)
    for _ in range(2 if section.title == RUN_TWICE else 1):
        _run_section(section, folder, shared)


def test_the_fleet_example_is_the_command_the_engine_tests_share():
    # tests/ocr/test_fleet.py reuses what this command's engines read; another command would read it all again.
    section = next(s for s in SECTIONS if s.title == "Choose an engine")
    assert _engine_cache.FLEET_COMMAND in [c.line for b in section.blocks if b.lang == "bash" for c in _commands(b)]


def _run_section(section: Section, folder: pathlib.Path, shared: pathlib.Path) -> None:
    namespace: dict = {}
    printed = None
    for block in section.blocks:
        if block.lang == "python":
            _run_python(block, namespace)
        elif block.lang == "bash":
            printed = "".join(_run_command(command, folder, shared) for command in _commands(block))
        elif block.lang == "text":
            assert printed is not None, f"README line {block.line}: a text block without a bash block before it"
            assert _without_seconds(printed) == _without_seconds(block.code), (
                f"README line {block.line}: the commands above it print\n{printed}"
            )


def _run_python(block: Block, namespace: dict) -> None:
    for stmt, comments in _statements(block.code):
        where = f"README line {block.line + stmt.lineno}: {ast.get_source_segment(block.code, stmt)}"
        try:
            if isinstance(stmt, ast.Expr):
                value = eval(compile(ast.Expression(stmt.value), f"README line {block.line}", "eval"), namespace)
            else:
                exec(compile(ast.Module([stmt], type_ignores=[]), f"README line {block.line}", "exec"), namespace)
        except Exception as exc:  # pragma: no cover - the failure message is the point
            pytest.fail(f"{where}\nraised {type(exc).__name__}: {exc}")  # a missing extra skips (tests/conftest.py)
        for comment in comments:
            _check_comment(comment, stmt, value if isinstance(stmt, ast.Expr) else None, namespace, where)


def _run_command(command: Command, folder: pathlib.Path, shared: pathlib.Path) -> str:
    """Run one README command in ``folder``; returns what it printed."""
    if command.line == _engine_cache.FLEET_COMMAND:  # in this process from the checkout, once per test run
        code, stdout, stderr = _engine_cache.benchmark_run(command.line, shared)
        out = subprocess.CompletedProcess(command.argv, code, stdout, stderr)
    else:
        out = subprocess.run(
            [sys.executable, "-m", "ek", *command.argv], capture_output=True, text=True, timeout=900, cwd=folder
        )
    status = int(m[1]) if (m := re.match(r"exits (\d+)\b", command.comment)) else 0
    # an assertion naming ek's "needs the optional package" message skips (tests/conftest.py)
    assert out.returncode == status, f"{command.line}\nexited {out.returncode}, not {status}:\n{out.stderr}"
    assert out.stderr == "", f"{command.line}\nwrote on stderr:\n{out.stderr}"
    for figure in re.findall(r"\d+\.\d+", command.comment):
        assert re.search(rf"(?<![\d.]){re.escape(figure)}(?!\d)", out.stdout), (
            f"{command.line}\nits comment says {figure}, which it does not print:\n{out.stdout}"
        )
    for option in ("--html", "--json", "--out"):
        if option in command.argv and (path := command.argv[command.argv.index(option) + 1]) != "-":
            assert (folder / path).is_file(), f"{command.line}\nwrote no {path}"
    return out.stdout


_ENGINE = re.compile(r"""(?:--engine |ek check |["'])(tesseract|rapidocr)\b""")


def _engines(section: Section) -> list[str]:
    """The OCR engines a section's blocks run."""
    return sorted({m[1] for b in section.blocks if b.lang in ("python", "bash") for m in _ENGINE.finditer(b.code)})


def _conftest(config: pytest.Config):
    """tests/conftest.py as pytest loaded it (its `skip_for` knows about EK_TEST_ALL_EXTRAS)."""
    path = str(pathlib.Path(__file__).with_name("conftest.py"))
    found = [p for p in config.pluginmanager.get_plugins() if getattr(p, "__file__", None) == path]
    assert found, f"pytest has not loaded {path}, whose skip_for this test skips through"
    return found[0]


_SECONDS = ("s/page", "p95 s")  # ek benchmark's columns of seconds measured on this machine


def _without_seconds(text: str) -> str:
    """``text`` with each table that has the seconds columns cut into cells, their timings read as <seconds>."""
    lines = text.split("\n")
    out, starts, timed = [], None, set()
    for k, line in enumerate(lines):
        rule = lines[k + 1] if k + 1 < len(lines) else ""
        if starts is None and all(h in line for h in _SECONDS) and rule.strip() and set(rule) <= {"-", " "}:
            spans = [m.span() for m in re.finditer(r"-+", rule)]
            starts = [a for a, _ in spans]
            timed = {j for j, (a, b) in enumerate(spans) if line[a:b].strip() in _SECONDS}
        elif starts is not None and not line.strip():
            starts = None
        if starts is None:
            out.append(line)
            continue
        cells = [line[a:b].strip() for a, b in zip(starts, [*starts[1:], len(line)])]
        out.append(
            " | ".join(
                "<seconds>" if j in timed and re.fullmatch(r"\d+\.\d+|-{2,}", c) else c for j, c in enumerate(cells)
            )
        )
    return "\n".join(out)


def test_only_the_seconds_of_a_benchmark_table_go_uncompared():
    table = (
        "rank  engine  cer     s/page  p95 s  errors\n"
        "----  ------  ------  ------  -----  ------\n"
        "1      rover  0.0676       -      -       0\n"
        "2       tess  0.1610   0.149  0.769       0\n"
    )
    slower = table.replace("----  ------  ------  ------  -----", "----  ------  ------  ------  ------")
    slower = slower.replace("0.149  0.769", "0.149  12.769").replace("p95 s  errors", "p95 s   errors")
    slower = slower.replace("-      -       0", "-       -       0")
    assert _without_seconds(slower) == _without_seconds(table) != _without_seconds(table.replace("0.1610", "0.1611"))
    assert _without_seconds(table.replace("1      rover  0.0676       -", "1      rover  0.0676   0.001")) != (
        _without_seconds(table)
    )  # the consensus row has no timing of its own, and that is compared
    assert _without_seconds("s/page is seconds\nno table here") == "s/page is seconds\nno table here"


def test_bash_lines_read_as_the_shell_reads_them():
    block = Block("bash", 'pip install . && ek demo\nek rover "a # b" c   # exits 2: a comment\nek a && ek b\n', 1, "")
    assert _commands(block) == [
        Command(("rover", "a # b", "c"), "exits 2: a comment", 'ek rover "a # b" c   # exits 2: a comment'),
        Command(("a",), "", "ek a && ek b"),
        Command(("b",), "", "ek a && ek b"),
    ]
    with pytest.raises(AssertionError, match="runs \\['python'\\], which this test cannot run"):
        _commands(Block("bash", "ek a && python -m pytest\n", 7, ""))


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


def test_ci_runs_the_readme_test_command_verbatim():
    text = README.read_text(encoding="utf-8")
    commands = re.findall(r"```bash\n(apt-get [^\n]*python -m pytest)\n```", text)
    assert len(commands) == 1, "the README shows one test command"
    ci = (README.parent / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert commands[0] in ci, ".ci/run must run the README's test command as one line, verbatim"
    full = [line for line in ci if "EK_TEST_ALL_EXTRAS=1 python -m pytest" in line]
    assert len(full) == 1 and ci.index(full[0]) > ci.index(commands[0]), "then the full run, after it"
