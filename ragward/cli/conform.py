"""``ragward conform``: run the conformance kit from the command line, or replay a case.

    ragward conform                                  # the reference, ci profile
    ragward conform --impl mypkg.adapter:factory --json reports/conform.json
    ragward conform --external "./my-driver --stdio" --profile thorough
    ragward conform --impl mypkg.adapter:factory --replay reports/conform.json --invariant ID
    ragward conform --impl mypkg.adapter:factory --select ISO-002 --emit-test tests/test_iso.py

Exit status: 0 when every applicable invariant holds, 1 when one fails (or, replaying,
when the case still fails), 2 for a usage or input error, printed as one line (the table
is :mod:`ragward.exits`'s). ``--json`` and ``--emit-test`` are checked before the first
invariant runs.
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

if TYPE_CHECKING:
    from ragward.conformance.contract import Factory
    from ragward.conformance.runner import Report, Step, Verdict

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
    conform.add_argument(
        "--emit-test",
        metavar="FILE",
        type=Path,
        help="write a pytest file that replays the failing invariant's counterexample: it "
        "fails on the implementation and passes on the reference (with --select ID, one "
        "id, or with --replay)",
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
    if args.emit_test is not None:
        if args.replay is None and (args.select is None or len(_chosen(args.select)) != 1):
            raise InvalidArgument(
                "--emit-test writes the test of one invariant: give --select ID (one id) "
                "or --replay FILE [--invariant ID]"
            )
        check_file(args.emit_test, "--emit-test")
    with contextlib.ExitStack() as stack:
        factory, name, origin = _factory(args, stack)
        if args.replay is not None:
            from ragward.cli.conform_replay import replay_stored

            return replay_stored(
                args.replay,
                args.invariant,
                (factory, name, origin),
                _call_timeout(args),
                args.emit_test,
                _peer(args),
            )
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
    if args.emit_test is not None:
        _emit(args, report.verdicts[0], name, origin)
    return 0 if report.passed else 1


def _emit(args: argparse.Namespace, verdict: Verdict, name: str, origin: str) -> None:
    """Write ``--emit-test`` for the run's one verdict, or say why there is none."""
    from ragward.cli.conform_replay import emit_command, write_test

    if verdict.status not in ("fail", "error") or verdict.counterexample is None:
        why = "it holds" if verdict.status == "pass" else f"no counterexample ({verdict.status})"
        print(f"\nno test written to {args.emit_test}: {verdict.id}: {why}")
        return
    made_by = emit_command(origin, verdict.id, args.emit_test)
    write_test(args.emit_test, verdict, name, _peer(args), made_by)


def _peer(args: argparse.Namespace) -> list[str] | None:
    """The argv of the ``--external`` peer (None for an ``--impl``)."""
    from ragward.conformance.loading import peer_command

    return None if args.external is None else peer_command(args.external)


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
