"""``ragward tune``: choose settings on one split, report them on another.

    ragward tune                                  # bundled set: tune on train, report on test
    ragward tune --objective recall_10 --grounding-objective f1

How the choices are made: :mod:`ragward.evals.tune`.
"""

from __future__ import annotations

import argparse
import contextlib
from pathlib import Path
from typing import Any

from ragward.cli.evaluate import add_dataset_options
from ragward.errors import InputError
from ragward.evals.measures import measure_name
from ragward.evals.tune import GROUNDING_OBJECTIVES, TUNE_REPORT, tune_outcome

__all__ = ["add_tune_parser", "run_tune"]


def add_tune_parser(commands: Any) -> None:
    """Add the ``tune`` subcommand."""
    parser = commands.add_parser(
        "tune",
        help="pick rrf_k and min_overlap on one split, report them on another",
        description="Run the grid on two splits; choose the retrieval setting (rrf_k) by "
        "--objective and min_overlap by --grounding-objective on --tune-split; report the "
        "choices on --report-split.",
    )
    add_dataset_options(parser)
    parser.add_argument(
        "--tune-split",
        default="train",
        metavar="SPLIT",
        help="split the choices are made on (default train)",
    )
    parser.add_argument(
        "--report-split",
        default="test",
        metavar="SPLIT",
        help="split the choices are reported on (default test)",
    )
    parser.add_argument(
        "--objective",
        metavar="MEASURE",
        help="ranking measure to maximise (default: the grid's first measure)",
    )
    parser.add_argument(
        "--grounding-objective",
        default="accuracy",
        choices=GROUNDING_OBJECTIVES,
        help="grounding measure to maximise (default accuracy: unlike f1, it counts every "
        "fabrication waved through)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        help="report directory: new, empty or an earlier tune report, which is replaced whole "
        "(default: reports/<dataset name>-tune)",
    )
    parser.set_defaults(run=run_tune)


def run_tune(args: argparse.Namespace) -> int:
    with contextlib.ExitStack() as stack:
        return _tune(args, stack)


def _tune(args: argparse.Namespace, stack: contextlib.ExitStack) -> int:
    from ragward.cli.evaluate import _grid_name, _progress_stream, prepare, said_fitted, size_limits
    from ragward.evals.api import check_split, run_fitted
    from ragward.outputs import check_directory

    if args.tune_split == args.report_split:
        raise InputError("--tune-split and --report-split must differ")
    if args.out is not None:  # before the dataset loads, which can take minutes
        check_directory(args.out, "--out", TUNE_REPORT)
    dataset, grid, factory, name = prepare(args, stack)
    for split in (args.tune_split, args.report_split):
        check_split(dataset, split)
    objective = measure_name(args.objective) if args.objective else grid.measures[0]
    if objective not in grid.measures:
        raise InputError(
            f"--objective {objective!r} is not a measure of the grid ({', '.join(grid.measures)})"
        )
    out = args.out if args.out is not None else Path("reports") / f"{grid.name}-tune"
    check_directory(out, "--out", TUNE_REPORT)
    run = run_fitted(
        dataset,
        grid,
        factory,
        splits=(args.tune_split, args.report_split),
        name=name,
        reuse=not args.no_reuse,
        progress=_progress_stream(args),
        limits=size_limits(args),
        grid_name=_grid_name(args),
        on_fit=said_fitted(name, "tune"),
    )
    tuning = tune_outcome(
        run.outcome,
        dataset,
        run.grid,
        name,
        tune_split=args.tune_split,
        report_split=args.report_split,
        objective=objective,
        grounding_objective=args.grounding_objective,
    )
    tuning.write(out)
    print(tuning.text)
    print(f"\nwrote {out / 'tune.json'}, {out / 'tune.md'}")
    return 0
