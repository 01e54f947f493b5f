"""Code lines of the three runners, private helpers only they use included (issue 32, item 9).

``python scripts/runner_lines.py [SRC]`` prints, for `evaluate_store`, `evaluate_ocr` and `run_suite`,
the code lines of the function and of every module-level private function or class of its module that
only it reaches (directly or through such helpers). A code line is a line of the definition that holds
code: blank lines, comment-only lines and docstrings do not count.
"""

from __future__ import annotations

import ast
import io
import sys
import tokenize
from pathlib import Path

SRC = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent / "src"
RUNNERS = (
    ("ek/harness/__init__.py", "evaluate_store"),
    ("ek/ocr/benchmark.py", "evaluate_ocr"),
    ("ek/agents/harness.py", "run_suite"),
)

Definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


def code_lines(text: str, node: Definition) -> int:
    """Lines of ``node`` holding a token other than a comment, a docstring or a line break."""
    docstrings = set()
    for inner in ast.walk(node):
        body = getattr(inner, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            value = body[0].value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                docstrings.update(range(body[0].lineno, (body[0].end_lineno or body[0].lineno) + 1))
    first = min([node.lineno] + [d.lineno for d in node.decorator_list])
    source = "\n".join(text.splitlines()[first - 1 : node.end_lineno]) + "\n"
    skip = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER}
    lines = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type not in skip:
            lines.update(range(token.start[0] + first - 1, token.end[0] + first))
    return len(lines - docstrings)


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def runner_lines(path: Path, name: str) -> tuple[int, list[str]]:
    """``(code lines, helpers counted)`` of runner ``name`` in the module at ``path``."""
    text = path.read_text(encoding="utf-8")
    tree = ast.parse(text)
    defs: dict[str, Definition] = {
        n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    }
    uses = {key: _names(node) & set(defs) - {key} for key, node in defs.items()}
    rest = _names(ast.Module(body=[n for n in tree.body if not isinstance(n, Definition)], type_ignores=[]))

    def reached(start: str) -> set[str]:
        seen, todo = set(), [start]
        while todo:
            for used in uses[todo.pop()] - seen:
                if used.startswith("_"):
                    seen.add(used)
                    todo.append(used)
        return seen

    mine = reached(name)
    others = set().union(*(reached(k) | {k} for k in defs if k != name and k not in mine)) | rest
    helpers = sorted(mine - others)
    return code_lines(text, defs[name]) + sum(code_lines(text, defs[h]) for h in helpers), helpers


def main() -> None:
    for module, name in RUNNERS:
        lines, helpers = runner_lines(SRC / module, name)
        print(f"{name}: {lines} code lines ({', '.join(helpers) or 'no private helpers'})")


if __name__ == "__main__":
    main()
