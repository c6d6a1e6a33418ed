"""A partial update of the verdict matrix: some invariants run again, the others kept.

``ragward engines --matrix --select ISO-006`` runs only the selected invariants on each
column and puts their verdicts into the column's stored report in place of the old ones
(adding those it lacks: a new invariant), keeps every other verdict as its last run left
it, and writes the matrix from the stored reports. That is how a new or changed invariant
gets its row without the whole kit run again on every engine. The kept verdicts are only
as fresh as the run that made them: after a change to an adapter or to other invariants,
run the whole kit (``ragward engines --matrix``). An updated report records no
implementation identity (its verdicts come from two runs).
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TextIO

from ragward.conformance.report import to_json
from ragward.conformance.runner import Report
from ragward.engines import Configuration
from ragward.engines.matrix import Column, label, load_column, run_column, write_stored
from ragward.errors import InvalidArgument
from ragward.outputs import write_atomic

__all__ = ["update_matrix"]


def update_matrix(
    configurations: Sequence[Configuration],
    out: Path,
    select: Sequence[str],
    *,
    profile: str = "ci",
    stream: TextIO | None = None,
    shrink_budget: float | None = None,
) -> list[Column]:
    """Run ``select`` on each configuration, replace those verdicts in its report stored
    in ``out`` (every other verdict kept), then write the matrix; progress on ``stream``
    (default: ``sys.stderr`` as it is when called)."""
    import ragward.conformance.invariants  # noqa: F401  (registers the invariants)
    from ragward.conformance.invariant import LEVELS

    if not configurations:
        raise InvalidArgument("no engine configuration to run (ragward engines lists them)")
    stream = sys.stderr if stream is None else stream
    olds = {}
    for configuration in configurations:
        name = label(configuration)
        if not (out / f"{name}.json").exists():
            raise InvalidArgument(
                f"--select: {out / f'{name}.json'} does not exist; run the whole kit on "
                f"{name} first (ragward engines --matrix --only {name})"
            )
        olds[name] = old = load_column(configuration, out, 0.0)
        if old.report.profile != profile:
            raise InvalidArgument(
                f"--select: {name}'s stored report is of the {old.report.profile} profile, "
                f"not {profile}; run the whole kit instead"
            )
    updated = []
    for configuration in configurations:
        name = label(configuration)
        with tempfile.TemporaryDirectory() as scratch:
            fresh = run_column(
                configuration,
                Path(scratch),
                profile=profile,
                select=select,
                progress=lambda line: print(line, file=stream, flush=True),
                shrink_budget=shrink_budget,
            )
            # Replay hints name the stored report, not the scratch copy.
            there, here = (Path(scratch) / f"{name}.json").as_posix(), (out / f"{name}.json")
            verdicts = {
                v.id: replace(v, replay=v.replay.replace(there, here.as_posix()))
                for v in fresh.report.verdicts
            }
        old = olds[name]
        kept = {v.id: v for v in old.report.verdicts if v.id not in verdicts}
        merged = sorted({**kept, **verdicts}.values(), key=lambda v: (LEVELS.index(v.level), v.id))
        report = Report(old.report.implementation, profile, tuple(merged))
        write_atomic(here, to_json(report))
        # The column's time grows by a new invariant's, not again by one run again.
        new = any(i not in {v.id for v in old.report.verdicts} for i in verdicts)
        seconds = _stored_seconds(out, name) + (fresh.seconds if new else 0.0)
        print(
            f"{name}: {', '.join(f'{v.id} {v.status}' for v in verdicts.values())} "
            f"in {fresh.seconds:.0f} s",
            file=stream,
            flush=True,
        )
        updated.append(Column(configuration, report, seconds))
    return write_stored(updated, out, profile)


def _stored_seconds(out: Path, name: str) -> float:
    timings = out / "timings.json"
    if not timings.exists():
        return 0.0
    return float(json.loads(timings.read_text("utf-8")).get(name, 0.0))
