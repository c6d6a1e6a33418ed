"""``ragward conform``: run the conformance kit from the command line, or replay a case.

    ragward conform                                  # the reference, ci profile
    ragward conform --impl mypkg.adapter:factory --json reports/conform.json
    ragward conform --external "./my-driver --stdio" --profile thorough
    ragward conform --impl mypkg.adapter:factory --replay reports/conform.json --invariant ID

Exit status: 0 when every applicable invariant holds, 1 when one fails (or, replaying,
when the case still fails), 2 for a usage or input error, printed as one line (the table
is :mod:`ragward.exits`'s). ``--json`` is checked before the first invariant runs.
"""

from __future__ import annotations

import argparse
import contextlib
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragward.cli.options import add_implementation, open_implementation, positive_seconds
from ragward.errors import InvalidArgument
from ragward.outputs import check_file, write_atomic
from ragward.parsing import Unparsable, parse_json

if TYPE_CHECKING:
    from ragward.conformance.contract import Factory
    from ragward.conformance.runner import Report, Step

__all__ = ["add_conform_parser", "run_conform"]


def add_conform_parser(commands: Any) -> None:
    """Add the ``conform`` subcommand to the ``ragward`` parser's subcommands."""
    conform = commands.add_parser(
        "conform",
        help="check an implementation against the conformance invariants",
        description="Run the conformance kit against an implementation (default: the "
        "reference) and print a verdict per invariant. Exit 0 only when every applicable "
        "invariant holds.",
    )
    add_implementation(
        conform,
        judged="fresh RetrievalSystem instances",
        external="validate a peer speaking the JSON-lines wire protocol, started as CMD",
    )
    conform.add_argument(
        "--profile",
        choices=("ci", "thorough"),
        default="ci",
        help="ci (fast, the default) or thorough (10x the examples per invariant)",
    )
    conform.add_argument("--select", metavar="ID,...", help="run only these invariants")
    conform.add_argument(
        "--json", metavar="FILE", type=Path, help="write the JSON report (its folder must exist)"
    )
    conform.add_argument(
        "--call-timeout",
        metavar="SECONDS",
        type=positive_seconds,
        help="time limit of each call into the implementation: a call over it is an error "
        "verdict, never a hang (default: 60 in-process, 10 per wire call)",
    )
    conform.add_argument(
        "--shrink-budget",
        metavar="SECONDS",
        type=positive_seconds,
        help="seconds spent shrinking each failing invariant's counterexample, after which "
        "the smallest failing case so far is minimised and reported (default: 2 shrink "
        "steps per example of the profile, 50 for ci, 500 for thorough, never seconds)",
    )
    conform.add_argument(
        "--replay",
        metavar="FILE",
        type=Path,
        help="re-run a stored counterexample (a report, or one invariant's entry of it)",
    )
    conform.add_argument(
        "--invariant", metavar="ID", help="with --replay on a report: which failure"
    )
    conform.set_defaults(run=run_conform)


def _call_timeout(args: argparse.Namespace) -> float:
    from ragward.conformance.guard import DEFAULT_CALL_TIMEOUT

    return DEFAULT_CALL_TIMEOUT if args.call_timeout is None else float(args.call_timeout)


def run_conform(args: argparse.Namespace) -> int:
    """The ``conform`` subcommand; a :class:`~ragward.errors.RagwardError` means exit 2."""
    if args.invariant and args.replay is None:
        raise InvalidArgument("--invariant goes with --replay (to run some, use --select)")
    if args.replay is not None and (args.select or args.json):
        raise InvalidArgument("--replay runs one stored case; it takes no --select or --json")
    with contextlib.ExitStack() as stack:
        factory, name, origin = _factory(args, stack)
        if args.replay is not None:
            return _replay(args.replay, args.invariant, factory, name, origin, _call_timeout(args))
        return _conform(args, factory, name, origin)


def _conform(args: argparse.Namespace, factory: Factory, name: str, origin: str) -> int:
    chosen = _chosen(args.select)
    if args.json is not None:
        check_file(args.json, "--json")
    report = _run(
        factory,
        name,
        args.profile,
        None if args.select is None else chosen,  # the report says what it was limited to
        _replay_hint(_with_timeout(origin, args.call_timeout), args.profile, args.json),
        _call_timeout(args),
        args.shrink_budget,
    )
    if args.json is not None:
        write_atomic(args.json, _to_json(report))
    _print_report(report)
    return 0 if report.passed else 1


def _factory(args: argparse.Namespace, stack: contextlib.ExitStack) -> tuple[Factory, str, str]:
    """The factory, its display name, and the option that selects it again."""
    chosen = open_implementation(args, stack, args.call_timeout)
    return chosen.factory, chosen.spec, chosen.origin


def _chosen(select: str | None) -> list[str]:
    """Invariant ids to run, in report order (level, then id)."""
    import ragward.conformance.invariants  # noqa: F401  (registers the invariants)
    from ragward.conformance.invariant import LEVELS, REGISTRY

    ordered = sorted(REGISTRY.values(), key=lambda inv: (LEVELS.index(inv.level), inv.id))
    if select is None:
        return [inv.id for inv in ordered]
    wanted = {part.strip() for part in select.split(",") if part.strip()}
    unknown = sorted(wanted - set(REGISTRY))
    if not wanted or unknown:
        raise InvalidArgument(
            f"--select: unknown invariant id(s) {', '.join(unknown) or '(none given)'}; "
            f"known: {', '.join(inv.id for inv in ordered) or '(none registered)'}"
        )
    return [inv.id for inv in ordered if inv.id in wanted]


def _with_timeout(origin: str, call_timeout: float | None) -> str:
    """The options that select the implementation again, with the call time limit the run
    had (a replay under the default limit may time out where the run did not, or not
    time out where it did)."""
    if call_timeout is None:
        return origin
    return f"{origin} --call-timeout {float(call_timeout)!r}".strip()


def _replay_hint(origin: str, profile: str, json_path: Path | None) -> str:
    base = "ragward conform" + (f" {origin}" if origin else "")
    base = base.replace("{", "{{").replace("}", "}}")
    if json_path is None:
        # Each invariant has a fixed seed, so re-running it finds the same case.
        return base + (f" --profile {profile}" if profile != "ci" else "") + " --select {id}"
    path = shlex.quote(str(json_path)).replace("{", "{{").replace("}", "}}")
    return f"{base} --replay {path} --invariant {{id}}"


def _run(
    factory: Factory,
    name: str,
    profile: str,
    chosen: list[str] | None,
    hint: str,
    call_timeout: float,
    shrink_budget: float | None = None,
) -> Report:
    """:func:`ragward.conform` on ``chosen`` (None: every invariant), showing progress on
    stderr."""
    from ragward.api import conform

    show = _ProgressLine(live=sys.stderr.isatty())
    try:
        return conform(
            factory,
            profile=profile,
            select=chosen,
            name=name,
            replay_hint=hint,
            call_timeout=call_timeout,
            shrink_budget=shrink_budget,
            progress=show,
        )
    finally:
        show.close()


class _ProgressLine:
    """A line that rewrites itself on a terminal; one line per ended invariant elsewhere
    (a CI log)."""

    def __init__(self, live: bool) -> None:
        self.live = live

    def __call__(self, step: Step) -> None:
        where = f"conform [{step.number}/{step.total}] {step.invariant_id}"
        if self.live and step.verdict is None:
            print(f"\r\033[K{where}", end="", file=sys.stderr)
        elif not self.live and step.verdict is not None:
            print(
                f"{where} {step.verdict.status} "
                f"({step.verdict.examples} examples, {step.seconds:.1f} s)",
                file=sys.stderr,
                flush=True,
            )

    def close(self) -> None:
        if self.live:
            print("\r\033[K", end="", file=sys.stderr, flush=True)


def _to_json(report: Report) -> str:
    from ragward.conformance.report import to_json

    return to_json(report)


def _print_report(report: Report) -> None:
    from ragward.conformance.report import format_counterexample, render_table

    print(render_table(report))
    failures = [v for v in report.verdicts if v.status in ("fail", "error")]
    if failures:
        print("\nCounterexamples\n")
        print("\n\n".join(format_counterexample(v) for v in failures))


def _replay(
    path: Path, wanted: str | None, factory: Factory, name: str, origin: str, call_timeout: float
) -> int:
    from ragward.conformance.guard import CallTimeout, guarded
    from ragward.conformance.invariant import REGISTRY, Violation
    from ragward.conformance.loading import check_system, one_line
    from ragward.conformance.records import from_data, to_data
    from ragward.conformance.report import format_counterexample
    from ragward.conformance.runner import Verdict, replay, said

    entry = _stored_case(path, wanted)
    invariant_id = entry["id"]
    invariant = REGISTRY[invariant_id]
    try:
        case = from_data(invariant.case_type, entry["counterexample"])
    except TypeError as error:
        raise InvalidArgument(f"{path}: counterexample of {invariant_id}: {error}") from None
    check_system(guarded(factory, call_timeout), name)
    try:
        replay(factory, invariant_id, entry["counterexample"], call_timeout=call_timeout)
    except Violation as violation:
        status, (reason, detail) = "fail", said(violation)
    except CallTimeout as error:
        status, reason, detail = "error", str(error), ()
    except Exception as error:  # the implementation crashed on the case: that is a finding
        status, reason, detail = "error", one_line(error), ()
    else:
        print(f"{invariant_id} holds for {name} on the stored counterexample from {path}")
        return 0
    verdict = Verdict(
        invariant.id,
        invariant.level,
        invariant.title,
        status,
        1,
        reason,
        to_data(case),  # in the case's field order, not the file's sorted one
        " ".join(
            [
                "ragward conform",
                *([origin] if origin else []),
                "--replay",
                shlex.quote(str(path)),
                "--invariant",
                invariant_id,
            ]
        ),
        detail=detail,
    )
    print(f"{invariant_id} still fails for {name}:\n")
    print(format_counterexample(verdict))
    return 1


def _stored_case(path: Path, wanted: str | None) -> dict[str, Any]:
    """The per-invariant entry to replay, from a whole report or from one entry."""
    import ragward.conformance.invariants  # noqa: F401  (registers the invariants)
    from ragward.conformance.invariant import REGISTRY

    try:
        data = parse_json(path.read_bytes())
    except OSError as error:
        raise InvalidArgument(f"--replay {path}: {error.strerror or error}") from None
    except Unparsable as error:
        where = f"{path} line {error.line}" if error.line is not None else str(path)
        raise InvalidArgument(f"--replay {where}: not JSON ({error})") from None
    if isinstance(data, dict) and isinstance(data.get("invariants"), list):
        entries = [e for e in data["invariants"] if isinstance(e, dict)]
        if wanted is None:
            failing = [e for e in entries if e.get("verdict") in ("fail", "error")]
            if len(failing) != 1:
                ids = ", ".join(str(e.get("id")) for e in failing) or "none"
                raise InvalidArgument(
                    f"--replay {path}: the report has {len(failing)} failures ({ids}); "
                    "name one with --invariant ID"
                )
            entry = failing[0]
        else:
            found = [e for e in entries if e.get("id") == wanted]
            if not found:
                raise InvalidArgument(f"--replay {path}: the report has no invariant {wanted}")
            entry = found[0]
    elif isinstance(data, dict) and "id" in data and "counterexample" in data:
        entry = data
        if wanted is not None and wanted != data["id"]:
            raise InvalidArgument(f"--replay {path} holds {data['id']}, not {wanted}")
    else:
        raise InvalidArgument(
            f"--replay {path}: not a ragward conform report nor one invariant's entry of it"
        )
    if entry.get("id") not in REGISTRY:
        raise InvalidArgument(f"--replay {path}: unknown invariant id {entry.get('id')!r}")
    if entry.get("counterexample") is None:
        raise InvalidArgument(
            f"--replay {path}: {entry['id']} has no stored counterexample "
            f"(verdict {entry.get('verdict', '?')}); re-run it with --select {entry['id']}"
        )
    return entry
