"""``ek estimate`` and ``ek audit-plan``: corpus figures from a stand-in for gold and a small audit.

``ek estimate PRED --proxy PSEUDO_GOLD --audit GOLD`` scores PRED against
PSEUDO_GOLD (another engine's output, read as a gold side: the value field
is ``--proxy-field``, else the gold defaults) on every item, the proxy, and
against GOLD on the audited ids (messages name the two files by their
flags, ``--proxy file`` and ``--audit file``), then prints `ek.estimate_corpus` overall
and per slice (slices of PSEUDO_GOLD): N, n, the estimate and its interval,
the classical (audit-only) interval, the plug-in figure, λ and the
effective n. With ``--plan PLAN.jsonl`` (written by ``ek audit-plan``, or
any JSONL of ``id`` and ``probability``), GOLD ids outside the plan are left
out and the audited items are weighed by their inclusion probabilities.

``ek audit-plan PRED --proxy PSEUDO_GOLD --budget 300`` writes the items to
label (``--out``, JSONL; standard output without it): ``id``,
``probability``, ``slice`` and ``text``, the prediction to correct.

The file formats, id rules, outputs and meta are those of ``ek evaluate``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import math
import os
import re
from collections.abc import Hashable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from ek._files import InputError, Side, join, read_source, refuse_failures
from ek.cli._commands import _format as fmt
from ek.cli._commands._evaluate import gate
from ek.cli._commands._format import Outcome
from ek.cli._commands._inputs import Scored, options_for, read_gold, score
from ek.cli._commands._meta import run_meta
from ek.cli._commands._options import Options, in_flags
from ek.cli._commands._outputs import check_outputs, write_json, write_page, write_text
from ek.facade import AuditPlan, CorpusEstimate, estimate_corpus, plan_audit

if TYPE_CHECKING:
    from ek.cli._html._data import Meta

__all__ = ["read_plan", "run_audit_plan", "run_estimate"]

# The parameters of ek.estimate_corpus and ek.plan_audit their messages name, as the flags that set them.
_ESTIMATE_FLAGS = {"lam": "--lam", "plan=": "--plan", "metric=": "--metric", "normalize=": "--normalize"}
_PLAN_FLAGS = {"budget": "--budget", "min_prob": "--min-prob", "strategy": "--strategy", "ek.evaluate": "ek evaluate"}


def run_estimate(
    pred: str,
    proxy: str,
    audit: str,
    options: Options,
    *,
    proxy_field: str | None,
    plan_path: str | None,
    lam: str,
    interval: str,
) -> Outcome:
    """The whole ``ek estimate`` command: read, score the proxy and the audit, estimate, print, write, gate."""
    inputs = {"pred": pred, "proxy": proxy, "audit": audit, **({"plan": plan_path} if plan_path else {})}
    check_outputs(inputs, options.json, options.html)
    plan = read_plan(plan_path) if plan_path is not None else None
    corpus, options, pred_side = _proxy(pred, proxy, options, proxy_field)
    with _named("--audit"):
        gold = read_gold(audit, options)
    left_out = 0
    if plan is not None:
        drawn = set(map(str, plan.ids))
        keep = [k for k, i in enumerate(gold.ids) if i in drawn]
        left_out = len(gold.ids) - len(keep)
        gold = dataclasses.replace(
            gold,
            ids=tuple(gold.ids[k] for k in keep),
            values=tuple(gold.values[k] for k in keep),
            slices=None if gold.slices is None else tuple(gold.slices[k] for k in keep),
        )
        if not gold.ids:
            raise InputError(
                f"--audit file {audit} holds none of the plan's {len(plan.ids)} ids; label the plan's items."
            )
    with _named("--audit"):
        audited = score(
            refuse_failures(join(gold, pred_side), keep_going=options.keep_going),
            options,
            name=os.path.basename(audit) or audit,
        )
    try:
        result = estimate_corpus(
            corpus.report, audited.report, level=options.level, lam=_lam(lam), interval=interval, plan=plan
        )
    except ValueError as exc:
        raise in_flags(exc, "estimate_corpus", _ESTIMATE_FLAGS) from None
    meta = run_meta(inputs, options, [corpus])
    unlabelled = 0 if plan is None else len(plan.ids) - len(gold.ids)  # gold ids: unique, all drawn
    meta["settings"].update(
        lam=lam, interval=interval, plan=plan_path, left_out_of_plan=left_out, unlabelled_in_plan=unlabelled
    )
    text = write_json(options.json, payload(result, corpus, meta)) if options.json is not None else ""
    if options.html is not None:
        from ek.cli._html import render_estimate

        text += write_page(options.html, render_estimate(page_data(result, corpus, meta)))
    if "-" not in (options.json, options.html):
        text = summary(result, corpus, meta)
    failed = gate(result.metric, result.estimate, options.max, options.min)
    return Outcome(stdout=text, stderr=failed, exit_code=1 if failed else 0)


def run_audit_plan(
    pred: str,
    proxy: str,
    options: Options,
    *,
    proxy_field: str | None,
    budget: float,
    strategy: str,
    seed: int,
    min_prob: float | None,
    out: str | None,
) -> Outcome:
    """The whole ``ek audit-plan`` command: score the proxy, plan, write the items to label."""
    if out is not None:
        check_outputs({"pred": pred, "proxy": proxy}, out, None, json_flag="--out")
    corpus, _, pred_side = _proxy(pred, proxy, options, proxy_field)
    try:
        plan = plan_audit(corpus.report, budget, strategy=strategy, seed=seed, min_prob=min_prob)
    except ValueError as exc:
        raise in_flags(exc, "plan_audit", _PLAN_FLAGS) from None
    texts: dict[Hashable, object] = dict(zip(pred_side.ids, pred_side.values))
    slices = dict(zip(corpus.report.detail.get("ids") or (), corpus.report.detail.get("slices") or ()))
    lines = [
        json.dumps(
            {"id": i, "probability": p, "slice": slices.get(i), "text": texts.get(i)}, ensure_ascii=False, default=str
        )
        for i, p in zip(plan.ids, plan.probabilities)
    ]
    body = "\n".join(lines) + ("\n" if lines else "")
    if out is None:
        return Outcome(stdout=body.rstrip("\n"))
    write_text(out, body, option="--out")
    allocation = plan.detail.get("allocation")
    shares = (
        ""
        if not allocation
        else "; expected per slice: " + ", ".join(f"{label}: {n:.1f}" for label, n in allocation.items())
    )
    return Outcome(
        stdout=f"ek audit-plan: {strategy} plan over N={plan.N} items, budget {budget:g}: {len(plan.ids)} "
        f"drawn (seed {seed}), inclusion probabilities {min(plan.probabilities, default=0):.4g} to "
        f"{max(plan.probabilities, default=0):.4g}{shares}\nwritten to {out}"
    )


def read_plan(path: str) -> AuditPlan:
    """A plan file: JSONL with an ``id`` and a ``probability`` per drawn item (InputError for a bad line or plan)."""
    ids, probs = [], []
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as exc:
        raise InputError(f"--plan {path} cannot be read: {exc.strerror or exc}; give the file ek audit-plan wrote.")
    for k, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            item, prob = record["id"], record["probability"]
        except (ValueError, KeyError, TypeError):
            raise InputError(
                f"--plan {path} line {k} is not a JSON object with 'id' and 'probability'; give the "
                "file ek audit-plan wrote."
            ) from None
        if isinstance(item, bool) or not isinstance(item, (str, int)):
            raise InputError(
                f"--plan {path} line {k} has the id {json.dumps(item)}; an id is a string or a whole number, "
                "as the --audit file gives it. Fix that line or give the file ek audit-plan wrote."
            )
        ids.append(item)
        probs.append(prob)
    try:
        return AuditPlan(tuple(ids), tuple(probs))
    except ValueError as exc:
        raise InputError(f"--plan {path}: {exc}") from None


def summary(result: CorpusEstimate, corpus: Scored, meta: Meta) -> str:
    """The printed table, overall and per slice: N, n, estimate, interval, classical interval, plug-in, λ, effective n."""
    way = fmt.direction(result.detail.get("higher_is_better"))
    head = [
        f"ek estimate: {result.metric}" + (f" ({way})" if way else "") + f" on N={result.N} items, "
        f"n={result.n} audited",
        f"{result.detail['design']}; interval: {result.detail['interval']}",
    ]
    rows = [_row("all", vars(result) | {"classical": result.classical})]
    rows += [_row(str(label), entry) for label, entry in result.per_slice.items()]
    header = [
        "slice",
        "N",
        "n",
        "estimate",
        f"{result.level:.0%} interval",
        "classical (audit only)",
        "plug-in",
        "lambda",
        "effective n",
    ]
    lines = [*head, "", fmt.table(header, rows), ""]
    groups = [("all", result.detail)] + [(str(k), e) for k, e in result.per_slice.items()]
    lines += [
        f"not reliable ({label}): {e['why']}" for label, e in groups if e.get("reliable") is False and e.get("why")
    ]
    lines += [f"note ({label}): {e['note']}" for label, e in groups if e.get("note")]
    lines.append("plug-in: the proxy's own figure, biased by the proxy's errors, so it has no interval")
    if corpus.missing:
        lines.append(fmt.ids_line("missing", corpus.missing, "stand-in ids without a prediction (scored as empty)"))
    left = meta["settings"].get("left_out_of_plan")
    if left:
        lines.append(f"left out: {left} ids of the --audit file that the plan did not draw")
    unlabelled = int(meta["settings"].get("unlabelled_in_plan") or 0)  # type: ignore[call-overload]  # an int
    if unlabelled:
        lines.append(
            f"unlabelled: {unlabelled} of the plan's {result.n + unlabelled} drawn items have no label in the "
            "--audit file (treated as missing at random; label them for an honest estimate)"
        )
    return "\n".join(lines + fmt.problem_lines(meta))


def payload(result: CorpusEstimate, corpus: Scored, meta: Meta) -> dict[str, object]:
    """The ``--json`` report: the `CorpusEstimate`'s keys, per slice, the detail, and the meta keys."""
    out: dict[str, object] = {
        "metric": result.metric,
        "level": result.level,
        "N": result.N,
        "n": result.n,
        "estimate": result.estimate,
        "interval": list(result.interval),
        "classical": dict(result.classical),
        "plug_in": result.plug_in,
        "lam": result.lam,
        "effective_n": result.effective_n,
        "per_slice": {label: dict(entry) for label, entry in result.per_slice.items()},
        "detail": dict(result.detail),
        "missing": list(corpus.missing),
    }
    out.update(meta)
    return out


def page_data(result: CorpusEstimate, corpus: Scored, meta: Meta) -> dict[str, object]:
    """The data of the estimate page (`ek.cli._html.render_estimate`)."""
    return {
        **payload(result, corpus, meta),
        "higher_is_better": result.detail.get("higher_is_better"),
        "title": f"ek estimate: {result.metric} of {corpus.name}",
    }


# ---------------------------------------------------------------------------


def _proxy(pred: str, proxy: str, options: Options, proxy_field: str | None) -> tuple[Scored, Options, Side]:
    """PRED read once and scored against PSEUDO_GOLD: the proxy run, the options used, PRED's side."""
    with _named("--proxy"):
        stand_in = read_gold(proxy, dataclasses.replace(options, gold_field=proxy_field))
        options = options_for(stand_in, options)
        pred_side = read_source(pred, "pred", options.reading(), value_field=options.pred_field)
        joined = refuse_failures(join(stand_in, pred_side), keep_going=options.keep_going)
    if joined.extra:
        raise InputError(
            f"PRED has {len(joined.extra)} items without a stand-in in the --proxy file "
            f"({fmt.shown_ids(joined.extra)}); every item of the corpus needs one (give "
            "the --proxy file a value for each)."
        )
    return score(joined, options, name=os.path.basename(pred) or pred), options, pred_side


@contextlib.contextmanager
def _named(flag: str) -> Iterator[None]:
    """Messages about a file read as gold that name it by its flag (``--proxy file x.jsonl``), not as GOLD."""
    try:
        yield
    except InputError as exc:
        raise InputError(re.sub(r"\bGOLD\b", f"{flag} file", str(exc))) from None


def _lam(text: str) -> str | float:
    if text == "tune":
        return text
    try:
        lam = float(text)
    except ValueError:
        lam = math.nan
    if not 0 <= lam <= 1:
        raise ValueError(
            f"--lam must be 'tune' or a number from 0 to 1 (0: the audit alone, 1: plain PPI), got {text!r}."
        )
    return lam


def _row(label: str, entry: Mapping[str, Any]) -> list[str]:
    classical = entry.get("classical") or {}
    lam = entry.get("lam")
    eff = entry.get("effective_n")
    return [
        label,
        str(entry.get("N", "")),
        str(entry.get("n", "")),
        fmt.number(entry.get("estimate")),
        fmt.interval(entry.get("interval"), n=entry.get("n")),
        f"{fmt.number(classical.get('estimate'))} {fmt.interval(classical.get('interval'), n=entry.get('n'))}",
        fmt.number(entry.get("plug_in")),
        "-" if lam is None else f"{lam:.2f}",
        "-" if eff is None or eff != eff else f"{eff:.0f}",
    ]
