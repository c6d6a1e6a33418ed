"""A conformance report for people (a table, readable counterexamples) and for machines.

:func:`to_json` is deterministic — sorted keys, verdicts in the report's level-then-id
order, no timings, no memory addresses — so two runs of the same implementation give the
same bytes and a report can be committed and diffed.

>>> print(render_table(run_conformance(factory, select=["ISO-TENANT"])))  # doctest: +SKIP
"""

from __future__ import annotations

import json
import re
from typing import Any

from tabulate import tabulate

from ragward.clipped import clip, escaped
from ragward.conformance.runner import REASON_LIMIT, Report, Verdict

__all__ = [
    "case_lines",
    "format_counterexample",
    "outcome",
    "render_table",
    "replay_command",
    "summarize",
    "to_json",
    "verdict_data",
]

#: Version of the JSON layout; bumped when a field changes meaning. 2 added ``selection``,
#: ``catalogue`` and ``fingerprints`` (the implementation's identity, ragward's version).
#: Fields added since without a bump (a reader of 2 ignores them): ``minimised`` and
#: ``diff`` (the lines of a failure after its one-line ``reason``).
SCHEMA = 2

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
_DOC_KEYS = frozenset({"tenant", "doc_id", "text"})
_ASKER_KEYS = frozenset({"user_id", "tenant"})
_HIT_KEYS = frozenset({"chunk_id", "start", "end", "text"})
_TEXT_WIDTH = 100


def _clean(text: str) -> str:
    return _ADDRESS.sub("", text)


def replay_command(verdict: Verdict) -> str:
    """How to re-run this verdict's counterexample (empty when there is none)."""
    if verdict.status not in ("fail", "error"):
        return ""
    if verdict.replay:
        return verdict.replay
    if verdict.counterexample is None:
        return ""
    return f"ragward.conformance.replay(factory, {verdict.id!r}, counterexample)"


def verdict_data(verdict: Verdict) -> dict[str, Any]:
    """One verdict as the JSON object :func:`to_json` lists (and ``--replay`` reads).

    ``reason`` is one line, the summary a table shows; ``diff`` the lines after it, for a
    failed comparison of two answers the question asked and one aligned line per change
    (empty when the reason says it all).
    """
    return {
        "id": verdict.id,
        "level": verdict.level,
        "title": verdict.title,
        "verdict": verdict.status,
        "examples": verdict.examples,
        "shrink_steps": verdict.shrink_steps,
        "minimised": None
        if verdict.minimised is None
        else {"steps": verdict.minimised[0], "complete": verdict.minimised[1]},
        "reason": _clean(verdict.reason),
        "diff": [_clean(line) for line in verdict.detail],
        "counterexample": verdict.counterexample,
        "replay": replay_command(verdict),
    }


def to_json(report: Report) -> str:
    """The report as deterministic JSON text (ending in a newline).

    Besides the verdicts it says what a reader needs to trust them: ``selection``, the ids
    the run was restricted to (null: the whole kit); ``catalogue``, every invariant id of
    this kit version, so that a report can be checked complete; and ``fingerprints``:
    ``implementation`` (:class:`~ragward.conformance.identity.ImplementationIdentity`, in
    the form ``results.json`` records it, or null) and ``ragward``, the kit's version.
    """
    from ragward import __version__
    from ragward.conformance.invariant import catalogue

    identity = report.identity
    data = {
        "schema": SCHEMA,
        "implementation": _clean(report.implementation),
        "profile": report.profile,
        "passed": report.passed,
        "counts": report.counts(),
        "selection": None if report.selection is None else sorted(report.selection),
        "catalogue": list(catalogue()),
        "fingerprints": {
            "implementation": None if identity is None else identity.to_data(),
            "ragward": __version__,
        },
        "invariants": [verdict_data(verdict) for verdict in report.verdicts],
    }
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def render_table(report: Report) -> str:
    """The verdicts as a terminal table, followed by a one-line tally."""
    rows = [
        (
            verdict.id,
            verdict.level,
            verdict.status,
            verdict.examples,
            verdict.shrink_steps or "",
            _reason(verdict),
        )
        for verdict in report.verdicts
    ]
    table = tabulate(
        rows,
        headers=("id", "level", "verdict", "examples", "shrink steps", "reason"),
        maxcolwidths=[None, None, None, None, None, 64],
        disable_numparse=True,
    )
    counts = report.counts()
    tally = ", ".join(f"{counts[status]} {status}" for status in ("pass", "fail", "error", "n/a"))
    return (
        f"{table}\n\n{_clean(report.implementation)} ({report.profile} profile): "
        f"{tally} — {outcome(report)}"
    )


#: How one verdict reads in a partial run's summary.
_ALONE = {"pass": "it holds", "fail": "it fails", "error": "it errors", "n/a": "it does not apply"}


def outcome(report: Report) -> str:
    """The summary's verdict, worded for what ran.

    A run of the whole kit ``CONFORMS`` or ``DOES NOT CONFORM``; a run restricted by
    ``--select`` makes no such claim and says how much of the kit ran and how it went:
    ``1 of 55 invariants run; it fails``, ``3 of 55 invariants run: all hold``.
    """
    from ragward.conformance.invariant import catalogue

    kit = set(catalogue())
    if report.selection is None or kit <= set(report.selection):
        return "CONFORMS" if report.passed else "DOES NOT CONFORM"
    ran = len(report.verdicts)
    head = f"{ran} of {len(kit | set(report.selection))} invariants run"
    if ran == 1:
        return f"{head}; {_ALONE[report.verdicts[0].status]}"
    counts = report.counts()
    if counts["fail"] == counts["error"] == 0:
        return f"{head}: " + ("all hold" if counts["n/a"] == 0 else "all that apply hold")
    said = [
        f"{counts[status]} {word if counts[status] == 1 else plural}"
        for status, word, plural in (
            ("fail", "fails", "fail"),
            ("error", "errors", "error"),
            ("pass", "holds", "hold"),
            ("n/a", "does not apply", "do not apply"),
        )
        if counts[status]
    ]
    return f"{head}: " + ", ".join(said)


def _said(reason: str) -> str:
    """A reason for a terminal: one line, control characters escaped, bounded."""
    return clip(_clean(reason), REASON_LIMIT)


def _reason(verdict: Verdict) -> str:
    reason = _said(verdict.reason)
    if verdict.status in ("fail", "error") and verdict.counterexample is not None:
        return f"{reason} [{summarize(verdict.counterexample)}]"
    return reason


def summarize(case: Any) -> str:
    """A few words on a counterexample's size: ``3 docs, asker alice@acme, query 'x'``."""
    if not isinstance(case, dict):
        return _short(case, 30)
    parts = []
    for key, value in case.items():
        if isinstance(value, list):
            parts.append(f"{len(value)} {key}")
        elif _kind(value, _ASKER_KEYS):
            parts.append(f"{key} {_name(value['user_id'])}@{_name(value['tenant'])}")
        elif _kind(value, _DOC_KEYS):
            parts.append(f"{key} {_name(value['tenant'])}/{_name(value['doc_id'])}")
        elif isinstance(value, str):
            parts.append(f"{key} {_short(value, 24)}")
    return ", ".join(parts)


def format_counterexample(verdict: Verdict, *, label: str = "", origin: str = "") -> str:
    """A failing verdict as a person reads it: what broke, the case, how to replay it.

    Documents print as ``tenant/doc_id vN [classification, barrier, tick]: "text"``,
    askers as ``user@tenant (clearance, barriers)``; any other field of the case prints
    as its data, so every invariant's case renders without special code. ``label``
    replaces the verdict's status before its reason (``was`` for a stored failure that
    now holds), ``origin`` says where the case came from instead of how it was found.
    """
    lines = [f"{verdict.id} ({verdict.level}) {verdict.title}"]
    lines.append(f"  {label or verdict.status}: {_said(verdict.reason)}")
    lines.extend(f"    {_clean(line)}" for line in verdict.detail)
    if verdict.counterexample is None:
        lines.append("  (no counterexample: it failed before any case was drawn)")
    else:
        found = f"found after {_count(verdict.examples, 'example')}"
        steps = (
            f", shrunk in {_count(verdict.shrink_steps, 'step')}" if verdict.shrink_steps else ""
        )
        if verdict.minimised is not None:
            cut = "" if verdict.minimised[1] else ", stopped at its cap"
            steps += f", minimised in {_count(verdict.minimised[0], 'step')}{cut}"
        run = f" ({origin or found + steps})"
        lines.append(f"  counterexample{run}:")
        lines.extend(_render(verdict.counterexample, indent=4))
    command = replay_command(verdict)
    if command:
        lines.append(f"  replay: {command}")
    return "\n".join(lines)


def case_lines(case: Any) -> list[str]:
    """A counterexample (its data) as :func:`format_counterexample` renders it, unindented."""
    return _render(case, indent=0)


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def _render(value: Any, indent: int) -> list[str]:
    pad = " " * indent
    if not isinstance(value, dict):
        return [f"{pad}{_scalar(value)}"]
    lines = []
    for key, item in sorted(value.items(), key=lambda pair: _scenario_order(pair[1])):
        if isinstance(item, list) and item and all(_special(x) or _flat(x) for x in item):
            lines.append(f"{pad}{key}:")
            lines.extend(f"{pad}  - {_line(x)}" for x in item)
        elif isinstance(item, list) and item and all(_step(x) for x in item):
            lines.append(f"{pad}{key}:")
            lines.extend(f"{pad}  - {_compact(x)}" for x in item)
        elif isinstance(item, list) and item:
            lines.append(f"{pad}{key}:")
            for entry in item:
                nested = _render(entry, indent + 4)
                lines.append(f"{pad}  - {nested[0].strip()}")
                lines.extend(nested[1:])
        elif isinstance(item, dict) and not _special(item) and not _flat(item):
            lines.append(f"{pad}{key}:")
            lines.extend(_render(item, indent + 2))
        else:
            lines.append(f"{pad}{key}: {_line(item)}")
    return lines


def _scenario_order(item: Any) -> int:
    """Where a field goes in a case read as a scenario: its documents first, then the
    steps (operations), then records holding more of either, then the question and the
    rest (a stable sort: each group keeps the record's field order)."""
    if isinstance(item, list) and item and all(_kind(x, _DOC_KEYS) for x in item):
        return 0
    if isinstance(item, list) and item and all(_step(x) for x in item):
        return 1
    if isinstance(item, dict) and not _special(item) and not _flat(item):
        return 2
    return 3


def _step(value: Any) -> bool:
    # One operation of a program (ingest / delete / retrieve ...): a flat record whose
    # nested values are documents or askers.
    return isinstance(value, dict) and all(
        _special(v) or not isinstance(v, dict | list) or v == [] for v in value.values()
    )


def _compact(step: dict[str, Any]) -> str:
    """A step on one line: its kind first, then the fields it sets (None and "" left out)."""
    lead = next((k for k in ("kind", "op") if isinstance(step.get(k), str)), None)
    parts = [step[lead]] if lead else []
    for key, value in step.items():
        if key == lead or value is None or value in ("", []):
            continue
        parts.append(f"{key} {_line(value)}" if _special(value) else f"{key}={_scalar(value)}")
    return ", ".join(parts) if not lead else f"{parts[0]}: " + ", ".join(parts[1:])


def _kind(value: Any, keys: frozenset[str]) -> bool:
    return isinstance(value, dict) and value.keys() >= keys


def _special(value: Any) -> bool:
    return isinstance(value, dict) and (
        value.keys() >= _DOC_KEYS or value.keys() >= _ASKER_KEYS or value.keys() >= _HIT_KEYS
    )


def _flat(value: Any) -> bool:
    if isinstance(value, dict):
        return all(not isinstance(v, dict | list) or v == [] for v in value.values())
    if isinstance(value, list):
        return all(not isinstance(v, dict | list) for v in value)
    return True


def _line(value: Any) -> str:
    if _kind(value, _DOC_KEYS):
        return _doc(value)
    if _kind(value, _ASKER_KEYS):
        barriers = ", ".join(map(_name, value.get("barriers") or ())) or "no barriers"
        who = f"{_name(value['user_id'])}@{_name(value['tenant'])}"
        return f"{who} ({_name(value.get('max_classification', 'internal'))}, {barriers})"
    if _kind(value, _HIT_KEYS):
        where = f"{_name(value.get('doc_id', '?'))} v{value.get('version', '?')}"
        score = f" score={value['score']!r}" if "score" in value else ""
        return (
            f"{_name(value['chunk_id'])} ({where} [{value['start']}:{value['end']}]{score}): "
            f"{_short(value['text'], _TEXT_WIDTH)}"
        )
    if isinstance(value, dict):
        return " ".join(f"{k}={_scalar(v)}" for k, v in value.items()) or "{}"
    if isinstance(value, list):
        return "[" + ", ".join(_scalar(v) for v in value) + "]"
    return _scalar(value)


def _doc(doc: dict[str, Any]) -> str:
    barrier = f"barrier {_name(doc['barrier'])}" if doc.get("barrier") else "no barrier"
    head = f"{_name(doc['tenant'])}/{_name(doc['doc_id'])} v{doc.get('version', 1)}"
    kind = _name(doc.get("classification", "internal"))  # a stored case omits defaults
    tags = f"[{kind}, {barrier}, tick {doc.get('updated_tick', 0)}]"
    title = f" title={_short(doc['title'], 40)}" if doc.get("title") else ""
    return f"{head} {tags}{title}: {_short(doc['text'], _TEXT_WIDTH)}"


def _name(value: Any) -> str:
    """A name from the case (a tenant, an id): control characters escaped, cut when long."""
    return escaped(value) if isinstance(value, str) else _scalar(value)


def _scalar(value: Any) -> str:
    if isinstance(value, str):
        return _short(value, _TEXT_WIDTH)
    if isinstance(value, list):
        return "[" + ", ".join(_scalar(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _short(value: Any, width: int) -> str:
    # JSON quoting shows newlines, tabs and runs of spaces, which many invariants hinge on.
    if not isinstance(value, str):
        return _scalar(value)
    # JSON escapes C0 controls; DEL, C1 and the bidirectional overrides are escaped here.
    if len(value) <= width:
        return escaped(json.dumps(value, ensure_ascii=False), len(value) * 6 + 2)
    head = escaped(json.dumps(value[:width], ensure_ascii=False), width * 6 + 2)
    return f'{head[:-1]}…" ({len(value)} chars)'
