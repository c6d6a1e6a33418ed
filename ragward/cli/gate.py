"""``ragward gate``: fail CI on a significant quality regression, a leak or a broken invariant.

    ragward gate --baseline reports/baseline --current out --conformance out/conform.json

Exit status: 0 pass; 1 a significant regression of a gated measure, a gated setting,
measure or question missing from the current run, a leak, a failed or errored invariant,
or a partial conformance report; 2 unusable input, one line (runs of different data,
a conformance report of another implementation, a value that is no measure's, a gated
family that could never fail). Every input is read and checked before the test runs.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ragward.errors import InputError
from ragward.evals import gate
from ragward.evals.measures import measure_name
from ragward.exits import SUCCESS, VERDICT

__all__ = ["add_gate_parser", "run_gate"]

#: More sign patterns than this buy no verdict a user could tell apart, only minutes.
_MAX_TRIALS = 10_000_000


def add_gate_parser(commands: Any) -> None:
    """Add the ``gate`` subcommand."""
    parser = commands.add_parser(
        "gate",
        help="fail on a significant regression against a baseline, a leak or a failed invariant",
        description="Compare an eval run with a baseline run of the same data (Westfall-Young "
        "max-T step-down test over shared per-query sign flips); exit 1 on a significant "
        "regression, a missing setting or question, a leak or a failed invariant.",
    )
    run = parser.add_argument
    run(
        "--baseline",
        required=True,
        type=Path,
        metavar="DIR|FILE",
        help="the baseline eval report (its directory or its results.json)",
    )
    run(
        "--current",
        required=True,
        type=Path,
        metavar="DIR|FILE",
        help="the eval report to judge (its directory or its results.json)",
    )
    run("--alpha", type=float, default=0.05, help="family-wise error rate (default 0.05)")
    run(
        "--tolerance",
        action="append",
        default=[],
        metavar="[MEASURE=]DROP",
        help="drop allowed before a significant one counts (default 0); repeatable",
    )
    run("--trials", type=int, default=10_000, help="random sign patterns (default 10000)")
    run("--seed", type=int, default=0, help="seed of the sign patterns (default 0)")
    run(
        "--setting",
        action="append",
        default=[],
        metavar="all|best|ID",
        help="what is gated: "
        "every setting (default), the baseline's best on the first gated measure, or an id; "
        "repeatable; the rest is reported as exploratory",
    )
    run(
        "--measures",
        action="append",
        default=[],
        metavar="M[,M...]",
        help="the gated measures (default: every measure of the runs); the rest is exploratory",
    )
    run(
        "--allow-missing",
        action="store_true",
        help="report, do not fail on, gated settings, "
        "measures or questions of the baseline the current run lacks",
    )
    run(
        "--allow-data-change",
        action="store_true",
        help="compare runs made from different "
        "corpus, queries, qrels or claims (refused by default)",
    )
    run(
        "--conformance",
        type=Path,
        metavar="FILE.json",
        help="a ragward conform --json report "
        "of the current run's implementation: any fail or error fails the gate",
    )
    run(
        "--allow-partial",
        action="store_true",
        help="accept a conformance report that did not run every invariant of the kit",
    )
    run(
        "--summary",
        type=Path,
        metavar="FILE.md",
        help="where to write the markdown (default: CURRENT/gate.md)",
    )
    parser.set_defaults(run=run_gate)


def run_gate(args: argparse.Namespace) -> int:
    from ragward.api import DataChanged, compare
    from ragward.evals.gate_summary import summary
    from ragward.evals.run_results import load_results
    from ragward.outputs import check_file, write_atomic

    if not 0.0 < args.alpha < 1.0:
        raise InputError(f"--alpha must lie in (0, 1), got {args.alpha}")
    if not 1 <= args.trials <= _MAX_TRIALS:
        raise InputError(f"--trials must lie in [1, {_MAX_TRIALS}], got {args.trials}")
    tolerance, default_tolerance = _tolerance(args.tolerance)
    target = args.summary
    if target is None:
        target = (args.current if args.current.is_dir() else args.current.parent) / "gate.md"
    check_file(target, "--summary")
    baseline = load_results(args.baseline, "baseline")
    current = load_results(args.current, "current")
    _check_tolerated(tolerance, baseline)
    try:
        result = compare(
            baseline,
            current,
            conformance=args.conformance,
            allow_data_change=args.allow_data_change,
            allow_partial=args.allow_partial,
            alpha=args.alpha,
            tolerance=tolerance,
            default_tolerance=default_tolerance,
            trials=args.trials,
            seed=args.seed,
            settings=args.setting,
            measures=[m.strip() for item in args.measures for m in item.split(",") if m.strip()],
            allow_missing=args.allow_missing,
        )
    except DataChanged as changed:
        for line in changed.differences:
            print(f"ragward gate: error: the runs differ in their data: {line}", file=sys.stderr)
        print(
            "ragward gate: error: runs of different data are not compared "
            "(--allow-data-change compares them anyway)",
            file=sys.stderr,
        )
        return 2
    text = summary(result, alpha=args.alpha, baseline=str(args.baseline), current=str(args.current))
    write_atomic(target, text)
    print(text)
    return SUCCESS if result.passed else VERDICT


def _check_tolerated(tolerance: Mapping[str, float], baseline: Mapping[str, Any]) -> None:
    """Refuse a ``--tolerance`` for a measure the runs do not hold: a typo would otherwise
    leave the measure it meant at a tolerance of 0, silently."""
    known = gate.comparable_measures(baseline)
    for measure in tolerance:
        if measure not in known:
            raise InputError(
                f"--tolerance {measure}: not a measure of the runs (they have {', '.join(known)})"
            )


def _tolerance(items: Sequence[str]) -> tuple[dict[str, float], float]:
    """``--tolerance`` values: per measure, and the default for the rest."""
    default = 0.0
    per_measure: dict[str, float] = {}
    for item in items:
        name, equals, value = item.rpartition("=")
        try:
            number = float(value)
        except ValueError:
            raise InputError(f"--tolerance {item!r}: expected [MEASURE=]DROP") from None
        if not 0 <= number < float("inf"):  # NaN too
            raise InputError(f"--tolerance {item!r}: a drop allowed is a number >= 0")
        if not equals:
            default = number
        elif name.startswith("grounding_accuracy@"):
            per_measure[name] = number
        else:
            per_measure[measure_name(name)] = number
    return per_measure, default
