"""Plant plausible single-line bugs in a copy of ek, one at a time, and see which the tests catch.

A test suite is only as good as the bugs it notices. Each mutant below is one
line of ``src/ek`` changed the way a tired author might change it (a swapped
pair, a dropped term, a wrong divisor). The script copies the repository to a
temporary folder, plants each mutant there in turn, runs the tests that cover
that module against the copy (``PYTHONPATH`` points at the copy's ``src``),
and prints which mutants some test caught, then ``caught N of M``.

A mutant names its file, the exact text of the line it changes (indentation
aside) and the line that replaces it. When a refactor moves or rewrites a
line, the script stops before running anything and lists the mutants whose
line is gone, so the list is updated instead of silently testing nothing.

Not part of CI (it runs the relevant tests once per mutant, several minutes).
Run it before and after a refactor and compare the figures:

    python scripts/mutation_smoke.py                 # this checkout
    python scripts/mutation_smoke.py --repo ../main  # another checkout's src and tests
    python scripts/mutation_smoke.py --only teds_gold_normaliser --list
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Mutant:
    """One planted bug: in ``path``, the line reading ``original`` becomes ``replacement``."""

    name: str
    path: str
    original: str
    replacement: str
    tests: tuple[str, ...]


# Test selections: the module's own tests plus the contract tests that cover it.
STRINGS = (
    "tests/metrics/test_strings.py",
    "tests/metrics/test_common.py",
    "tests/test_facade.py",
    "tests/test_readme.py",
)
FIELDS = (
    "tests/metrics/test_fields.py",
    "tests/metrics/test_common.py",
    "tests/test_facade.py",
    "tests/test_readme.py",
)
TABLES = ("tests/metrics/test_tables.py", "tests/metrics/test_common.py", "tests/test_readme.py")
GRAPHS = ("tests/metrics/test_graphs.py", "tests/metrics/test_common.py", "tests/test_readme.py")
SPANS = ("tests/metrics/test_spans.py", "tests/metrics/test_common.py", "tests/test_readme.py")
ANLS = ("tests/metrics/test_anls.py", "tests/metrics/test_common.py", "tests/test_readme.py")
FACADE = ("tests/test_facade.py", "tests/metrics/test_common.py", "tests/harness", "tests/test_readme.py")
HARNESS = ("tests/harness", "tests/test_runs.py", "tests/test_readme.py")
STORES = ("tests/test_stores.py",)
CANON = ("tests/test_canonicalize.py", "tests/test_facade.py")
QE = ("tests/qe", "tests/test_readme.py")
AGREEMENT = ("tests/harness", "tests/test_readme.py")
AGENTS = (
    "tests/agents/test_reliability.py",
    "tests/agents/test_passk.py",
    "tests/agents/test_harness.py",
    "tests/test_readme.py",
)

MUTANTS = (
    # the four bugs issue 15 found unguarded
    Mutant(
        "resume_restarts_chunk_numbering",
        "src/ek/_runs/_records.py",
        "self.next_seq = chunks[-1][0] + 1 if chunks else 0",
        "self.next_seq = 0",
        HARNESS,
    ),
    Mutant(
        "teds_gold_normaliser",
        "src/ek/metrics/tables.py",
        "nodes = max(_n_nodes(pred_t), _n_nodes(gold_t))",
        "nodes = _n_nodes(gold_t)",
        TABLES,
    ),
    Mutant(
        "rapidfuzz_counts_swap_deletions_insertions",
        "src/ek/metrics/_edit.py",
        "return EditCounts(len(gold) - subs - dels, subs, dels, ins)",
        "return EditCounts(len(gold) - subs - ins, subs, ins, dels)",
        STRINGS,
    ),
    Mutant(
        "exact_graph_search_removed",
        "src/ek/metrics/graphs.py",
        'if method == "exact" and not exact:',
        "if False:",
        GRAPHS,
    ),
    Mutant(
        "exact_search_forgets_uncovered_gold_edges",
        "src/ek/metrics/_ged.py",
        "cost += model.edge_weight(etype)  # a gold edge no pred edge covers",
        "pass",
        GRAPHS,
    ),
    # strings
    Mutant(
        "cer_mean_of_per_item_rates",
        "src/ek/metrics/strings.py",
        'return _rate(totals["edits"], totals["ref_len"])',
        "return sum(s.value for s in scores) / len(scores)",
        STRINGS,
    ),
    Mutant(
        "cer_keeps_surrounding_whitespace",
        "src/ek/metrics/strings.py",
        '"cer": str.strip,',
        '"cer": str,',
        STRINGS,
    ),
    Mutant(
        "empty_reference_scores_zero",
        "src/ek/metrics/strings.py",
        "return edits / ref_len if ref_len else float(edits)",
        "return edits / ref_len if ref_len else 0.0",
        STRINGS,
    ),
    # fields
    Mutant(
        "fields_wrong_value_is_not_a_miss",
        "src/ek/metrics/fields.py",
        "per_field[key] = (0, 1, 1)",
        "per_field[key] = (0, 1, 0)",
        FIELDS,
    ),
    Mutant(
        "fields_canonicalizer_ignored",
        "src/ek/metrics/fields.py",
        "return canon(p) == canon(g)",
        "return p == g",
        FIELDS,
    ),
    # facade
    Mutant(
        "slice_figure_over_whole_corpus",
        "src/ek/facade.py",
        "per_slice[label] = m.aggregate(part)",
        "per_slice[label] = m.aggregate(scores)",
        FACADE,
    ),
    Mutant(
        "merge_reports_drops_slices",
        "src/ek/facade.py",
        'slices.extend(r.detail.get("slices") or (None,) * r.n)',
        "slices.extend((None,) * r.n)",
        FACADE,
    ),
    # harness
    Mutant(
        "gate_direction_flipped",
        "src/ek/harness/_baselines.py",
        "worse = (lambda cur, old: cur < old - tolerance) if direction else (lambda cur, old: cur > old + tolerance)",
        "worse = (lambda cur, old: cur < old - tolerance) if not direction else "
        "(lambda cur, old: cur > old + tolerance)",
        HARNESS,
    ),
    Mutant(
        "resume_ignores_changed_gold",
        "src/ek/_runs/_execute.py",
        'if entry is None or entry.pop("fingerprint", None) != self.items[i][2]:',
        'if entry is None or entry.pop("fingerprint", None) is None:',
        HARNESS,
    ),
    # stores
    Mutant("store_write_not_fsynced", "src/ek/stores.py", "os.fsync(fh.fileno())", "pass", STORES),
    # canonicalize
    Mutant("lower_is_not_casefold", "src/ek/canonicalize.py", "return s.casefold()", "return s.lower()", CANON),
    Mutant(
        "collapse_whitespace_splits_on_spaces_only",
        "src/ek/canonicalize.py",
        'return " ".join(s.split())',
        'return " ".join(s.split(" "))',
        CANON,
    ),
    # spans
    Mutant(
        "partial_span_full_credit", "src/ek/metrics/spans.py", "credit = cor + 0.5 * par", "credit = cor + par", SPANS
    ),
    Mutant(
        "seqeval_fp_fn_swapped",
        "src/ek/metrics/spans.py",
        'return {"tp": tp, "fp": len(pred_e) - tp, "fn": len(gold_e) - tp}, per_type',
        'return {"tp": tp, "fp": len(gold_e) - tp, "fn": len(pred_e) - tp}, per_type',
        SPANS,
    ),
    # tables
    Mutant(
        "grits_precision_recall_swapped",
        "src/ek/metrics/tables.py",
        'precision, recall, f1 = prf(detail["overlap"], pred_cells, gold_cells)',
        'precision, recall, f1 = prf(detail["overlap"], gold_cells, pred_cells)',
        TABLES,
    ),
    # graphs
    Mutant(
        "graph_relabel_not_capped",
        "src/ek/metrics/_graph_costs.py",
        "return min(relabel, u.cost + v.cost)",
        "return relabel",
        GRAPHS,
    ),
    # anls
    Mutant(
        "anls_arguments_swapped",
        "src/ek/metrics/anls.py",
        "value, key_scores = backend.anls_score(gt=gold, pred=pred, return_key_scores=True)",
        "value, key_scores = backend.anls_score(gt=pred, pred=gold, return_key_scores=True)",
        ANLS,
    ),
    # calibration and gates
    Mutant(
        "ece_not_weighted_by_bin_size",
        "src/ek/qe/_binning.py",
        "gap += abs(c - h)  # == n * |c/n - h/n|",
        "gap += abs(c - h) / n",
        QE,
    ),
    Mutant(
        "platt_targets_not_smoothed",
        "src/ek/qe/_fit.py",
        "return (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0)",
        "return 1.0, 0.0",
        QE,
    ),
    Mutant(
        "conformal_rank_without_plus_one",
        "src/ek/qe/_checks.py",
        "return math.ceil((n + 1) * (1 - _exact(alpha)))",
        "return math.ceil(n * (1 - _exact(alpha)))",
        QE,
    ),
    Mutant(
        "conformal_gate_strict_boundary",
        "src/ek/qe/decide.py",
        "return Decision.ACCEPT if self.nonconformity(p) <= self.q else Decision.FLAG",
        "return Decision.ACCEPT if self.nonconformity(p) < self.q else Decision.FLAG",
        QE,
    ),
    # corpus figures that must pool statistics (or, for TEDS and ANLS, average per item)
    Mutant(
        "grits_mean_of_item_f1",
        "src/ek/metrics/tables.py",
        'return prf(totals["overlap"], totals["pred_cells"], totals["gold_cells"])[2]',
        "return sum(s.value for s in scores) / len(scores)",
        TABLES,
    ),
    Mutant(
        "typed_graph_mean_of_item_distances",
        "src/ek/metrics/graphs.py",
        "return raw / top if top else 0.0",
        "return sum(s.value for s in scores) / len(scores)",
        GRAPHS,
    ),
    Mutant(
        "nervaluate_spurious_and_missed_swapped",
        "src/ek/metrics/spans.py",
        "return prf(credit, cor + inc + par + spu, cor + inc + par + mis)",
        "return prf(credit, cor + inc + par + mis, cor + inc + par + spu)",
        SPANS,
    ),
    Mutant(
        "anls_threshold_ignored",
        "src/ek/metrics/anls.py",
        "tree.THRESHOLD = float(self.threshold)",
        "tree.THRESHOLD = previous",
        ANLS,
    ),
    Mutant(
        "canonicalizer_steps_run_backwards",
        "src/ek/canonicalize.py",
        "for name, func in zip(self._names, self._funcs):",
        "for name, func in zip(self._names[::-1], self._funcs[::-1]):",
        CANON,
    ),
    # agreement and agents
    Mutant(
        "kappa_observed_not_scaled",
        "src/ek/harness/_agreement.py",
        "return (expected - n * observed) / expected",
        "return (expected - observed) / expected",
        AGREEMENT,
    ),
    Mutant(
        "pass_hat_k_counts_failures",
        "src/ek/agents/_stats.py",
        "exact = exact_ratio(n, n - c, k)",
        "exact = exact_ratio(n, c, k)",
        AGENTS,
    ),
    Mutant("wilson_interval_at_90_percent", "src/ek/_stats/_proportions.py", "Z95 = 1.96", "Z95 = 1.645", AGENTS),
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--repo",
        type=Path,
        default=REPO,
        help="checkout whose src/ and tests/ are copied and mutated (default: this one)",
    )
    parser.add_argument("--only", nargs="+", metavar="NAME", help="run only these mutants")
    parser.add_argument("--list", action="store_true", help="print the mutants and exit")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per mutant (a hang counts as caught)")
    parser.add_argument("--no-baseline", action="store_true", help="skip the run of the unmutated copy")
    args = parser.parse_args(argv)

    mutants = _select(args.only)
    repo = args.repo.resolve()
    problems = [p for m in mutants if (p := _problem(repo, m))]
    if problems:
        print(
            "These mutants no longer match the code; update MUTANTS in scripts/mutation_smoke.py:",
            *problems,
            sep="\n  ",
            file=sys.stderr,
        )
        return 2
    if args.list:
        for m in mutants:
            print(f"{m.name}\n    {m.path}: {m.original!r}\n    -> {m.replacement!r}\n    tests: {' '.join(m.tests)}")
        return 0

    with tempfile.TemporaryDirectory(prefix="ek-mutation-") as tmp:
        copy = Path(tmp) / "repo"
        _copy_repo(repo, copy)
        env = _env(copy, Path(tmp))
        if not args.no_baseline:
            selection = sorted({t for m in mutants for t in m.tests})
            failed, detail, _ = _run_tests(copy, selection, env, args.timeout)
            if failed:
                print(f"the unmutated tests fail ({detail}); fix them before measuring mutants.", file=sys.stderr)
                return 1
        caught = []
        for k, m in enumerate(mutants, 1):
            file = copy / m.path
            pristine = file.read_text(encoding="utf-8")
            file.write_text(_mutate(pristine, m), encoding="utf-8")
            try:
                hit, detail, seconds = _run_tests(copy, list(m.tests), env, args.timeout)
            finally:
                file.write_text(pristine, encoding="utf-8")
            caught.append(hit)
            verdict = "caught" if hit else "MISSED"
            print(f"[{k:2d}/{len(mutants)}] {verdict:6s} {m.name:45s} {seconds:6.1f}s  {detail}", flush=True)
    missed = [m.name for m, hit in zip(mutants, caught) if not hit]
    print(f"\ncaught {sum(caught)} of {len(mutants)}" + (f"; missed: {', '.join(missed)}" if missed else ""))
    return 0


def _select(only: list[str] | None) -> list[Mutant]:
    if not only:
        return list(MUTANTS)
    known = {m.name: m for m in MUTANTS}
    unknown = [n for n in only if n not in known]
    if unknown:
        raise SystemExit(f"unknown mutant(s) {unknown}; known: {', '.join(known)}")
    return [known[n] for n in only]


def _problem(repo: Path, m: Mutant) -> str:
    """Why ``m`` cannot be planted in ``repo`` ('' when it can)."""
    file = repo / m.path
    if not file.is_file():
        return f"{m.name}: {m.path} does not exist"
    missing = [t for t in m.tests if not (repo / t).exists()]
    if missing:
        return f"{m.name}: no test file or folder {', '.join(missing)}"
    hits = sum(line.strip() == m.original for line in file.read_text(encoding="utf-8").splitlines())
    if hits != 1:
        return f"{m.name}: {m.path} has {hits} lines reading {m.original!r} (expected exactly one)"
    try:
        compile(_mutate(file.read_text(encoding="utf-8"), m), str(file), "exec")
    except SyntaxError as exc:
        return f"{m.name}: the mutated {m.path} does not compile ({exc})"
    return ""


def _mutate(text: str, m: Mutant) -> str:
    """``text`` with the line of ``m`` replaced, its indentation kept."""
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if line.strip() == m.original:
            indent = line[: len(line) - len(line.lstrip())]
            ending = line[len(line.rstrip("\r\n")) :]
            lines[i] = indent + m.replacement + ending
            return "".join(lines)
    raise AssertionError(f"{m.name}: line not found")  # checked by _problem before


def _copy_repo(repo: Path, copy: Path) -> None:
    skip = shutil.ignore_patterns("__pycache__", ".hypothesis", ".pytest_cache", "*.pyc")
    copy.mkdir(parents=True)
    for name in ("src", "tests"):
        shutil.copytree(repo / name, copy / name, ignore=skip)
    for name in ("README.md", "pyproject.toml"):
        shutil.copy2(repo / name, copy / name)


def _env(copy: Path, tmp: Path) -> dict:
    env = dict(os.environ)
    env.update(
        {
            "PYTHONPATH": str(copy / "src"),
            "PYTHONDONTWRITEBYTECODE": "1",  # a mutated module is never read back from a stale .pyc
            "CI": "1",  # the tests' "ci" hypothesis profile: the same examples for every mutant
            "EK_DATA_HOME": str(tmp / "ek-data"),
        }
    )
    return env


def _run_tests(copy: Path, tests: list[str], env: dict, timeout: float) -> tuple[bool, str, float]:
    """Run ``tests`` in ``copy``: (did a test fail, the first failure or a summary, seconds)."""
    shutil.rmtree(copy / ".hypothesis", ignore_errors=True)  # no failing example carried over
    cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests]
    start = time.monotonic()
    try:
        out = subprocess.run(cmd, cwd=copy, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return True, f"timed out after {timeout:.0f}s", time.monotonic() - start
    seconds = time.monotonic() - start
    text = out.stdout + out.stderr
    if out.returncode not in (0, 1, 2):  # 1: a test failed, 2: collection failed (an import broke)
        raise SystemExit(f"pytest could not run {' '.join(tests)} (exit code {out.returncode}):\n{text[-2000:]}")
    if out.returncode == 0:
        return False, "every selected test passed", seconds
    failed = re.search(r"^(?:FAILED|ERROR) (\S+)", text, flags=re.MULTILINE)
    return True, failed[1] if failed else f"pytest exit code {out.returncode}", seconds


if __name__ == "__main__":
    sys.exit(main())
