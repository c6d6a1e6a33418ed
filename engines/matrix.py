"""The verdict matrix: the full kit on the reference and on every engine configuration.

For each configuration the kit's report is written as ``<engine>-<configuration>.json``
(the format ``ragward conform --json`` writes, so ``ragward conform --impl ... --replay
FILE --invariant ID`` reproduces any failure), then one table of invariant x
configuration, with a line per failure naming its reason and its counterexample, as
``matrix.md`` and ``matrix.json``. :func:`statuses` is what the golden test compares.

    ragward engines --matrix --out reports/engines
    ragward engines --matrix --repeat 5 --only qdrant-edge   # stability.md / .json
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

from tabulate import tabulate

from ragward.conformance.identity import ImplementationIdentity
from ragward.conformance.loading import check_system, load_factory
from ragward.conformance.report import summarize, to_json
from ragward.conformance.runner import Report, Verdict, run_invariant
from ragward.engines import Configuration
from ragward.errors import InvalidArgument
from ragward.implementation import REFERENCE as REFERENCE_SPEC
from ragward.outputs import write_atomic

__all__ = [
    "REFERENCE",
    "Column",
    "render",
    "render_stability",
    "run_column",
    "statuses",
    "tally",
    "write_stability",
]

#: The reference's column: the baseline every engine is read against.
REFERENCE = Configuration(
    "reference",
    "reference",
    "ragward's reference implementation",
    extra="",
    modules=(),
)

_MARK = {"pass": "pass", "fail": "**FAIL**", "error": "**ERROR**", "n/a": "n/a"}


def impl_of(configuration: Configuration) -> str:
    """The ``--impl`` string of a column (the reference's own factory for the reference)."""
    if configuration is REFERENCE or configuration.engine == "reference":
        return REFERENCE_SPEC
    return configuration.impl


def label(configuration: Configuration) -> str:
    """The column's short name, also its report's file stem: ``qdrant-edge``."""
    if configuration.engine == "reference":
        return "reference"
    return f"{configuration.engine}-{configuration.name}"


class Column:
    """One configuration's report, and where it is stored."""

    def __init__(self, configuration: Configuration, report: Report, seconds: float) -> None:
        self.configuration = configuration
        self.report = report
        self.seconds = seconds

    @property
    def label(self) -> str:
        return label(self.configuration)


def run_column(
    configuration: Configuration,
    out: Path,
    *,
    profile: str = "ci",
    select: Sequence[str] | None = None,
    progress: Callable[[str], None] | None = None,
    shrink: bool = True,
    shrink_budget: float | None = None,
) -> Column:
    """Run the kit on ``configuration`` and store its report in ``out`` (``shrink=False``:
    the same verdicts, with the first failing case found instead of a minimal one)."""
    import time

    import ragward.conformance.invariants  # noqa: F401  (registers the invariants)
    from ragward.conformance.invariant import LEVELS, REGISTRY
    from ragward.engines.reference import reference_factory

    impl = impl_of(configuration)
    factory = load_factory(impl)
    stored = out / f"{label(configuration)}.json"
    hint = f"ragward conform --impl {impl} --replay {stored.as_posix()} --invariant {{id}}"
    chosen = sorted(REGISTRY.values(), key=lambda inv: (LEVELS.index(inv.level), inv.id))
    if select is not None:
        chosen = [inv for inv in chosen if inv.id in set(select)]
    started = time.perf_counter()
    verdicts: list[Verdict] = []
    for number, invariant in enumerate(chosen, 1):
        if progress is not None:
            progress(f"{label(configuration)} [{number}/{len(chosen)}] {invariant.id}")
        verdicts.append(
            run_invariant(
                invariant,
                factory,
                profile=profile,
                replay_hint=hint,
                shrink=shrink,
                shrink_budget=shrink_budget,
                baseline=reference_factory,
            )
        )
    report = Report(
        impl,
        profile,
        tuple(verdicts),
        selection=None if select is None else tuple(inv.id for inv in chosen),
        identity=ImplementationIdentity.of(impl, factory, check_system(factory, impl)),
    )
    seconds = time.perf_counter() - started
    write_atomic(stored, to_json(report))
    return Column(configuration, report, seconds)


def load_column(configuration: Configuration, out: Path, seconds: float) -> Column:
    """A column from the report a previous run stored in ``out``."""
    data = json.loads((out / f"{label(configuration)}.json").read_text(encoding="utf-8"))
    verdicts = tuple(
        Verdict(
            v["id"],
            v["level"],
            v["title"],
            v["verdict"],
            v["examples"],
            v["reason"],
            _in_field_order(v["id"], v["counterexample"]),
            v["replay"],
            v.get("shrink_steps", 0),
            _minimised(v.get("minimised")),
            tuple(v.get("diff") or ()),  # absent from reports written before it
        )
        for v in data["invariants"]
    )
    return Column(configuration, Report(data["implementation"], data["profile"], verdicts), seconds)


def _minimised(stored: Any) -> tuple[int, bool] | None:
    """A stored report's ``minimised`` (``{"steps": n, "complete": b}``) as a verdict
    holds it; None when absent (a report written before it) or null."""
    if not isinstance(stored, dict):
        return None
    return int(stored["steps"]), bool(stored["complete"])


def _in_field_order(invariant_id: str, case: Any) -> Any:
    """A stored counterexample (its keys sorted) in its record's field order, as a run
    holds it, so that a matrix rendered from stored reports reads as one rendered from a
    run; as stored when it is not a case of that invariant."""
    import ragward.conformance.invariants  # noqa: F401  (registers the invariants)
    from ragward.conformance.invariant import REGISTRY
    from ragward.conformance.records import case_data, from_data

    invariant = REGISTRY.get(invariant_id)
    if case is None or invariant is None:
        return case
    try:
        return case_data(from_data(invariant.case_type, case))
    except (TypeError, ValueError):
        return case


def statuses(columns: Sequence[Column]) -> dict[str, dict[str, str]]:
    """``{column label: {invariant id: status}}``: what the golden file records."""
    return {column.label: {v.id: v.status for v in column.report.verdicts} for column in columns}


def render(columns: Sequence[Column], profile: str) -> tuple[str, dict[str, Any]]:
    """The matrix as markdown and as JSON-ready data."""
    ids = [v.id for v in columns[0].report.verdicts]
    titles = {v.id: v.title for v in columns[0].report.verdicts}
    table_rows = []
    for invariant_id in ids:
        row = [f"{invariant_id}"]
        for column in columns:
            verdict = next(v for v in column.report.verdicts if v.id == invariant_id)
            row.append(_MARK[verdict.status])
        table_rows.append(row)
    tallies = []
    for column in columns:
        counts = column.report.counts()
        tallies.append(f"{counts['pass']}/{counts['fail']}/{counts['error']}/{counts['n/a']}")
    table_rows.append(["pass/fail/error/n/a", *tallies])
    table_rows.append(["seconds", *(f"{c.seconds:.0f}" for c in columns)])
    headers = ["invariant", *(c.label for c in columns)]
    lines = [
        f"Verdicts of the conformance kit ({profile} profile) on the reference and on each "
        "engine configuration (`ragward engines` lists them; `--impl ragward.engines.<engine>:"
        "<configuration>`).",
        "",
        tabulate(table_rows, headers=headers, tablefmt="github", disable_numparse=True),
        "",
    ]
    failures: dict[str, dict[str, dict[str, Any]]] = {}
    notes = []
    for column in columns:
        for verdict in column.report.verdicts:
            if verdict.status not in ("fail", "error"):
                continue
            entry = {
                "title": titles[verdict.id],
                "status": verdict.status,
                "reason": verdict.reason,
                "counterexample": summarize(verdict.counterexample)
                if verdict.counterexample is not None
                else "",
                "replay": verdict.replay,
            }
            failures.setdefault(column.label, {})[verdict.id] = entry
            case = f" [{entry['counterexample']}]" if entry["counterexample"] else ""
            notes.append(
                f"- **{column.label} {verdict.id}** ({verdict.status}): "
                f"{_cell(verdict.reason)}{_cell(case)}"
            )
    if notes:
        lines += [
            "Failures (reason and counterexample; each replays with the command in "
            "the configuration's JSON report):",
            "",
            *notes,
            "",
        ]
    data = {
        "profile": profile,
        "columns": [
            {
                "label": c.label,
                "impl": impl_of(c.configuration),
                "summary": c.configuration.summary,
                "seconds": round(c.seconds, 1),
                "counts": c.report.counts(),
            }
            for c in columns
        ],
        "verdicts": statuses(columns),
        "failures": failures,
    }
    return "\n".join(lines), data


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def write_matrix(
    configurations: Sequence[Configuration],
    out: Path,
    *,
    profile: str = "ci",
    select: Sequence[str] | None = None,
    stream: TextIO | None = None,
    shrink_budget: float | None = None,
) -> list[Column]:
    """Run every configuration, write each report and the matrix into ``out``; progress
    on ``stream`` (default: ``sys.stderr`` as it is when called)."""
    if not configurations:
        raise InvalidArgument("no engine configuration to run (ragward engines lists them)")
    stream = sys.stderr if stream is None else stream
    out.mkdir(parents=True, exist_ok=True)
    columns = []
    for configuration in configurations:
        column = run_column(
            configuration,
            out,
            profile=profile,
            select=select,
            progress=lambda line: print(line, file=stream, flush=True),
            shrink_budget=shrink_budget,
        )
        counts = column.report.counts()
        print(
            f"{column.label}: {counts['pass']} pass, {counts['fail']} fail, "
            f"{counts['error']} error, {counts['n/a']} n/a in {column.seconds:.0f} s",
            file=stream,
            flush=True,
        )
        columns.append(column)
    return write_stored(columns, out, profile)


def write_stored(columns: Sequence[Column], out: Path, profile: str) -> list[Column]:
    """Record the wall time of ``columns`` (just run) in ``out/timings.json`` and write
    ``matrix.md`` and ``matrix.json`` from them and every other column stored in ``out``:
    one run may refresh a few columns."""
    timings_file = out / "timings.json"
    timings = json.loads(timings_file.read_text("utf-8")) if timings_file.exists() else {}
    timings.update({column.label: round(column.seconds, 1) for column in columns})
    write_atomic(timings_file, json.dumps(timings, indent=2, sort_keys=True) + "\n")
    from ragward.engines import configurations as known

    ran = {column.label: column for column in columns}
    every = [REFERENCE, *(c for c in known() if c.in_matrix)]
    stored = [
        ran.get(label(c)) or load_column(c, out, timings.get(label(c), 0.0))
        for c in every
        if label(c) in ran or (out / f"{label(c)}.json").exists()
    ]
    markdown, data = render(stored, profile)
    write_atomic(out / "matrix.md", markdown)
    write_atomic(
        out / "matrix.json", json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    )
    return stored


# -- stability: the same columns run again, failures counted -------------------------------

#: ``{column label: {invariant id: {status: runs with it}}}``
Tally = dict[str, dict[str, dict[str, int]]]


def tally(runs: Sequence[Sequence[Column]]) -> Tally:
    """How often each column gave each verdict over ``runs`` (each run: some columns)."""
    out: Tally = {}
    for columns in runs:
        for column in columns:
            cells = out.setdefault(column.label, {})
            for verdict in column.report.verdicts:
                counts = cells.setdefault(verdict.id, {})
                counts[verdict.status] = counts.get(verdict.status, 0) + 1
    return out


def render_stability(counts: Tally, repeat: int, profile: str) -> tuple[str, dict[str, Any]]:
    """The tally as markdown (the cells that varied first, then the steady ones per
    column) and JSON-ready data: per column x invariant, failures (fail or error) of N."""
    cells: dict[str, dict[str, dict[str, Any]]] = {}
    varied = []
    steady = []
    for column in sorted(counts):
        for invariant in sorted(counts[column]):
            seen = counts[column][invariant]
            runs = sum(seen.values())
            failed = seen.get("fail", 0) + seen.get("error", 0)
            stable = len(seen) == 1
            cells.setdefault(column, {})[invariant] = {
                "runs": runs,
                "failures": failed,
                "statuses": dict(sorted(seen.items())),
                "stable": stable,
            }
            if not stable:
                detail = ", ".join(f"{s} {n}" for s, n in sorted(seen.items()))
                varied.append([column, invariant, f"{failed}/{runs}", detail])
        fails = [i for i, c in cells[column].items() if c["stable"] and c["failures"]]
        steady.append([column, str(len(cells[column])), ", ".join(fails) or "-"])
    lines = [
        f"Stability of the verdict matrix ({profile} profile): each column run {repeat} "
        "times (`ragward engines --matrix --repeat N`, without shrinking), failures "
        "(fail or error) out of the runs.",
        "",
        "Cells whose verdict varied:",
        "",
        tabulate(
            varied,
            headers=["column", "invariant", "failures", "verdicts"],
            tablefmt="github",
            disable_numparse=True,
        )
        if varied
        else "(none)",
        "",
        "Per column: invariants run, and those that failed in every run:",
        "",
        tabulate(
            steady,
            headers=["column", "invariants", "failed every run"],
            tablefmt="github",
            disable_numparse=True,
        ),
        "",
    ]
    data = {"profile": profile, "repeat": repeat, "cells": cells}
    return "\n".join(lines), data


def write_stability(
    configurations: Sequence[Configuration],
    out: Path,
    repeat: int,
    *,
    profile: str = "ci",
    select: Sequence[str] | None = None,
    stream: TextIO | None = None,
) -> Tally:
    """Run every configuration ``repeat`` times (no shrinking), keep each run's report in
    ``out/repeats/<label>.<run>.json`` and write ``stability.md`` and ``stability.json``;
    progress on ``stream`` (default: ``sys.stderr`` as it is when called)."""
    if not configurations:
        raise InvalidArgument("no engine configuration to run (ragward engines lists them)")
    stream = sys.stderr if stream is None else stream
    if repeat < 1:
        raise InvalidArgument(f"--repeat must be at least 1, got {repeat}")
    runs: list[list[Column]] = []
    for run in range(1, repeat + 1):
        where = out / "repeats" / f"run-{run}"
        where.mkdir(parents=True, exist_ok=True)
        columns = []
        for configuration in configurations:
            column = run_column(
                configuration,
                where,
                profile=profile,
                select=select,
                progress=_prefixed(f"run {run}/{repeat}: ", stream),
                shrink=False,
            )
            failed = [v.id for v in column.report.verdicts if v.status in ("fail", "error")]
            print(
                f"run {run}/{repeat}: {column.label} in {column.seconds:.0f} s, "
                f"failing: {', '.join(failed) or 'none'}",
                file=stream,
                flush=True,
            )
            columns.append(column)
        runs.append(columns)
    counts = tally(runs)
    markdown, data = render_stability(counts, repeat, profile)
    write_atomic(out / "stability.md", markdown)
    write_atomic(out / "stability.json", json.dumps(data, indent=2, sort_keys=True) + "\n")
    return counts


def _prefixed(prefix: str, stream: TextIO) -> Callable[[str], None]:
    def show(line: str) -> None:
        print(prefix + line, file=stream, flush=True)

    return show
