"""``ragward engines``: the engine configurations, what each needs, and the verdict matrix.

ragward engines                                 # list them, installed or not
ragward engines --matrix --out reports/engines  # the full kit on each installed one
ragward engines --matrix --repeat 5 --only qdrant-edge --select DET-001,DET-003
ragward engines --matrix --select ISO-006       # those invariants only, the rest kept
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from tabulate import tabulate

from ragward.errors import InvalidArgument
from ragward.outputs import check_directory

__all__ = ["add_engines_parser"]


def add_engines_parser(commands: Any) -> None:
    """Add the ``engines`` subcommand to the ``ragward`` parser's subcommands."""
    engines = commands.add_parser(
        "engines",
        help="list the engine configurations; --matrix runs the kit on each",
        description="List every engine configuration ragward can check (as --impl strings), "
        "with what each needs installed. With --matrix, run the conformance kit on the "
        "reference and on every installed configuration and write the verdict matrix.",
    )
    engines.add_argument(
        "--matrix", action="store_true", help="run the kit on each and write the matrix"
    )
    engines.add_argument(
        "--out",
        type=Path,
        default=Path("reports/engines"),
        metavar="DIR",
        help="where --matrix writes (default: reports/engines)",
    )
    engines.add_argument(
        "--only",
        metavar="LABEL,...",
        help="with --matrix: only these columns (reference, qdrant-edge, ...)",
    )
    engines.add_argument(
        "--profile", choices=("ci", "thorough"), default="ci", help="kit profile (default ci)"
    )
    engines.add_argument(
        "--shrink-budget",
        type=float,
        default=None,
        metavar="SECONDS",
        help="with --matrix: seconds spent shrinking each failure (default: the profile's "
        "budget, 2 shrink steps per example)",
    )
    engines.add_argument(
        "--select",
        metavar="ID,...",
        help="with --matrix: run only these invariants (DET-001,LIFE-002,...) and put their "
        "verdicts into the stored reports, keeping the others; with --repeat: only these",
    )
    engines.add_argument(
        "--repeat",
        type=int,
        metavar="N",
        help="with --matrix: run each column N times (no shrinking) and write "
        "stability.md and stability.json (failures out of N per cell) instead of the matrix",
    )
    engines.set_defaults(run=run_engines)


def run_engines(args: argparse.Namespace) -> int:
    from ragward.engines import configurations
    from ragward.engines.matrix import REFERENCE, label, write_matrix, write_stability

    found = configurations()
    if not args.matrix:
        for flag in ("only", "select", "repeat"):
            if getattr(args, flag) is not None:
                raise InvalidArgument(f"--{flag} goes with --matrix")
        rows = []
        for c in found:
            missing = c.missing()
            state = f"missing {', '.join(missing)}" if missing else "installed"
            needs = f"ragward[{c.extra}]" + (f"; {c.needs}" if c.needs else "")
            rows.append((c.impl, state, needs, c.summary))
        print(tabulate(rows, headers=("--impl", "state", "needs", "what it is")))
        return 0
    columns = [REFERENCE, *(c for c in found if c.in_matrix)]
    if args.only:
        wanted = [part.strip() for part in args.only.split(",") if part.strip()]
        known = {label(c): c for c in columns}
        unknown = [w for w in wanted if w not in known]
        if unknown or not wanted:
            raise InvalidArgument(
                f"--only {args.only!r}: unknown column(s) {', '.join(unknown) or '(none)'}; "
                f"known: {', '.join(known)}"
            )
        columns = [known[w] for w in wanted]
    absent = [c for c in columns if c.missing()]
    if absent:
        first = absent[0]
        raise InvalidArgument(
            f"{first.impl} needs {', '.join(first.missing())}: pip install "
            f"'ragward[{first.extra}]' (or leave it out with --only)"
        )
    check_directory(args.out, "--out")  # before minutes of work, not after
    if args.shrink_budget is not None and not args.shrink_budget > 0:
        raise InvalidArgument(f"--shrink-budget must be positive, got {args.shrink_budget}")
    select = _invariants(args.select) if args.select is not None else None
    if args.repeat is not None:
        write_stability(columns, args.out, args.repeat, profile=args.profile, select=select)
        print(f"wrote {args.out / 'stability.md'} and stability.json")
        return 0
    if select is not None:
        from ragward.engines.matrix_update import update_matrix

        update_matrix(
            columns, args.out, select, profile=args.profile, shrink_budget=args.shrink_budget
        )
        print(f"updated {', '.join(select)} in {args.out / 'matrix.md'} and the reports")
        return 0
    write_matrix(
        columns,
        args.out,
        profile=args.profile,
        select=select,
        shrink_budget=args.shrink_budget,
    )
    print(f"wrote {args.out / 'matrix.md'} and one report per configuration")
    return 0


def _invariants(text: str) -> list[str]:
    import ragward.conformance.invariants  # noqa: F401  (registers the invariants)
    from ragward.conformance.invariant import REGISTRY

    wanted = [part.strip() for part in text.split(",") if part.strip()]
    unknown = [w for w in wanted if w not in REGISTRY]
    if unknown or not wanted:
        raise InvalidArgument(
            f"--select {text!r}: unknown invariant(s) {', '.join(unknown) or '(none)'}"
        )
    return wanted
